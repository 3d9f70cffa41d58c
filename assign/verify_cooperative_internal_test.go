package assign

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestVerifyCooperativeMatchesMaps holds VerifyCooperative, which numbers
// the partitions of subscribed topics, to the same rule computed with a
// map per partition (verifyCooperativeByMaps, the form it had before
// issue 30): the same verdict and message on drawn groups whose members
// own, tie on and are given partitions of subscribed topics, of a topic
// nobody subscribes to, and that do not exist.
func TestVerifyCooperativeMatchesMaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{"t": 4, "u": 3, "lonely": 2}}
		tps := []TopicPartition{{"t", 0}, {"t", 1}, {"t", 2}, {"t", 3}, {"u", 0}, {"u", 2}, {"lonely", 1}, {"t", 7}, {"gone", 0}}
		a := Assignment{}
		for i := range rapid.IntRange(1, 5).Draw(t, "members") {
			m := Member{ID: fmt.Sprintf("m%d", i), Topics: []string{"t", "u"}, Generation: rapid.Int32Range(-1, 2).Draw(t, "gen")}
			if rapid.Bool().Draw(t, "t only") {
				m.Topics = []string{"t"}
			}
			for _, tp := range tps {
				if rapid.IntRange(0, 3).Draw(t, "owns") == 0 {
					m.Owned = append(m.Owned, tp)
				}
				if rapid.IntRange(0, 3).Draw(t, "gets") == 0 {
					a[m.ID] = append(a[m.ID], tp)
				}
			}
			g.Members = append(g.Members, m)
		}
		if rapid.Bool().Draw(t, "stranger") {
			a["stranger"] = []TopicPartition{{"t", 0}}
		}
		for _, list := range a {
			slices.SortFunc(list, TopicPartition.Compare)
		}
		got, want := VerifyCooperative(g, a), verifyCooperativeByMaps(g, a)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("VerifyCooperative = %v\nby maps:           %v", got, want)
		}
	})
}

func verifyCooperativeByMaps(g Group, a Assignment) error {
	type claim struct {
		gen     int32
		members []string // IDs listing the partition at gen
	}
	newest := make(map[TopicPartition]*claim)
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			c := newest[tp]
			switch {
			case c == nil || m.Generation > c.gen:
				newest[tp] = &claim{gen: m.Generation, members: []string{m.ID}}
			case m.Generation == c.gen:
				c.members = append(c.members, m.ID)
			}
		}
	}
	type fault struct {
		tp  TopicPartition
		msg string
	}
	var faults []fault
	given := make(map[TopicPartition]string) // partition => member ID getting it
	for _, m := range g.Members {
		for _, tp := range a[m.ID] {
			if other, twice := given[tp]; twice {
				faults = append(faults, fault{tp, fmt.Sprintf("%s is assigned to both %q and %q", tp, other, m.ID)})
				continue
			}
			given[tp] = m.ID
			c := newest[tp]
			switch {
			case c == nil || len(c.members) == 1 && c.members[0] == m.ID:
				// Nobody owns it, or m is its owner.
			case len(c.members) > 1:
				faults = append(faults, fault{tp, fmt.Sprintf("%s is assigned to %q while %q claim it at generation %d, its newest", tp, m.ID, c.members, c.gen)})
			default:
				faults = append(faults, fault{tp, fmt.Sprintf("%s is assigned to %q while %q still owns it at generation %d, its newest", tp, m.ID, c.members[0], c.gen)})
			}
		}
	}
	if len(faults) == 0 {
		return nil
	}
	f := slices.MinFunc(faults, func(a, b fault) int { return a.tp.Compare(b.tp) })
	return invalidf("not cooperative: %s", f.msg)
}
