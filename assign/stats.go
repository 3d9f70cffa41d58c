package assign

import (
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
	perTopic := make(map[string]map[string]int) // topic => member => count
	for _, m := range g.Members {
		n := len(a[m.ID])
		s.Counts[m.ID] = n
		s.Partitions += n
		s.Min = min(s.Min, n)
		s.Max = max(s.Max, n)
		if n == 0 {
			s.Idle++
		}
		sum += float64(n)
		sumSq += float64(n) * float64(n)
		for _, tp := range a[m.ID] {
			if perTopic[tp.Topic] == nil {
				perTopic[tp.Topic] = make(map[string]int)
			}
			perTopic[tp.Topic][m.ID]++
		}
	}
	s.Spread = s.Max - s.Min
	mean := sum / float64(s.Members)
	s.StdDev = math.Sqrt(max(0, sumSq/float64(s.Members)-mean*mean))

	for topic, counts := range perTopic {
		lo, hi := math.MaxInt, 0
		for _, m := range g.Members {
			if !slices.Contains(m.Topics, topic) {
				continue
			}
			n := counts[m.ID]
			lo, hi = min(lo, n), max(hi, n)
		}
		if lo <= hi {
			s.TopicSpread[topic] = hi - lo
		}
	}
	return s
}

// Moved counts the partitions of next whose owner differs from their owner
// in prev. Partitions absent from prev (new, or unowned before) do not
// count.
func Moved(prev, next Assignment) int {
	owner := make(map[TopicPartition]string)
	for id, tps := range prev {
		for _, tp := range tps {
			owner[tp] = id
		}
	}
	moved := 0
	for id, tps := range next {
		for _, tp := range tps {
			if was, ok := owner[tp]; ok && was != id {
				moved++
			}
		}
	}
	return moved
}

// Owned returns what the members of g owned before this rebalance, as an
// [Assignment], for comparison with a new one by [Moved]. Where several
// members claim one partition, the claim of the highest generation is
// kept; a tie keeps none of them, as Kafka's sticky assignors do.
func Owned(g Group) Assignment {
	type claim struct {
		member string
		gen    int32
		tied   bool
	}
	claims := make(map[TopicPartition]*claim)
	out := make(Assignment, len(g.Members))
	for _, m := range g.Members {
		out[m.ID] = nil
		for _, tp := range m.Owned {
			c := claims[tp]
			switch {
			case c == nil:
				claims[tp] = &claim{member: m.ID, gen: m.Generation}
			case m.Generation > c.gen:
				*c = claim{member: m.ID, gen: m.Generation}
			case m.Generation == c.gen && m.ID != c.member:
				c.tied = true
			}
		}
	}
	for tp, c := range claims {
		if !c.tied {
			out[c.member] = append(out[c.member], tp)
		}
	}
	for id := range out {
		slices.SortFunc(out[id], TopicPartition.Compare)
	}
	return out
}
