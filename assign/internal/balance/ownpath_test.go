package balance

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// ladderProblem builds bench/cmd/adversary's ladder family as Solve sees
// it: member i subscribes to topics i..i+w-1 mod m, topic i has about
// (1 + i*7919 mod 64) * p/(32.5m) partitions, and every member but the
// last claims what the group without the last member is given. Its
// paths of moves run through many members. The history is the general
// path's without refill (every.go), which the tests of this family were
// written against: refill's equally optimal history leaves the joiner's
// paths too short to reach the own paths' cache.
func ladderProblem(tb testing.TB, m, p, w int) *Problem {
	q := &Problem{Parts: make([]int32, m), Subs: make([][]int32, m)}
	for i := range m {
		q.Parts[i] = int32(max(1, (1+(i*7919)%64)*2*p/(65*m)))
		seen := map[int32]bool{}
		for k := range w {
			seen[int32((i+k)%m)] = true
		}
		for t := range int32(m) {
			if seen[t] {
				q.Subs[i] = append(q.Subs[i], t)
			}
		}
	}
	before := &Problem{Parts: q.Parts, Subs: q.Subs[:m-1]}
	start, total := pids(before)
	owner, err := generalOpts(before, start, total, options{heapAbove: heapAbove, refill: -1})
	if err != nil {
		tb.Fatal(err)
	}
	q.Claim = owner
	return q
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLadderBytesBounded: on the ladder family at 2,000 members, whose
// paths of moves run through hundreds of members, the general path
// allocates at most 64 bytes per partition (its arrays by pid are ten
// int32 or fewer: owner, topic, the held and foreign lists, claims and
// their index, what place builds), and the cache of the searches' own
// paths (ownPath) stays within ownCap steps per member plus one path,
// twice over for growth. The cache's first version reallocated itself
// at every use once full: 158 bytes per partition here.
func TestLadderBytesBounded(t *testing.T) {
	p := ladderProblem(t, 2000, 100000, 8)
	start, total := pids(p)
	var s *solver
	solve := func() {
		// keepBroken: with markBroken, an end whose own path is spent
		// never builds it again, and this ladder no longer reaches the
		// cache, which stays for the paths that do shift.
		s = newSolver(p, start, total, options{heapAbove: heapAbove, keepBroken: true})
		s.place()
		if err := s.balance(); err != nil {
			t.Fatal(err)
		}
		if err := s.settleTies(); err != nil {
			t.Fatal(err)
		}
	}
	solve() // warm up
	bytes := allocated(solve)
	t.Logf("%d bytes, %.1f per partition; own paths cached: cap %d steps", bytes, float64(bytes)/float64(total), cap(s.ownSteps))
	if bytes > uint64(64*total) {
		t.Errorf("%d bytes for %d partitions, want at most 64 per partition", bytes, total)
	}
	n := len(p.Subs)
	if c := cap(s.ownSteps); c > 2*(ownCap+1)*n {
		t.Errorf("own path cache of cap %d steps, want at most %d", c, 2*(ownCap+1)*n)
	}
	if cap(s.ownSteps) == 0 {
		t.Errorf("no own path cached in %d searches: the test does not reach the cache", s.searches)
	}
}

// TestBrokenKeepsCost: marking own paths broken (markBroken) changes
// at most which of the optimal answers is reached: the same sum of
// squared loads, load vector and moves as without the marks, certified
// on the explicit graph, on problems drawn as for
// TestGeneralOptimalOnMediumProblems in either search direction, on
// the adversary's random windows and on the ladder.
func TestBrokenKeepsCost(t *testing.T) {
	check := func(t tester, p *Problem, o options) {
		start, total := pids(p)
		if total == 0 || p.Claim == nil {
			return
		}
		got, err := generalOpts(p, start, total, o)
		if err != nil {
			t.Fatal(err)
		}
		o.keepBroken = true
		want, err := generalOpts(p, start, total, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Subs) <= 40 {
			if err := certify(p, got); err != nil {
				t.Fatal(err)
			}
		}
		gotSq, gotMoves := measure(p, got)
		wantSq, wantMoves := measure(p, want)
		if gotSq != wantSq || gotMoves != wantMoves || !slices.Equal(sortedLoads(p, got), sortedLoads(p, want)) {
			t.Fatalf("with the marks: sum of squares %d, moves %d; without: %d, %d", gotSq, gotMoves, wantSq, wantMoves)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		o := options{heapAbove: heapAbove, direction: int8(rapid.IntRange(-1, 1).Draw(t, "direction")), every: -1}
		check(t, mediumProblem(t), o)
	})
	for seed := range uint64(200) {
		m := 8 + int(seed%17)
		check(t, windowsProblem(m, 20*m+int(seed%7)*m, seed), options{heapAbove: heapAbove})
	}
	check(t, ladderProblem(t, 500, 25000, 4), options{heapAbove: heapAbove})
	check(t, followUp(t, ladderProblem(t, 500, 25000, 8)), options{heapAbove: heapAbove})
}

// BenchmarkBroken: the general path with and without markBroken
// (broken=mark, broken=keep) on the ladder at 2,000 members, windows of
// 4 and 8, whose joiner's searches have a thousand ends with paths
// through hundreds of members.
func BenchmarkBroken(b *testing.B) {
	for _, w := range []int{4, 8} {
		p := ladderProblem(b, 2000, 100000, w)
		start, total := pids(p)
		for _, keep := range []bool{false, true} {
			name := map[bool]string{false: "mark", true: "keep"}[keep]
			b.Run(fmt.Sprintf("shape=ladder%d-2000x100000/broken=%s", w, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := generalOpts(p, start, total, options{heapAbove: heapAbove, keepBroken: keep}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
