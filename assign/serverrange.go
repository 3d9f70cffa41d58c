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
// ([ServerRange.AssignRanges] returns one range per member and topic).
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
	// Kafka41. Both versions compute the same.
	Kafka KafkaVersion
}

// Name is "server-range"; Kafka's own name for it is "range".
func (ServerRange) Name() string { return "server-range" }

// Protocol is [ServerAssigned].
func (ServerRange) Protocol() RebalanceProtocol { return ServerAssigned }

// RangeAssignment is an answer as ranges, without a TopicPartition per
// partition, in one pointer-free array, for callers that encode the
// answer or count it: [ServerRange.AssignRanges] gives one range per
// member and topic, [Uniform.AssignRanges] one per run of consecutive
// partitions a member gets.
type RangeAssignment struct {
	// Topics names the topics the ranges refer to, in Go string order.
	Topics []string
	// Members maps each member ID to its ranges, sorted by topic. Every
	// member appears, with nil when it gets nothing.
	Members map[string][]TopicRange
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
	for _, rs := range ra.Members {
		for _, tr := range rs {
			total += int(tr.End - tr.Start)
		}
	}
	backing := make([]TopicPartition, 0, total)
	a := make(Assignment, len(ra.Members))
	for id, rs := range ra.Members {
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
		a[id] = list
	}
	return a
}

// AssignRanges returns the answer of [ServerRange.Assign] as ranges.
func (r ServerRange) AssignRanges(g Group) (RangeAssignment, error) {
	if err := r.Kafka.check(); err != nil {
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
	// Per topic: partitions per subscriber, how many take one more, the
	// subscribers served and the next partition to give.
	subscribers := make([]int32, nt)
	total := 0
	for _, m := range cg.kafkaOrder {
		for _, t := range cg.subs[m] {
			subscribers[t]++
		}
		total += len(cg.subs[m])
	}
	quota, extra := make([]int32, nt), make([]int32, nt)
	for t, s := range subscribers {
		if s > 0 {
			quota[t], extra[t] = cg.numParts[t]/s, cg.numParts[t]%s
		}
	}
	served, next := make([]int32, nt), make([]int32, nt)
	// Topic indices follow Java's order of names; the result is in Go's.
	goOrder := cg.goOrder()
	goRank := make([]int32, nt)
	for k, t := range goOrder {
		goRank[t] = int32(k)
	}
	inGoOrder := slices.IsSorted(goOrder)

	ra := RangeAssignment{Topics: make([]string, nt), Members: make(map[string][]TopicRange, len(g.Members))}
	for k, t := range goOrder {
		ra.Topics[k] = cg.topics[t]
	}
	backing := make([]TopicRange, 0, total)
	for _, m := range cg.kafkaOrder {
		from := len(backing)
		for _, t := range cg.subs[m] {
			q := quota[t]
			if served[t] < extra[t] {
				q++
			}
			served[t]++
			if q > 0 {
				backing = append(backing, TopicRange{goRank[t], next[t], next[t] + q})
				next[t] += q
			}
		}
		var rs []TopicRange
		if len(backing) > from {
			rs = backing[from:len(backing):len(backing)]
			if !inGoOrder {
				slices.SortFunc(rs, func(a, b TopicRange) int { return cmp.Compare(a.Topic, b.Topic) })
			}
		}
		ra.Members[g.Members[m].ID] = rs
	}
	return ra, nil
}
