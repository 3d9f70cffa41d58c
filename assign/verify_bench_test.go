package assign_test

import (
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// BenchmarkVerify checks a valid Range assignment of 100 members and 100
// topics of 100 partitions: the pass every CLI result and every bench
// quality row goes through.
func BenchmarkVerify(b *testing.B) {
	g := assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 100 {
		t := fmt.Sprintf("t%03d", i)
		g.Topics[t] = 100
		topics = append(topics, t)
	}
	for j := range 100 {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("c%03d", j), Topics: topics, Generation: -1})
	}
	a, err := assign.Range{}.Assign(g)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	bytes := assign.CountPartitionBytes(b, g)
	for b.Loop() {
		if err := assign.Verify(g, a); err != nil {
			b.Fatal(err)
		}
	}
	bytes.Report()
}
