package balance

import (
	"testing"

	"pgregory.net/rapid"
)

// TestSpreadLevel checks spreadLevel, whose search stops at the longest
// run, against a scan of every level up to the member's claims, the
// bound keepSpread searched to before: the same level, and the same
// number of runs keeping one more, for runs of any lengths and any keep
// below the claims (keepSpread's only calls: a member over its target).
func TestSpreadLevel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lengths := rapid.SliceOfN(rapid.Int32Range(1, 12), 1, 30).Draw(t, "lengths")
		var runs []int32
		claims, longest := int32(0), int32(0)
		for _, n := range lengths {
			runs = append(runs, claims, claims+n)
			claims += n
			longest = max(longest, n)
		}
		keep := rapid.Int32Range(0, claims-1).Draw(t, "keep")

		wantLevel := int32(0)
		for level := int32(0); level <= claims; level++ {
			s := int32(0)
			for _, n := range lengths {
				s += min(n, level)
			}
			if s <= keep {
				wantLevel = level
			}
		}
		wantExtra := keep
		for _, n := range lengths {
			wantExtra -= min(n, wantLevel)
		}
		level, extra := spreadLevel(runs, longest, keep)
		if level != wantLevel || extra != wantExtra {
			t.Fatalf("spreadLevel(%v, %d, %d) = %d, %d; want %d, %d", runs, longest, keep, level, extra, wantLevel, wantExtra)
		}
	})
}

// TestTopicFrom checks topicFrom against topicOf, the binary search, for
// every pid from every topic at or before the pid's, empty topics
// included (a topic of no partitions has start[t] == start[t+1]).
func TestTopicFrom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.Int32Range(0, 3), 1, 20).Draw(t, "parts")
		start := make([]int32, len(parts)+1)
		for i, n := range parts {
			start[i+1] = start[i] + n
		}
		for pid := range start[len(parts)] {
			want := topicOf(start, pid)
			for from := int32(0); start[from] <= pid && from < int32(len(parts)); from++ {
				if got := topicFrom(start, from, pid); got != want {
					t.Fatalf("start %v: topicFrom(%d, %d) = %d; topicOf = %d", start, from, pid, got, want)
				}
			}
		}
	})
}
