package assign

import (
	"encoding/binary"
	"slices"
)

// Range is Kafka's RangeAssignor: each topic is cut into contiguous ranges,
// one per subscriber, and KIP-881 racks move partitions between subscribers
// of a topic without changing how many each one gets.
//
// # Algorithm
//
// Topics are assigned one at a time. A topic with n partitions and c
// subscribers gives each subscriber n/c partitions, and the first n%c
// subscribers one more. Subscribers are taken in Kafka's member order:
// members with a group.instance.id first, ordered by it, then the others
// ordered by member ID, both in Java's string order. Without racks each
// subscriber gets a contiguous run of partitions, the first subscriber the
// lowest.
//
// # Worked example
//
// Members C0 and C1 both subscribe to topics t0 and t1, each with three
// partitions. Per topic, C0 comes first and gets the extra partition:
//
//	C0: t0p0, t0p1, t1p0, t1p1
//	C1: t0p2, t1p2
//
// Range is unbalanced across topics by design: the same members get the
// extra partition of every topic, which is what co-partitioned topics
// (joined partition by partition) need.
//
// # Rack awareness (KIP-881)
//
// Rack-aware assignment is used at all only when some topic needs it: a
// topic needs it when some of its subscribers declare a rack, some of those
// racks hold a replica of the topic, and not every partition has replicas
// on every rack that holds one of the topic's replicas. (When all replicas
// are everywhere, or no rack matches, it changes nothing and is skipped.)
// Once any topic needs it, Range works in two passes, keeping each
// subscriber's count within the quota above (n/c, plus one while fewer than
// n%c subscribers have taken an extra partition):
//
//  1. Rack matching. The topics with at least one racked subscriber are
//     grouped by their exact set of subscribers and their partition count.
//     In a group of two or more topics (co-partitioned topics), partition p
//     of every topic of the group goes, for p in increasing order, to the
//     first subscriber in member order that still has quota and whose rack
//     holds a replica of p in every topic of the group; so co-partitioning
//     wins over rack alignment, even for topics that would not need racks
//     by themselves. A topic alone in its group and needing racks gives each
//     subscriber in member order, up to its quota, the lowest unassigned
//     partitions with a replica on its rack.
//  2. Ranges. Every topic then gives each subscriber in member order the
//     lowest partitions still unassigned, up to its quota.
//
// A subscriber without a rack matches every partition in pass 1, as in
// Kafka: it takes its quota there, in member order, before racks are
// considered for the subscribers after it. A partition whose replica racks
// are unknown (an empty list, or a topic missing from Group.PartitionRacks)
// matches no rack. An empty rack name in a replica list means "unknown", as
// an empty Member.Rack does, and matches nothing.
//
// # Invariants
//
// For every topic t with n partitions and c subscribers:
//
//	every subscriber gets n/c or n/c+1 partitions of t, and exactly n%c get n/c+1;
//	without rack awareness, these are the first n%c in member order, and each
//	subscriber's partitions of t are contiguous and lower than those of the
//	subscribers after it.
//
// So per-topic counts among subscribers differ by at most one; totals across
// topics may differ by more.
//
// # Complexity
//
// With M members, T topics, P partitions, S subscription entries (the sum
// of the members' subscription lengths) and, with racks, R replica entries
// (the sum of the lengths of the replica rack lists):
//
//   - Validating and interning the group sorts members and topics by name:
//     O(M log M + T log T) comparisons, plus O(S + R) lookups.
//   - Without rack awareness: time O(M + S + P) and memory O(M + T + P)
//     beyond the output (see rangeWithoutRacks). When members declare racks and
//     replica racks are known, deciding that racks change nothing takes
//     time O(S + R) and memory O(S) more.
//   - With rack awareness: time O(M + S + P + R) and memory O(M + S + P)
//     beyond the output; a co-partitioned group of k topics intersects k
//     replica lists per partition, which R counts.
//
// The output holds P partitions in M lists.
type Range struct{}

// Name returns "range".
func (Range) Name() string { return "range" }

// Protocol returns [Eager].
func (Range) Protocol() RebalanceProtocol { return Eager }

// Traits says that Range follows a layout, neither balanced across
// topics nor sticky, and is Kafka's RangeAssignor.
func (Range) Traits() Traits { return Traits{JavaClass: "RangeAssignor"} }

func (s Range) compiled() (Strategy, ownedRead, func(*compiledGroup) (Assignment, error)) {
	return s, ownedIgnored, func(cg *compiledGroup) (Assignment, error) { return rangeOf(cg), nil }
}

// Assign computes Kafka's range assignment of g, or returns an [*InputError]
// when g is invalid.
func (Range) Assign(g Group) (Assignment, error) {
	var sg smallGroup // see compile_small.go
	if sg.read(&g, false) {
		return sg.ranges(), nil
	}
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return nil, err
	}
	return rangeOf(cg), nil
}

// rangeOf is Range on a compiled group.
func rangeOf(cg *compiledGroup) Assignment {
	if !mayNeedRacks(cg) {
		return rangeWithoutRacks(cg)
	}
	r := newRanger(cg)
	if !r.needsRacks() {
		return rangeWithoutRacks(cg)
	}
	r.b = newBuilder(cg)
	r.matchRacks()
	for t := range cg.topics {
		r.fillRanges(int32(t))
	}
	return r.b.assignment()
}

// ranger holds the per-topic state of a range assignment, the state Kafka's
// RangeAssignor keeps in one TopicAssignmentState per topic, flattened.
type ranger struct {
	cg *compiledGroup
	b  *builder

	// Subscribers of topic t, in Kafka's member order, are
	// subs[first[t]:first[t+1]]. On the rack-aware path, count is
	// parallel to subs and says how many partitions of t each has been
	// given so far.
	first []int32
	subs  []int32 // member indices
	count []int32

	quota   []int32 // topic => partitions per subscriber, n/c
	extra   []int32 // topic => subscribers that may still take one partition above quota
	pending []int32 // topic => partitions not assigned yet

	// taken[cg.start[t]+p] reports whether (t, p) is assigned. Nil until
	// rack matching runs; without it, ranges need no bookkeeping.
	taken []bool

	need      []bool // topic => rack-aware assignment would change something
	anyRacked []bool // topic => some subscriber declares a rack
}

func newRanger(cg *compiledGroup) *ranger {
	nt := len(cg.topics)
	r := &ranger{
		cg:      cg,
		first:   make([]int32, nt+1),
		quota:   make([]int32, nt),
		extra:   make([]int32, nt),
		pending: make([]int32, nt),
	}
	// Subscribers per topic, as compressed rows: count, prefix-sum, fill in
	// Kafka's member order so each row comes out sorted.
	for _, sub := range cg.subs {
		for _, t := range sub {
			r.first[t+1]++
		}
	}
	for t := range nt {
		r.first[t+1] += r.first[t]
	}
	r.subs = make([]int32, r.first[nt])
	next := slices.Clone(r.first[:nt])
	for _, m := range cg.kafkaOrder {
		for _, t := range cg.subs[m] {
			r.subs[next[t]] = m
			next[t]++
		}
	}
	for t := range nt {
		n, c := cg.numParts[t], r.first[t+1]-r.first[t]
		r.quota[t], r.extra[t], r.pending[t] = n/c, n%c, n
	}
	return r
}

// room returns how many more partitions of topic t the subscriber at
// position i of r.subs may take: Kafka's maxAssignable.
func (r *ranger) room(t, i int32) int32 {
	limit := r.quota[t]
	if r.extra[t] > 0 {
		limit++
	}
	return max(0, limit-r.count[i])
}

// give assigns partition p of topic t to the subscriber at position i.
func (r *ranger) give(t, i, p int32) {
	r.b.add(r.subs[i], t, p)
	if r.taken != nil {
		r.taken[r.cg.start[t]+p] = true
	}
	r.count[i]++
	if r.count[i] == r.quota[t]+1 {
		r.extra[t]--
	}
	r.pending[t]--
}

// fillRanges gives each subscriber of t, in member order, the lowest
// unassigned partitions up to its room. Without prior rack matching these
// are Kafka's contiguous ranges.
func (r *ranger) fillRanges(t int32) {
	p, n := int32(0), r.cg.numParts[t]
	for i := r.first[t]; i < r.first[t+1] && r.pending[t] > 0; i++ {
		for k := r.room(t, i); k > 0; k-- {
			for r.taken != nil && r.taken[r.cg.start[t]+p] {
				p++
			}
			if p >= n {
				return
			}
			r.give(t, i, p)
			p++
		}
	}
}

// mayNeedRacks reports whether some member declares a rack and some topic
// has known replica racks: without both, no topic needs rack awareness, and
// [ranger.needsRacks] need not be asked.
func mayNeedRacks(cg *compiledGroup) bool {
	return slices.ContainsFunc(cg.memberRack, func(rk int32) bool { return rk >= 0 }) &&
		slices.ContainsFunc(cg.partRacks, func(pr [][]int32) bool { return pr != nil })
}

// needsRacks decides, topic by topic, whether rack-aware assignment would
// change anything (Kafka's useRackAwareAssignment), and reports whether any
// topic needs it.
func (r *ranger) needsRacks() bool {
	cg := r.cg
	if len(cg.rackNames) == 0 {
		return false
	}
	nt := len(cg.topics)
	r.need = make([]bool, nt)
	r.anyRacked = make([]bool, nt)
	// Stamps avoid clearing per-rack marks between topics.
	memberStamp := make([]int32, len(cg.rackNames))
	replicaStamp := make([]int32, len(cg.rackNames))
	anyNeed := false
	for t := range nt {
		stamp := int32(t) + 1
		for _, m := range r.subs[r.first[t]:r.first[t+1]] {
			if rk := cg.memberRack[m]; rk >= 0 {
				memberStamp[rk] = stamp
				r.anyRacked[t] = true
			}
		}
		if !r.anyRacked[t] || cg.partRacks[t] == nil {
			continue
		}
		union, overlap := 0, false
		for _, racks := range cg.partRacks[t] {
			for _, rk := range racks {
				if replicaStamp[rk] != stamp {
					replicaStamp[rk] = stamp
					union++
					overlap = overlap || memberStamp[rk] == stamp
				}
			}
		}
		if !overlap {
			continue // no subscriber's rack holds a replica of t
		}
		for _, racks := range cg.partRacks[t] {
			if len(racks) < union {
				r.need[t] = true // some partition lacks a replica on some rack
				break
			}
		}
		anyNeed = anyNeed || r.need[t]
	}
	return anyNeed
}

// matchRacks runs the rack-matching pass over every topic whose subscribers
// declare racks: co-partitioned groups together, other topics alone when
// they need it.
func (r *ranger) matchRacks() {
	cg := r.cg
	nt := len(cg.topics)
	r.taken = make([]bool, cg.start[nt])
	r.count = make([]int32, len(r.subs))

	// Group topics by subscribers and partition count, in topic order.
	// Kafka groups in hash order, but groups are disjoint and each topic's
	// result depends only on its own group, so the order is not observable.
	groupOf := make(map[string]int)
	var groups [][]int32
	var key []byte
	for t := range nt {
		if !r.anyRacked[t] {
			continue // Kafka groups these under zero partitions: nothing to match
		}
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(cg.numParts[t]))
		for _, m := range r.subs[r.first[t]:r.first[t+1]] {
			key = binary.LittleEndian.AppendUint32(key, uint32(m))
		}
		g, ok := groupOf[string(key)]
		if !ok {
			g = len(groups)
			groupOf[string(key)] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], int32(t))
	}

	m := newRackMatcher(cg)
	for _, topics := range groups {
		switch {
		case len(topics) > 1:
			r.matchCoPartitioned(topics, m)
		case r.need[topics[0]]:
			r.matchTopic(topics[0], m)
		}
	}
}

// rackMatcher holds scratch space indexed by rack, reused across topics.
type rackMatcher struct {
	parts  [][]int32 // rack => partitions with a replica there, ascending
	queue  [][]int32 // rack => subscriber positions with that rack, in member order
	cursor []int32   // rack => position in parts or queue to resume from
	live   []bool    // rack => some subscriber of the current topic or group has it
	racks  []int32   // racks that are live
	inter  []int32   // racks common to partition p of every topic of a group
}

func newRackMatcher(cg *compiledGroup) *rackMatcher {
	n := len(cg.rackNames)
	return &rackMatcher{
		parts:  make([][]int32, n),
		queue:  make([][]int32, n),
		cursor: make([]int32, n),
		live:   make([]bool, n),
	}
}

// use marks rack rk live for the current topic or group, with an empty
// partition list and queue. Their storage is reused across topics.
func (m *rackMatcher) use(rk int32) {
	m.live[rk] = true
	m.parts[rk] = m.parts[rk][:0]
	m.queue[rk] = m.queue[rk][:0]
	m.cursor[rk] = 0
	m.racks = append(m.racks, rk)
}

// release marks every live rack dead again.
func (m *rackMatcher) release() {
	for _, rk := range m.racks {
		m.live[rk] = false
	}
	m.racks = m.racks[:0]
}

// matchTopic gives each subscriber of t, in member order and up to its
// room, the lowest unassigned partitions with a replica on its rack, or the
// lowest unassigned partitions at all if it has no rack.
func (r *ranger) matchTopic(t int32, m *rackMatcher) {
	cg := r.cg
	// List, for each rack some subscriber has, the partitions it holds.
	for _, member := range r.subs[r.first[t]:r.first[t+1]] {
		if rk := cg.memberRack[member]; rk >= 0 && !m.live[rk] {
			m.use(rk)
		}
	}
	for p, racks := range cg.partRacks[t] {
		for _, rk := range racks {
			if m.live[rk] {
				m.parts[rk] = append(m.parts[rk], int32(p))
			}
		}
	}
	var anyPart int32 // cursor over all partitions, for subscribers without a rack
	n := cg.numParts[t]
	base := r.cg.start[t]
	for i := r.first[t]; i < r.first[t+1] && r.pending[t] > 0; i++ {
		room := r.room(t, i)
		rk := cg.memberRack[r.subs[i]]
		for ; room > 0; room-- {
			var p int32 = -1
			if rk < 0 {
				for anyPart < n && r.taken[base+anyPart] {
					anyPart++
				}
				if anyPart < n {
					p = anyPart
				}
			} else {
				list := m.parts[rk]
				c := m.cursor[rk]
				for c < int32(len(list)) && r.taken[base+list[c]] {
					c++
				}
				m.cursor[rk] = c
				if c < int32(len(list)) {
					p = list[c]
				}
			}
			if p < 0 {
				break
			}
			r.give(t, i, p)
		}
	}
	m.release()
}

// matchCoPartitioned assigns partition p of every topic of a co-partitioned
// group together, for p in increasing order, to the first subscriber in
// member order that has room and whose rack (if any) holds a replica of p in
// every topic of the group. Subscribers are the same for every topic, and
// every topic evolves identically, so the first topic's room stands for all.
func (r *ranger) matchCoPartitioned(topics []int32, m *rackMatcher) {
	cg := r.cg
	t0 := topics[0]
	lo, hi := r.first[t0], r.first[t0+1]
	// Queues of subscriber positions (relative to lo) per rack, and of those
	// without a rack. Room only shrinks during this pass, so a subscriber
	// found without room can be dropped from its queue for good.
	var rackless []int32
	for i := lo; i < hi; i++ {
		rk := cg.memberRack[r.subs[i]]
		if rk < 0 {
			rackless = append(rackless, i-lo)
			continue
		}
		if !m.live[rk] {
			m.use(rk)
		}
		m.queue[rk] = append(m.queue[rk], i-lo)
	}
	var racklessHead int32
	head := func(q []int32, c *int32) int32 {
		for *c < int32(len(q)) && r.room(t0, lo+q[*c]) == 0 {
			*c++
		}
		if *c < int32(len(q)) {
			return q[*c]
		}
		return -1
	}
	for p := range cg.numParts[t0] {
		// Racks holding a replica of p in every topic of the group.
		m.inter = append(m.inter[:0], r.replicaRacks(t0, p)...)
		for _, t := range topics[1:] {
			m.inter = intersectSorted(m.inter, r.replicaRacks(t, p))
		}
		best := head(rackless, &racklessHead)
		for _, rk := range m.inter {
			if !m.live[rk] {
				continue // no subscriber on this rack
			}
			c := m.cursor[rk]
			if i := head(m.queue[rk], &c); i >= 0 && (best < 0 || i < best) {
				best = i
			}
			m.cursor[rk] = c
		}
		if best < 0 {
			continue
		}
		for _, t := range topics {
			r.give(t, r.first[t]+best, p)
		}
	}
	m.release()
}

// replicaRacks returns the sorted racks of the replicas of partition p of
// topic t, nil when unknown.
func (r *ranger) replicaRacks(t, p int32) []int32 {
	if pr := r.cg.partRacks[t]; pr != nil {
		return pr[p]
	}
	return nil
}

// intersectSorted keeps in a (sorted, deduplicated) the elements also in b,
// reusing a's storage.
func intersectSorted(a, b []int32) []int32 {
	out := a[:0]
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			out = append(out, x)
		}
	}
	return out
}
