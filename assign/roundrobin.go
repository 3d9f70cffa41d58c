package assign

import (
	"math/bits"
	"slices"
)

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
//
// # Complexity
//
// With M members, T topics, P partitions and S subscription entries (the
// sum of the members' subscription lengths):
//
//   - Validating and interning the group sorts members and topics by name:
//     O(M log M + T log T) comparisons, plus O(S) lookups.
//   - When every member subscribes to every topic: time and memory
//     O(M + T + P) (see roundRobinCommon).
//   - Otherwise, with lists of each topic's subscribers: time
//     O(M + S + P + T log M), memory O(M + S + P) (see dealByRows); or, when
//     a table of T x M bits holds no more words than S, with that table:
//     memory O(M + P + T*M/64) and time O(M + S + P*M/64) at worst, a
//     partition costing one word per 64 members it skips (see dealBySets).
//
// The output holds P partitions in M lists.
type RoundRobin struct{}

// Name returns "roundrobin".
func (RoundRobin) Name() string { return "roundrobin" }

// Protocol returns [Eager].
func (RoundRobin) Protocol() RebalanceProtocol { return Eager }

// Traits says that RoundRobin follows a layout, balanced only when
// subscriptions are identical and never sticky, and is Kafka's
// RoundRobinAssignor.
func (RoundRobin) Traits() Traits { return Traits{JavaClass: "RoundRobinAssignor"} }

func (s RoundRobin) compiled() (Strategy, ownedRead, func(*compiledGroup) (Assignment, error)) {
	return s, ownedIgnored, func(cg *compiledGroup) (Assignment, error) { return roundRobinOf(cg), nil }
}

// Assign computes Kafka's round-robin assignment of g, or returns an
// [*InputError] when g is invalid.
func (RoundRobin) Assign(g Group) (Assignment, error) {
	var sg smallGroup // every member subscribes to every topic: roundRobinCommon's answer (compile_small.go)
	if sg.read(&g, false) {
		return sg.dealt(), nil
	}
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return nil, err
	}
	return roundRobinOf(cg), nil
}

// roundRobinOf is RoundRobin on a compiled group.
func roundRobinOf(cg *compiledGroup) Assignment {
	if subscribers, ok := commonSubscribers(cg); ok {
		return roundRobinCommon(cg, subscribers)
	}
	return roundRobinMixed(cg)
}

// roundRobinCommon is RoundRobin when every subscriber subscribes to every
// topic. Nobody is ever skipped then, so the i-th partition dealt (numbered
// topic by topic in Java's order, which is what cg.start numbers) goes to
// subscribers[i%c]: subscriber k gets P/c partitions of the P in all, one
// more when k < P%c, and each list is written straight into the
// [Assignment] (see [commonSubscribers]). Time and memory O(M + T + P).
//
// It earns its place over dealBySets, which the general path would take
// for such groups, on
// BenchmarkRoundRobinPaths/common/members=1000/topics=1000/partitions=100000
// and BenchmarkRoundRobinPaths/uneven/members=1000/topics=1000 (compile
// included).
func roundRobinCommon(cg *compiledGroup, subscribers []int32) Assignment {
	nm := len(cg.g.Members)
	c := len(subscribers)
	// off[:nm+1] are the offsets of the lists in backing; cursor, sharing
	// its allocation, is scratch indexed by subscriber.
	off := make([]int, nm+1+c)
	off, cursor := off[:nm+1], off[nm+1:]
	if c == 0 {
		return cg.assignmentFrom(off, nil)
	}
	total := int(cg.start[len(cg.topics)])
	for k, m := range subscribers {
		off[m+1] = total / c
		if k < total%c {
			off[m+1]++
		}
	}
	for m := range nm {
		off[m+1] += off[m]
	}

	// Partition by partition, topics in Go order (the order of every
	// list), dealt in turn: partition p of topic t goes to subscriber
	// (cg.start[t]+p) % c. cursor[k] is where the next partition of
	// subscribers[k] goes.
	backing := make([]TopicPartition, total)
	for k, m := range subscribers {
		cursor[k] = off[m]
	}
	order := writeOrder(cg)
	for i := range cg.topics {
		t := int32(i)
		if order != nil {
			t = order[i]
		}
		name := cg.topics[t]
		k := int(cg.start[t]) % c
		for p := range cg.numParts[t] {
			backing[cursor[k]] = TopicPartition{name, p}
			cursor[k]++
			if k++; k == c {
				k = 0
			}
		}
	}
	return cg.assignmentFrom(off, backing)
}

// roundRobinMixed is RoundRobin for any subscriptions: it deals every
// partition, records its owner, then writes the lists.
func roundRobinMixed(cg *compiledGroup) Assignment {
	if setsFit(cg) {
		return cg.assignmentOf(dealBySets(cg), nil, nil)
	}
	return cg.assignmentOf(dealByRows(cg), nil, nil)
}

// dealByRows deals every partition (see [RoundRobin]) and returns its
// owner, by partition number: a member index, or -1 for the partitions of
// a topic nobody subscribes to (there are none, as cg.topics holds only
// subscribed topics, but the rule costs nothing). It lists each topic's
// subscribers by position in member order, which takes memory in
// proportion to the subscriptions.
func dealByRows(cg *compiledGroup) []int32 {
	nt := len(cg.topics)
	np := int32(len(cg.kafkaOrder))

	// Positions in member order of each topic's subscribers, ascending, as
	// compressed rows: subscribers of t are at[first[t]:first[t+1]].
	// Members sharing a subscription slice are counted together.
	first := make([]int32, nt+1)
	for i := 0; i < len(cg.subs); {
		sub, j := cg.subs[i], i+1
		for j < len(cg.subs) && sameSlice(cg.subs[j], sub) {
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
	for pos, m := range cg.kafkaOrder {
		for _, t := range cg.subs[m] {
			at[next[t]] = int32(pos)
			next[t]++
		}
	}

	// Within one topic the pointer visits the topic's subscribers in
	// circular order, so each topic needs only a search for where it starts.
	owner := make([]int32, cg.start[nt]) // partition number => member index
	var pointer int32                    // position in member order of the next member to consider
	for t := range nt {
		row, parts := at[first[t]:first[t+1]], owner[cg.start[t]:cg.start[t+1]]
		if len(row) == 0 {
			for i := range parts {
				parts[i] = -1
			}
			continue
		}
		k, _ := slices.BinarySearch(row, pointer)
		for p := range parts {
			if k == len(row) {
				k = 0
			}
			parts[p] = cg.kafkaOrder[row[k]]
			pointer = (row[k] + 1) % np
			k++
		}
	}
	return owner
}

// setsFit reports whether a table of topics x members bits (see
// [dealBySets]) holds no more words than the subscriptions hold topics, so
// that it takes no more memory than rows of positions would. It does not
// when few members subscribe to each topic.
func setsFit(cg *compiledGroup) bool {
	words := (len(cg.kafkaOrder) + 63) / 64
	entries := 0
	for _, sub := range cg.subs {
		entries += len(sub)
	}
	return words*len(cg.topics) <= entries
}

// dealBySets is dealByRows with each topic's subscribers held as a set of
// positions in member order, one bit each. Building the sets costs one OR
// per subscription in a table of topics x members bits, which stays in
// cache where rows of positions, four bytes each, would not.
//
// It earns its place over dealByRows in large groups, on
// BenchmarkRoundRobinPaths/mixed/members=1000/topics=1000/partitions=100000
// and BenchmarkRoundRobinPaths/mixed-uneven/members=1000/topics=1000
// (compile included). On .../mixed/members=100/topics=100/partitions=10000
// it is slower, and setsFit still picks it there: it decides by memory,
// not by speed.
func dealBySets(cg *compiledGroup) []int32 {
	nt := len(cg.topics)
	np := len(cg.kafkaOrder)
	words := (np + 63) / 64
	// Bit pos%64 of word table[pos/64*nt+t] says whether the member at
	// position pos subscribes to t. Word by word, topics are adjacent, so
	// a member's subscription (ascending topics) sets bits in one sweep.
	// Members next to each other in member order that share one
	// subscription slice set their bits together, a word at a time.
	table := make([]uint64, words*nt)
	for i := 0; i < np; {
		sub, j := cg.subs[cg.kafkaOrder[i]], i+1
		for j < np && sameSlice(cg.subs[cg.kafkaOrder[j]], sub) {
			j++
		}
		for w := i / 64; w <= (j-1)/64; w++ {
			lo, hi := max(i, w*64)-w*64, min(j, w*64+64)-w*64 // bits [lo, hi) of word w
			mask := ^uint64(0) >> (64 - (hi - lo)) << lo
			row := table[w*nt:][:nt]
			for _, t := range sub {
				row[t] |= mask
			}
		}
		i = j
	}

	owner := make([]int32, cg.start[nt]) // partition number => member index
	pointer := 0                         // position in member order of the next member to consider
	for t := range nt {
		set := subscriberSet{table[t:], nt, words}
		parts := owner[cg.start[t]:cg.start[t+1]]
		for p := range parts {
			pos := set.next(pointer)
			if pos < 0 {
				pos = set.next(0) // wrap around
			}
			if pos < 0 {
				parts[p] = -1 // nobody subscribes to t
				continue
			}
			parts[p] = cg.kafkaOrder[pos]
			pointer = pos + 1
			if pointer == np {
				pointer = 0
			}
		}
	}
	return owner
}

// subscriberSet is one topic's column of dealBySets's table: word w of
// the set is table[w*stride].
type subscriberSet struct {
	table  []uint64
	stride int
	words  int
}

// next returns the first position at or after from in the set, or -1.
func (s subscriberSet) next(from int) int {
	w := from / 64
	if w >= s.words {
		return -1
	}
	word := s.table[w*s.stride] >> (from % 64) << (from % 64)
	for word == 0 {
		if w++; w == s.words {
			return -1
		}
		word = s.table[w*s.stride]
	}
	return w*64 + bits.TrailingZeros64(word)
}
