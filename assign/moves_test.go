package assign_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
)

// TestMoves: t-1 changes hands, t-2 is only in b, u-0 only in a; member
// c's empty list and its absence are alike.
func TestMoves(t *testing.T) {
	a := assign.Assignment{"a": tps("t", 0, 1), "b": tps("u", 0), "c": nil}
	b := assign.Assignment{"a": tps("t", 0), "b": tps("t", 1, 2)}
	want := []assign.Move{
		{Partition: assign.TopicPartition{Topic: "t", Partition: 1}, From: "a", To: "b"},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "", To: "b"},
		{Partition: assign.TopicPartition{Topic: "u", Partition: 0}, From: "b", To: ""},
	}
	if diff := cmp.Diff(want, assign.Moves(a, b)); diff != "" {
		t.Errorf("Moves mismatch (-want +got):\n%s", diff)
	}
	if d := assign.Moves(a, a); d != nil {
		t.Errorf("Moves(a, a) = %v, want none", d)
	}
	if got := assign.Moved(a, b); got != 1 {
		t.Errorf("Moved = %d, want 1 (t-1 only)", got)
	}
}

// TestMovesReference holds Moves and Moved to the obvious reference, a
// map from each partition to its holder in either assignment, on random
// valid pairs of assignments whose partitions are dense, sparse (numbers
// near MaxInt32, which slots keeps in a map) or absent from one side.
func TestMovesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for range 500 {
		a, b := randomHolders(rng), randomHolders(rng)
		want := movesReference(a, b)
		if diff := cmp.Diff(want, assign.Moves(a, b)); diff != "" {
			t.Fatalf("Moves(%v, %v) mismatch (-want +got):\n%s", a, b, diff)
		}
		n := 0
		for _, mv := range want {
			if mv.From != "" && mv.To != "" {
				n++
			}
		}
		if got := assign.Moved(a, b); got != n {
			t.Fatalf("Moved(%v, %v) = %d, want %d", a, b, got, n)
		}
	}
}

// randomHolders gives each partition of three topics (one of them
// with partition numbers near MaxInt32) to one of four members or to
// nobody.
func randomHolders(rng *rand.Rand) assign.Assignment {
	a := make(assign.Assignment)
	for _, topic := range []string{"t", "u", "sparse"} {
		for p := range int32(6) {
			if topic == "sparse" {
				p = 1<<31 - 1 - p*1000
			}
			if k := rng.IntN(5); k < 4 {
				id := string(rune('a' + k))
				a[id] = append(a[id], assign.TopicPartition{Topic: topic, Partition: p})
			}
		}
	}
	if rng.IntN(3) == 0 {
		a["idle"] = nil
	}
	return a
}

func movesReference(a, b assign.Assignment) []assign.Move {
	holder := func(x assign.Assignment) map[assign.TopicPartition]string {
		out := make(map[assign.TopicPartition]string)
		for id, tps := range x {
			for _, tp := range tps {
				out[tp] = id
			}
		}
		return out
	}
	ha, hb := holder(a), holder(b)
	var out []assign.Move
	for tp, from := range ha {
		if hb[tp] != from {
			out = append(out, assign.Move{Partition: tp, From: from, To: hb[tp]})
		}
	}
	for tp, to := range hb {
		if _, ok := ha[tp]; !ok {
			out = append(out, assign.Move{Partition: tp, To: to})
		}
	}
	slices.SortFunc(out, func(x, y assign.Move) int { return x.Partition.Compare(y.Partition) })
	return out
}

// TestTarget: on a join, CooperativeSticky's round leaves the newcomer
// idle (its partitions are still owned elsewhere) while Target gives it
// its share, as Sticky does; an eager strategy's target is its answer.
func TestTarget(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{
		{ID: "a", Topics: []string{"t"}, Owned: tps("t", 0, 1), Generation: 1},
		{ID: "b", Topics: []string{"t"}, Owned: tps("t", 2, 3), Generation: 1},
		{ID: "c", Topics: []string{"t"}, Generation: -1},
	}}
	round, err := assign.CooperativeSticky{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(round["c"]) != 0 {
		t.Fatalf("the round gives the newcomer %v, want nothing yet", round["c"])
	}
	target, err := assign.Target(assign.CooperativeSticky{}, g)
	if err != nil {
		t.Fatal(err)
	}
	sticky, err := assign.Sticky{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if len(target["c"]) != 1 || !cmp.Equal(target, sticky) {
		t.Errorf("Target = %v, want Sticky's answer %v with one partition for c", target, sticky)
	}
	if err := assign.Verify(g, target); err != nil {
		t.Error(err)
	}
	rr, err := assign.Target(assign.RoundRobin{}, g)
	if want, _ := (assign.RoundRobin{}).Assign(g); err != nil || !cmp.Equal(rr, want) {
		t.Errorf("Target(RoundRobin) = %v, %v; want its answer %v", rr, err, want)
	}
}

// wrapped embeds Range and answers otherwise: AssignPacked must run its
// Assign, not Range's algorithm, which the embedding promotes
// (adapters/kafkago's tests met this with a failing wrapper).
type wrapped struct{ assign.Range }

func (wrapped) Assign(g assign.Group) (assign.Assignment, error) {
	a := make(assign.Assignment)
	for _, m := range g.Members {
		a[m.ID] = nil
	}
	return a, nil
}

func TestAssignPackedRunsAWrappersAssign(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 2}, Members: []assign.Member{{ID: "a", Topics: []string{"t"}}}}
	p, err := assign.AssignPacked(wrapped{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.Assignment()["a"]); n != 0 {
		t.Errorf("AssignPacked(wrapped) gave a %d partitions, want the wrapper's none", n)
	}
	p, err = assign.AssignPacked(&assign.Range{}, g)
	if err != nil || len(p.Assignment()["a"]) != 2 {
		t.Errorf("AssignPacked(&Range{}) = %v, %v; want both partitions", p, err)
	}
}
