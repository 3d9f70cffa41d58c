package balance

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// keepReference is keepClaims's rule written out plainly, nothing shared
// with it but rackMatch: a member with no more claims than its target
// keeps them all; one with more groups its claims by topic (runs, in
// topic order), finds the highest level L with sum(min(len(run), L)) at
// most its target by trying every level, and walks its runs from run
// m mod #runs on, wrapping: each keeps min(len(run), L), and one more
// while the target is not reached and the run is longer than L. Within a
// run it keeps rack-matching claims first, then the lowest partitions.
// It returns the owner of every pid and the number kept.
func keepReference(p *Problem, start, claims, target []int32) ([]int32, int) {
	total := int(start[len(p.Parts)])
	owner := make([]int32, total)
	for pid := range owner {
		owner[pid] = -1
	}
	kept := 0
	for m := range int32(len(p.Subs)) {
		var runs [][]int32
		for t := range p.Parts {
			var run []int32
			for pid := start[t]; pid < start[t+1]; pid++ {
				if p.Claim != nil && p.Claim[pid] == m {
					run = append(run, pid)
				}
			}
			if len(run) > 0 {
				runs = append(runs, run)
			}
		}
		if claims[m] <= target[m] {
			for _, run := range runs {
				for _, pid := range run {
					owner[pid] = m
				}
			}
			kept += int(claims[m])
			continue
		}
		sum := func(level int) int32 {
			s := int32(0)
			for _, run := range runs {
				s += int32(min(len(run), level))
			}
			return s
		}
		level := 0
		for l := 0; l <= int(claims[m]); l++ {
			if sum(l) <= target[m] {
				level = l
			}
		}
		left := target[m] - sum(level)
		for k := range runs {
			run := runs[(int(m)+k)%len(runs)]
			n := min(len(run), level)
			if len(run) > level && left > 0 {
				n++
				left--
			}
			var order []int32 // rack matches first, then the others, each ascending
			for _, pid := range run {
				if p.Rack != nil && p.Replicas != nil && p.rackMatch(pid, m) {
					order = append(order, pid)
				}
			}
			for _, pid := range run {
				if !slices.Contains(order, pid) {
					order = append(order, pid)
				}
			}
			for _, pid := range order[:n] {
				owner[pid] = m
			}
		}
		kept += int(target[m])
	}
	return owner, kept
}

// TestKeepSpreadMatchesReference holds keepClaims (and keepSpread, which
// frees only what a member gives up) to keepReference on identical
// subscriptions with random claims, with and without racks, with the
// claims' array reused and not: the same owner for every pid, the same
// count kept, and each member's deficit its target less what it keeps.
// Members often claim one partition of each topic, as after a fresh
// round when a member joins.
func TestKeepSpreadMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := identicalProblem(t, 8, 6, 12)
		n := len(p.Subs)
		start, total := pids(p)
		if total == 0 {
			return
		}
		roundRobin := rapid.Bool().Draw(t, "roundRobin")
		drawHistory(t, p, func(_ int32, subs []int32) int32 {
			if rapid.IntRange(0, 5).Draw(t, "unclaimed") == 0 {
				return -1
			}
			return rapid.SampledFrom(subs).Draw(t, "claim")
		})
		if roundRobin {
			for pid := range p.Claim {
				p.Claim[pid] = int32(pid % n)
			}
		}
		if p.Rack != nil {
			for pid := range p.Replicas {
				p.Replicas[pid] = nil
				for r := range int32(3) {
					if rapid.Bool().Draw(t, "replica") {
						p.Replicas[pid] = append(p.Replicas[pid], r)
					}
				}
			}
		}
		claims := claimCounts(p, make([]int32, n))
		wantOwner, wantKept := keepReference(p, start, claims, Targets(claims, total))
		p.ClaimReusable = rapid.Bool().Draw(t, "reusable")
		claim := slices.Clone(p.Claim)
		target := Targets(claims, total)
		wantDeficit := slices.Clone(target)
		owner, deficit, kept := keepClaims(p, start, claims, target, make([]int32, n+1))
		if !slices.Equal(owner, wantOwner) || kept != wantKept {
			t.Fatalf("claims %v: keepClaims kept %d: %v; the reference %d: %v", claim, kept, owner, wantKept, wantOwner)
		}
		for _, m := range owner {
			if m >= 0 {
				wantDeficit[m]--
			}
		}
		if !slices.Equal(deficit, wantDeficit) {
			t.Fatalf("deficits %v, want %v", deficit, wantDeficit)
		}
	})
}

// TestKeepSinglesIsKeepListed holds keepSingles to keepListed, the path
// it skips: on random claims where each topic's partitions go to distinct
// members from a random offset, with some left unclaimed and sometimes a
// member claiming two of a topic (where keepSingles must decline, having
// written nothing), the same owners, deficits and count kept, with racks
// or not. It also checks that the draws take keepSingles at all.
func TestKeepSinglesIsKeepListed(t *testing.T) {
	took, declined := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		p := identicalProblem(t, 10, 8, 8)
		n := len(p.Subs)
		start, total := pids(p)
		if total == 0 {
			return
		}
		offset := map[int32]int32{}
		drawHistory(t, p, func(topic int32, subs []int32) int32 {
			if _, ok := offset[topic]; !ok {
				offset[topic] = int32(rapid.IntRange(0, n-1).Draw(t, "offset"))
			}
			switch rapid.IntRange(0, 9).Draw(t, "kind") {
			case 0:
				return -1
			case 1:
				return rapid.SampledFrom(subs).Draw(t, "any") // may repeat a member within the topic
			}
			offset[topic]++
			return offset[topic] % int32(n)
		})
		claims := claimCounts(p, make([]int32, n))
		target := Targets(claims, total)
		claim := slices.Clone(p.Claim)

		owner := make([]int32, total)
		for pid := range owner {
			owner[pid] = -7 // keepSingles writes every pid or none
		}
		over := make([]int32, n+1)
		if !keepSingles(p, start, claims, slices.Clone(target), over, owner) {
			declined++
			for pid, m := range owner {
				if m != -7 {
					t.Fatalf("claims %v: keepSingles declined but wrote owner[%d] = %d", claim, pid, m)
				}
			}
			return
		}
		took++
		singleDeficit, singleKept := keptOf(claims, slices.Clone(target))
		listed, deficit, kept := keepListed(p, start, claims, slices.Clone(target), make([]int32, n+1), make([]int32, total))
		if !slices.Equal(owner, listed) || singleKept != kept || !slices.Equal(singleDeficit, deficit) {
			t.Fatalf("claims %v, targets %v: keepSingles %v (kept %d, deficits %v); keepListed %v (kept %d, deficits %v)",
				claim, target, owner, singleKept, singleDeficit, listed, kept, deficit)
		}
	})
	if took < 10 || declined < 10 {
		t.Fatalf("keepSingles took %d draws and declined %d: the draws do not exercise both", took, declined)
	}
}
