// The general path: any subscriptions, as a min-cost flow (see the
// package documentation for the method and its proof). It runs as
//
//	place       place.go  start: every claim kept, every other pid on a
//	                      subscriber with the fewest of its topic; no
//	                      cycle of moves of kind (i)
//	balance     here      phase 1: no path of kind (ii) left
//	settleTies  here      phase 2: no path of kind (iii) left
//
// or, where place leaves members above the average plus one on pids
// they do not claim, on many loads (everyPays),
//
//	refillStart every.go  the unclaimed pids placed again by whole loads
//	solveEvery  every.go  both phases at once, from every load level
//
// Both phases are loops over load levels around one mechanism, shiftAll
// (shift.go): a search for cheapest paths of moves (search.go), then
// shifts along the search's tight paths until none is left. The solver's
// state and the bookkeeping of a move are in state.go.

package balance

import (
	"math"
	"slices"
)

// general solves p, whose subscriptions may differ; see the package
// documentation.
func general(p *Problem, start []int32, total int) ([]int32, error) {
	return generalOpts(p, start, total, options{heapAbove: heapAbove})
}

// generalOpts is general with the knobs o.
func generalOpts(p *Problem, start []int32, total int, o options) ([]int32, error) {
	s := newSolver(p, start, total, o)
	s.spare = p.Scratch.take(p)
	defer func() {
		if s.spare = nil; p.Scratch != nil {
			p.Scratch.last = s
		}
	}()
	s.place()
	every := s.everyPays()
	if every || s.refills(every) || slices.Max(s.load) >= slices.Min(s.load)+2 {
		s.ownClaims() // a phase below reads the claims (else place's answer is final: see claim)
	}
	if s.refills(every) {
		s.refillStart()
	}
	if every {
		if err := s.solveEvery(); err != nil {
			return nil, err
		}
		return s.owner, nil
	}
	if err := s.balance(); err != nil {
		return nil, err
	}
	if err := s.settleTies(); err != nil {
		return nil, err
	}
	return s.owner, nil
}

// heapAbove is the product of a topic's subscribers and unclaimed pids
// above which place uses heaps rather than scans.
const heapAbove = 64

// options are the solver's knobs; tests turn them to reach every
// mechanism.
type options struct {
	heapAbove  int  // see the constant
	direction  int8 // of the searches: 0 the smaller side, 1 forward, -1 backward
	noTree     bool // never follow a search's own paths, only tight's
	arcs       int8 // use of the arc index (arcs.go): 0 where it pays, -1 never, 1 wherever it can
	every      int8 // both phases at once from every level (every.go): 0 where it pays, -1 never, 1 wherever the labels fit phases at once, from every level (every.go), where the labels fit
	noCerts    bool // never skip a search that phase 1's certificates (certs.go) show fruitless
	refill     int8 // place again by whole loads (refillStart, every.go): 0 where it pays, -1 never, 1 always, 2 (refillByCount) always but taking the topics in place's order
	noLevels   bool // place plain topics with the heaps, never levelled (place.go)
	noLow      bool // place plain topics as below, never from the least loads first (lowLoads, place.go)
	keepBroken bool // never mark own paths broken (markBroken, shift.go)

	// chose, when set, sees every answer of choose (choose.go), for the
	// test that checks it against a pass over the topic.
	chose func(s *solver, a, t, b, pid int32)
}

// balance is phase 1: it removes every path of kind (ii), load(d) <=
// load(s) - 2, in one sweep of the load levels from the highest down.
//
// One sweep is enough: once shiftAll has left no such path from level L,
// none comes back while lower levels shift. Let R be the nodes a member
// u of load L reaches; R holds no member of load <= L-2. A later shift
// runs along a path from a source of load L' <= L to a target of load
// <= L'-2; were a node of that path in R, u would reach the target. So
// the shift leaves R's nodes alone: their pids, hence the arcs out of
// them, and their loads stay, R stays closed, and u still reaches no
// member of load <= L-2. Nor does anyone climb to load L: sources only
// lose load and targets end below their source's level. (The earlier
// driver restarted from the top after every level that shifted, paying
// one fruitless search per level above it each time.)
//
// Each level first shifts only to members below the average load, then
// to any member of load <= L-2. Both are shifts of kind (ii) along
// cheapest paths, so the invariants and the proof of optimality hold in
// any order (the order only decides ties between optimal answers), and
// this one saves searches: without it, a member
// holding far more than its share fills the members its first search
// reaches up to nearly its own load, and each of those then needs
// searches of its own to pass the surplus on, one level at a time
// (bench/cmd/adversary's nested family: 245 searches at 500 members,
// 94 with the cap; lopsided 31 and 6).
func (s *solver) balance() error {
	level := slices.Max(s.load)
	if level < slices.Min(s.load)+2 {
		return nil // already balanced: no certificates to make (as after most churn)
	}
	fair := int32((len(s.owner) + int(s.n) - 1) / int(s.n)) // the average load, rounded up
	if !s.noCerts {
		s.certs = newCerts(int(s.n) + len(s.p.Parts))
		defer func() { s.certs = nil }()
	}
	for level >= slices.Min(s.load)+2 {
		if fair-1 < level-2 {
			if _, err := s.shiftAll(goal{level: level, minLoad: math.MinInt32, maxLoad: fair - 1, maxDist: inf, learn: learnFair}); err != nil {
				return err
			}
		}
		if _, err := s.shiftAll(goal{level: level, minLoad: math.MinInt32, maxLoad: level - 2, maxDist: inf, learn: learnDone}); err != nil {
			return err
		}
		next := int32(math.MinInt32) // the highest load below level
		for _, l := range s.load {
			if l < level && l > next {
				next = l
			}
		}
		level = next
	}
	return nil
}

// settleTies is phase 2: it removes every path of kind (iii), load(d) =
// load(s) - 1 and a negative cost, so that the members keeping the larger
// counts are those that keep the most claims (KAFKA-18688). A path of
// negative cost needs an arc of cost -1, a pid held away from its
// claimant: without one there is nothing to do.
func (s *solver) settleTies() error {
	if s.claim == nil {
		return nil
	}
	for changed := true; changed && s.foreign > 0; {
		changed = false
		for _, level := range s.levels() {
			if s.foreign == 0 {
				break
			}
			shifted, err := s.shiftAll(goal{level: level, minLoad: level - 1, maxLoad: level - 1, maxDist: 0, tie: true})
			if err != nil {
				return err
			}
			changed = changed || shifted
		}
	}
	return nil
}

// levels returns the distinct loads, highest first.
func (s *solver) levels() []int32 {
	ls := slices.Clone(s.load)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	slices.Reverse(ls)
	return ls
}

// A goal is what one call of shiftAll shifts partitions for: from the
// sources, the members of load level, to the targets, the members d with
// minLoad <= load(d) <= maxLoad, along paths of cost below maxDist. A
// shift needs load(d) = load(s) - 1 when tie, else load(d) <= load(s) - 2,
// with the loads at the time of the shift.
type goal struct {
	level, minLoad, maxLoad, maxDist int32
	tie                              bool
	every                            bool // every level at once (every.go): the other fields unused
	learn                            int8 // the certificate a fruitless search proves (certs.go)
}

func (g goal) source(l int32) bool { return l == g.level }

func (g goal) target(l int32) bool { return l >= g.minLoad && l <= g.maxLoad }

// root reports whether a member of load l is a root of a search run
// forward (a source) or backward (a target).
func (g goal) root(forward bool, l int32) bool {
	if forward {
		return g.source(l)
	}
	return g.target(l)
}

// end reports whether a member of load l is an end of a search's paths:
// the other side from its roots.
func (g goal) end(forward bool, l int32) bool { return g.root(!forward, l) }

// need returns the load that a root of the last search must have for a
// path from end e, of load l, to shift (see tight): forward, a source of
// load >= need; backward, a target of load <= -need, negated so that a
// larger need is always harder to meet.
func (g goal) need(forward bool, l int32) int32 {
	gap := int32(2)
	if g.tie {
		gap = 1
	}
	if forward {
		return l + gap
	}
	return -(l - gap)
}
