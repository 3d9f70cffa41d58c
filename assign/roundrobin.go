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
	if subscribers, ok := commonSubscribers(ix); ok {
		return roundRobinCommon(ix, subscribers), nil
	}
	return roundRobinMixed(ix), nil
}

// roundRobinCommon is RoundRobin when every subscriber subscribes to every
// topic. Nobody is ever skipped then, so the i-th partition dealt (numbered
// topic by topic in Java's order, which is what ix.start numbers) goes to
// subscribers[i%c]: subscriber k gets P/c partitions of the P in all, one
// more when k < P%c, and each list is written directly.
func roundRobinCommon(ix *index, subscribers []int32) Assignment {
	nm := len(ix.g.Members)
	c := len(subscribers)
	off := make([]int, nm+1)
	if c == 0 {
		return ix.assignmentFrom(off, nil)
	}
	total := int(ix.start[len(ix.topics)])
	for k, m := range subscribers {
		off[m+1] = total / c
		if k < total%c {
			off[m+1]++
		}
	}
	for m := range nm {
		off[m+1] += off[m]
	}
	cursor := make([]int, c) // subscriber k => where its next partition goes in backing
	for k, m := range subscribers {
		cursor[k] = off[m]
	}

	backing := make([]TopicPartition, total)
	order := writeOrder(ix)
	for i := range ix.topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		name := ix.topics[t]
		k := int(ix.start[t]) % c
		for p := range ix.numParts[t] {
			backing[cursor[k]] = TopicPartition{name, p}
			cursor[k]++
			if k++; k == c {
				k = 0
			}
		}
	}
	return ix.assignmentFrom(off, backing)
}

// roundRobinMixed is RoundRobin for any subscriptions: it deals every
// partition, records its owner, then writes the lists.
func roundRobinMixed(ix *index) Assignment {
	nt := len(ix.topics)
	nm := len(ix.g.Members)
	np := int32(len(ix.kafkaOrder))

	// Positions in member order of each topic's subscribers, ascending, as
	// compressed rows: subscribers of t are at[first[t]:first[t+1]].
	// Members sharing a subscription slice are counted together.
	first := make([]int32, nt+1)
	for i := 0; i < len(ix.subs); {
		sub, j := ix.subs[i], i+1
		for j < len(ix.subs) && sameSlice(ix.subs[j], sub) {
			j++
		}
		for _, t := range sub {
			first[t+1] += int32(j - i)
		}
		i = j
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
	owner := make([]int32, ix.start[nt]) // partition number => member index
	var pointer int32                    // position in member order of the next member to consider
	for t := range nt {
		row := at[first[t]:first[t+1]]
		if len(row) == 0 {
			continue // not subscribed: never in ix.topics
		}
		k, _ := slices.BinarySearch(row, pointer)
		for pid := ix.start[t]; pid < ix.start[t+1]; pid++ {
			if k == len(row) {
				k = 0
			}
			owner[pid] = ix.kafkaOrder[row[k]]
			pointer = (row[k] + 1) % np
			k++
		}
	}

	// off[m+2] counts member m's partitions; after the prefix sums off[m+1]
	// is where its list starts and serves as its cursor while writing, which
	// leaves off[:nm+1] the offsets of the lists.
	off := make([]int, nm+2)
	for t := range nt {
		if first[t+1] == first[t] {
			continue // owner holds no member for these
		}
		for _, m := range owner[ix.start[t]:ix.start[t+1]] {
			off[m+2]++
		}
	}
	for i := 2; i < len(off); i++ {
		off[i] += off[i-1]
	}
	backing := make([]TopicPartition, off[nm+1])
	order := writeOrder(ix)
	for i := range nt {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		if first[t+1] == first[t] {
			continue
		}
		name, base := ix.topics[t], ix.start[t]
		for p, m := range owner[base:ix.start[t+1]] {
			backing[off[m+1]] = TopicPartition{name, int32(p)}
			off[m+1]++
		}
	}
	return ix.assignmentFrom(off[:nm+1], backing)
}
