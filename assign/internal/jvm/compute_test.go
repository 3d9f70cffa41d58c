package jvm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestComputeOrderNaive holds ComputeOrder to the rule of
// HashMap.computeIfAbsent written out plainly, for maps whose buckets
// never reach eight entries: the table grows before an insertion when the
// size already exceeds three quarters of it, and a bucket lists its keys
// newest first, so the order is by bucket of the final table, then by
// insertion, newest first.
func TestComputeOrderNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for range 3000 {
		n := rng.IntN(120)
		initial := []int{0, 1, 5, 16, 45, 200}[rng.IntN(6)]
		hashes := make([]int32, n)
		for i := range hashes {
			hashes[i] = int32(rng.Uint32())
			if rng.IntN(3) == 0 {
				hashes[i] = int32(rng.IntN(300))
			}
		}
		capacity := 16
		if initial > 0 {
			capacity = tableSizeFor(initial)
		}
		for size := range n {
			if size > 0 && size > capacity*3/4 {
				capacity *= 2
			}
		}
		buckets := map[int32]int{}
		crowded := false
		for _, h := range hashes {
			b := Spread(h) & int32(capacity-1)
			if buckets[b]++; buckets[b] >= 8 {
				crowded = true
			}
		}
		if crowded {
			continue
		}
		want := make([]int, n)
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int {
			ba, bb := Spread(hashes[a])&int32(capacity-1), Spread(hashes[b])&int32(capacity-1)
			if ba != bb {
				return int(ba - bb)
			}
			return b - a // newest first
		})
		if got := ComputeOrder(initial, hashes, nil); !slices.Equal(got, want) {
			t.Fatalf("initial %d, hashes %v:\n got %v\nwant %v", initial, hashes, got, want)
		}
	}
}
