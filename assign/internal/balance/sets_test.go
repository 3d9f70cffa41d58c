package balance

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestTopicSets checks TopicSets against a linear scan of the
// subscriptions, on dense subscriptions (bit rows, some shared between
// neighbours) and sparse ones (searched).
func TestTopicSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := rapid.IntRange(1, 200).Draw(t, "topics")
		n := rapid.IntRange(1, 8).Draw(t, "members")
		subs := make([][]int32, n)
		for m := range subs {
			if m > 0 && rapid.Bool().Draw(t, "share") {
				subs[m] = subs[m-1]
				continue
			}
			sub := rapid.SliceOfNDistinct(rapid.Int32Range(0, int32(topics-1)), 0, topics, rapid.ID).Draw(t, "sub")
			slices.Sort(sub)
			subs[m] = sub
		}
		ts := NewTopicSets(subs, topics)
		for m := range subs {
			for tp := range int32(topics) {
				if got, want := ts.Has(int32(m), tp), slices.Contains(subs[m], tp); got != want {
					t.Fatalf("has(%d, %d) = %v, want %v (bit rows: %v)", m, tp, got, want, ts.row != nil)
				}
			}
		}
	})
}
