package balance

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// windowsProblem is bench/cmd/adversary's random family (seeded): m
// topics of Zipf-like sizes, p partitions in all, member j subscribes
// to a window of random start and width 1..8 (one time in eight up to
// m/4, and the last member also to every topic no one else takes), and
// a few members claim every partition of their topics.
func windowsProblem(m, p int, seed uint64) *Problem {
	r := rand.New(rand.NewPCG(seed, uint64(m)))
	weights := make([]float64, m)
	sum := 0.0
	for i := range weights {
		weights[i] = 1 / float64(1+r.IntN(m))
		sum += weights[i]
	}
	q := &Problem{Parts: make([]int32, m), Subs: make([][]int32, m)}
	for i, w := range weights {
		q.Parts[i] = int32(max(1, int(w/sum*float64(p))))
	}
	taken := make([]bool, m)
	for j := range m {
		width := 1 + r.IntN(8)
		if r.IntN(8) == 0 {
			width = 1 + r.IntN(max(1, m/4))
		}
		lo := r.IntN(m)
		var subs []int32
		for k := range width {
			subs = append(subs, int32((lo+k)%m))
		}
		if j == m-1 {
			for t := range m {
				if !taken[t] {
					subs = append(subs, int32(t))
				}
			}
		}
		slices.Sort(subs)
		subs = slices.Compact(subs)
		for _, t := range subs {
			taken[t] = true
		}
		q.Subs[j] = subs
	}
	start := Start(q.Parts)
	q.Claim = make([]int32, start[m])
	for i := range q.Claim {
		q.Claim[i] = -1
	}
	claimed := make([]bool, m)
	for range 1 + r.IntN(max(1, m/50)) {
		j := r.IntN(m)
		for _, t := range q.Subs[j] {
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

// solveCounting runs the general path with options o and returns the
// owners and the solver, for its counters.
func solveCounting(p *Problem, o options) ([]int32, *solver, error) {
	start, total := pids(p)
	s := newSolver(p, start, total, o)
	s.place()
	if err := s.balance(); err != nil {
		return nil, s, err
	}
	if err := s.settleTies(); err != nil {
		return nil, s, err
	}
	return s.owner, s, nil
}

// TestCertsChangeNothing: skipping the searches that phase 1's
// certificates show fruitless gives the very same owners as running
// every search, searching in either direction or the solver's choice;
// and the certificates do skip searches on these problems.
func TestCertsChangeNothing(t *testing.T) {
	skipped := 0
	rapid.Check(t, func(t *rapid.T) {
		p := mediumProblem(t)
		if _, total := pids(p); total == 0 {
			return
		}
		o := options{heapAbove: heapAbove, direction: int8(rapid.IntRange(-1, 1).Draw(t, "direction"))}
		got, s, err := solveCounting(p, o)
		if err != nil {
			t.Fatal(err)
		}
		o.noCerts = true
		want, _, err := solveCounting(p, o)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("with certificates %v, without %v", got, want)
		}
		skipped += s.skipped
	})
	if skipped == 0 {
		t.Error("no search was skipped")
	}
}

// TestCertsSaveSearches: on the adversary's random family, where a few
// members hold far more than their share and drain one load level at a
// time, the certificates skip many of phase 1's searches, for the very
// same owners (18 to 29% of the searches at 125 members).
func TestCertsSaveSearches(t *testing.T) {
	for seed := range uint64(4) {
		p := windowsProblem(125, 6250, seed)
		got, s, err := solveCounting(p, options{heapAbove: heapAbove})
		if err != nil {
			t.Fatal(err)
		}
		want, all, err := solveCounting(p, options{heapAbove: heapAbove, noCerts: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: the certificates changed the owners", seed)
		}
		t.Logf("seed %d: %d searches, %d skipped; %d without certificates", seed, s.searches, s.skipped, all.searches)
		if s.skipped*10 < all.searches {
			t.Errorf("seed %d: %d of %d searches skipped, want at least a tenth", seed, s.skipped, all.searches)
		}
		if s.searches+s.skipped != all.searches {
			t.Errorf("seed %d: %d searches and %d skipped, want %d in all", seed, s.searches, s.skipped, all.searches)
		}
	}
}
