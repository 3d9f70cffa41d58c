package assign

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// serverGroup is a group as the KIP-848 assignors see it: compiledGroup's
// interning (topics that exist with partitions, in Java order of names;
// subscriptions as ascending topic indices) plus topic ids, the order in
// which the coordinator's member map iterates, and the partitions the
// members' current targets hold.
//
// Positions number the members in the member map's iteration order
// (Kafka's memberIds()); "pos" below is such a position, "m" a member
// index into Group.Members.
type serverGroup struct {
	cg          *compiledGroup
	ids         []jvm.Uuid // topic index => id
	byPos       []int32    // position => member index
	homogeneous bool

	// owner[pid] is the position of the member the new target gives pid
	// to, -1 while nobody; pids number partitions as cg.start does. It
	// starts as the current targets, which the heterogeneous builder
	// changes in place: every member starts from what it holds.
	owner []int32
	load  []int32 // position => partitions in owner

	// For a homogeneous group owner is nil: held lists the current
	// targets as runs, and the builder sets final, the answer as runs.
	held, final []pidRun

	// heldBy[m] counts the partitions member m's current target holds,
	// leaving out topics outside cg.topics, and heldIn[t] those of topic
	// t that someone holds; both nil when nobody holds anything.
	heldBy, heldIn []int32

	// heldSorted[m], set by readRuns, reports whether member m's Owned
	// lists partitions of cg.topics only, each after the one before in
	// the order of [TopicPartition.Compare]; nil where owner is read.
	heldSorted []bool
}

// anyHeld reports whether some member's current target lists anything,
// even only partitions of topics the assignors drop.
func (sg *serverGroup) anyHeld() bool { return sg.heldBy != nil }

// fill sets every element of s to v, doubling a filled prefix with copy
// (a memmove), which does far fewer instructions per element than a plain
// loop of stores: owner arrays are as long as the group has partitions,
// a million on BenchmarkKIP848/shape=uniform-2000x1000000 (since the
// homogeneous builder moved to runs, only heterogeneous groups fill one).
func fill(s []int32, v int32) {
	if len(s) == 0 {
		return
	}
	s[0] = v
	for n := 1; n < len(s); n *= 2 {
		copy(s[n:], s[:n])
	}
}

// compileServer validates g for the KIP-848 assignors, interns it and
// reads the members' current targets (readHeld). Members subscribed by
// pattern are resolved first, as the coordinator resolves them before it
// runs an assignor.
func compileServer(g Group) (*serverGroup, error) {
	g, err := ResolveTopicRegex(g)
	if err != nil {
		return nil, err
	}
	sg, err := newServerGroup(g)
	if err != nil {
		return nil, err
	}
	if err := sg.readHeld(); err != nil {
		return nil, err
	}
	return sg, nil
}

// newServerGroup validates g for the KIP-848 assignors and interns it,
// reading nothing of the current targets yet.
func newServerGroup(g Group) (*serverGroup, error) {
	cg, err := compile(g, ownedUnread)
	if err != nil {
		return nil, err
	}
	if err := CheckTopicIDs(g); err != nil {
		return nil, err
	}
	sg := &serverGroup{cg: cg}
	sg.ids = make([]jvm.Uuid, len(cg.topics))
	for t, name := range cg.topics {
		id, ok := g.TopicIDs[name]
		if !ok {
			return nil, topicError(name, ErrNoTopicID)
		}
		sg.ids[t] = jvm.Uuid(id)
	}

	// The member map's order is jvm.StringMapOrderDistinct's of the IDs
	// (compile refuses repeated ones), computed from the members without
	// a list of their IDs: Assign needs none.
	members := g.Members
	hashes := make([]int32, len(members))
	for i := range members {
		hashes[i] = jvm.StringHash(members[i].ID)
	}
	order := jvm.Order(0, hashes, func(a, b int) int { return jvm.CompareStrings(members[a].ID, members[b].ID) })
	sg.byPos = make([]int32, len(order))
	for p, m := range order {
		sg.byPos[p] = int32(m)
	}
	sg.homogeneous = sameNameSets(g.Members)
	return sg, nil
}

// readHeld reads the members' current targets the way the group's
// builder reads them: a homogeneous group's as runs (sg.held, see
// uniformHomogeneous), with no owner at all when nobody holds anything;
// a heterogeneous group's into owner. A homogeneous group's targets at
// fault are read into owner too, where readTarget names the fault.
func (sg *serverGroup) readHeld() error {
	if sg.homogeneous {
		if !anyOwned(sg.cg.g.Members) {
			return nil // heldBy stays nil: nobody holds anything
		}
		var ok bool
		if sg.held, ok = sg.readRuns(); ok {
			return nil
		}
		sg.heldIn, sg.heldBy, sg.heldSorted = nil, nil, nil
	}
	if err := sg.readOwner(); err != nil || !sg.homogeneous {
		return err
	}
	return errRunsRefused // readTarget should have named the fault
}

// errRunsRefused is what readHeld returns should readRuns refuse targets
// that readTarget accepts.
var errRunsRefused = fmt.Errorf("%w: targets refused on runs only", ErrPartitionAssignor)

// anyOwned reports whether some member's Owned lists anything.
func anyOwned(members []Member) bool {
	for i := range members {
		if len(members[i].Owned) > 0 {
			return true
		}
	}
	return false
}

// positions returns each member index's position in the member map.
func (sg *serverGroup) positions() []int32 {
	pos := make([]int32, len(sg.byPos))
	for p, m := range sg.byPos {
		pos[m] = int32(p)
	}
	return pos
}

// readOwner reads the members' current targets into owner (readTarget),
// and sets load, heldBy and heldIn.
func (sg *serverGroup) readOwner() error {
	cg := sg.cg
	g := cg.g
	sg.owner = make([]int32, cg.start[len(cg.topics)])
	fill(sg.owner, -1)
	sg.load = make([]int32, len(g.Members))
	if !anyOwned(g.Members) {
		return nil // heldBy stays nil: nobody holds anything
	}
	sg.heldIn = make([]int32, len(cg.topics))
	sg.heldBy = make([]int32, len(g.Members))
	after, _ := cg.goSteps()
	pos := sg.positions()
	for m := range g.Members {
		if err := sg.readTarget(pos[m], int32(m), after); err != nil {
			return err
		}
	}
	return nil
}

// readTarget checks member m's current target and records it in owner,
// heldBy and heldIn. after is cg.goSteps' first result: a target listed in
// sorted order goes from a topic to the next in Go order.
//
// Owned is read a run of one topic at a time: the topic is resolved once
// per run, and claimRun checks and records the run's partitions.
func (sg *serverGroup) readTarget(pos, m int32, after []int32) error {
	cg := sg.cg
	g := cg.g
	mem := &g.Members[m]
	fail := func(tp TopicPartition, partition int32, err error) error {
		return &InputError{Member: mem.ID, Index: int(m), Topic: tp.Topic, Partition: partition, Err: err}
	}
	var (
		t     int32
		known bool // t is a topic of cg.topics
	)
	owned := mem.Owned
	for k := 0; k < len(owned); {
		topic := owned[k].Topic
		var n int32
		exists := true // the topic is in the metadata, with n partitions
		if t, known = cg.topicAfter(after, t, known, topic); known {
			n = cg.numParts[t]
		} else {
			if _, ok := g.TopicIDs[topic]; !ok {
				return fail(owned[k], -1, ErrNoTopicID)
			}
			n, exists = g.Topics[topic]
		}
		if !known {
			// A deleted topic, or one nobody subscribes to: dropped, once
			// its partitions are checked.
			j := runEnd(owned, k)
			for _, tp := range owned[k:j] {
				if tp.Partition < 0 || exists && tp.Partition >= n {
					return fail(tp, tp.Partition, ErrTargetOutOfRange)
				}
			}
			k = j
			continue
		}
		base := cg.start[t]
		from := k
		var bad bool
		k, bad = claimRun(owned, k, sg.owner[base:base+n], pos)
		sg.heldIn[t] += int32(k - from)
		sg.heldBy[m] += int32(k - from)
		if !bad {
			continue
		}
		tp := owned[k]
		switch h := sg.owner[base+max(0, min(tp.Partition, n-1))]; {
		case tp.Partition < 0 || tp.Partition >= n:
			return fail(tp, tp.Partition, ErrTargetOutOfRange)
		case h == pos:
			return fail(tp, tp.Partition, ErrDuplicateOwned)
		default:
			return fail(tp, tp.Partition, fmt.Errorf("%w: also held by %q", ErrTargetConflict, g.Members[sg.byPos[h]].ID))
		}
	}
	return nil
}

// runEnd returns the end of the run of partitions of owned[k]'s topic
// that starts at k.
func runEnd(owned []TopicPartition, k int) int {
	topic := owned[k].Topic
	j := k + 1
	for j < len(owned) && owned[j].Topic == topic {
		j++
	}
	return j
}

// claimRun records that pos holds the partitions of the run of
// owned[k]'s topic that starts at k, whose entries in held are
// topicHeld. It returns the end of the run, or, with bad, the index of
// the first partition the topic does not have or that someone (pos
// included) already holds.
//
// The run is claimed by claimShared, a leaf loop over the entries whose
// topic shares the bytes of the one before, with no call that would
// make it spill its variables; only where the bytes change is the name
// compared. It was chosen on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=leave1,
// whose Owned lists hold a million entries, when the homogeneous builder
// still read targets into owner; it now reads heterogeneous groups'
// targets (BenchmarkKIP848/shape=hetero-1000x2000t/strategy=uniform/churn=leave1)
// and names the fault in a homogeneous group's.
func claimRun(owned []TopicPartition, k int, topicHeld []int32, pos int32) (end int, bad bool) {
	topic := owned[k].Topic
	for k < len(owned) {
		if s := owned[k].Topic; unsafe.StringData(s) != unsafe.StringData(topic) || len(s) != len(topic) {
			if s != topic {
				break
			}
			topic = s // the same name in other bytes: follow them
		}
		n, bad := claimShared(owned[k:], unsafe.StringData(topic), len(topic), topicHeld, pos)
		if k += n; bad {
			return k, true
		}
	}
	return k, false
}

// claimShared claims the leading entries of run whose topic is the name
// of size bytes at data, as claimRun does, and returns how many it
// claimed and whether it stopped at a partition it could not claim. It
// is not inlined: inside claimRun its loop has fewer registers.
//
//go:noinline
func claimShared(run []TopicPartition, data *byte, size int, topicHeld []int32, pos int32) (int, bool) {
	for i := range run {
		tp := &run[i]
		if unsafe.StringData(tp.Topic) != data || len(tp.Topic) != size {
			return i, false
		}
		p := int(tp.Partition)
		if uint(p) >= uint(len(topicHeld)) || topicHeld[p] >= 0 {
			return i, true
		}
		topicHeld[p] = pos
	}
	return len(run), false
}

// sameNameSets reports whether every member names the same set of topic
// names (convention 3: names missing from the metadata count).
func sameNameSets(members []Member) bool {
	if len(members) == 0 {
		return true
	}
	first := members[0].Topics
	var set map[string]bool
	for i := 1; i < len(members); i++ {
		ts := members[i].Topics
		if sameSlice(ts, first) || slices.Equal(ts, first) {
			continue
		}
		if set == nil {
			set = make(map[string]bool, len(first))
			for _, t := range first {
				set[t] = true
			}
		}
		seen := make(map[string]bool, len(ts))
		for _, t := range ts {
			if !set[t] {
				return false
			}
			seen[t] = true
		}
		if len(seen) != len(set) {
			return false
		}
	}
	return true
}

// subscribes reports whether member m subscribes to topic t.
func (sg *serverGroup) subscribes(m, t int32) bool {
	_, ok := slices.BinarySearch(sg.cg.subs[m], t)
	return ok
}

// targetTopics returns member m's current target as a Java
// HashMap<Uuid, Set<Integer>> iterates it (convention 4): the topics in
// the map's order, each with its partitions in its HashSet's order. Topic
// -1 stands for a topic the assignors drop (deleted, or subscribed by
// nobody); its partitions are not listed.
func (sg *serverGroup) targetTopics(m int32) (topics []int32, parts [][]int32) {
	g := sg.cg.g
	mem := &g.Members[m]
	var uuids []jvm.Uuid
	slot := make(map[string]int, 4)
	k, last := -1, "" // the slot of the entry before, and its topic
	for _, tp := range mem.Owned {
		// The map only where the topic changes: every member releases on
		// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform-ranges/churn=join1.
		if k < 0 || tp.Topic != last {
			var ok bool
			if k, ok = slot[tp.Topic]; !ok {
				k = len(topics)
				slot[tp.Topic] = k
				t, known := sg.cg.topicIndex(tp.Topic)
				if !known {
					t = -1
				}
				topics = append(topics, t)
				parts = append(parts, nil)
				uuids = append(uuids, jvm.Uuid(g.TopicIDs[tp.Topic]))
			}
			last = tp.Topic
		}
		if topics[k] >= 0 {
			parts[k] = append(parts[k], tp.Partition)
		}
	}
	order := jvm.UuidMapOrder(uuids)
	outTopics := make([]int32, len(order))
	outParts := make([][]int32, len(order))
	for k, i := range order {
		outTopics[k] = topics[i]
		ps := parts[i]
		set := make([]int32, 0, len(ps))
		for _, j := range jvm.IntSetOrder(ps) {
			set = append(set, ps[j])
		}
		outParts[k] = set
	}
	return outTopics, outParts
}

// give records pid in pos's new target.
func (sg *serverGroup) give(pid, pos int32) {
	if old := sg.owner[pid]; old >= 0 {
		sg.load[old]--
	}
	sg.owner[pid] = pos
	sg.load[pos]++
}

// ownerRun is a run of partitions Start to End-1 of the topic at
// position Topic of Go order that owner gives member index m.
type ownerRun struct{ m, topic, start, end int32 }

// ownerRuns lists owner's runs topic by topic in Go order of their names,
// partitions ascending, and counts[m+1], for each member index m, adds
// what weigh says of each of m's runs. One pass over owner: the runs,
// about one per member and topic it is given, are what assignment and
// ranges then write out.
func (sg *serverGroup) ownerRuns(goOrder []int32, weigh func(ownerRun) int32) (runs []ownerRun, counts []int32) {
	cg := sg.cg
	counts = make([]int32, len(cg.g.Members)+1)
	runs = make([]ownerRun, 0, len(cg.g.Members)+len(goOrder)) // about a run per member and per topic
	for k, t := range goOrder {
		owners := sg.owner[cg.start[t] : cg.start[t]+cg.numParts[t]]
		for p := 0; p < len(owners); {
			pos := owners[p]
			q := runEnd8(owners, p)
			if pos >= 0 {
				r := ownerRun{sg.byPos[pos], int32(k), int32(p), int32(q)}
				runs = append(runs, r)
				counts[r.m+1] += weigh(r)
			}
			p = q
		}
	}
	return runs, counts
}

// answerRuns is finalRuns for a homogeneous group's answer, in runs,
// and ownerRuns for one in owner.
func (sg *serverGroup) answerRuns(goOrder []int32, weigh func(ownerRun) int32) ([]ownerRun, []int32) {
	if sg.owner == nil {
		return sg.finalRuns(weigh)
	}
	return sg.ownerRuns(goOrder, weigh)
}

// cursors turns counts, from ownerRuns, into each member's first slot:
// cursor[m] is where member m's output starts and bounds[m+1] where it
// ends; cursor is advanced as the output is written.
func cursors(counts []int32) (cursor, bounds []int32) {
	for m := 1; m < len(counts); m++ {
		counts[m] += counts[m-1]
	}
	return counts, slices.Clone(counts)
}

// assignment builds the [Assignment] from the answer's runs; a member
// whose target is its Owned list exactly is given that list (see
// heldAsIs for why).
func (sg *serverGroup) assignment() Assignment {
	goOrder := sg.cg.goOrder()
	runs, counts := sg.answerRuns(goOrder, partitionsIn)
	var asIs []bool // nobody holds anything: no list to hand back
	if sg.anyHeld() {
		asIs = sg.heldAsIs(goOrder, runs, counts)
	}
	return sg.writeAssignment(goOrder, runs, counts, asIs)
}

// partitionsIn weighs a run by its partitions, for answerRuns.
func partitionsIn(r ownerRun) int32 { return r.end - r.start }

// writeAssignment writes the [Assignment] of runs and counts (from
// answerRuns): member by member, each member's runs in the order given,
// which is topic by topic in Go order, partitions ascending, so every
// list comes out sorted; a member m for which asIs[m] is set is given
// its Owned list instead (asIs is nil when none is).
//
// The lists are written member after member into backing arrays that
// listChunks hands out, each written as soon as it is allocated rather
// than one array for the whole answer allocated first and written run
// by run: see listChunks for why.
func (sg *serverGroup) writeAssignment(goOrder []int32, runs []ownerRun, counts []int32, asIs []bool) Assignment {
	cg := sg.cg
	g := cg.g
	sizes := counts[1:]
	for m, same := range asIs {
		if same {
			sizes[m] = 0
		}
	}
	// Group the runs by member, keeping each member's in the order given:
	// first[m] counts member m's runs, then, summed, is where they end in
	// byMember; placing them from the last run down leaves it where they
	// start, and first[m+1] where they end.
	first := make([]int32, len(g.Members)+1)
	for _, r := range runs {
		if sizes[r.m] > 0 {
			first[r.m]++
		}
	}
	for m := 1; m < len(first); m++ {
		first[m] += first[m-1]
	}
	byMember := make([]ownerRun, first[len(first)-1])
	for i := len(runs) - 1; i >= 0; i-- {
		if r := runs[i]; sizes[r.m] > 0 {
			first[r.m]--
			byMember[first[r.m]] = r
		}
	}
	a := make(Assignment, len(g.Members))
	chunks := newListChunks(sizes)
	for m := range g.Members {
		var list []TopicPartition
		switch {
		case asIs != nil && asIs[m]:
			owned := g.Members[m].Owned
			list = owned[:len(owned):len(owned)]
		case sizes[m] > 0:
			list = chunks.take(m)
			at := 0
			for _, r := range byMember[first[m]:first[m+1]] {
				name := cg.topics[goOrder[r.topic]]
				out := list[at : at+int(r.end-r.start)]
				for i := range out {
					out[i] = TopicPartition{name, r.start + int32(i)}
				}
				at += len(out)
			}
		}
		a[g.Members[m].ID] = list
	}
	return a
}

// listChunks hands out the members' lists of an answer, in member
// order, from backing arrays (chunks) that chunkSize sizes, of up to
// chunkPages pages unless the lists are long: a list that does not fit
// in what is left of one starts the next.
//
// An answer written as one backing array allocated whole, then written,
// passes over its memory twice (the allocation zeroes it all, then the
// writes come back to it) and, allocated while the collector is idle,
// is often what starts a collection: it is then both scanned (it was
// reachable when the collection began) and written with write barriers
// on, so the collector sees each of its pointers twice. A chunk written
// as soon as it is allocated is written while its zeroed memory is
// still in the cache, and only the chunk being written when a
// collection starts is seen twice: those before are scanned, those
// after were allocated marked and see write barriers only, until the
// collection ends. It was chosen on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=fresh
// and .../shape=uniform-1000x100000/..., where every list is written.
// TestListChunks holds the chunks to these rules, and
// TestUniformAssignRanges compares the answer, the fresh bench group's
// included, with AssignRanges expanded by RangeAssignment.Assignment,
// which writes one array.
type listChunks struct {
	sizes []int32 // member => entries of its list, 0 for none to write
	left  int     // entries of the lists not handed out yet
	chunk []TopicPartition
}

const (
	// chunkPages bounds a chunk of short lists: 24 of the runtime's 8
	// KiB pages, 192 KiB, which fits in a core's cache.
	chunkPages = 24
	pageBytes  = 8192
	entryBytes = int(unsafe.Sizeof(TopicPartition{}))
)

// newListChunks returns listChunks for lists of sizes entries.
func newListChunks(sizes []int32) listChunks {
	total := 0
	for _, n := range sizes {
		total += int(n)
	}
	return listChunks{sizes: sizes, left: total}
}

// take returns member m's list, sizes[m] > 0 entries; members are taken
// in increasing order.
func (c *listChunks) take(m int) []TopicPartition {
	n := int(c.sizes[m])
	if len(c.chunk) < n {
		// What is left of the chunk is lost: less than a list.
		c.chunk = make([]TopicPartition, c.chunkSize(m))
	}
	c.left -= n
	list := c.chunk[:n:n]
	c.chunk = c.chunk[n:]
	return list
}

// chunkSize returns the entries of a new chunk whose first list is
// member m's. The runtime rounds a large allocation up to whole pages,
// and what is left at the end of a chunk, too short for the next list,
// is lost; so: all the lists left if they fit in chunkPages pages; for
// a list longer than half that, it and the lists after it up to four
// times that, whole, which loses less than a page to rounding; else a
// whole number of pages, chunkPages/2 to chunkPages, that lists as long
// as m's fill the most.
func (c *listChunks) chunkSize(m int) int {
	n := int(c.sizes[m])
	if c.left*entryBytes <= chunkPages*pageBytes {
		return c.left
	}
	if n*entryBytes > chunkPages*pageBytes/2 {
		total := n
		for k := m + 1; k < len(c.sizes) && (total+int(c.sizes[k]))*entryBytes <= 4*chunkPages*pageBytes; k++ {
			total += int(c.sizes[k])
		}
		return total
	}
	best, lost := 0, 0
	for p := chunkPages / 2; p <= chunkPages; p++ {
		size := p * pageBytes / entryBytes
		// size % n entries are lost of size: keep the smallest share.
		if l := size % n; best == 0 || l*best < lost*size {
			best, lost = size, l
		}
	}
	return best
}

// heldAsIs reports, member by member, whether the target that runs and
// counts (from answerRuns, before cursors) give it is its Owned list
// exactly: the same partitions, in the order of [TopicPartition.Compare]
// and each once. assignment hands such a list back rather than copy it,
// as Kafka's coordinator hands back a member's own set. That is most of
// a group after one member leaves, and writing those lists again costs
// most on BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=leave1.
//
// On runs, where readRuns found a member's Owned sorted (heldSorted), a
// run of the target matches the slice of Owned of its length where the
// run's first and last partitions are that slice's: between them the
// slice can only step up one partition at a time. Elsewhere every entry
// is compared.
func (sg *serverGroup) heldAsIs(goOrder []int32, runs []ownerRun, counts []int32) []bool {
	cg := sg.cg
	members := cg.g.Members
	same := make([]bool, len(members))
	for m := range members {
		n := len(members[m].Owned)
		same[m] = n > 0 && int64(n) == int64(counts[m+1]) && (sg.heldSorted == nil || sg.heldSorted[m])
	}
	next := make([]int32, len(members)) // where in Owned m's next run must start
	for _, r := range runs {
		if !same[r.m] {
			continue
		}
		held := members[r.m].Owned[next[r.m]:][:r.end-r.start]
		name := cg.topics[goOrder[r.topic]]
		if sg.heldSorted != nil {
			first, last := held[0], held[len(held)-1]
			same[r.m] = first.Partition == r.start && last.Partition == r.end-1 && first.Topic == name && last.Topic == name
		} else {
			same[r.m] = isStretch(held, name, r.start)
		}
		next[r.m] += r.end - r.start
	}
	return same
}

// isStretch reports whether held lists partitions first, first+1, ... of
// topic, in that order, comparing names byte by byte only where an
// entry's name is in other bytes than the entry before it.
func isStretch(held []TopicPartition, topic string, first int32) bool {
	for k := 0; k < len(held); {
		if tp := held[k]; tp.Partition != first+int32(k) || tp.Topic != topic {
			return false
		}
		k += stretch(held[k:], unsafe.StringData(held[k].Topic), len(held[k].Topic))
	}
	return true
}

// ranges builds the [RangeAssignment] from the answer's runs (answerRuns,
// one pass), written at each member's cursor, so every member's ranges
// come out sorted.
func (sg *serverGroup) ranges() RangeAssignment {
	cg := sg.cg
	g := cg.g
	goOrder := cg.goOrder()
	runs, counts := sg.answerRuns(goOrder, func(ownerRun) int32 { return 1 })
	cursor, bounds := cursors(counts)
	backing := make([]TopicRange, len(runs))
	for _, r := range runs {
		backing[cursor[r.m]] = TopicRange{r.topic, r.start, r.end}
		cursor[r.m]++
	}
	ra := RangeAssignment{Topics: make([]string, len(goOrder)), IDs: make([]string, len(g.Members)), Ranges: make([][]TopicRange, len(g.Members))}
	for m := range g.Members {
		ra.IDs[m] = g.Members[m].ID
	}
	for k, t := range goOrder {
		ra.Topics[k] = cg.topics[t]
	}
	for m := range g.Members {
		if lo, hi := bounds[m], bounds[m+1]; hi > lo {
			ra.Ranges[m] = backing[lo:hi:hi]
		}
	}
	return ra
}

// runEnd8 returns the end of the run of owners equal to owners[p] that
// starts at p, comparing eight at a time, as four pairs, while it can:
// runs of an owner array are long (100 partitions on
// BenchmarkKIP848/shape=uniform-1000x100000, where it was measured
// before that group moved to runs; heterogeneous groups still scan
// owner). TestRunEnd8 checks it against a one-at-a-time scan, and
// TestUniformAssignRanges ranges against Assign.
func runEnd8(owners []int32, p int) int {
	v := owners[p]
	pair := uint64(uint32(v)) | uint64(uint32(v))<<32
	q := p + 1
	for q+8 <= len(owners) {
		w := owners[q : q+8 : q+8]
		a := uint64(uint32(w[0])) | uint64(uint32(w[1]))<<32
		b := uint64(uint32(w[2])) | uint64(uint32(w[3]))<<32
		c := uint64(uint32(w[4])) | uint64(uint32(w[5]))<<32
		d := uint64(uint32(w[6])) | uint64(uint32(w[7]))<<32
		if (a^pair)|(b^pair)|(c^pair)|(d^pair) != 0 {
			break
		}
		q += 8
	}
	for q < len(owners) && owners[q] == v {
		q++
	}
	return q
}
