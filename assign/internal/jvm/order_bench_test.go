package jvm

import (
	"fmt"
	"testing"
)

// BenchmarkOrder32 orders a thousand member IDs' hash codes as the
// KIP-848 assignors do on every call: a member map grown from the
// default capacity (initial=0) and a set sized for its keys.
func BenchmarkOrder32(b *testing.B) {
	hashes := make([]int32, 1000)
	for i := range hashes {
		hashes[i] = StringHash(fmt.Sprintf("consumer-%05d", i))
	}
	for _, initial := range []int{0, SetCapacity(len(hashes))} {
		b.Run(fmt.Sprint("initial=", initial), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Order32(initial, hashes, nil)
			}
		})
	}
}
