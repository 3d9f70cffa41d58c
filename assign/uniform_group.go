package assign

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
	"github.com/assigncalc/assigncalc/assign/internal/keys"
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
	// heldTopic[m], set by readRuns, is the topic index of the first
	// partition member m's Owned lists when heldSorted[m] is set: what
	// oneStretch would otherwise look up again, for every member over
	// its quota on BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1.
	heldTopic []int32

	// spare is the array readRuns read the runs into, emptied, when
	// sortRuns copied them in order (into held), nil when it sorted them
	// in place: the homogeneous builder writes the answer into it. held
	// may lie in spare's array, after the runs as read: its first
	// cap(spare)-cap(held) runs are then spare's alone.
	spare []pidRun

	// asIs[m], set by the homogeneous builder when someone holds
	// something, reports whether member m's new target is its Owned list
	// exactly, in order (see heldAsIs, which finds the same on the
	// answer); nil otherwise.
	asIs []bool
	// prefix[m], beside asIs, is the length of the leading part of
	// member m's Owned list handed back when it is not the whole list
	// (keptPrefix), 0 otherwise; nil while no member keeps a prefix.
	prefix []int32

	// after and goRank are cg.goSteps', once computed (steps, which sets
	// stepped), nil when Go order is the topic indices' own.
	after, goRank []int32
	stepped       bool

	// orderBuf is the array the last jvm.Order32Buf counted in, for the
	// next: the member map's order, then the subscription's two set
	// orders (subscriptionOrder), each of as many keys as the group has
	// members or topics.
	orderBuf []int32
}

// steps returns cg.goSteps(), computed once for the call: reading the
// targets and listing the answer both need it. Both are nil when Go
// order is the topic indices' own, as it is for ASCII names, whose Java
// order is Go's: topicAfter then takes the next topic index, and rankOf
// the index itself, where the two tables cost 8 bytes a topic on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1.
// TestUniformJavaOrderNotGo takes the tables' way (names Java and Go
// sort apart), the other tests of the builder the identity's.
func (sg *serverGroup) steps() (after, goRank []int32) {
	if !sg.stepped {
		sg.stepped = true
		if !isIdentity(sg.cg.goOrder()) {
			sg.after, sg.goRank = sg.cg.goSteps()
		}
	}
	return sg.after, sg.goRank
}

// isIdentity reports whether order[k] == k for every k.
func isIdentity(order []int32) bool {
	for k, t := range order {
		if t != int32(k) {
			return false
		}
	}
	return true
}

// rankOf returns topic t's position in Go order, from goRank as steps
// returns it.
func rankOf(goRank []int32, t int32) int32 {
	if goRank == nil {
		return t
	}
	return goRank[t]
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
	cg, err := compileForServer(g)
	if err != nil {
		return nil, err
	}
	sg := &serverGroup{cg: cg}
	if err := sg.readIDs(); err != nil {
		return nil, err
	}

	// The member map's order is jvm.StringMapOrderDistinct's of the IDs
	// (compile refuses repeated ones), computed from the members without
	// a list of their IDs: Assign needs none.
	members := g.Members
	hashes := make([]int32, len(members))
	for i := range members {
		hashes[i] = jvm.StringHash(members[i].ID)
	}
	sg.byPos, sg.orderBuf = jvm.Order32Buf(0, hashes, func(a, b int) int { return jvm.CompareStrings(members[a].ID, members[b].ID) }, nil)
	sg.homogeneous = sg.sameNameSets()
	return sg, nil
}

// readIDs sets sg.ids, the topics' ids, once [CheckTopicIDs] accepts
// g.TopicIDs, and refuses a topic without one (the first in topic
// order), as the two did one after the other.
//
// When g.TopicIDs names exactly the topics, as a coordinator's
// metadata image does when members subscribe to every topic, the ids
// looked up are all the map holds, and they are checked as a list:
// CheckTopicIDs' pass over the map showed in the profile of Uniform.Assign on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1.
// TestReadIDs holds it to the two checks in turn.
func (sg *serverGroup) readIDs() error {
	cg := sg.cg
	g := cg.g
	sg.ids = make([]jvm.Uuid, len(cg.topics))
	found := 0
	for t, name := range cg.topics {
		if id, ok := g.TopicIDs[name]; ok {
			sg.ids[t] = jvm.Uuid(id)
			found++
		}
	}
	if found == len(cg.topics) && len(g.TopicIDs) == found {
		// The map's names are the topics (distinct, all found, as many):
		// its ids are sg.ids.
		seen := keys.NewSeen(len(sg.ids))
		for _, id := range sg.ids {
			if seen.Add(id) || id == (jvm.Uuid{}) || id == (jvm.Uuid{15: 1}) {
				return firstBadTopicID(*g) // exact; nil when only fingerprints met
			}
		}
		return nil
	}
	if err := CheckTopicIDs(*g); err != nil {
		return err
	}
	for _, name := range cg.topics {
		if _, ok := g.TopicIDs[name]; !ok {
			return topicError(name, ErrNoTopicID)
		}
	}
	return nil
}

// compileForServer is compile(g, ownedUnread) without Kafka's member
// order (kafkaOrder) for any group that compile's small path does not
// take: the KIP-848 assignors order members by the coordinator's member
// map instead (byPos), and sorting a thousand member IDs only to drop
// the order showed in the profile of Uniform.Assign on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1.
// A small group keeps compile's small path, which orders its members at
// little cost.
func compileForServer(g Group) (*compiledGroup, error) {
	var small smallGroup
	if small.read(&g, true) && small.nt == len(g.Topics) {
		return small.compile(g, ownedUnread)
	}
	return compileAny(g, ownedUnread, nil, false)
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
		sg.heldIn, sg.heldBy, sg.heldSorted, sg.heldTopic = nil, nil, nil, nil
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
	after, _ := sg.steps()
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

// sameNameSets is sameNameSets(g.Members) that passes over every member
// compile found to list the first member's names: a member whose
// subscription compile shares with the first member's (the same slice),
// both naming distinct topics of the metadata with partitions, names the
// same set. Compile compared each list with the one before already;
// comparing each again with the first was as long, a million names on
// BenchmarkKIP848/shape=uniform-1000x100000-own/strategy=uniform/churn=leave1,
// whose members each list their own copy of the names.
// TestServerSameNameSets holds it to sameNameSets.
func (sg *serverGroup) sameNameSets() bool {
	cg := sg.cg
	members := cg.g.Members
	if len(members) == 0 || !cg.distinctNames[0] {
		return sameNameSets(members)
	}
	first := cg.subs[0]
	for i := 1; i < len(members); i++ {
		if !cg.distinctNames[i] || !sameSlice(cg.subs[i], first) || len(cg.subs[i]) == 0 {
			return sameNameSets(members)
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
		return sg.finalRuns(weigh, nil)
	}
	return sg.ownerRuns(goOrder, weigh)
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
