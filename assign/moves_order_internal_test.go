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
