package assign

import "slices"

// RoundRobin is Kafka's RoundRobinAssignor: every partition of every
// subscribed topic is dealt in turn to the members, skipping those not
// subscribed to its topic.
//
// # Algorithm
//
// Partitions are laid out topic by topic, topics in Java's string order,
// each topic's partitions in increasing order. Members are laid out in
// Kafka's member order: members with a group.instance.id first, ordered by
// it, then the others ordered by member ID, both in Java's string order. A
// pointer walks the members circularly. For each partition it moves on to
// the first member at or after it that subscribes to the partition's topic,
// gives it the partition, and then moves one past that member, so the next
// partition starts with the member after the one that was served. Racks are
// ignored, as in Kafka.
//
// # Worked example
//
// Members C0 and C1 both subscribe to topics t0 and t1, each with three
// partitions. Dealing t0p0, t0p1, t0p2, t1p0, t1p1, t1p2 alternately gives:
//
//	C0: t0p0, t0p2, t1p1
//	C1: t0p1, t1p0, t1p2
//
// With different subscriptions the skipping can unbalance the result: with
// C0 on t0, C1 on t0 and t1, C2 on t0, t1 and t2, and 1, 2 and 3 partitions,
// C0 gets t0p0, C1 gets t1p0, and C2 gets t1p1 and all of t2.
//
// # Invariants
//
// When every member subscribes to the same topics, the members' totals
// differ by at most one, and the members getting one more are the first in
// member order. With any subscriptions, each partition goes to a subscriber
// of its topic, and a topic's partitions go to its subscribers in circular
// member order, so per-topic counts among its subscribers differ by at most
// one.
type RoundRobin struct{}

// Name returns "roundrobin".
func (RoundRobin) Name() string { return "roundrobin" }

// Protocol returns [Eager].
func (RoundRobin) Protocol() RebalanceProtocol { return Eager }

// Assign computes Kafka's round-robin assignment of g, or returns an
// [*InputError] when g is invalid.
func (RoundRobin) Assign(g Group) (Assignment, error) {
	ix, err := compile(g)
	if err != nil {
		return nil, err
	}
	b := newBuilder(ix)
	nt := len(ix.topics)
	nm := int32(len(ix.kafkaOrder))

	// Positions in member order of each topic's subscribers, ascending, as
	// compressed rows: subscribers of t are at[first[t]:first[t+1]].
	first := make([]int32, nt+1)
	for _, sub := range ix.subs {
		for _, t := range sub {
			first[t+1]++
		}
	}
	for t := range nt {
		first[t+1] += first[t]
	}
	at := make([]int32, first[nt])
	next := slices.Clone(first[:nt])
	for pos, m := range ix.kafkaOrder {
		for _, t := range ix.subs[m] {
			at[next[t]] = int32(pos)
			next[t]++
		}
	}

	// Within one topic the pointer visits the topic's subscribers in
	// circular order, so each topic needs only a search for where it starts.
	var pointer int32 // position in member order of the next member to consider
	for t := range nt {
		row := at[first[t]:first[t+1]]
		k, _ := slices.BinarySearch(row, pointer)
		for p := range ix.numParts[t] {
			if k == len(row) {
				k = 0
			}
			b.add(ix.kafkaOrder[row[k]], int32(t), p)
			pointer = (row[k] + 1) % nm
			k++
		}
	}
	return b.assignment(), nil
}
