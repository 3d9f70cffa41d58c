package javasticky

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// benchGroup builds members consumers over topics topics of partitions
// partitions each; homogeneous members subscribe to every topic, others to
// a random half (fixed seed).
func benchGroup(members, topics int, partitions int32, homogeneous bool) assign.Group {
	rng := rand.New(rand.NewPCG(1, 2))
	g := assign.Group{Topics: map[string]int32{}}
	var names []string
	for i := range topics {
		n := fmt.Sprintf("topic-%04d", i)
		names = append(names, n)
		g.Topics[n] = partitions
	}
	for i := range members {
		m := assign.Member{ID: fmt.Sprintf("consumer-%05d", i), Generation: -1}
		for _, n := range names {
			if homogeneous || rng.IntN(2) == 0 {
				m.Topics = append(m.Topics, n)
			}
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// BenchmarkJavaSticky times Assign on fresh groups and on the same groups
// after one member leaves (every other member owning its earlier answer),
// on the constrained path (homogeneous) and the general one.
func BenchmarkJavaSticky(b *testing.B) {
	for _, shape := range []struct {
		name        string
		members     int
		topics      int
		partitions  int32
		homogeneous bool
	}{
		{"homogeneous-100x10x100", 100, 10, 100, true},
		{"heterogeneous-100x20x10", 100, 20, 10, false},
	} {
		for _, coop := range []bool{false, true} {
			strategy := "sticky"
			if coop {
				strategy = "cooperative-sticky"
			}
			fresh := benchGroup(shape.members, shape.topics, shape.partitions, shape.homogeneous)
			a, err := Assign(fresh, coop, Kafka38)
			if err != nil {
				b.Fatal(err)
			}
			leave1 := assign.Carry(fresh, a, 1)
			leave1.Members = leave1.Members[1:]
			for _, churn := range []struct {
				name string
				g    assign.Group
			}{{"fresh", fresh}, {"leave1", leave1}} {
				b.Run(fmt.Sprintf("shape=%s/strategy=%s/churn=%s", shape.name, strategy, churn.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						if _, err := Assign(churn.g, coop, Kafka38); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
