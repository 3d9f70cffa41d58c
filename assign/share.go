package assign

import (
	"maps"
	"slices"
)

// VerifyShare checks that a is a valid assignment of g for a share group
// ([Share], [Simple]), where one partition may go to several members:
//
//   - every member of g appears in a, and nobody else does;
//   - each member's list is sorted by [TopicPartition.Compare] and holds
//     a partition at most once;
//   - a member holds only partitions that exist of topics it subscribes
//     to;
//   - every partition of every topic some member subscribes to is held by
//     at least one member, and by at most ceil(S/P) members for a topic of
//     P partitions and S subscribers: no partition is shared by more
//     members than needed to give each subscriber one of the topic's
//     partitions.
//
// It returns nil or an error wrapping [ErrInvalidAssignment] that names
// the first fault, looking at members in the order of g.Members and at
// partitions in list order, then at partitions in topic order. g must be
// valid (see [Group.Validate]).
func VerifyShare(g Group, a Assignment) error {
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return err
	}
	if len(a) != len(g.Members) {
		for _, id := range slices.Sorted(maps.Keys(a)) {
			if !slices.ContainsFunc(g.Members, func(m Member) bool { return m.ID == id }) {
				return invalidf("member %q is not in the group", id)
			}
		}
	}
	holders := make([]int32, cg.start[len(cg.topics)]) // pid => members holding it
	subscribers := make([]int, len(cg.topics))
	for i, m := range g.Members {
		for _, t := range cg.subs[i] {
			subscribers[t]++
		}
		list, ok := a[m.ID]
		if !ok {
			return invalidf("member %q is missing", m.ID)
		}
		for k, tp := range list {
			if k > 0 && list[k-1].Compare(tp) >= 0 {
				return invalidf("member %q: %s listed after %s: not sorted, or repeated", m.ID, tp, list[k-1])
			}
			t, ok := cg.topicIndex(tp.Topic)
			if !ok || tp.Partition < 0 || tp.Partition >= cg.numParts[t] {
				return invalidf("member %q: %s does not exist or nobody subscribes to its topic", m.ID, tp)
			}
			if _, subscribed := slices.BinarySearch(cg.subs[i], t); !subscribed {
				return invalidf("member %q: %s of a topic it does not subscribe to", m.ID, tp)
			}
			holders[cg.start[t]+tp.Partition]++
		}
	}
	for t, name := range cg.topics {
		n := cg.numParts[t]
		most := (int32(subscribers[t]) + n - 1) / n
		for p := range n {
			switch h := holders[cg.start[t]+p]; {
			case h == 0:
				return invalidf("%s is not assigned", TopicPartition{name, p})
			case h > most:
				return invalidf("%s is shared by %d members, more than ceil(%d subscribers / %d partitions) = %d", TopicPartition{name, p}, h, subscribers[t], n, most)
			}
		}
	}
	return nil
}
