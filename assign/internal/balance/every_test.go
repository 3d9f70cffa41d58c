package balance

import (
	"fmt"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/internal/benchmem"
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

// TestEveryPays: the every-level search replaces the sweeps where some
// member starts above the average plus one holding a pid it does not
// claim: on the adversary's random
// windows, where many members start far above it, and there runs a
// third of the searches or fewer, each popping each node about once;
// on the ladder's follow-up round under cooperative-sticky and on the
// deleted family (25 members on 3 loads at 125 members). Not on
// BenchmarkGeneral's shapes nor on the ladder's first round, where no
// member starts above, nor on the nested family, where one member
// does on its own claims alone, nor on the lopsided family's follow-up
// round, where 264 members stand on 4 loads; there the sweeps are
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
	for _, sh := range []benchShape{
		{"ladder8-500x25000-followup", followUp(t, ladderProblem(t, 500, 25000, 8))},
		{"ladder4-2000x100000-followup", followUp(t, ladderProblem(t, 2000, 100000, 4))},
		{"deleted-125x6250", deletedProblem(125, 6250)},
	} {
		start, total := pids(sh.p)
		s := newSolver(sh.p, start, total, options{heapAbove: heapAbove})
		s.place()
		if !s.everyPays() {
			t.Errorf("%s: the sweeps chosen", sh.name)
		}
	}
	sweeps := []benchShape{
		{"ladder8-500x25000", ladderProblem(t, 500, 25000, 8)},
		{"nested-125x50", nestedProblem(125, 50)},
		{"lopsided4-500x25000-followup", followUp(t, lopsidedProblem(500, 25000, 4))},
		{"lopsided16-500x25000-followup", followUp(t, lopsidedProblem(500, 25000, 16))},
	}
	for _, sh := range append(sweeps, heteroShapes(t)...) {
		start, total := pids(sh.p)
		s := newSolver(sh.p, start, total, options{heapAbove: heapAbove})
		s.place()
		if s.everyPays() {
			t.Errorf("%s: every level at once chosen", sh.name)
		}
	}
}

// BenchmarkEvery: the general path with the sweeps (every=-1) and
// with the every-level search from refill's start (every=1), on the
// adversary's random windows, the ladder and its follow-up round under
// cooperative-sticky, and BenchmarkGeneral's shapes.
func BenchmarkEvery(b *testing.B) {
	shapes := []benchShape{
		{"windows-125x6250", windowsProblem(125, 6250, 0)},
		{"windows-500x25000", windowsProblem(500, 25000, 0)},
		{"ladder8-500x25000", ladderProblem(b, 500, 25000, 8)},
		{"ladder8-500x25000-followup", followUp(b, ladderProblem(b, 500, 25000, 8))},
		{"nested-125x50", nestedProblem(125, 50)},
		{"lopsided4-500x25000-followup", followUp(b, lopsidedProblem(500, 25000, 4))},
		{"lopsided16-500x25000-followup", followUp(b, lopsidedProblem(500, 25000, 16))},
		{"deleted-125x6250", deletedProblem(125, 6250)},
	}
	for _, sh := range append(shapes, heteroShapes(b)...) {
		start, total := pids(sh.p)
		for _, every := range []int8{-1, 1} {
			b.Run(fmt.Sprintf("shape=%s/every=%d", sh.name, every), func(b *testing.B) {
				b.ReportAllocs()
				bytes := benchmem.Start(b, total)
				for b.Loop() {
					if _, err := generalOpts(sh.p, start, total, options{heapAbove: heapAbove, every: every}); err != nil {
						b.Fatal(err)
					}
				}
				bytes.Report()
			})
		}
	}
}

// followUp returns the problem of the follow-up round CooperativeSticky
// solves after p (see settledTarget in package assign): p's answer as
// the claims, less the pids that answer moves away from their claimant,
// which are withheld this round and so unclaimed in the next.
func followUp(tb testing.TB, p *Problem) *Problem {
	start, total := pids(p)
	target, err := generalOpts(p, start, total, options{heapAbove: heapAbove})
	if err != nil {
		tb.Fatal(err)
	}
	claim := slices.Clone(target)
	for pid, c := range p.Claim {
		if c != claim[pid] {
			claim[pid] = -1
		}
	}
	return &Problem{Parts: p.Parts, Subs: p.Subs, Claim: claim}
}

// TestRefillPays: where the every-level search runs, refill's start
// (every.go) leaves the members far less above their final loads than
// place's, and the search needs fewer searches to finish, for answers
// of the same cost and load vector: on the adversary's random windows
// at the seeds and sizes it measures, and on the follow-up round of the
// ladder under cooperative-sticky.
func TestRefillPays(t *testing.T) {
	for _, sh := range []benchShape{
		{"windows-125x6250-seed12", windowsProblem(125, 6250, 12)},
		{"windows-500x25000-seed16", windowsProblem(500, 25000, 16)},
		{"ladder8-500x25000-followup", followUp(t, ladderProblem(t, 500, 25000, 8))},
	} {
		start, total := pids(sh.p)
		var excess, searches [2]int
		var owners [2][]int32
		for i, refill := range []int8{-1, 1} {
			s := newSolver(sh.p, start, total, options{heapAbove: heapAbove, every: 1, refill: refill})
			s.place()
			if refill > 0 {
				s.refillStart()
			}
			before := slices.Clone(s.load)
			if err := s.solveEvery(); err != nil {
				t.Fatal(err)
			}
			for m, l := range before {
				excess[i] += max(0, int(l-s.load[m]))
			}
			searches[i], owners[i] = s.searches, s.owner
		}
		t.Logf("%s: excess over the final loads %d from place, %d from refill; searches %d, %d", sh.name, excess[0], excess[1], searches[0], searches[1])
		if 2*excess[1] > excess[0] {
			t.Errorf("%s: refill leaves an excess of %d, place %d: want at most half", sh.name, excess[1], excess[0])
		}
		if searches[1] >= searches[0] {
			t.Errorf("%s: %d searches after refill, %d after place: want fewer", sh.name, searches[1], searches[0])
		}
		sq0, mv0 := measure(sh.p, owners[0])
		sq1, mv1 := measure(sh.p, owners[1])
		if sq0 != sq1 || mv0 != mv1 || !slices.Equal(sortedLoads(sh.p, owners[0]), sortedLoads(sh.p, owners[1])) {
			t.Errorf("%s: from place: sum of squares %d, moves %d; from refill: %d, %d", sh.name, sq0, mv0, sq1, mv1)
		}
	}
}

// lopsidedProblem builds bench/cmd/adversary's lopsided family: T = m/2
// topics of p/T partitions, the first m/2 members subscribe to all of
// them and claim nothing, member m/2+k to topics k*w..k*w+w-1 (mod T)
// and claims those nobody before it claimed.
func lopsidedProblem(m, p, w int) *Problem {
	T := m / 2
	q := &Problem{Parts: make([]int32, T), Subs: make([][]int32, m)}
	for t := range T {
		q.Parts[t] = int32(p / T)
		if t < p%T {
			q.Parts[t]++
		}
	}
	for j := range m / 2 {
		for t := range T {
			q.Subs[j] = append(q.Subs[j], int32(t))
		}
	}
	start := Start(q.Parts)
	q.Claim = make([]int32, start[T])
	for i := range q.Claim {
		q.Claim[i] = -1
	}
	claimed := make([]bool, T)
	for k := 0; m/2+k < m; k++ {
		j := m/2 + k
		var subs []int32
		for i := range w {
			subs = append(subs, int32((k*w+i)%T))
		}
		slices.Sort(subs)
		subs = slices.Compact(subs)
		q.Subs[j] = subs
		for _, t := range subs {
			if !claimed[t] {
				claimed[t] = true
				for pid := start[t]; pid < start[t+1]; pid++ {
					q.Claim[pid] = int32(j)
				}
			}
		}
	}
	return q
}

// deletedProblem builds bench/cmd/adversary's deleted family as Solve
// sees it (the adapter drops the claims of partitions that no longer
// exist): T = max(5, m/2) topics of p/T partitions, member j subscribes
// to topic i iff (i*31 + j*17) % 5 < 3 and claims the partitions of its
// topics whose number is congruent to j mod m.
func deletedProblem(m, p int) *Problem {
	T := max(5, m/2)
	q := &Problem{Parts: make([]int32, T), Subs: make([][]int32, m)}
	for t := range T {
		q.Parts[t] = int32(max(1, p/T))
	}
	for j := range m {
		for i := range T {
			if (i*31+j*17)%5 < 3 {
				q.Subs[j] = append(q.Subs[j], int32(i))
			}
		}
	}
	start := Start(q.Parts)
	q.Claim = make([]int32, start[T])
	for i := range q.Claim {
		q.Claim[i] = -1
	}
	for j := range m {
		for _, t := range q.Subs[j] {
			for x := j % m; x < int(q.Parts[t]); x += m {
				q.Claim[start[t]+int32(x)] = int32(j)
			}
		}
	}
	return q
}

// TestRefillOrderPays: refill taking the topics by the most pids per
// subscriber first (byChoice in place.go) rather than by the fewest
// subscribers, as place does, leaves the every-level search fewer pops
// in all, for answers of the same cost, each certified, on the
// adversary's random windows at 125 members and their follow-up rounds
// under cooperative-sticky.
func TestRefillOrderPays(t *testing.T) {
	var pops [2]int
	for _, seed := range []uint64{1, 3, 4, 12, 13, 16} {
		p := windowsProblem(125, 6250, seed)
		for _, sh := range []benchShape{{fmt.Sprintf("windows-125x6250-seed%d", seed), p}, {fmt.Sprintf("windows-125x6250-seed%d-followup", seed), followUp(t, p)}} {
			start, total := pids(sh.p)
			var cost [2][2]int
			var searches [2]int
			for i, refill := range []int8{refillByCount, 1} {
				s := newSolver(sh.p, start, total, options{heapAbove: heapAbove, every: 1, refill: refill})
				s.place()
				s.refillStart()
				if err := s.solveEvery(); err != nil {
					t.Fatal(err)
				}
				if err := certify(sh.p, s.owner); err != nil {
					t.Fatalf("%s, refill %d: %v", sh.name, refill, err)
				}
				cost[i][0], cost[i][1] = measure(sh.p, s.owner)
				pops[i] += s.pops
				searches[i] = s.searches
			}
			if cost[0] != cost[1] {
				t.Errorf("%s: (sum of squares, moves) %v by subscribers, %v by pids per subscriber", sh.name, cost[0], cost[1])
			}
			t.Logf("%s: searches %d by subscribers, %d by pids per subscriber", sh.name, searches[0], searches[1])
		}
	}
	t.Logf("pops %d by subscribers, %d by pids per subscriber", pops[0], pops[1])
	if 10*pops[1] > 9*pops[0] {
		t.Errorf("pops %d by pids per subscriber, %d by subscribers: want a tenth fewer or better", pops[1], pops[0])
	}
}
