package workload

import (
	"fmt"
	"slices"
	"time"

	"github.com/assigncalc/assigncalc/assign"
)

// Row is the quality of one implementation of one strategy on one shape.
type Row struct {
	Strategy, Impl, Shape string
	Churn                 Churn
	Members, Partitions   int

	Err error // the implementation refused the group

	// Repeatable reports whether a second run, from a fresh Prepare, gave
	// the same first-round result; RepeatChecked is false where the check
	// was skipped (groups over 10,000 partitions).
	Repeatable, RepeatChecked bool

	Invalid error         // what assign.Verify found wrong, nil when valid
	Elapsed time.Duration // wall time of one Run (the first round for cooperative)

	// Balance of the (final) assignment: partitions per member.
	Min, Max, Spread int

	// Unbalanced is what assign.VerifyBalanced found: an improving chain.
	// BalanceChecked is false when the check was skipped as too costly
	// (spread > 1 on a large group); a spread of at most 1 is balanced
	// without further search.
	Unbalanced     error
	BalanceChecked bool

	// Moved counts partitions that changed hands: whose previous owner
	// is still in the group and is not their new owner. For the sticky
	// strategies the previous owners are the members' claims (Owned at
	// generation 1); for range and roundrobin, which ignore claims, they
	// are the implementation's own result on the fresh group. -1 on a
	// fresh group.
	Moved int

	// Bound is a lower bound on Moved for any assignment at least as
	// balanced as the best one seen for the shape (see [LowerBound]);
	// -1 when not computed (fresh groups, range, roundrobin).
	Bound int

	// Cooperative only. Withheld counts the partitions the first round
	// leaves unassigned because another member still owns them; Unsafe is
	// what assign.VerifyCooperative found wrong with a round. Each
	// following round is the same implementation run on the group whose
	// members own what the round before gave them, at the next
	// generation, until a round withholds nothing (at most MaxRounds).
	// Withheld2 counts what the second round still withholds and Rounds
	// the rounds it took; the balance, validity and moves above describe
	// the last round.
	Withheld, Withheld2 int
	Rounds              int
	Unsafe              error
}

// MaxRounds bounds the cooperative rounds [Compare] runs.
const MaxRounds = 5

// OK reports whether the row's assignment is valid (and, for cooperative,
// its first round safe).
func (r *Row) OK() bool { return r.Err == nil && r.Invalid == nil && r.Unsafe == nil }

// Filter chooses what [Compare] runs. Nil fields choose everything.
type Filter struct {
	Strategies []string                         // Kafka names
	Impl       func(strategy, name string) bool // false skips that implementation

	// Progress, when set, is called before each run.
	Progress func(strategy, impl, shape string)
}

// Compare runs every chosen implementation on the fresh and churned shapes
// of spec and measures the quality of each result.
func Compare(spec Spec, f Filter) ([]*Row, error) {
	shapes, err := Shapes(spec)
	if err != nil {
		return nil, err
	}
	strategies := f.Strategies
	if strategies == nil {
		strategies = StrategyNames
	}
	var rows []*Row
	// results[shape][i] is the final assignment of row i of that shape
	// (nil when invalid); witnesses for the lower bound.
	results := make([][]assign.Assignment, len(shapes))
	shapeRows := make([][]*Row, len(shapes))
	for _, strategy := range strategies {
		for _, im := range Impls(strategy, false) {
			if f.Impl != nil && !f.Impl(strategy, im.Name) {
				continue
			}
			var fresh assign.Assignment
			for si, sh := range shapes {
				if f.Progress != nil {
					f.Progress(strategy, im.Name, sh.Name())
				}
				r, a := measure(im, sh, fresh)
				if sh.Churn == Fresh && r.OK() {
					fresh = a
				}
				rows = append(rows, r)
				shapeRows[si] = append(shapeRows[si], r)
				if r.OK() && r.Invalid == nil {
					results[si] = append(results[si], a)
				}
			}
		}
	}
	for si, sh := range shapes {
		if sh.Churn == Fresh {
			continue
		}
		bound := LowerBound(sh.Group, results[si])
		for _, r := range shapeRows[si] {
			if r.Strategy == Sticky || r.Strategy == CooperativeSticky {
				r.Bound = bound
			}
		}
	}
	return rows, nil
}

func measure(im Impl, sh Shape, fresh assign.Assignment) (*Row, assign.Assignment) {
	g := sh.Group
	r := &Row{
		Strategy: im.Strategy, Impl: im.Name, Shape: sh.Name(), Churn: sh.Churn,
		Members: len(g.Members), Partitions: sh.Spec.Partitions(),
		Moved: -1, Bound: -1,
	}
	a, elapsed, err := runOnce(im, g)
	r.Elapsed = elapsed
	if err != nil {
		r.Err = err
		return r, nil
	}
	if r.Partitions <= 10000 {
		again, _, err := runOnce(im, g)
		r.RepeatChecked = err == nil
		r.Repeatable = err == nil && equalAssignments(a, again)
	}
	prev := fresh // range, roundrobin: their own previous result
	if im.Strategy == Sticky || im.Strategy == CooperativeSticky {
		if prev, err = assign.Owned(g); err != nil {
			r.Err = err
			return r, nil
		}
	}
	final, finalGroup := a, g
	if im.Cooperative {
		r.Withheld = r.Partitions - assigned(a)
		r.Rounds = 1
		for withheld := r.Withheld; withheld > 0; withheld = r.Partitions - assigned(final) {
			if r.Unsafe = assign.VerifyCooperative(finalGroup, final); r.Unsafe != nil {
				return r, nil
			}
			if r.Rounds == MaxRounds {
				r.Err = fmt.Errorf("%d partitions still withheld after %d rounds", withheld, r.Rounds)
				return r, nil
			}
			r.Rounds++
			finalGroup = assign.Carry(finalGroup, final, int32(r.Rounds))
			final, _, err = runOnce(im, finalGroup)
			if err != nil {
				r.Err = fmt.Errorf("round %d: %w", r.Rounds, err)
				return r, nil
			}
			if r.Rounds == 2 {
				r.Withheld2 = r.Partitions - assigned(final)
			}
		}
	}
	if r.Invalid = assign.Verify(finalGroup, final); r.Invalid != nil {
		return r, nil
	}
	r.Min, r.Max = Loads(finalGroup, final)
	r.Spread = r.Max - r.Min
	switch {
	case r.Spread <= 1:
		r.BalanceChecked = true
	case r.Partitions <= 20000:
		r.BalanceChecked = true
		r.Unbalanced = assign.VerifyBalanced(finalGroup, final)
	}
	if sh.Churn != Fresh && prev != nil {
		r.Moved = movedFrom(g, prev, final)
	}
	return r, final
}

func runOnce(im Impl, g assign.Group) (assign.Assignment, time.Duration, error) {
	p, err := im.Prepare(g)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	err = p.Run()
	elapsed := time.Since(start)
	if err != nil {
		return nil, elapsed, err
	}
	a, err := p.Result()
	return a, elapsed, err
}

// Loads returns the fewest and the most partitions of any member of g in
// a. (assign.Summarize computes more, at a cost quadratic in the topics.)
func Loads(g assign.Group, a assign.Assignment) (lo, hi int) {
	for j, m := range g.Members {
		n := len(a[m.ID])
		if j == 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return lo, hi
}

func assigned(a assign.Assignment) int {
	n := 0
	for _, ps := range a {
		n += len(ps)
	}
	return n
}

func equalAssignments(a, b assign.Assignment) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ps := range a {
		qs, ok := b[id]
		if !ok || !slices.Equal(ps, qs) {
			return false
		}
	}
	return true
}

// movedFrom counts the partitions of next whose owner in prev is a member
// of g other than their owner in next.
func movedFrom(g assign.Group, prev, next assign.Assignment) int {
	stayed := make(assign.Assignment, len(g.Members))
	for _, m := range g.Members {
		stayed[m.ID] = prev[m.ID]
	}
	return assign.Moved(stayed, next)
}

// LowerBound returns a lower bound on the partitions any assignment of g
// must move away from their claimants, for assignments at least as
// balanced as the best of witnesses: [assign.MoveBound], which states the
// reasoning. g must be valid: LowerBound panics otherwise.
func LowerBound(g assign.Group, witnesses []assign.Assignment) int {
	bound, err := assign.MoveBound(g, witnesses...)
	if err != nil {
		panic(fmt.Sprintf("workload.LowerBound: %v", err))
	}
	return bound
}
