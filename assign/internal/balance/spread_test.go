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

// TestKeptOfRuns holds KeptOfRuns to keepSpread without racks: for a
// member of any number holding any claims over any topics, and keeping
// any number below them, keepSpread keeps in each run of one topic
// exactly its KeptOfRuns lowest claims and frees the rest.
func TestKeptOfRuns(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.Int32Range(0, 6), 1, 12).Draw(t, "parts")
		start := Start(parts)
		var mine []int32
		for pid := range start[len(parts)] {
			if rapid.Bool().Draw(t, "claims") {
				mine = append(mine, pid)
			}
		}
		if len(mine) == 0 {
			return
		}
		m := rapid.Int32Range(0, 40).Draw(t, "member")
		keep := rapid.Int32Range(0, int32(len(mine))-1).Draw(t, "keep")
		owner := make([]int32, start[len(parts)])
		for pid := range owner {
			owner[pid] = -1
		}
		for _, pid := range mine {
			owner[pid] = m
		}
		runs := keepSpread(&Problem{Parts: parts}, start, m, mine, keep, owner, nil)
		longest := int32(0)
		for k := 0; k < len(runs); k += 2 {
			longest = max(longest, runs[k+1]-runs[k])
		}
		kept := make([]int32, len(runs)/2)
		KeptOfRuns(m, runs, longest, keep, kept)
		total := int32(0)
		for k, n := range kept {
			total += n
			for i, pid := range mine[runs[2*k]:runs[2*k+1]] {
				if want := int32(i) < n; (owner[pid] == m) != want {
					t.Fatalf("member %d keeping %d of %v: run %d keeps %d by KeptOfRuns, but keepSpread gives pid %d to %d", m, keep, mine, k, n, pid, owner[pid])
				}
			}
		}
		if total != keep {
			t.Fatalf("KeptOfRuns keeps %d of %v, want %d", total, kept, keep)
		}
	})
}
