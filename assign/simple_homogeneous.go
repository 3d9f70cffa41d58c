package assign

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// homogeneousBuild is Kafka's SimpleHomogeneousAssignmentBuilder.build:
// every member subscribes to the same topics; see [Simple].
func (sg *simpleGroup) homogeneousBuild() error {
	cg := sg.cg
	if sg.m == 0 {
		return nil
	}
	if len(cg.g.Members[sg.byPos[0]].Topics) == 0 {
		// Kafka's Map.of(): nobody gets anything.
		for j := range sg.clear {
			sg.clear[j] = true
		}
		return nil
	}
	// computeTargetPartitions iterates the first member's TopicIds view
	// itself, in the order of its HashSet<String> of names.
	names := cg.g.Members[sg.byPos[0]].Topics
	var topics []int32
	for _, k := range jvm.StringSetOrder(names) {
		if t, ok := cg.topicIndex(names[k]); ok {
			topics = append(topics, t)
		}
	}
	var p int
	for _, t := range topics {
		p += int(cg.numParts[t])
	}
	sharing, desired := desiredCounts(sg.m, p)
	b := newPartitionTable(sg, int(cg.start[len(cg.topics)]))
	count := make([]int, sg.m)
	mine := make([][]int32, sg.m) // member => pids in its set, in insertion order
	members := intOrder(sg.m)

	// revokeUnassignablePartitions: held topics that are not subscribed
	// are dropped when the answer is written.
	for _, j := range members {
		for _, h := range sg.held[j] {
			if h.t < 0 {
				continue
			}
			for _, part := range h.parts {
				pid := cg.start[h.t] + part
				count[j]++
				b.hold(pid, j)
				mine[j] = append(mine[j], pid)
			}
		}
	}
	unfilled := make([]bool, sg.m)
	overfilled := make([]bool, sg.m)
	for j := range count {
		unfilled[j] = count[j] < desired[j]
		overfilled[j] = count[j] > desired[j]
	}

	// revokeOverfilledMembers: each loses the first of its set.
	for _, j := range members {
		if !overfilled[j] || count[j] <= desired[j] {
			continue
		}
		hashes := make([]int32, len(mine[j]))
		for k, pid := range mine[j] {
			hashes[k] = b.hash(pid)
		}
		order := jvm.Order(0, hashes, func(x, y int) int { return b.compare(mine[j][x], mine[j][y]) })
		for _, k := range order {
			if count[j] == desired[j] {
				break
			}
			b.release(mine[j][k], j)
			count[j]--
		}
	}

	// revokeOversharedPartitions, in the order of the map of partitions.
	for _, e := range b.order() {
		live := b.live(e)
		for _, j := range b.holderOrder(e) {
			if live <= sharing {
				break
			}
			b.release(b.pids[e], j)
			count[j]--
			unfilled[j] = true
			live--
		}
	}

	// The subscribed partitions nobody holds join the map, in order.
	for _, t := range topics {
		for part := range cg.numParts[t] {
			b.key(cg.start[t] + part)
		}
	}
	return b.deal(sharing, unfilled, members, func(pid, j int32) bool {
		count[j]++
		return count[j] >= desired[j]
	})
}

// partitionTable is Kafka's finalAssignmentByPartition: partitions (by
// pid) as keys in insertion order, each with its HashSet<Integer> of
// holders. Releases are recorded in sg.lost.
type partitionTable struct {
	sg      *simpleGroup
	entry   []int32   // pid => entry + 1, 0 when absent
	pids    []int32   // entry => pid
	holders [][]int32 // entry => members, in insertion order
	gone    [][]bool  // entry => parallel to holders: released
	stamp   []int32   // member => entry + 1 while deal looks at that entry

	// released logs, in order, the releases from holder sets of more
	// than eight members, which may have become red-black trees: their
	// order after a removal is the replay's (holderOrder).
	released []release

	// topic is the one topic of a heterogeneous builder's table, whose
	// keys are partition numbers (HashMap<Integer, Set<Integer>>), or -1
	// for the homogeneous builder's TopicIdPartition keys.
	topic int32
}

func newPartitionTable(sg *simpleGroup, pids int) *partitionTable {
	return &partitionTable{sg: sg, entry: make([]int32, pids), stamp: make([]int32, sg.m), topic: -1}
}

// key adds pid as a key if absent and returns its entry.
func (b *partitionTable) key(pid int32) int32 {
	if e := b.entry[pid]; e > 0 {
		return e - 1
	}
	b.pids = append(b.pids, pid)
	b.holders = append(b.holders, nil)
	b.gone = append(b.gone, nil)
	e := int32(len(b.pids))
	b.entry[pid] = e
	return e - 1
}

// hold records j as a holder of pid.
func (b *partitionTable) hold(pid, j int32) {
	e := b.key(pid)
	b.holders[e] = append(b.holders[e], j)
	b.gone[e] = append(b.gone[e], false)
}

// release is one member leaving one holder set.
type release struct{ entry, member int32 }

// release removes j from pid's holders and from its target.
func (b *partitionTable) release(pid, j int32) {
	e := b.entry[pid] - 1
	for k, h := range b.holders[e] {
		if h == j && !b.gone[e][k] {
			b.gone[e][k] = true
			break
		}
	}
	if len(b.holders[e]) > treeBinMin {
		b.released = append(b.released, release{e, j})
	}
	b.sg.lose(j, pid)
}

// mayTreeify reports whether a HashSet<Integer> of the members hs may
// have had a tree bucket: only a bucket of a table of 64 or more becomes
// one, with nine entries, whose spread hashes (Integer.hashCode is the
// index) then agree modulo 64.
func mayTreeify(hs []int32) bool {
	var class [64]int32
	for _, j := range hs {
		c := jvm.Spread(j) & 63
		if class[c]++; class[c] > treeBinMin {
			return true
		}
	}
	return false
}

// treeBinMin is the most members a holder set (a HashSet<Integer> made
// by new HashSet<>()) can have without any bucket ever reaching the nine
// entries that may make it a red-black tree.
const treeBinMin = 8

// live counts pid's holders at entry e.
func (b *partitionTable) live(e int32) int {
	n := 0
	for _, g := range b.gone[e] {
		if !g {
			n++
		}
	}
	return n
}

// holderOrder returns the live holders of entry e in their set's order:
// the HashSet<Integer> the members were added to in insertion order, then
// removed from (HashSet.remove) in the order released logs. A plain
// bucket keeps its insertion order through removals, so jvm.Order of the
// insertions less the removed is the set's order; a tree bucket moves its
// new root to the front at each removal, or turns back into a list, which
// only replaying the set (jvm.ChurnSet) follows. A set that lost a
// member is replayed when more than treeBinMin of its members agree
// modulo 64 (mayTreeify); the check keeps sets shared hundreds of ways
// from the replay when no tree could form
// (BenchmarkSimple/members=5000/partitions=10/churn=join1).
func (b *partitionTable) holderOrder(e int32) []int32 {
	hs := b.holders[e]
	if len(hs) > treeBinMin && slices.Contains(b.gone[e], true) && mayTreeify(hs) {
		var set jvm.ChurnSet[int32]
		for _, j := range hs {
			set.Add(j, j) // Integer.hashCode is the value
		}
		for _, r := range b.released {
			if r.entry == e {
				set.Remove(r.member)
			}
		}
		return set.Order()
	}
	var out []int32
	for _, k := range jvm.Order(0, hs, nil) {
		if !b.gone[e][k] {
			out = append(out, hs[k])
		}
	}
	return out
}

// hash is TopicIdPartition.hashCode, a record's: 31·Uuid.hashCode + partition.
func (b *partitionTable) hash(pid int32) int32 {
	t := b.sg.topicOfPid(pid)
	return 31*b.sg.hash[t] + (pid - b.sg.cg.start[t])
}

// compare orders partitions of equal hash code in a tree bucket, where
// Java falls back on identity hash codes: by topic id, then partition.
func (b *partitionTable) compare(x, y int32) int {
	b.sg.identityTie = true
	tx, ty := b.sg.topicOfPid(x), b.sg.topicOfPid(y)
	if c := b.sg.ids[tx].Compare(b.sg.ids[ty]); c != 0 {
		return c
	}
	return int(x - y)
}

// order returns the entries in the map's iteration order, for a map made
// by newHashMap(the group's partitions), or of the topic's for a
// heterogeneous builder's table, whose keys are partition numbers within
// the map's capacity.
func (b *partitionTable) order() []int32 {
	if t := b.topic; t >= 0 {
		var out []int32
		for _, part := range intOrder(int(b.sg.cg.numParts[t])) {
			if e := b.entry[b.sg.cg.start[t]+part]; e > 0 {
				out = append(out, e-1)
			}
		}
		return out
	}
	hashes := make([]int32, len(b.pids))
	for e, pid := range b.pids {
		hashes[e] = b.hash(pid)
	}
	var total int
	for _, t := range b.sg.cg.numParts {
		total += int(t)
	}
	// Kafka fills the map with computeIfAbsent.
	order := jvm.ComputeOrder(newHashMapCapacity(total), hashes, func(x, y int) int { return b.compare(b.pids[x], b.pids[y]) })
	out := make([]int32, len(order))
	for k, e := range order {
		out[k] = int32(e)
	}
	return out
}

// deal is assignRemainingPartitions: the partitions, in the map's order,
// take members below their count round-robin (dealRound). give records
// that j got pid and reports whether j reached its count.
func (b *partitionTable) deal(sharing int, unfilled []bool, members []int32, give func(pid, j int32) bool) error {
	ring := newUnfilledRing(members, func(j int32) bool { return unfilled[j] })
	if ring.size == 0 {
		return nil
	}
	assigned := false
	for _, e := range b.order() {
		pid := b.pids[e]
		live := 0
		for k, h := range b.holders[e] {
			if !b.gone[e][k] {
				b.stamp[h] = e + 1
				live++
			}
		}
		if live < sharing {
			err := dealRound(ring, live, sharing, &assigned,
				func(j int32) bool { return b.stamp[j] == e+1 },
				func(j int32) bool {
					b.sg.gave[j] = append(b.sg.gave[j], pid)
					return give(pid, j)
				})
			if err != nil {
				return err
			}
		}
		if ring.size == 0 {
			break
		}
	}
	return nil
}
