package assign

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
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
		MaxSharing:  1,
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
	// t-0: a (gen 3) beats b (gen 2). t-1: a and c tie at gen 3, nobody
	// keeps it, even though b claims it at gen 2. t-2: only b, which no
	// longer subscribes to t but still owns it until it revokes it. t-7
	// and u-0 no longer exist; nobody subscribes to v.
	g := Group{Topics: map[string]int32{"t": 3, "v": 1}, Members: []Member{
		{ID: "a", Topics: []string{"t"}, Generation: 3, Owned: []TopicPartition{{"t", 0}, {"t", 1}, {"v", 0}}},
		{ID: "b", Generation: 2, Owned: []TopicPartition{{"t", 2}, {"t", 1}, {"t", 0}, {"t", 7}, {"u", 0}}},
		{ID: "c", Topics: []string{"t"}, Generation: 3, Owned: []TopicPartition{{"t", 1}}},
		{ID: "d", Topics: []string{"t"}},
	}}
	want := Assignment{"a": {{"t", 0}}, "b": {{"t", 2}}, "c": nil, "d": nil}
	for _, order := range [][]int{{0, 1, 2, 3}, {2, 1, 0, 3}, {1, 2, 3, 0}} {
		h := Group{Topics: g.Topics}
		for _, i := range order {
			h.Members = append(h.Members, g.Members[i])
		}
		got, err := Owned(h)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Owned(order %v) mismatch (-want +got):\n%s", order, diff)
		}
	}
}

// movedReference and ownedReference state Moved and Owned the obvious
// way, with a map over every partition.
func movedReference(prev, next Assignment) int {
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

func ownedReference(g Group) Assignment {
	type claim struct {
		member string
		gen    int32
		tied   bool
	}
	claims := make(map[TopicPartition]*claim)
	out := make(Assignment, len(g.Members))
	wanted := make(map[string]bool) // topics someone subscribes to
	for _, m := range g.Members {
		for _, t := range m.Topics {
			wanted[t] = true
		}
	}
	for _, m := range g.Members {
		out[m.ID] = nil
		for _, tp := range m.Owned {
			if n, ok := g.Topics[tp.Topic]; !ok || !wanted[tp.Topic] || tp.Partition < 0 || tp.Partition >= n {
				continue // no longer exists, or nobody wants it
			}
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
		if !c.tied && !slices.Contains(out[c.member], tp) {
			out[c.member] = append(out[c.member], tp)
		}
	}
	for id := range out {
		slices.SortFunc(out[id], TopicPartition.Compare)
	}
	return out
}

// partitionLists draws lists of partitions with dense numbers, repeats,
// negative and huge numbers, so that both of slots' layouts are used.
func partitionLists(t *rapid.T, ids []string) map[string][]TopicPartition {
	part := rapid.OneOf(rapid.Int32Range(0, 9), rapid.Int32Range(0, 9), rapid.SampledFrom([]int32{-1, 1 << 20, math.MaxInt32}))
	tp := rapid.Custom(func(t *rapid.T) TopicPartition {
		return TopicPartition{rapid.SampledFrom([]string{"t", "u", ""}).Draw(t, "topic"), part.Draw(t, "partition")}
	})
	lists := make(map[string][]TopicPartition)
	for _, id := range ids {
		lists[id] = rapid.SliceOfN(tp, 0, 12).Draw(t, "list")
	}
	return lists
}

func TestMovedAndOwnedMatchReferences(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := []string{"a", "b", "c"}
		prev, next := Assignment(partitionLists(t, ids)), Assignment(partitionLists(t, ids[1:]))
		// An assignment names each partition once: keep the first listing.
		seen := make(map[TopicPartition]bool)
		for _, id := range ids {
			prev[id] = slices.DeleteFunc(prev[id], func(tp TopicPartition) bool {
				dup := seen[tp]
				seen[tp] = true
				return dup
			})
		}
		if got, want := Moved(prev, next), movedReference(prev, next); got != want {
			t.Fatalf("Moved = %d, want %d", got, want)
		}
		g := Group{Topics: map[string]int32{"t": 10, "u": 3}}
		for id, owned := range partitionLists(t, ids) {
			slices.SortFunc(owned, TopicPartition.Compare)
			g.Members = append(g.Members, Member{
				ID:         id,
				Topics:     rapid.SliceOfDistinct(rapid.SampledFrom([]string{"t", "u"}), rapid.ID[string]).Draw(t, "topics"),
				Owned:      slices.Compact(owned), // a member listing a partition twice is refused
				Generation: rapid.Int32Range(-1, 2).Draw(t, "generation"),
			})
		}
		slices.SortFunc(g.Members, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
		got, err := Owned(g)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ownedReference(g), got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Owned mismatch (-want +got):\n%s", diff)
		}
	})
}
