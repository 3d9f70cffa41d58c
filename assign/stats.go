package assign

import (
	"math"
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

	// Shared maps each partition held by two or more members to how many
	// hold it; a partition absent from it is held by one member or none.
	// Only a share group's answer ([Share], [Simple]) shares partitions,
	// so for every other strategy it is nil.
	Shared map[TopicPartition]int
	// MaxSharing is the most members holding any one partition: 1 when
	// nothing is shared, 0 when nothing is assigned.
	MaxSharing int
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
	s.Shared, s.MaxSharing = sharing(g, a)
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

// sharing counts the members of g holding each partition in a, with one
// counter a partition per topic of g rather than a map of every
// partition, which a large classic group would pay for.
func sharing(g Group, a Assignment) (map[TopicPartition]int, int) {
	var shared map[TopicPartition]int
	holders := make(map[string][]int32, len(g.Topics))
	most := 0
	for _, m := range g.Members {
		for _, tp := range a[m.ID] {
			n := g.Topics[tp.Topic]
			if tp.Partition < 0 || tp.Partition >= n {
				continue // not a partition of g: Verify's concern, not ours
			}
			h := holders[tp.Topic]
			if h == nil {
				h = make([]int32, n)
				holders[tp.Topic] = h
			}
			h[tp.Partition]++
			if k := int(h[tp.Partition]); k > 1 {
				if shared == nil {
					shared = make(map[TopicPartition]int)
				}
				shared[tp] = k
			}
			most = max(most, int(h[tp.Partition]))
		}
	}
	return shared, most
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
