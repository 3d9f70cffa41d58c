package assign_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// stickyBenchSizes are the uniform shapes of the benchmarks: every member
// subscribes to every topic, topics of 1,000 partitions (fewer when the
// group has fewer partitions).
var stickyBenchSizes = []struct{ members, partitions int }{
	{10, 100}, {100, 10_000}, {1000, 100_000}, {2000, 1_000_000}, {10_000, 500_000},
}

func uniformStickyGroup(members, partitions int) assign.Group {
	perTopic := min(partitions, 1000)
	g := assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range partitions / perTopic {
		name := fmt.Sprintf("topic-%04d", i)
		topics = append(topics, name)
		g.Topics[name] = int32(perTopic)
	}
	for i := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("member-%05d", i), Topics: topics, Generation: -1})
	}
	return g
}

// heterogeneousStickyGroup has 1,000 members over 2,000 topics of 50
// partitions (100,000 in all); each member subscribes to 50 topics drawn
// with a fixed seed, so each topic has about 25 subscribers.
func heterogeneousStickyGroup() assign.Group {
	rng := rand.New(rand.NewPCG(1, 2))
	g := assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 2000 {
		name := fmt.Sprintf("topic-%04d", i)
		topics = append(topics, name)
		g.Topics[name] = 50
	}
	for i := range 1000 {
		var sub []string
		for _, k := range rng.Perm(len(topics))[:50] {
			sub = append(sub, topics[k])
		}
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("member-%05d", i), Topics: sub, Generation: -1})
	}
	return g
}

// rackedStickyGroup puts g's members on racks r0, r1, r2 in turn and each
// partition's two replicas on racks r(p mod 3) and r(p+1 mod 3), so that
// rack preference is on and every partition has a replica on two racks.
func rackedStickyGroup(g assign.Group) assign.Group {
	racks := []string{"r0", "r1", "r2"}
	g.PartitionRacks = map[string][][]string{}
	for t, n := range g.Topics {
		lists := make([][]string, n)
		for p := range lists {
			lists[p] = []string{racks[p%3], racks[(p+1)%3]}
		}
		g.PartitionRacks[t] = lists
	}
	for i := range g.Members {
		g.Members[i].Rack = racks[i%3]
	}
	return g
}

// churned returns g after a first assignment a, fed back as Owned at
// generation 1, then change applied.
func churned(g assign.Group, a assign.Assignment, change func(*assign.Group)) assign.Group {
	out := g
	out.Members = slices.Clone(g.Members)
	for i := range out.Members {
		out.Members[i].Owned, out.Members[i].Generation = a[out.Members[i].ID], 1
	}
	change(&out)
	return out
}

// stickyScenarios builds, for one fresh group, the fresh case and the
// churn cases: one member leaves and one joins; one joins; 10% of members
// replaced; 10% more partitions.
func stickyScenarios(b *testing.B, g assign.Group) map[string]assign.Group {
	a, err := assign.Sticky{}.Assign(g)
	if err != nil {
		b.Fatal(err)
	}
	newcomer := func(i int, like assign.Member) assign.Member {
		return assign.Member{ID: fmt.Sprintf("joiner-%05d", i), Topics: like.Topics, Generation: -1}
	}
	return map[string]assign.Group{
		"fresh": g,
		"leave-join": churned(g, a, func(g *assign.Group) {
			g.Members[0] = newcomer(0, g.Members[0])
		}),
		"join": churned(g, a, func(g *assign.Group) {
			g.Members = append(g.Members, newcomer(len(g.Members), g.Members[0]))
		}),
		"replace10pct": churned(g, a, func(g *assign.Group) {
			for i := 0; i < len(g.Members); i += 10 {
				g.Members[i] = newcomer(i, g.Members[i])
			}
		}),
		"grow10pct": churned(g, a, func(g *assign.Group) {
			topics := map[string]int32{}
			for t, n := range g.Topics {
				topics[t] = n + max(1, n/10)
			}
			g.Topics = topics
		}),
	}
}

func benchmarkSticky(b *testing.B, s assign.Strategy) {
	run := func(b *testing.B, g assign.Group) {
		before := owned(b, g)
		b.ReportAllocs()
		var a assign.Assignment
		bytes := assign.CountPartitionBytes(b, g)
		for b.Loop() {
			var err error
			if a, err = s.Assign(g); err != nil {
				b.Fatal(err)
			}
		}
		bytes.Report()
		lo, hi := len(a[g.Members[0].ID]), 0
		for _, m := range g.Members {
			lo, hi = min(lo, len(a[m.ID])), max(hi, len(a[m.ID]))
		}
		b.ReportMetric(float64(assign.Moved(before, a)), "moves/op")
		b.ReportMetric(float64(hi-lo), "spread")
	}
	for _, size := range stickyBenchSizes {
		b.Run(fmt.Sprintf("members=%d/partitions=%d", size.members, size.partitions), func(b *testing.B) {
			scenarios := stickyScenarios(b, uniformStickyGroup(size.members, size.partitions))
			for _, name := range []string{"fresh", "leave-join", "join", "replace10pct", "grow10pct"} {
				b.Run(name, func(b *testing.B) { run(b, scenarios[name]) })
			}
		})
	}
	b.Run("racks/members=1000/partitions=100000", func(b *testing.B) {
		scenarios := stickyScenarios(b, rackedStickyGroup(uniformStickyGroup(1000, 100_000)))
		for _, name := range []string{"fresh", "leave-join", "join"} {
			b.Run(name, func(b *testing.B) { run(b, scenarios[name]) })
		}
	})
	b.Run("heterogeneous/members=1000/topics=2000", func(b *testing.B) {
		scenarios := stickyScenarios(b, heterogeneousStickyGroup())
		for _, name := range []string{"fresh", "leave-join", "join", "replace10pct", "grow10pct"} {
			b.Run(name, func(b *testing.B) { run(b, scenarios[name]) })
		}
	})
}

func BenchmarkSticky(b *testing.B)            { benchmarkSticky(b, assign.Sticky{}) }
func BenchmarkCooperativeSticky(b *testing.B) { benchmarkSticky(b, assign.CooperativeSticky{}) }
