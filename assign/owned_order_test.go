package assign_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
)

// shuffledOwned returns g with every member's Owned in another order: the
// topics in a random order with each topic's partitions together, as a
// caller building Owned from a map[string][]int32 lists them
// (byPartition false), or every partition on its own (byPartition true).
func shuffledOwned(g assign.Group, seed uint64, byPartition bool) assign.Group {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := g
	out.Members = slices.Clone(g.Members)
	for i := range out.Members {
		owned := slices.Clone(out.Members[i].Owned)
		if byPartition {
			rng.Shuffle(len(owned), func(a, b int) { owned[a], owned[b] = owned[b], owned[a] })
		} else {
			var runs [][]assign.TopicPartition
			for j := 0; j < len(owned); {
				k := j + 1
				for k < len(owned) && owned[k].Topic == owned[j].Topic {
					k++
				}
				runs = append(runs, owned[j:k])
				j = k
			}
			rng.Shuffle(len(runs), func(a, b int) { runs[a], runs[b] = runs[b], runs[a] })
			owned = slices.Concat(runs...)
		}
		out.Members[i].Owned = owned
	}
	return out
}

// TestOwnedOrderChangesNothing: the order of each member's Owned changes
// no strategy's answer (rule 6 of claims.go). The sticky strategies read
// Owned on paths chosen by its order (an ordered list is copied whole,
// another is sorted), so this is the differential test of those paths.
func TestOwnedOrderChangesNothing(t *testing.T) {
	strategies := []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}, assign.Range{}, assign.RoundRobin{}}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		if rapid.Bool().Draw(t, "fromAssignment") {
			// Owned as a previous round left it, less one member: the
			// groups in which every claim is kept.
			g = keptGroup(t, g)
		}
		seed := rapid.Uint64().Draw(t, "seed")
		for _, s := range strategies {
			want, wantErr := s.Assign(g)
			for _, byPartition := range []bool{false, true} {
				got, err := s.Assign(shuffledOwned(g, seed, byPartition))
				if (err == nil) != (wantErr == nil) {
					t.Fatalf("%s: error %v with Owned shuffled, %v sorted", s.Name(), err, wantErr)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s with Owned shuffled (by partition: %v) mismatch (-sorted +shuffled):\n%s", s.Name(), byPartition, diff)
				}
			}
		}
	})
}

// keptGroup returns g with every member owning, at generation 1, what
// Sticky gives it when nobody owns anything, and the first member gone.
func keptGroup(t *rapid.T, g assign.Group) assign.Group {
	fresh := g
	fresh.Members = slices.Clone(g.Members)
	for i := range fresh.Members {
		fresh.Members[i].Owned, fresh.Members[i].Generation = nil, -1
	}
	a, err := assign.Sticky{}.Assign(fresh)
	if err != nil {
		return g
	}
	for i := range fresh.Members {
		fresh.Members[i].Owned, fresh.Members[i].Generation = a[fresh.Members[i].ID], 1
	}
	if len(fresh.Members) > 1 {
		fresh.Members = fresh.Members[1:]
	}
	return fresh
}

// ownedOrderGroup is bench/README's uniform(C, T, P) with its leave1
// churn: the sticky result of the fresh group owned at generation 1, then
// consumer-00000 leaves and consumer-new joins.
func ownedOrderGroup(tb testing.TB, members, topics, parts int) assign.Group {
	g := assign.Group{Topics: map[string]int32{}}
	var names []string
	for i := range topics {
		names = append(names, fmt.Sprintf("topic-%05d", i))
		g.Topics[names[i]] = int32(parts)
	}
	for j := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: names, Generation: -1})
	}
	a, err := assign.Sticky{}.Assign(g)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range g.Members {
		g.Members[i].Owned, g.Members[i].Generation = a[g.Members[i].ID], 1
	}
	g.Members[0] = assign.Member{ID: "consumer-new", Topics: names, Generation: -1}
	return g
}

// BenchmarkOwnedOrder times the sticky strategies on one churned group
// with each member's Owned sorted, with its topics shuffled (what a
// caller building Owned from a map gives) and with every partition
// shuffled. Sticky, in instructions per round (callgrind, GOGC=off,
// (I(7x) - I(2x)) / 5): sorted 149M, topics shuffled 213M (1.43x),
// partitions shuffled 463M (3.1x: a topic lookup per partition).
func BenchmarkOwnedOrder(b *testing.B) {
	sorted := ownedOrderGroup(b, 2000, 100, 10000)
	groups := []struct {
		name string
		g    assign.Group
	}{
		{"sorted", sorted},
		{"topics-shuffled", shuffledOwned(sorted, 1, false)},
		{"partitions-shuffled", shuffledOwned(sorted, 1, true)},
	}
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		for _, g := range groups {
			b.Run(fmt.Sprintf("strategy=%s/shape=uniform-2000x1000000-leave1/owned=%s", s.Name(), g.name), func(b *testing.B) {
				b.ReportAllocs()
				bytes := assign.CountPartitionBytes(b, g.g)
				for b.Loop() {
					if _, err := s.Assign(g.g); err != nil {
						b.Fatal(err)
					}
				}
				bytes.Report()
			})
		}
	}
}

// TestOwnedOrderManyTopics: members owning runs of few of many topics
// (whose runs keepAndDeal sorts) and of most topics (whose runs it puts in
// order by a slot per topic) get the same answer, Owned sorted or not.
func TestOwnedOrderManyTopics(t *testing.T) {
	for _, shape := range []struct{ members, topics, parts int }{{20, 40, 3}, {20, 200, 1}, {5, 6, 20}} {
		sorted := ownedOrderGroup(t, shape.members, shape.topics, shape.parts)
		for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
			want, err := s.Assign(sorted)
			if err != nil {
				t.Fatal(err)
			}
			for seed := range uint64(5) {
				got, err := s.Assign(shuffledOwned(sorted, seed, false))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("%s on %+v, seed %d: mismatch (-sorted +shuffled):\n%s", s.Name(), shape, seed, diff)
				}
			}
		}
	}
}
