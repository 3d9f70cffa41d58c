package assign_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestAssignBytesPerOwnedPartition holds what Sticky and CooperativeSticky
// allocate, per owned partition, on a churned group: one member leaves
// and one joins, the others listing what a first round gave them (Carry).
//
// Issue 30 is the bug it would have caught: ed0d10b copied every Owned
// list into one slab of runs before reading the claims, and where members
// own one partition of each of many topics that slab took a run per
// partition and grew by append: about 160 bytes per owned partition, 5.7
// times what Assign allocated before, and 2 to 4 times the time.
//
// The budget: the answer itself is a fresh list per member, a 24-byte
// TopicPartition per partition; reading the claims adds a bit per
// partition (listed) and a few words per member and per topic, which on
// groups of a few thousand partitions and hundreds of topics come to
// about 20 more bytes per owned partition (3ec48c8 allocated 43 on the
// first shape below, 35 and 30 on the others). 56 bytes per owned
// partition leaves room for that and stops the slab, which cost 141, 132
// and 43. The shapes are those of issue 30's table scaled down: one
// partition of each of many topics per member (the worst case for runs),
// and long runs of one topic. Each shape also runs with the newcomer
// joining and nobody leaving, where members list more than their target
// and give up claims (keep_join.go).
//
// TotalAlloc counts bytes allocated whether or not they were collected,
// so the figure does not depend on when the collector runs.
func TestAssignBytesPerOwnedPartition(t *testing.T) {
	const budget = 56 // bytes per owned partition; see above
	shapes := []struct{ members, topics, partitions int }{
		{100, 400, 10}, // each member owns one partition of each of 40 topics
		{40, 200, 20},  // one partition of each of 100 topics
		{100, 5, 800},  // runs of 40 partitions of one topic
	}
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		for _, sh := range shapes {
			for _, join := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%dx%dx%d/join=%v", s.Name(), sh.members, sh.topics, sh.partitions, join), func(t *testing.T) {
					testAssignBytes(t, s, churnedGroup(t, sh.members, sh.topics, sh.partitions, join), budget)
				})
			}
		}
	}
}

// testAssignBytes fails t when s.Assign(g) allocates more than budget
// bytes per owned partition.
func testAssignBytes(t *testing.T, s assign.Strategy, g assign.Group, budget float64) {
	owned := 0
	for _, m := range g.Members {
		owned += len(m.Owned)
	}
	if _, err := s.Assign(g); err != nil { // warm: nothing lazily made counts
		t.Fatal(err)
	}
	const calls = 5
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		if _, err := s.Assign(g); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	perOwned := float64(after.TotalAlloc-before.TotalAlloc) / calls / float64(owned)
	t.Logf("%.1f bytes per owned partition (%d owned)", perOwned, owned)
	if perOwned > budget {
		t.Errorf("%s.Assign allocates %.1f bytes per owned partition on a churned group of %d owned partitions, over the budget of %.0f", s.Name(), perOwned, owned, budget)
	}
}

// churnedGroup is members subscribing to topics topics of partitions
// partitions each, after a first Sticky round carried at generation 1,
// with member 0 replaced by a newcomer that owns nothing; with join, the
// newcomer joins and nobody leaves, so that members list more than their
// target and give up claims (keep_join.go).
func churnedGroup(t *testing.T, members, topics, partitions int, join bool) assign.Group {
	t.Helper()
	g := assign.Group{Topics: map[string]int32{}}
	var names []string
	for i := range topics {
		name := fmt.Sprintf("topic-%04d", i)
		names = append(names, name)
		g.Topics[name] = int32(partitions)
	}
	for i := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("member-%04d", i), Topics: names, Generation: -1})
	}
	a, err := assign.Sticky{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	g = assign.Carry(g, a, 1)
	newcomer := assign.Member{ID: "newcomer", Topics: names, Generation: -1}
	if join {
		g.Members = append(g.Members, newcomer)
	} else {
		g.Members[0] = newcomer
	}
	return g
}
