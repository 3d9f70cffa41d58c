package assign

import (
	"cmp"
	"slices"
)

// ServerRange is the group coordinator's "range" assignor of the KIP-848
// consumer group protocol (group.consumer.assignors=range), named
// "server-range" here to tell it from the client's [Range]. It returns
// exactly the target Kafka's server-side RangeAssignor returns; Kafka 4.0
// and 4.1 compute the same.
//
// # Algorithm
//
// Members are ordered as the classic assignors order them: static members
// first, by group.instance.id, then dynamic members by member ID, both in
// Java's string order. Each topic's subscribers, in that order, take
// contiguous ranges: with N partitions and S subscribers, the first N%S
// take N/S+1 partitions and the others N/S. Topics of equal partition
// count subscribed by the same members are so co-partitioned.
//
// Unlike the client's [Range], which it otherwise resembles, it is the
// same for homogeneous and heterogeneous groups, and it ignores racks
// (neither Kafka 4.0 nor 4.1 passes racks to it) and the current targets
// ([Member.Owned]): it is not sticky. The result depends on neither the
// order of Group.Members nor any Java collection order. Complexity: O(S)
// for S subscriptions, plus one entry per partition for [ServerRange.Assign]
// ([ServerRange.AssignRanges] returns one range per member and topic it
// gives partitions of; when every member shares one subscription slice,
// it visits only those, not every subscription).
//
// Topic ids are not needed to compute it, but it checks those given
// ([CheckTopicIDs]). It does not read the current targets at all, so
// unlike [Uniform] it refuses no target, not even one listing a partition
// twice.
//
// # Example
//
// Members C0 and C1 subscribe to t0 and t1, three partitions each:
//
//	C0: t0-0 t0-1 t1-0 t1-1
//	C1: t0-2 t1-2
type ServerRange struct {
	// Kafka is the version whose assignor to reproduce; the zero value is
	// the newest, Kafka44. Every version computes the same.
	Kafka KafkaVersion
}

// Name is "server-range"; Kafka's own name for it is "range".
func (ServerRange) Name() string { return "server-range" }

// Protocol is [ServerAssigned].
func (ServerRange) Protocol() RebalanceProtocol { return ServerAssigned }

// Traits says that ServerRange follows a layout, like [Range].
func (ServerRange) Traits() Traits { return Traits{} }

// KafkaVersion returns s.Kafka.
func (s ServerRange) KafkaVersion() KafkaVersion { return s.Kafka }

// WithKafkaVersion returns ServerRange for Kafka v.
func (ServerRange) WithKafkaVersion(v KafkaVersion) KafkaVersioned { return ServerRange{Kafka: v} }

// RangeAssignment is an answer as ranges, without a TopicPartition per
// partition, the ranges in one pointer-free array, for callers that
// encode the answer or count it: [ServerRange.AssignRanges] gives one
// range per member and topic, [Uniform.AssignRanges] one per run of
// consecutive partitions a member gets. Members are listed as the group
// lists them, not in a map, which costs bytes and time on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform-ranges/churn=leave1.
type RangeAssignment struct {
	// Topics names the topics the ranges refer to, in Go string order.
	Topics []string
	// IDs are the member IDs, in the order of Group.Members.
	IDs []string
	// Ranges holds each member's ranges, sorted by topic, parallel to
	// IDs: nil for a member that gets nothing.
	Ranges [][]TopicRange
}

// TopicRange is partitions Start to End-1 of the topic
// RangeAssignment.Topics[Topic].
type TopicRange struct {
	Topic, Start, End int32
}

// Assign returns each member's new target assignment.
func (r ServerRange) Assign(g Group) (Assignment, error) {
	ra, err := r.AssignRanges(g)
	if err != nil {
		return nil, err
	}
	return ra.Assignment(), nil
}

// Assignment expands ra into an [Assignment]: a TopicPartition per
// partition, every member's list sorted, all in one backing array.
func (ra RangeAssignment) Assignment() Assignment {
	total := 0
	for _, rs := range ra.Ranges {
		for _, tr := range rs {
			total += int(tr.End - tr.Start)
		}
	}
	backing := make([]TopicPartition, 0, total)
	a := make(Assignment, len(ra.IDs))
	for i, rs := range ra.Ranges {
		from := len(backing)
		for _, tr := range rs {
			name := ra.Topics[tr.Topic]
			for p := tr.Start; p < tr.End; p++ {
				backing = append(backing, TopicPartition{name, p})
			}
		}
		var list []TopicPartition
		if len(backing) > from {
			list = backing[from:len(backing):len(backing)]
		}
		a[ra.IDs[i]] = list
	}
	return a
}

// newRangeAssignment returns a RangeAssignment for g's members, with
// room for their ranges and the names of topics, in Go order, to fill.
func newRangeAssignment(g *Group, topics int) RangeAssignment {
	ra := RangeAssignment{Topics: make([]string, topics), IDs: make([]string, len(g.Members)), Ranges: make([][]TopicRange, len(g.Members))}
	for i := range g.Members {
		ra.IDs[i] = g.Members[i].ID
	}
	return ra
}

// AssignRanges returns the answer of [ServerRange.Assign] as ranges.
func (r ServerRange) AssignRanges(g Group) (RangeAssignment, error) {
	if err := r.Kafka.check(); err != nil {
		return RangeAssignment{}, err
	}
	g, err := ResolveTopicRegex(g) // as the coordinator does before it runs an assignor
	if err != nil {
		return RangeAssignment{}, err
	}
	cg, err := compile(g, ownedUnread)
	if err != nil {
		return RangeAssignment{}, err
	}
	if err := CheckTopicIDs(g); err != nil {
		return RangeAssignment{}, err
	}
	nt := len(cg.topics)
	st := make([]rangeTopic, nt)
	order := cg.kafkaOrder
	for i := 0; i < len(order); { // members sharing a subscription count at once
		subs := cg.subs[order[i]]
		j := i + 1
		for j < len(order) && sameSlice(cg.subs[order[j]], subs) {
			j++
		}
		for _, t := range subs {
			st[t].subscribers += int32(j - i)
		}
		i = j
	}
	total := 0 // ranges: every subscriber of a topic gets one, or only the extra ones
	for t := range st {
		ts := &st[t]
		if ts.subscribers > 0 {
			ts.quota, ts.extra = cg.numParts[t]/ts.subscribers, cg.numParts[t]%ts.subscribers
		}
		if ts.quota > 0 {
			total += int(ts.subscribers)
		} else {
			total += int(ts.extra)
		}
	}
	// Topic indices follow Java's order of names; the result is in Go's.
	goOrder := cg.goOrder()
	for k, t := range goOrder {
		st[t].rank = int32(k)
	}
	inGoOrder := slices.IsSorted(goOrder)

	ra := newRangeAssignment(&g, nt)
	for k, t := range goOrder {
		ra.Topics[k] = cg.topics[t]
	}
	if len(order) > 0 && slices.IndexFunc(order, func(m int32) bool { return !sameSlice(cg.subs[m], cg.subs[order[0]]) }) < 0 {
		sharedRanges(st, goOrder, order, total, ra.Ranges)
		return ra, nil
	}
	backing := make([]TopicRange, 0, total)
	for _, m := range order {
		from := len(backing)
		for _, t := range cg.subs[m] {
			ts := &st[t]
			q := ts.quota
			if ts.served < ts.extra {
				q++
			}
			ts.served++
			if q > 0 {
				backing = append(backing, TopicRange{ts.rank, ts.next, ts.next + q})
				ts.next += q
			}
		}
		var rs []TopicRange
		if len(backing) > from {
			rs = backing[from:len(backing):len(backing)]
			if !inGoOrder {
				slices.SortFunc(rs, func(a, b TopicRange) int { return cmp.Compare(a.Topic, b.Topic) })
			}
		}
		ra.Ranges[m] = rs
	}
	return ra, nil
}

// rangeTopic is ServerRange's state of one topic: its subscribers,
// partitions per subscriber, how many take one more, the subscribers
// served so far, the next partition to give and the topic's rank in Go
// order, side by side for AssignRanges' loop over subscriptions.
type rangeTopic struct{ subscribers, quota, extra, served, next, rank int32 }

// sharedRanges is AssignRanges' answer when every member shares one
// subscription, so that every topic's subscribers are all of order:
// the k-th member of order gets partitions k*quota + min(k, extra) on,
// quota of them and one more if k < extra. Topic by topic in Go order,
// only the members that get some partitions are visited, so that the
// ranges of each member come out sorted at no cost: O(ranges + topics +
// members) rather than O(members × topics), a range per member and topic
// being visited either way only when most members get part of each
// topic, as on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=server-range-ranges/churn=fresh
// (100 partitions per topic for 1,000 subscribers). TestServerRangeShared
// checks it against the general loop.
//
// out[m] receives the ranges of member index m.
func sharedRanges(st []rangeTopic, goOrder []int32, order []int32, total int, out [][]TopicRange) {
	if total > 0 && total == len(order)*len(goOrder) {
		everyTopicRanges(st, goOrder, order, total, out)
		return
	}
	// count[k]: the ranges of the k-th member of order. Every member gets
	// one of a topic with a quota, the first extra of one without.
	count := make([]int, len(order)+1)
	for _, t := range goOrder {
		if ts := st[t]; ts.quota > 0 {
			count[0]++
			count[len(order)]--
		} else if ts.extra > 0 {
			count[0]++
			count[ts.extra]--
		}
	}
	cursor := make([]int, len(order)+1) // k => its next slot; bounds after the loop
	for k := range order {
		if k > 0 {
			count[k] += count[k-1]
		}
		cursor[k+1] = cursor[k] + count[k]
	}
	bounds := slices.Clone(cursor)
	backing := make([]TopicRange, total)
	for _, t := range goOrder {
		ts := st[t]
		n := len(order)
		if ts.quota == 0 {
			n = int(ts.extra)
		}
		for k := range n {
			start := int32(k)*ts.quota + min(int32(k), ts.extra)
			end := start + ts.quota
			if int32(k) < ts.extra {
				end++
			}
			backing[cursor[k]] = TopicRange{ts.rank, start, end}
			cursor[k]++
		}
	}
	for k, m := range order {
		var rs []TopicRange
		if lo, hi := bounds[k], bounds[k+1]; hi > lo {
			rs = backing[lo:hi:hi]
		}
		out[m] = rs
	}
}

// everyTopicRanges is sharedRanges when every member gets a range of
// every topic: member by member, each member's ranges are written in
// sequence, not scattered over every member's slots topic by topic,
// where the writes miss the cache: on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=server-range-ranges/churn=fresh
// (2,000 members, 100 topics of 10,000 partitions) the two run about the
// same instructions, and this one takes less time. TestServerRangeShared
// checks it against the general loop.
func everyTopicRanges(st []rangeTopic, goOrder []int32, order []int32, total int, out [][]TopicRange) {
	backing := make([]TopicRange, 0, total)
	for k, m := range order {
		k := int32(k)
		lo := len(backing)
		for _, t := range goOrder {
			ts := &st[t]
			start := k*ts.quota + min(k, ts.extra)
			end := start + ts.quota
			if k < ts.extra {
				end++
			}
			backing = append(backing, TopicRange{ts.rank, start, end})
		}
		hi := len(backing)
		out[m] = backing[lo:hi:hi]
	}
}
