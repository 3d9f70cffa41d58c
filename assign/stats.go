package assign

import (
	"maps"
	"math"
	"slices"
)

// Stats summarises how evenly an [Assignment] spreads partitions.
type Stats struct {
	Members    int     // members in the group
	Partitions int     // partitions assigned
	Min, Max   int     // fewest and most partitions of any member
	Spread     int     // Max - Min
	StdDev     float64 // population standard deviation of partitions per member
	Idle       int     // members assigned nothing

	// Counts maps each member ID to its number of partitions.
	Counts map[string]int

	// TopicSpread maps each assigned topic to the difference between the
	// most and the fewest of its partitions held by any member subscribed
	// to it (members of g that list the topic in Topics).
	TopicSpread map[string]int
}

// Summarize computes the [Stats] of a, an assignment of g. Members of g
// missing from a count as idle.
func Summarize(g Group, a Assignment) Stats {
	s := Stats{
		Members:     len(g.Members),
		Counts:      make(map[string]int, len(g.Members)),
		TopicSpread: make(map[string]int),
	}
	if len(g.Members) == 0 {
		return s
	}
	s.Min = math.MaxInt
	var sum, sumSq float64
	type span struct{ lo, hi int }
	spans := make(map[string]*span) // assigned topic => fewest and most among subscribers
	for _, m := range g.Members {
		list := a[m.ID]
		n := len(list)
		s.Counts[m.ID] = n
		s.Partitions += n
		s.Min = min(s.Min, n)
		s.Max = max(s.Max, n)
		if n == 0 {
			s.Idle++
		}
		sum += float64(n)
		sumSq += float64(n) * float64(n)
		for i, tp := range list {
			if (i == 0 || list[i-1].Topic != tp.Topic) && spans[tp.Topic] == nil {
				spans[tp.Topic] = &span{lo: math.MaxInt}
			}
		}
	}
	// A second pass, now that the assigned topics are known, finds each
	// topic's extremes among the members subscribed to it.
	held := make(map[string]int) // one member's count per topic
	for _, m := range g.Members {
		clear(held)
		list := a[m.ID]
		for i := 0; i < len(list); {
			j := i + 1 // lists are sorted: count each topic's run at once
			for j < len(list) && list[j].Topic == list[i].Topic {
				j++
			}
			held[list[i].Topic] += j - i
			i = j
		}
		for _, t := range m.Topics { // a topic listed twice changes nothing
			if sp := spans[t]; sp != nil {
				sp.lo, sp.hi = min(sp.lo, held[t]), max(sp.hi, held[t])
			}
		}
	}
	s.Spread = s.Max - s.Min
	mean := sum / float64(s.Members)
	s.StdDev = math.Sqrt(max(0, sumSq/float64(s.Members)-mean*mean))
	for t, sp := range spans {
		if sp.lo <= sp.hi {
			s.TopicSpread[t] = sp.hi - sp.lo
		}
	}
	return s
}

// Moved counts the partitions of next whose owner differs from their owner
// in prev. Partitions absent from prev (new, or unowned before) do not
// count.
func Moved(prev, next Assignment) int {
	ids := slices.Sorted(maps.Keys(prev))
	owner := newSlots[int32](func(yield func(TopicPartition)) {
		for _, id := range ids {
			for _, tp := range prev[id] {
				yield(tp)
			}
		}
	})
	for i, id := range ids {
		for _, tp := range prev[id] {
			*owner.at(tp) = int32(i) + 1
		}
	}
	moved := 0
	for id, tps := range next {
		for _, tp := range tps {
			if was := owner.at(tp); was != nil && *was != 0 && ids[*was-1] != id {
				moved++
			}
		}
	}
	return moved
}

// Owned returns what the members of g owned before this rebalance, as an
// [Assignment], for comparison with a new one by [Moved]. Each partition
// goes to its owner under the claims rules every strategy uses: the
// newest generation wins, and claims tied at the newest generation cancel
// (see [Sticky] and [CooperativeSticky]). An owner that no longer
// subscribes to the topic still owns the partition (it holds it until it
// revokes it). Claims of partitions that no longer exist, and of topics
// nobody subscribes to, are dropped. It returns an [*InputError] when g is
// invalid (see [Group.Validate]).
func Owned(g Group) (Assignment, error) {
	cg, err := compile(g, ownedResolved)
	if err != nil {
		return nil, err
	}
	var owner []int32 // by rank
	if cg.claims != nil {
		owner = cg.claims.owner
	} else {
		owner = make([]int32, cg.start[len(cg.topics)])
		for pid := range owner {
			owner[pid] = -1
		}
	}
	return cg.assignmentOf(owner, nil, cg.kafkaOrder), nil
}
