package assign

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMovesOrder holds sortMoves to the order Moves documents, the
// comparison of partition, then To, then From, on moves drawn with
// topics whose byte order is not their rune order, negative and large
// partition numbers, and partitions moved to several members (an invalid
// assignment), in any order.
func TestMovesOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	topics := []string{"t", "u", "\uff21", "\U00010400", "", "t-1"}
	parts := []int32{0, 1, 2, -1, 1<<31 - 1, -1 << 31}
	ids := []string{"", "a", "b", "c"}
	for range 2000 {
		moves := make([]Move, rng.IntN(12))
		for k := range moves {
			moves[k] = Move{
				Partition: TopicPartition{topics[rng.IntN(len(topics))], parts[rng.IntN(len(parts))]},
				From:      ids[rng.IntN(len(ids))], To: ids[rng.IntN(len(ids))],
			}
		}
		want := slices.Clone(moves)
		slices.SortFunc(want, func(a, b Move) int {
			return cmp.Or(a.Partition.Compare(b.Partition), cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From))
		})
		if got := sortMoves(slices.Clone(moves)); !slices.Equal(got, want) {
			t.Fatalf("sortMoves(%v) = %v; want %v", moves, got, want)
		}
	}
}

// TestMovesInOrderMatchesSort holds movesInOrder, which walks the
// partitions in order, to the moves changedHands lists and sortMoves
// sorts, on drawn pairs where before may give a partition to several
// members, partitions are negative, huge (kept in a map) or dense, and
// after gives each partition once.
func TestMovesInOrderMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	topics := []string{"t", "\uff21", "\U00010400", "t-1"}
	parts := []int32{0, 1, 2, 3, 5, -1, 1<<31 - 1}
	ids := []string{"a", "b", "c", "d"}
	draw := func(once bool) Assignment {
		a := Assignment{}
		given := map[TopicPartition]bool{}
		for range rng.IntN(14) {
			tp := TopicPartition{topics[rng.IntN(len(topics))], parts[rng.IntN(len(parts))]}
			id := ids[rng.IntN(len(ids))]
			if given[tp] && once || slices.Contains(a[id], tp) {
				continue
			}
			given[tp] = true
			a[id] = append(a[id], tp)
		}
		if rng.IntN(4) == 0 {
			a["idle"] = nil
		}
		return a
	}
	for range 3000 {
		before, after := draw(false), draw(true)
		var want []Move
		changedHands(before, after, true, func(tp TopicPartition, from, to string) {
			want = append(want, Move{Partition: tp, From: from, To: to})
		})
		want = sortMoves(want)
		got, ok := movesInOrder(before, after)
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("movesInOrder(%v, %v) = %v, %v; want %v", before, after, got, ok, want)
		}
	}
	if _, ok := movesInOrder(nil, Assignment{"a": {{"t", 0}}, "b": {{"t", 0}}}); ok {
		t.Errorf("movesInOrder took an after that gives t-0 twice")
	}
}
