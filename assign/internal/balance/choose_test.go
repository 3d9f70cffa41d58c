package balance

import (
	"testing"

	"pgregory.net/rapid"
)

// naiveChoose is what choose must answer, by a pass over every pid of
// topic t: among the pids a holds, those it does not claim if any, then
// the highest score (previous owner b 2, a replica on b's rack 1), then
// the highest pid; -1 when a holds none.
func naiveChoose(s *solver, a, t, b int32) int32 {
	best, bestRank := int32(-1), [2]int{}
	for pid := s.start[t]; pid < s.start[t+1]; pid++ {
		if s.owner[pid] != a {
			continue
		}
		foreign := 1
		if s.p.Claim != nil && s.p.Claim[pid] == a {
			foreign = 0
		}
		score := 0
		if s.p.Prev != nil && s.p.Prev[pid] == b {
			score = 2
		} else if s.p.rackMatch(pid, b) {
			score = 1
		}
		rank := [2]int{foreign, score}
		if best < 0 || rank[0] > bestRank[0] || rank[0] == bestRank[0] && rank[1] >= bestRank[1] {
			best, bestRank = pid, rank
		}
	}
	return best
}

// TestChooseMatchesPass: every pid choose picks, through the foreign
// lists and ownTop with the arc index, or through the held lists and
// the topic without it, searching in either direction, is the one a
// pass over the topic picks; and both of choose's indexes are used.
func TestChooseMatchesPass(t *testing.T) {
	var foreign, own int
	check := func(t interface {
		Fatal(...any)
		Fatalf(string, ...any)
	}, p *Problem, o options) {
		start, total := pids(p)
		if total == 0 {
			return
		}
		o.chose = func(s *solver, a, tp, b, pid int32) {
			if want := naiveChoose(s, a, tp, b); pid != want {
				t.Fatalf("choose(%d, topic %d, %d) = %d, a pass picks %d", a, tp, b, pid, want)
			}
			if s.arcs != nil && pid >= 0 {
				if s.p.Claim != nil && s.p.Claim[pid] == a {
					own++
				} else {
					foreign++
				}
			}
		}
		if _, err := generalOpts(p, start, total, o); err != nil {
			t.Fatal(err)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		o := options{heapAbove: heapAbove, direction: int8(rapid.IntRange(-1, 1).Draw(t, "direction")), arcs: int8(rapid.IntRange(-1, 1).Draw(t, "arcs"))}
		check(t, mediumProblem(t), o)
	})
	for seed := range uint64(4) {
		for _, arcs := range []int8{-1, 1} {
			check(t, windowsProblem(125, 6250, seed), options{heapAbove: heapAbove, arcs: arcs})
		}
	}
	if foreign == 0 || own == 0 {
		t.Errorf("with the index choose picked %d foreign and %d own pids, want both", foreign, own)
	}
}
