package balance

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestEveryMatchesSweeps: the every-level search (every.go) and the two
// phases' level sweeps reach answers of the same cost, load vector
// and moves, on problems drawn as for TestGeneralOptimalOnMediumProblems
// and on the adversary's random windows, and the every-level answer
// passes certify, the optimality condition computed on the explicit
// graph. Ties between optimal answers may go either way; the answer is
// the same on a second run.
func TestEveryMatchesSweeps(t *testing.T) {
	same := 0
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		start, total := pids(p)
		if total == 0 {
			return
		}
		if everySame(t, p, start, total) {
			same++
		}
	})
	t.Logf("%d answers identical to the sweeps'", same)
}

// everySame checks the every-level answer against the sweeps' on p and
// reports whether the two are identical.
func everySame(t tester, p *Problem, start []int32, total int) bool {
	want, err := generalOpts(p, start, total, options{heapAbove: heapAbove, every: -1})
	if err != nil {
		t.Fatal(err)
	}
	got, err := generalOpts(p, start, total, options{heapAbove: heapAbove, every: 1})
	if err != nil {
		t.Fatal(err)
	}
	validOwners(t, p, got)
	if len(p.Subs) <= 40 {
		if err := certify(p, got); err != nil {
			t.Fatal(err)
		}
	}
	wantSq, wantMoves := measure(p, want)
	gotSq, gotMoves := measure(p, got)
	if gotSq != wantSq || gotMoves != wantMoves {
		t.Fatalf("every level: sum of squares %d, moves %d; sweeps: %d, %d", gotSq, gotMoves, wantSq, wantMoves)
	}
	if !slices.Equal(sortedLoads(p, got), sortedLoads(p, want)) {
		t.Fatalf("load vectors differ: %v, %v", sortedLoads(p, got), sortedLoads(p, want))
	}
	again, err := generalOpts(p, start, total, options{heapAbove: heapAbove, every: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, again) {
		t.Fatal("two every-level runs differ")
	}
	return slices.Equal(got, want)
}

// tester is what everySame needs of a *testing.T or a *rapid.T.
type tester interface {
	Fatal(...any)
	Fatalf(string, ...any)
}

func sortedLoads(p *Problem, owner []int32) []int {
	load := make([]int, len(p.Subs))
	for _, m := range owner {
		load[m]++
	}
	slices.Sort(load)
	return load
}

// TestEveryMatchesSweepsOnWindows: as TestEveryMatchesSweeps, on 2,000
// of the adversary's random windows of 8 to 24 members (certified) and
// a few at the sizes the adversary measures (not certified: certify is
// cubic in members).
func TestEveryMatchesSweepsOnWindows(t *testing.T) {
	same, all := 0, 0
	for seed := range uint64(2000) {
		m := 8 + int(seed%17)
		p := windowsProblem(m, 20*m+int(seed%7)*m, seed)
		start, total := pids(p)
		if everySame(t, p, start, total) {
			same++
		}
		all++
	}
	for seed := range uint64(4) {
		p := windowsProblem(125, 6250, seed)
		start, total := pids(p)
		everySame(t, p, start, total)
	}
	t.Logf("%d of %d answers identical to the sweeps'", same, all)
}

// TestEveryPays: the every-level search replaces the sweeps on the
// adversary's random windows, where many members start far above the
// average, and there runs a third of the searches or fewer, each
// popping each node about once; not on
// BenchmarkGeneral's shapes nor on the ladder, where the sweeps are
// faster (BenchmarkEvery).
func TestEveryPays(t *testing.T) {
	pays := []benchShape{
		{"windows-125x6250", windowsProblem(125, 6250, 0)},
		{"windows-500x25000", windowsProblem(500, 25000, 0)},
	}
	for _, sh := range pays {
		start, total := pids(sh.p)
		s := newSolver(sh.p, start, total, options{heapAbove: heapAbove})
		s.place()
		if !s.everyPays() {
			t.Errorf("%s: the sweeps chosen", sh.name)
		}
		_, sweeps, err := solveCounting(sh.p, options{heapAbove: heapAbove, every: -1})
		if err != nil {
			t.Fatal(err)
		}
		every := newSolver(sh.p, start, total, options{heapAbove: heapAbove, every: 1})
		every.place()
		if err := every.solveEvery(); err != nil {
			t.Fatal(err)
		}
		if every.searches*3 > sweeps.searches {
			t.Errorf("%s: %d searches at every level at once, %d by the sweeps", sh.name, every.searches, sweeps.searches)
		}
		t.Logf("%s: %d searches at every level at once, %d by the sweeps", sh.name, every.searches, sweeps.searches)
		// The roots enter a level at a time (every.go): about one pop per
		// node and search.
		if V := int(every.n) + len(sh.p.Parts); every.pops > every.searches*V*21/20 {
			t.Errorf("%s: %d pops in %d searches of %d nodes", sh.name, every.pops, every.searches, V)
		}
	}
	for _, sh := range append([]benchShape{{"ladder8-500x25000", ladderProblem(t, 500, 25000, 8)}}, heteroShapes(t)...) {
		start, total := pids(sh.p)
		s := newSolver(sh.p, start, total, options{heapAbove: heapAbove})
		s.place()
		if s.everyPays() {
			t.Errorf("%s: every level at once chosen", sh.name)
		}
	}
}

// BenchmarkEvery: the general path with the sweeps (every=false) and
// with the every-level search (every=true), on the adversary's random
// windows and ladder, and BenchmarkGeneral's shapes.
func BenchmarkEvery(b *testing.B) {
	shapes := []benchShape{
		{"windows-125x6250", windowsProblem(125, 6250, 0)},
		{"windows-500x25000", windowsProblem(500, 25000, 0)},
		{"ladder8-500x25000", ladderProblem(b, 500, 25000, 8)},
	}
	for _, sh := range append(shapes, heteroShapes(b)...) {
		start, total := pids(sh.p)
		for _, every := range []int8{-1, 1} {
			b.Run(fmt.Sprintf("shape=%s/every=%d", sh.name, every), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := generalOpts(sh.p, start, total, options{heapAbove: heapAbove, every: every}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
