package balance

import (
	"testing"

	"pgregory.net/rapid"
)

// TestArcIndexMatchesScans: the solver reaches answers of the same cost,
// each certified optimal, whether it reads arcs from the arc index
// wherever it can, only where that pays (big topics and members holding
// many pids), or never (passes over pids, as before the index), by the
// sweeps and by the every-level search.
func TestArcIndexMatchesScans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		if rapid.Bool().Draw(t, "big") {
			// Topics of up to 300 partitions over up to 8 members, claims
			// leaning on one member: big enough to cross the thresholds
			// of bySubscribers and byEntries.
			density := rapid.IntRange(1, 4).Draw(t, "density")
			p = drawGroup(t, 8, 4, 300, density, 5)
			heavy := rapid.IntRange(0, len(p.Subs)-1).Draw(t, "heavy")
			drawHistory(t, p, func(ti int32, subs []int32) int32 {
				if rapid.IntRange(0, 2).Draw(t, "claimed") > 0 && subscribes(p.Subs[heavy], ti) {
					return int32(heavy)
				}
				return -1
			})
		}
		start, total := pids(p)
		if total == 0 {
			return
		}
		// The last three modes run the every-level search (every.go),
		// which reads the index for every member holding more pids than
		// it has subscriptions (byEntries) and every topic with more
		// pids than subscribers (bySubscribers).
		var cost [6][2]int
		for i, o := range []options{{arcs: -1}, {arcs: 0}, {arcs: 1}, {arcs: -1, every: 1}, {arcs: 0, every: 1}, {arcs: 1, every: 1}} {
			o.heapAbove = heapAbove
			owner, err := generalOpts(p, start, total, o)
			if err != nil {
				t.Fatalf("arcs %d, every %d: %v", o.arcs, o.every, err)
			}
			validOwners(t, p, owner)
			if err := certify(p, owner); err != nil {
				t.Fatalf("arcs %d, every %d: %v", o.arcs, o.every, err)
			}
			cost[i][0], cost[i][1] = measure(p, owner)
		}
		for i := 1; i < len(cost); i++ {
			if cost[i] != cost[0] {
				t.Fatalf("(sum of squares, moves) without the index %v, where it pays %v, everywhere %v, every level without %v, where it pays %v and everywhere %v", cost[0], cost[1], cost[2], cost[3], cost[4], cost[5])
			}
		}
	})
}
