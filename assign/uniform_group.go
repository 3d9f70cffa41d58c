package assign

import (
	"fmt"
	"slices"

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
	// to, -1 while nobody; pids number partitions as cg.start does.
	// held[pid] is the same for the current targets, nil when no member
	// holds anything.
	owner, held []int32
	load        []int32 // position => partitions in owner

	// heldPids[heldOff[m]:heldOff[m+1]] lists the pids of member m's
	// current target, in Owned order, leaving out topics outside
	// cg.topics.
	heldOff, heldPids []int32
}

// compileServer validates g for the KIP-848 assignors and interns it.
func compileServer(g Group) (*serverGroup, error) {
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

	ids := make([]string, len(g.Members))
	for i := range g.Members {
		ids[i] = g.Members[i].ID
	}
	for _, m := range jvm.StringMapOrder(ids) {
		sg.byPos = append(sg.byPos, int32(m))
	}
	sg.homogeneous = sameNameSets(g.Members)

	total := cg.start[len(cg.topics)]
	sg.owner = make([]int32, total)
	for i := range sg.owner {
		sg.owner[i] = -1
	}
	sg.load = make([]int32, len(g.Members))
	sg.heldOff = make([]int32, len(g.Members)+1)
	owned := 0
	for i := range g.Members {
		owned += len(g.Members[i].Owned)
	}
	if owned == 0 {
		return sg, nil // held stays nil: nobody holds anything
	}
	sg.held = make([]int32, total)
	for i := range sg.held {
		sg.held[i] = -1
	}
	sg.heldPids = make([]int32, 0, owned)
	after, _ := cg.goSteps()
	pos := make([]int32, len(g.Members))
	for p, m := range sg.byPos {
		pos[m] = int32(p)
	}
	for m := range g.Members {
		if err := sg.readTarget(pos[m], int32(m), after); err != nil {
			return nil, err
		}
		sg.heldOff[m+1] = int32(len(sg.heldPids))
	}
	return sg, nil
}

// readTarget checks member m's current target and records it in held
// and heldPids. after is cg.goSteps' first result: a target listed in
// sorted order goes from a topic to the next in Go order.
//
// Owned is read a run of one topic at a time: the topic is resolved once
// per run, and a small leaf function (claimRun, whose few variables stay
// in registers) checks and records the run's partitions. On
// BenchmarkKIP848's uniform-1000x100000 leave1, whose members hold
// 100,000 partitions, callgrind counts 20.7M instructions per
// Uniform.AssignRanges call, against 23.7M when one loop did everything
// for every partition.
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
		j := runEnd(owned, k)
		run := owned[k:j]
		k = j
		topic := run[0].Topic
		var n int32
		exists := true // the topic is in the metadata, with n partitions
		if t, known = cg.topicAfter(after, t, known, topic); known {
			n = cg.numParts[t]
		} else {
			if _, ok := g.TopicIDs[topic]; !ok {
				return fail(run[0], -1, ErrNoTopicID)
			}
			n, exists = g.Topics[topic]
		}
		if !known {
			// A deleted topic, or one nobody subscribes to: dropped, once
			// its partitions are checked.
			for _, tp := range run {
				if tp.Partition < 0 || exists && tp.Partition >= n {
					return fail(tp, tp.Partition, ErrTargetOutOfRange)
				}
			}
			continue
		}
		base := cg.start[t]
		var bad int
		sg.heldPids, bad = claimRun(run, sg.held[base:base+n], pos, base, sg.heldPids)
		if bad < 0 {
			continue
		}
		tp := run[bad]
		switch h := sg.held[base+max(0, min(tp.Partition, n-1))]; {
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

// claimRun records that pos holds the partitions of run, one topic's,
// whose entries in held are topicHeld, appending their pids (base + the
// partition) to pids. It stops at the first partition the topic does not
// have or that someone (pos included) already holds, and returns its
// index in run, or -1 when there is none.
func claimRun(run []TopicPartition, topicHeld []int32, pos, base int32, pids []int32) ([]int32, int) {
	for i := range run {
		p := run[i].Partition
		if uint32(p) >= uint32(len(topicHeld)) || topicHeld[p] >= 0 {
			return pids, i
		}
		topicHeld[p] = pos
		pids = append(pids, base+p)
	}
	return pids, -1
}

// heldBy returns the pids of member m's current target, in Owned order,
// without the topics outside cg.topics.
func (sg *serverGroup) heldBy(m int32) []int32 {
	return sg.heldPids[sg.heldOff[m]:sg.heldOff[m+1]]
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
	for _, tp := range mem.Owned {
		k, ok := slot[tp.Topic]
		if !ok {
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

// assignment builds the [Assignment] from owner in two passes over the
// partitions: one counts each member's, one writes them into one backing
// array at each member's cursor. Topics are visited in Go order of their
// names, partitions ascending, so every list comes out sorted.
func (sg *serverGroup) assignment() Assignment {
	cg := sg.cg
	g := cg.g
	cursor := make([]int32, len(g.Members)+1) // member index => next slot, after the counting pass
	for _, pos := range sg.owner {
		if pos >= 0 {
			cursor[sg.byPos[pos]+1]++
		}
	}
	for m := 1; m < len(cursor); m++ {
		cursor[m] += cursor[m-1]
	}
	bounds := slices.Clone(cursor)
	backing := make([]TopicPartition, cursor[len(cursor)-1])
	memberAt := make([]int32, len(sg.byPos)) // position => member index
	copy(memberAt, sg.byPos)
	for _, t := range cg.goOrder() {
		name := cg.topics[t]
		start := cg.start[t]
		owners := sg.owner[start : start+cg.numParts[t]]
		for p, pos := range owners {
			if pos >= 0 {
				m := memberAt[pos]
				backing[cursor[m]] = TopicPartition{name, int32(p)}
				cursor[m]++
			}
		}
	}
	a := make(Assignment, len(g.Members))
	for m := range g.Members {
		var list []TopicPartition
		if lo, hi := bounds[m], bounds[m+1]; hi > lo {
			list = backing[lo:hi:hi]
		}
		a[g.Members[m].ID] = list
	}
	return a
}

// ranges builds the [RangeAssignment] from owner as assignment builds the
// [Assignment]: a counting pass, then a pass writing each run of
// partitions of a topic owned by one member at that member's cursor, in
// Go order of topic names, so every member's ranges come out sorted.
func (sg *serverGroup) ranges() RangeAssignment {
	cg := sg.cg
	g := cg.g
	goOrder := cg.goOrder()
	cursor := make([]int32, len(g.Members)+1) // member index => next slot, after the counting pass
	for _, t := range goOrder {
		owners := sg.owner[cg.start[t] : cg.start[t]+cg.numParts[t]]
		for p := 0; p < len(owners); p = runOf(owners, p) {
			if pos := owners[p]; pos >= 0 {
				cursor[sg.byPos[pos]+1]++
			}
		}
	}
	for m := 1; m < len(cursor); m++ {
		cursor[m] += cursor[m-1]
	}
	bounds := slices.Clone(cursor)
	backing := make([]TopicRange, cursor[len(cursor)-1])
	ra := RangeAssignment{Topics: make([]string, len(goOrder)), Members: make(map[string][]TopicRange, len(g.Members))}
	for k, t := range goOrder {
		ra.Topics[k] = cg.topics[t]
		owners := sg.owner[cg.start[t] : cg.start[t]+cg.numParts[t]]
		for p := 0; p < len(owners); {
			q := runOf(owners, p)
			if pos := owners[p]; pos >= 0 {
				m := sg.byPos[pos]
				backing[cursor[m]] = TopicRange{int32(k), int32(p), int32(q)}
				cursor[m]++
			}
			p = q
		}
	}
	for m := range g.Members {
		var rs []TopicRange
		if lo, hi := bounds[m], bounds[m+1]; hi > lo {
			rs = backing[lo:hi:hi]
		}
		ra.Members[g.Members[m].ID] = rs
	}
	return ra
}

// runOf returns the end of the run of equal owners that starts at p.
func runOf(owners []int32, p int) int {
	q := p + 1
	for q < len(owners) && owners[q] == owners[p] {
		q++
	}
	return q
}
