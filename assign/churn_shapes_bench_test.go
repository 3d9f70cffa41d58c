package assign_test

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// BenchmarkChurnShapes times Assign on the shapes of issue 30's table
// (members x topics x partitions each): a sticky round carried at
// generation 1 (Carry's owned lists), then one member leaves and one
// joins. A shape's group is built only when one of its benchmarks runs.
func BenchmarkChurnShapes(b *testing.B) {
	shapes := []struct{ members, topics, partitions int }{
		{1000, 1000, 100}, {1000, 100, 1000}, {100, 1000, 100}, {1000, 10, 10000}, {2000, 100, 10000}, {10000, 10, 1000000},
	}
	for _, sh := range shapes {
		var g assign.Group
		b.Run(fmt.Sprintf("%dx%dx%d", sh.members, sh.topics, sh.partitions), func(b *testing.B) {
			for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
				b.Run(s.Name(), func(b *testing.B) {
					if g.Members == nil {
						g = churnShape(b, sh.members, sh.topics, sh.partitions)
					}
					b.ReportAllocs()
					bytes := assign.CountPartitionBytes(b, g)
					for b.Loop() {
						if _, err := s.Assign(g); err != nil {
							b.Fatal(err)
						}
					}
					bytes.Report()
				})
			}
		})
	}
}

func churnShape(b *testing.B, members, topics, partitions int) assign.Group {
	g := assign.Group{Topics: map[string]int32{}}
	var names []string
	for i := range topics {
		name := fmt.Sprintf("topic-%05d", i)
		names = append(names, name)
		g.Topics[name] = int32(partitions)
	}
	for i := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("member-%05d", i), Topics: names, Generation: -1})
	}
	a, err := assign.Sticky{}.Assign(g)
	if err != nil {
		b.Fatal(err)
	}
	g = assign.Carry(g, a, 1)
	g.Members[0] = assign.Member{ID: "joiner", Topics: names, Generation: -1}
	return g
}
