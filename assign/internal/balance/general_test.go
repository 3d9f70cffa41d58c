package balance

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// mediumProblem draws a heterogeneous problem too big to enumerate and,
// at its larger sizes, for referenceFlow: up to 14 members, 6 topics of
// up to 30 partitions, claims that need not be balanced (so that the
// solver has shifting to do), previous owners and racks.
func mediumProblem(t *rapid.T) *Problem {
	density := rapid.IntRange(1, 4).Draw(t, "density")
	p := drawGroup(t, 14, 6, 30, density, 5)
	n := len(p.Subs)
	// Claims lean on a few members so that loads start uneven.
	heavy := rapid.IntRange(0, n-1).Draw(t, "heavy")
	drawHistory(t, p, func(ti int32, subs []int32) int32 {
		switch rapid.IntRange(0, 3).Draw(t, "claimed") {
		case 0:
		case 1:
			if subscribes(p.Subs[heavy], ti) {
				return int32(heavy)
			}
		default:
			return rapid.SampledFrom(subs).Draw(t, "claim")
		}
		return -1
	})
	return p
}

// certify reports whether owner is optimal for p by the optimality condition
// of the convex-cost flow, computed independently of the solver on the
// explicit graph of members (an arc a -> b of cost w for every pid a
// holds and b may hold, all pairs by Floyd-Warshall): no cycle of moves
// has a negative cost, and no path of moves s -> d has load(d) <=
// load(s) - 2, or load(d) = load(s) - 1 and a negative cost.
func certify(p *Problem, owner []int32) error {
	start := Start(p.Parts)
	n := len(p.Subs)
	const none = 1 << 30
	dist := make([][]int, n)
	for a := range dist {
		dist[a] = make([]int, n)
		for b := range dist[a] {
			dist[a][b] = none
		}
	}
	load := make([]int, n)
	cost := func(pid int, m int32) int {
		if c := p.Claim[pid]; c >= 0 && c != m {
			return 1
		}
		return 0
	}
	for ti := range p.Parts {
		for pid := int(start[ti]); pid < int(start[ti+1]); pid++ {
			a := owner[pid]
			load[a]++
			for b := range int32(n) {
				if b != a && subscribes(p.Subs[b], int32(ti)) {
					dist[a][b] = min(dist[a][b], cost(pid, b)-cost(pid, a))
				}
			}
		}
	}
	for k := range n {
		for i := range n {
			if dist[i][k] == none {
				continue
			}
			for j := range n {
				if dist[k][j] != none {
					dist[i][j] = min(dist[i][j], dist[i][k]+dist[k][j])
				}
			}
		}
	}
	for s := range n {
		if dist[s][s] < 0 {
			return fmt.Errorf("a cycle of moves through member %d costs %d", s, dist[s][s])
		}
		for d := range n {
			if d == s || dist[s][d] == none {
				continue
			}
			if load[d] <= load[s]-2 || load[d] == load[s]-1 && dist[s][d] < 0 {
				return fmt.Errorf("path %d (load %d) -> %d (load %d) of cost %d remains", s, load[s], d, load[d], dist[s][d])
			}
		}
	}
	return nil
}

// TestGeneralOptimalOnMediumProblems certifies the general path's result
// on problems too big to enumerate, and compares it with referenceFlow
// where that is fast enough.
func TestGeneralOptimalOnMediumProblems(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		start, total := pids(p)
		if total == 0 {
			return
		}
		owner, err := general(p, start, total)
		if err != nil {
			t.Fatal(err)
		}
		validOwners(t, p, owner)
		if err := certify(p, owner); err != nil {
			t.Fatal(err)
		}
		if total*len(p.Subs) <= 200 {
			wantSq, wantMoves := referenceFlow(p)
			sameCost(t, p, "general", owner, "reference flow", wantSq, wantMoves)
		}
		again, err := general(p, start, total)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(owner, again) {
			t.Fatalf("two runs differ: %v, then %v", owner, again)
		}
	})
}

// TestCertifyCatchesSuboptimal: the certificate accepts an optimum and
// rejects results one step away from it, so that passing it means
// something.
func TestCertifyCatchesSuboptimal(t *testing.T) {
	p := &Problem{Parts: []int32{4, 1}, Subs: [][]int32{{0}, {0, 1}}, Claim: []int32{0, 0, 1, 1, -1}}
	tests := []struct {
		owner []int32
		ok    bool
	}{
		{[]int32{0, 0, 1, 1, 1}, true},
		{[]int32{0, 0, 0, 1, 1}, false}, // loads 3 and 2, but a move returns home: (iii)
		{[]int32{0, 0, 0, 0, 1}, false}, // loads 4 and 1: (ii)
		{[]int32{1, 0, 0, 1, 1}, false}, // pid 0 and 2 could swap back: (i)
	}
	for _, tc := range tests {
		if err := certify(p, tc.owner); (err == nil) != tc.ok {
			t.Errorf("certify(%v) = %v, want ok %v", tc.owner, err, tc.ok)
		}
	}
}

// TestJoinerFilledInOneSearch: a member joining a balanced group takes
// its share from many members in one search (the search runs backwards
// from it, so every source has a path to it), and proving that no
// shift is left costs at most one more per phase.
func TestJoinerFilledInOneSearch(t *testing.T) {
	p := heteroProblem(60, 120)
	owner, err := Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	q := churned(p, owner, "join1")
	start := Start(q.Parts)
	s := newSolver(q, start, int(start[len(q.Parts)]), options{heapAbove: heapAbove})
	s.place()
	if err := s.balance(); err != nil {
		t.Fatal(err)
	}
	joiner := s.n - 1
	if s.load[joiner] < s.load[0]-1 {
		t.Fatalf("joiner holds %d, member 0 %d", s.load[joiner], s.load[0])
	}
	if s.searches > 2 {
		t.Errorf("balancing took %d searches, want at most 2", s.searches)
	}
	before := s.searches
	if err := s.settleTies(); err != nil {
		t.Fatal(err)
	}
	t.Logf("joiner took %d partitions; searches: %d to balance, %d to settle ties", s.load[joiner], before, s.searches-before)
}

// TestSubClasses: a topic's subscribers gathered from its classes are
// exactly its subscribers, ascending, whatever the hash (a constant one chains every
// class under one key), and each class holds equal subscriptions.
func TestSubClasses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "members")
		T := rapid.IntRange(1, 5).Draw(t, "topics")
		subs := make([][]int32, n)
		for m := range n {
			switch {
			case m > 0 && rapid.IntRange(0, 2).Draw(t, "share") == 0:
				subs[m] = subs[rapid.IntRange(0, m-1).Draw(t, "with")] // one slice
			default:
				for i := range T {
					if rapid.Bool().Draw(t, "sub") {
						subs[m] = append(subs[m], int32(i))
					}
				}
			}
		}
		hashes := []struct {
			name string
			hash func([]int32) uint64
		}{
			{"fnv", hashSub},
			{"constant", func([]int32) uint64 { return 7 }},
		}
		for _, h := range hashes {
			name := h.name
			sc := newSubClasses(subs, T, h.hash)
			for k := range len(sc.memberOff) - 1 {
				ms := sc.members[sc.memberOff[k]:sc.memberOff[k+1]]
				if len(ms) == 0 || !slices.IsSorted(ms) {
					t.Fatalf("%s: class %d has members %v", name, k, ms)
				}
				for _, m := range ms {
					if !slices.Equal(subs[m], subs[ms[0]]) {
						t.Fatalf("%s: class %d mixes %v and %v", name, k, subs[ms[0]], subs[m])
					}
				}
				for j := range k {
					if slices.Equal(subs[ms[0]], subs[sc.members[sc.memberOff[j]]]) {
						t.Fatalf("%s: classes %d and %d are equal", name, j, k)
					}
				}
			}
			for ti := range int32(T) {
				var want []int32
				for m := range int32(n) {
					if subscribes(subs[m], ti) {
						want = append(want, m)
					}
				}
				got := sc.sorted(ti, []int32{-7})[1:] // appends after what is there
				if !slices.Equal(got, want) || int(sc.count(ti)) != len(want) {
					t.Fatalf("%s: topic %d: sorted subscribers %v (count %d), want %v", name, ti, got, sc.count(ti), want)
				}
				got = sc.subscribers(ti, nil)
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Fatalf("%s: topic %d: subscribers %v, want %v", name, ti, got, want)
				}
			}
		}
	})
}

// TestHeavyMemberInOneSearch: a member that subscribes to everything and
// owns everything hands 99 joiners their shares in one search (forward
// from it, along the tight paths of the search in passes), where a search
// per partition moved used to be needed.
func TestHeavyMemberInOneSearch(t *testing.T) {
	p := heteroProblem(100, 200)
	all := make([]int32, len(p.Parts))
	for i := range all {
		all[i] = int32(i)
	}
	p.Subs[0] = all
	start, total := pids(p)
	p.Claim = make([]int32, total) // all member 0's
	s := newSolver(p, start, total, options{heapAbove: heapAbove})
	s.place()
	if err := s.balance(); err != nil {
		t.Fatal(err)
	}
	if s.searches > 2 {
		t.Errorf("balancing took %d searches, want at most 2", s.searches)
	}
	if err := s.settleTies(); err != nil {
		t.Fatal(err)
	}
	lo, hi := slices.Min(s.load), slices.Max(s.load)
	if hi-lo > 1 {
		t.Errorf("loads from %d to %d", lo, hi)
	}
}

// TestGeneralOptimalWhateverTheRoute: the result is optimal whichever side
// the searches run from, and when every shift takes a path found by
// tight rather than the search's own.
func TestGeneralOptimalWhateverTheRoute(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		start, total := pids(p)
		if total == 0 {
			return
		}
		o := options{
			heapAbove: heapAbove,
			direction: int8(rapid.IntRange(-1, 1).Draw(t, "direction")),
			noTree:    rapid.Bool().Draw(t, "noTree"),
		}
		owner, err := generalOpts(p, start, total, o)
		if err != nil {
			t.Fatal(err)
		}
		validOwners(t, p, owner)
		if err := certify(p, owner); err != nil {
			t.Fatal(err)
		}
		want, err := general(p, start, total)
		if err != nil {
			t.Fatal(err)
		}
		wantSq, wantMoves := measure(p, want)
		sameCost(t, p, fmt.Sprintf("%+v", o), owner, "default options", wantSq, wantMoves)
	})
}

// TestSpreadPicks: counting by load and selecting pick the same members,
// the keep smallest by (load, member) among those at count low, in that
// order.
func TestSpreadPicks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "members")
		p := &Problem{Parts: []int32{1}, Subs: make([][]int32, n)}
		s := newSolver(p, Start(p.Parts), 1, options{})
		pl := newPlacer(s, make([]int32, n))
		spreadLoads := rapid.IntRange(0, 300).Draw(t, "spread")
		var subs []int32
		for m := range int32(n) {
			s.load[m] = int32(rapid.IntRange(0, spreadLoads).Draw(t, "load"))
			pl.cnt[m] = int32(rapid.IntRange(0, 2).Draw(t, "cnt"))
			if rapid.Bool().Draw(t, "subscribes") {
				subs = append(subs, m)
			}
		}
		low := int32(rapid.IntRange(0, 2).Draw(t, "low"))
		var want []int32
		minL, maxL := int32(inf), int32(-1)
		for _, m := range subs {
			if pl.cnt[m] == low {
				want = append(want, m)
				minL, maxL = min(minL, s.load[m]), max(maxL, s.load[m])
			}
		}
		if len(want) == 0 {
			return
		}
		slices.SortStableFunc(want, func(a, b int32) int { return int(s.load[a] - s.load[b]) })
		keep := rapid.IntRange(1, len(want)).Draw(t, "keep")
		want = want[:keep]
		bucketed := slices.Clone(pl.bucketed(subs, low, minL, maxL, keep))
		selected := slices.Clone(pl.selected(subs, low, keep))
		if !slices.Equal(bucketed, want) || !slices.Equal(selected, want) {
			t.Fatalf("bucketed %v, selected %v, want %v", bucketed, selected, want)
		}
	})
}

// TestLevelledMatchesHeaps: levelled (place.go) hands every pid to the
// member the heaps would, whether place counts a topic's pids or, in
// refill, whole loads: the same owners and loads after place and after
// refill, with and without it, on problems drawn as for
// TestGeneralOptimalOnMediumProblems and on the adversary's random
// windows, every topic through the placer (heapAbove 0).
func TestLevelledMatchesHeaps(t *testing.T) {
	check := func(t fataler, p *Problem) {
		start, total := pids(p)
		if total == 0 {
			return
		}
		var owners, loads [2][][]int32
		for i, no := range []bool{false, true} {
			s := newSolver(p, start, total, options{noLevels: no})
			s.place()
			owners[i] = append(owners[i], slices.Clone(s.owner))
			loads[i] = append(loads[i], slices.Clone(s.load))
			s.refillStart()
			owners[i] = append(owners[i], s.owner)
			loads[i] = append(loads[i], s.load)
		}
		for k, what := range []string{"place", "refill"} {
			if !slices.Equal(owners[0][k], owners[1][k]) || !slices.Equal(loads[0][k], loads[1][k]) {
				t.Fatalf("after %s: levelled %v, heaps %v", what, owners[0][k], owners[1][k])
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) { check(t, mediumProblem(t)) })
	for seed := range uint64(200) {
		m := 8 + int(seed%17)
		check(t, windowsProblem(m, 20*m+int(seed%7)*m, seed))
	}
	check(t, windowsProblem(125, 6250, 12))
}

// TestLowLoadsMatchesPasses: place gives every pid to the member it gives
// it to without lowLoads (scan, spread, levelled or the heaps), with every
// topic through the scan or through the placer, on problems drawn as for
// TestGeneralOptimalOnMediumProblems (previous owners and racks sometimes
// set, which lowLoads leaves to the others), on churned ones where most
// pids stay with their claimants and the rest are free, and on the
// adversary's random windows.
func TestLowLoadsMatchesPasses(t *testing.T) {
	check := func(t fataler, p *Problem) {
		start, total := pids(p)
		if total == 0 {
			return
		}
		for _, heap := range []int{0, heapAbove, 1 << 30} {
			var owners, loads [2][]int32
			for i, no := range []bool{false, true} {
				s := newSolver(p, start, total, options{heapAbove: heap, noLow: no})
				s.place()
				owners[i], loads[i] = s.owner, s.load
			}
			if !slices.Equal(owners[0], owners[1]) || !slices.Equal(loads[0], loads[1]) {
				t.Fatalf("heapAbove %d: owners %v with lowLoads, %v without", heap, owners[0], owners[1])
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) { check(t, mediumProblem(t)) })
	rapid.Check(t, func(t *rapid.T) {
		p := drawGroup(t, 14, 6, 30, rapid.IntRange(1, 4).Draw(t, "density"), 5)
		free := rapid.IntRange(0, 5).Draw(t, "free") // in 8: the pids nobody claims
		drawHistory(t, p, func(_ int32, subs []int32) int32 {
			if rapid.IntRange(0, 7).Draw(t, "free?") < free {
				return -1
			}
			return rapid.SampledFrom(subs).Draw(t, "claimant")
		})
		if rapid.IntRange(0, 3).Draw(t, "plain") > 0 {
			p.Prev, p.Rack, p.Replicas = nil, nil, nil // lowLoads places every topic
		}
		check(t, p)
	})
	for seed := range uint64(100) {
		m := 8 + int(seed%17)
		check(t, windowsProblem(m, 20*m+int(seed%7)*m, seed))
	}
}
