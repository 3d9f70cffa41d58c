package assign_test

import (
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"pgregory.net/rapid"
)

// bruteForceSticky enumerates every valid assignment of a tiny group and
// returns the least sum of squared counts and, among assignments reaching
// it, the fewest partitions moved away from their owners (each partition's
// one newest-generation claimant, found by newestClaims). It knows nothing
// of the algorithm under test.
func bruteForceSticky(g assign.Group) (sumSq, moves int) {
	claimant := map[assign.TopicPartition]int{}
	for tp, ids := range newestClaims(g) {
		if len(ids) == 1 {
			claimant[tp] = slices.IndexFunc(g.Members, func(m assign.Member) bool { return m.ID == ids[0] })
		}
	}
	type slot struct {
		claim int   // member index of the claimant, or -1
		subs  []int // members subscribed to its topic
	}
	var slots []slot
	topics := make([]string, 0, len(g.Topics))
	for t := range g.Topics {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	for _, t := range topics {
		var subs []int
		for i, m := range g.Members {
			if slices.Contains(m.Topics, t) {
				subs = append(subs, i)
			}
		}
		if len(subs) == 0 {
			continue
		}
		for p := range g.Topics[t] {
			c, ok := claimant[assign.TopicPartition{Topic: t, Partition: p}]
			if !ok {
				c = -1
			}
			slots = append(slots, slot{c, subs})
		}
	}
	load := make([]int, len(g.Members))
	bestSq, bestMoves := -1, -1
	var walk func(i, mv int)
	walk = func(i, mv int) {
		if i == len(slots) {
			sq := 0
			for _, l := range load {
				sq += l * l
			}
			if bestSq < 0 || sq < bestSq || sq == bestSq && mv < bestMoves {
				bestSq, bestMoves = sq, mv
			}
			return
		}
		for _, m := range slots[i].subs {
			load[m]++
			d := 0
			if c := slots[i].claim; c >= 0 && c != m {
				d = 1
			}
			walk(i+1, mv+d)
			load[m]--
		}
	}
	walk(0, 0)
	return bestSq, bestMoves
}

func sumSquares(g assign.Group, a assign.Assignment) int {
	s := 0
	for _, m := range g.Members {
		s += len(a[m.ID]) * len(a[m.ID])
	}
	return s
}

// TestStickyMatchesBruteForce checks Sticky against exhaustive search on
// tiny groups: the same balance (least sum of squared counts, which
// exactly the balanced assignments reach) and the same fewest moves.
func TestStickyMatchesBruteForce(t *testing.T) {
	// At most 4 members and 2 topics of at most 4 partitions: at most
	// 4^8 assignments to enumerate.
	shape := assigntest.Shape{MaxMembers: 4, MaxTopics: 2, MaxPartitions: 4, Static: true, Racks: true, Owned: true, Odd: true}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(shape).Draw(t, "group")
		wantSq, wantMoves := bruteForceSticky(g)
		got, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := assign.VerifyBalanced(g, got); err != nil {
			t.Fatal(err)
		}
		gotSq, gotMoves := sumSquares(g, got), assign.Moved(owned(t, g), got)
		if gotSq != wantSq || gotMoves != wantMoves {
			t.Fatalf("Sticky(g): sum of squares %d, moves %d; brute force %d, %d\n%v", gotSq, gotMoves, wantSq, wantMoves, got)
		}
	})
}
