package assign

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMoveBound works the bound by hand on three groups.
func TestMoveBound(t *testing.T) {
	two := func(ownA []TopicPartition, topicsA, topicsB []string, topics map[string]int32) Group {
		return Group{Topics: topics, Members: []Member{
			{ID: "A", Topics: topicsA, Owned: ownA, Generation: 1},
			{ID: "B", Topics: topicsB, Generation: -1},
		}}
	}
	t4 := map[string]int32{"t": 4}
	tests := []struct {
		name      string
		g         Group
		witnesses []Assignment
		want      int
	}{
		// A holds all four of t; any balanced answer gives each two: A
		// loses at least two.
		{"balanced witness", two(tps(0, 1, 2, 3), []string{"t"}, []string{"t"}, t4),
			[]Assignment{{"A": tps(0, 1), "B": tps(2, 3)}}, 2},
		// Nothing is known of how balanced g can be without a witness.
		{"no witness", two(tps(0, 1, 2, 3), []string{"t"}, []string{"t"}, t4), nil, 0},
		// A reads t (4) and u (1), B only u: the best answer seen gives
		// A four, so A, claiming all five, loses at least one.
		{"unbalanced witness", two(append(tps(0, 1, 2, 3), TopicPartition{"u", 0}), []string{"t", "u"}, []string{"u"}, map[string]int32{"t": 4, "u": 1}),
			[]Assignment{{"A": tps(0, 1, 2, 3), "B": {{"u", 0}}}}, 1},
		// A claims t-0..3 but now reads only u: its claims are not kept,
		// so nothing is lost by balance.
		{"unsubscribed claims", two(tps(0, 1, 2, 3), []string{"u"}, []string{"t"}, map[string]int32{"t": 4, "u": 4}),
			[]Assignment{{"A": {{"u", 0}, {"u", 1}, {"u", 2}, {"u", 3}}, "B": tps(0, 1, 2, 3)}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MoveBound(tc.g, tc.witnesses...)
			if err != nil || got != tc.want {
				t.Errorf("MoveBound = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
}

// TestMoveBoundBelowSticky: on random groups no balanced answer moves
// fewer than the bound, so sticky, balanced, never does.
func TestMoveBoundBelowSticky(t *testing.T) {
	for i := range 200 {
		g := randomKIP848Group(newTestRand(uint64(i)), "bound")
		for j := range g.Members {
			if len(g.Members[j].Owned) > 0 {
				g.Members[j].Generation = 1
			}
		}
		a, err := Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		owned, _ := Owned(g)
		bound, err := MoveBound(g, a)
		if err != nil {
			t.Fatal(err)
		}
		if moved := Moved(owned, a); moved < bound {
			t.Fatalf("group %d: sticky moved %d, below the bound %d", i, moved, bound)
		}
	}
}

// TestUnspreadTopics: uniform-style chunks leave both topics on one
// member each; an even split leaves none; a topic with fewer partitions
// than subscribers is spread when no subscriber holds two.
func TestUnspreadTopics(t *testing.T) {
	g := Group{Topics: map[string]int32{"t1": 4, "t2": 4, "one": 1}, Members: []Member{
		{ID: "A", Topics: []string{"t1", "t2", "one"}},
		{ID: "B", Topics: []string{"t2", "t1", "one", "t1"}},
	}}
	p := func(topic string, ps ...int32) []TopicPartition {
		var out []TopicPartition
		for _, n := range ps {
			out = append(out, TopicPartition{topic, n})
		}
		return out
	}
	tests := []struct {
		name string
		a    Assignment
		want []string
	}{
		{"chunks", Assignment{"A": append(p("one", 0), p("t1", 0, 1, 2, 3)...), "B": p("t2", 0, 1, 2, 3)}, []string{"t1", "t2"}},
		{"even", Assignment{"A": append(p("t1", 0, 1), p("t2", 0, 1)...), "B": append(append(p("one", 0), p("t1", 2, 3)...), p("t2", 2, 3)...)}, nil},
		{"two of four", Assignment{"A": append(p("t1", 0, 1, 2), p("t2", 0, 1)...), "B": append(append(p("one", 0), p("t1", 3)...), p("t2", 2, 3)...)}, []string{"t1"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, UnspreadTopics(g, tc.a)); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tc.name, diff)
		}
	}
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }
