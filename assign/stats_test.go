package assign

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSummarize(t *testing.T) {
	// Three members: a holds t0p0 t0p1 t1p0 (3), b holds t0p2 (1), c
	// nothing (0). Mean 4/3; squares 9+1+0 = 10; variance 10/3 - 16/9 =
	// 14/9; stddev sqrt(14)/3. Topic t0 among its subscribers a, b, c:
	// 2, 1, 0, spread 2. Topic t1 among its subscribers a, c: 1, 0.
	g := Group{
		Topics: map[string]int32{"t0": 3, "t1": 1},
		Members: []Member{
			{ID: "a", Topics: []string{"t0", "t1"}},
			{ID: "b", Topics: []string{"t0"}},
			{ID: "c", Topics: []string{"t0", "t1"}},
		},
	}
	a := Assignment{
		"a": {{"t0", 0}, {"t0", 1}, {"t1", 0}},
		"b": {{"t0", 2}},
		"c": nil,
	}
	want := Stats{
		Members: 3, Partitions: 4, Min: 0, Max: 3, Spread: 3, StdDev: math.Sqrt(14) / 3, Idle: 1,
		Counts:      map[string]int{"a": 3, "b": 1, "c": 0},
		TopicSpread: map[string]int{"t0": 2, "t1": 1},
	}
	got := Summarize(g, a)
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Summarize mismatch (-want +got):\n%s", diff)
	}
}

func TestSummarizeEmptyGroup(t *testing.T) {
	got := Summarize(Group{}, Assignment{})
	if got.Members != 0 || got.Min != 0 || got.Max != 0 || got.StdDev != 0 {
		t.Errorf("Summarize(empty) = %+v, want zeros", got)
	}
}

func TestMoved(t *testing.T) {
	prev := Assignment{"a": {{"t", 0}, {"t", 1}}, "b": {{"t", 2}}, "gone": {{"t", 3}}}
	next := Assignment{
		"a": {{"t", 0}},           // kept t0
		"b": {{"t", 1}, {"t", 2}}, // t1 moved from a; t2 kept
		"c": {{"t", 3}, {"t", 4}}, // t3 moved from the member that left; t4 is new
	}
	if got := Moved(prev, next); got != 2 {
		t.Errorf("Moved = %d, want 2 (t-1 from a to b, t-3 from gone to c)", got)
	}
	if got := Moved(next, next); got != 0 {
		t.Errorf("Moved(x, x) = %d, want 0", got)
	}
}

func TestOwned(t *testing.T) {
	// t0: a (gen 3) beats b (gen 2). t1: a and c tie at gen 3, nobody keeps
	// it, even though b claims it at gen 2. t2: only b.
	g := Group{Members: []Member{
		{ID: "a", Generation: 3, Owned: []TopicPartition{{"t", 0}, {"t", 1}}},
		{ID: "b", Generation: 2, Owned: []TopicPartition{{"t", 2}, {"t", 1}, {"t", 0}}},
		{ID: "c", Generation: 3, Owned: []TopicPartition{{"t", 1}}},
		{ID: "d"},
	}}
	want := Assignment{"a": {{"t", 0}}, "b": {{"t", 2}}, "c": nil, "d": nil}
	for _, order := range [][]int{{0, 1, 2, 3}, {2, 1, 0, 3}, {1, 2, 3, 0}} {
		var h Group
		for _, i := range order {
			h.Members = append(h.Members, g.Members[i])
		}
		if diff := cmp.Diff(want, Owned(h)); diff != "" {
			t.Errorf("Owned(order %v) mismatch (-want +got):\n%s", order, diff)
		}
	}
}
