package assign

import (
	"slices"
	"strings"
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
// ([ServerRange.AssignRanges] returns one range per member and topic).
//
// Topic ids are not needed to compute it, but like [Uniform] it checks
// those given ([CheckTopicIDs]), and refuses current targets Kafka could
// not hold ([ErrTargetConflict], [ErrTargetOutOfRange]).
//
// # Example
//
// Members C0 and C1 subscribe to t0 and t1, three partitions each:
//
//	C0: t0-0 t0-1 t1-0 t1-1
//	C1: t0-2 t1-2
type ServerRange struct {
	// Kafka is the version whose assignor to reproduce; the zero value is
	// Kafka41. Both versions compute the same.
	Kafka KafkaVersion
}

// Name is "server-range"; Kafka's own name for it is "range".
func (ServerRange) Name() string { return "server-range" }

// Protocol is [ServerAssigned].
func (ServerRange) Protocol() RebalanceProtocol { return ServerAssigned }

// PartitionRange is partitions Start to End-1 of Topic.
type PartitionRange struct {
	Topic      string
	Start, End int32
}

// RangeAssignment maps each member ID to its ranges, one per topic,
// sorted by topic. Every member appears, with nil when it gets nothing.
type RangeAssignment map[string][]PartitionRange

// Assign returns each member's new target assignment.
func (r ServerRange) Assign(g Group) (Assignment, error) {
	ranges, cg, err := r.ranges(g)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, rs := range ranges {
		for _, pr := range rs {
			total += int(pr.End - pr.Start)
		}
	}
	backing := make([]TopicPartition, 0, total)
	a := make(Assignment, len(g.Members))
	for m, rs := range ranges {
		from := len(backing)
		for _, pr := range rs {
			for p := pr.Start; p < pr.End; p++ {
				backing = append(backing, TopicPartition{pr.Topic, p})
			}
		}
		var list []TopicPartition
		if len(backing) > from {
			list = backing[from:len(backing):len(backing)]
		}
		a[cg.g.Members[m].ID] = list
	}
	return a, nil
}

// AssignRanges returns the same answer as [ServerRange.Assign] as ranges,
// without a TopicPartition per partition: for callers that encode it or
// count it.
func (r ServerRange) AssignRanges(g Group) (RangeAssignment, error) {
	ranges, cg, err := r.ranges(g)
	if err != nil {
		return nil, err
	}
	a := make(RangeAssignment, len(g.Members))
	for m, rs := range ranges {
		a[cg.g.Members[m].ID] = rs
	}
	return a, nil
}

// ranges computes every member's ranges, by member index.
func (r ServerRange) ranges(g Group) ([][]PartitionRange, *compiledGroup, error) {
	if err := r.Kafka.check(); err != nil {
		return nil, nil, err
	}
	sg, err := compileServer(g)
	if err != nil {
		return nil, nil, err
	}
	cg := sg.cg
	subscribers := make([]int32, len(cg.topics))
	for _, m := range cg.kafkaOrder {
		for _, t := range cg.subs[m] {
			subscribers[t]++
		}
	}
	next := make([]int32, len(cg.topics))  // topic => first partition not yet given
	taken := make([]int32, len(cg.topics)) // topic => subscribers served so far
	out := make([][]PartitionRange, len(g.Members))
	goOrder := cg.goOrder()
	sorted := slices.IsSorted(goOrder)
	for _, m := range cg.kafkaOrder {
		subs := cg.subs[m]
		if len(subs) == 0 {
			continue
		}
		rs := make([]PartitionRange, 0, len(subs))
		for _, t := range subs {
			n, s := cg.numParts[t], subscribers[t]
			quota := n / s
			if taken[t] < n%s {
				quota++
			}
			taken[t]++
			if quota > 0 {
				rs = append(rs, PartitionRange{cg.topics[t], next[t], next[t] + quota})
				next[t] += quota
			}
		}
		if !sorted { // topic indices follow Java's order of names, not Go's
			slices.SortFunc(rs, func(a, b PartitionRange) int { return strings.Compare(a.Topic, b.Topic) })
		}
		if len(rs) > 0 {
			out[m] = rs
		}
	}
	return out, cg, nil
}
