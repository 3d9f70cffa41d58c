package balance

import (
	"math"
	"slices"
)

// heapAbove is the product of a topic's subscribers and unclaimed pids
// above which place uses heaps rather than scans.
const heapAbove = 64

// options are the solver's knobs; tests turn them to reach every
// mechanism.
type options struct {
	heapAbove int  // see the constant
	direction int8 // of the searches: 0 the smaller side, 1 forward, -1 backward
	noTree    bool // never follow a search's own paths, only tight's
}

func general(p *Problem, start []int32, total int) ([]int32, error) {
	return generalWith(p, start, total, heapAbove)
}

func generalWith(p *Problem, start []int32, total, heapAbove int) ([]int32, error) {
	return generalOpts(p, start, total, options{heapAbove: heapAbove})
}

func generalOpts(p *Problem, start []int32, total int, o options) ([]int32, error) {
	s := newSolver(p, start, total)
	s.options = o
	s.place()
	if err := s.balance(); err != nil {
		return nil, err
	}
	if err := s.settleTies(); err != nil {
		return nil, err
	}
	return s.owner, nil
}

// levels returns the distinct loads, highest first.
func (s *solver) levels() []int32 {
	ls := slices.Clone(s.load)
	slices.Sort(ls)
	ls = slices.Compact(ls)
	slices.Reverse(ls)
	return ls
}

// balance removes every path of kind (ii): load(d) <= load(s) - 2.
func (s *solver) balance() error {
	for changed := true; changed; {
		changed = false
		ls := s.levels()
		low := ls[len(ls)-1]
		for _, level := range ls {
			if level < low+2 {
				break
			}
			shifted, err := s.shiftAll(level, false, math.MinInt32, level-2, inf)
			if err != nil {
				return err
			}
			if shifted {
				changed = true
				break // the levels changed: start again from the top
			}
		}
	}
	return nil
}

// settleTies removes every path of kind (iii): load(d) = load(s) - 1 and a
// negative cost, so that the members keeping the larger counts are those
// that keep the most claims (KAFKA-18688). A path of negative cost needs
// an arc of cost -1, a pid held away from its claimant: without one
// there is nothing to do.
func (s *solver) settleTies() error {
	if s.p.Claim == nil {
		return nil
	}
	for changed := true; changed && s.foreign > 0; {
		changed = false
		for _, level := range s.levels() {
			if s.foreign == 0 {
				break
			}
			shifted, err := s.shiftAll(level, true, level-1, level-1, 0)
			if err != nil {
				return err
			}
			changed = changed || shifted
		}
	}
	return nil
}
