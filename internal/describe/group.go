package describe

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// Group builds the group the snapshot shows: every member owning what the
// output says it holds (on the consumer protocol, its target assignment,
// which the broker's assignors start from, as assign's server-side
// strategies take Owned), at generation 1 (a stable group's members all
// report one generation). What describe output does not carry is
// assumed, and the assumptions are returned in English:
//
//   - each topic's partition count is counts[topic] when given, else one
//     more than the highest partition listed;
//   - each member subscribes to subscriptions[member ID] when given, else
//     to every topic the output lists (sorted).
//
// A count below a listed partition is kept (the claim of a partition
// that no longer exists is dropped by the strategies, as Kafka drops it),
// and said. A count to derive from a partition number far above the
// partitions listed of its topic is refused with [ErrSparse].
func (s *Snapshot) Group(counts map[string]int32, subscriptions map[string][]string) (assign.Group, []string, error) {
	highest := make(map[string]int32)
	listed := make(map[assign.TopicPartition]bool)
	perTopic := make(map[string]int)
	note := func(tps []assign.TopicPartition) {
		for _, tp := range tps {
			if h, ok := highest[tp.Topic]; !ok || tp.Partition > h {
				highest[tp.Topic] = tp.Partition
			}
			if !listed[tp] {
				listed[tp] = true
				perTopic[tp.Topic]++
			}
		}
	}
	for _, m := range s.Members {
		note(m.Owned)
		note(m.Target)
	}
	note(s.Unowned)
	g := assign.Group{Topics: make(map[string]int32)}
	var notes, derived []string
	for _, t := range slices.Sorted(maps.Keys(highest)) {
		if n, ok := counts[t]; ok {
			g.Topics[t] = n
			if n <= highest[t] {
				notes = append(notes, fmt.Sprintf("%s has %d partitions as given, though partition %d is listed", t, n, highest[t]))
			}
			continue
		}
		if n := int64(highest[t]) + 1; n > minDerived && n > maxSparse*int64(perTopic[t]) {
			return assign.Group{}, nil, &Error{Err: fmt.Errorf("topic %q: %w: partition %d is listed, but only %d of its partitions are; give its count (--topics %s:COUNT)", t, ErrSparse, highest[t], perTopic[t], t)}
		}
		g.Topics[t] = highest[t] + 1
		derived = append(derived, fmt.Sprintf("%s:%d", t, highest[t]+1))
	}
	for t, n := range counts {
		if _, ok := g.Topics[t]; !ok {
			g.Topics[t] = n
		}
	}
	if len(derived) > 0 {
		notes = append(notes, fmt.Sprintf("partition counts from the highest partition listed: %s (give --topics NAME:COUNT for more)", strings.Join(derived, ", ")))
	}
	all := slices.Sorted(maps.Keys(highest))
	assumed, reconciling := 0, 0
	for _, m := range s.Members {
		am := assign.Member{ID: m.ID, InstanceID: m.InstanceID, Topics: all, Generation: -1}
		if sub, ok := subscriptions[m.ID]; ok {
			am.Topics = sub
		} else {
			assumed++
		}
		owned := m.Owned
		if s.Protocol == Consumer {
			owned = m.Target
			if !slices.Equal(m.Owned, m.Target) {
				reconciling++
			}
		}
		if len(owned) > 0 {
			am.Owned, am.Generation = slices.Clone(owned), 1
		}
		g.Members = append(g.Members, am)
	}
	if assumed > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d members subscribe to every topic listed (%s): describe output shows no subscriptions", assumed, len(s.Members), strings.Join(all, ", ")))
	}
	switch {
	case s.Protocol == Consumer:
		notes = append(notes, fmt.Sprintf("members own their TARGET-ASSIGNMENT, from which the broker's assignor starts; %d of %d members still reconcile towards it (CURRENT-ASSIGNMENT differs)", reconciling, len(s.Members)))
	case s.View == KIP1099View:
		notes = append(notes, "members own their CURRENT-ASSIGNMENT: the group shows no epochs, so it is a classic group")
	}
	return g, notes, nil
}

// Warnings says what in the output is not as a stable group shows it: the
// tool's own lines about the group's state, what did not add up, then each
// partition listed
// under more than one member (output caught mid-rebalance, or a stale
// member), whose claims are at one generation, so they tie, and no member
// keeps the partition.
func (s *Snapshot) Warnings() []string {
	var warnings []string
	tool := "kafka-consumer-groups.sh"
	if s.View == RpkView {
		tool = "rpk"
	}
	for _, n := range s.Notices {
		warnings = append(warnings, tool+" said: "+n)
	}
	warnings = append(warnings, s.Remarks...)
	return append(warnings, s.sharedClaims()...)
}

// sharedClaims is the second half of Warnings.
func (s *Snapshot) sharedClaims() []string {
	owners := make(map[assign.TopicPartition][]string)
	var order []assign.TopicPartition
	for _, m := range s.Members {
		for _, tp := range m.Owned {
			if len(owners[tp]) == 0 {
				order = append(order, tp)
			}
			if !slices.Contains(owners[tp], m.ID) {
				owners[tp] = append(owners[tp], m.ID)
			}
		}
	}
	var notes []string
	for _, tp := range order {
		if ids := owners[tp]; len(ids) > 1 {
			notes = append(notes, fmt.Sprintf("%s is listed under %d members (%s): their claims tie, so none keeps it", tp, len(ids), strings.Join(ids, ", ")))
		}
	}
	return notes
}
