package churn

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// RolloutStep is one step of a rolling upgrade ([coordinator.Rollout])
// played with assignments: the coordinator's decision, the assignment of
// the members it accepted under the strategy it chose, and the
// partitions that changed owner when that strategy differs from the one
// before.
type RolloutStep struct {
	coordinator.RolloutStep

	// Assignment is what the accepted members hold after the step; nil
	// when the vote's winner is no strategy of package assign, or there
	// is none.
	Assignment assign.Assignment

	// Switched reports that the winner, a strategy of package assign,
	// differs from the previous step's; Moves then lists the partitions
	// the switch moved ([ChangeStrategy]), none when nothing was held
	// before it.
	Switched bool
	Moves    []assign.Move
}

// Rollout replays r with [coordinator.SimulateRollout] and follows the
// assignment through it, over topics: at every step the members the vote
// accepted, each subscribed to every topic and owning what it held after
// the step before (at one generation), rebalance with the vote's winner.
// The group of each step is new because the vote accepts and refuses
// members as they restart; where the winner changes, the step is the
// strategy switch of rule 9 of [Churn]. The first step is the group's
// first rebalance, from nothing. With topics nil only the vote is
// replayed: no step has an assignment.
func Rollout(r coordinator.Rollout, topics map[string]int32) ([]RolloutStep, error) {
	steps, err := coordinator.SimulateRollout(r)
	if err != nil {
		return nil, err
	}
	names := slices.Sorted(maps.Keys(topics))
	out := make([]RolloutStep, len(steps))
	var held assign.Assignment // what the last known winner gave
	for i, s := range steps {
		out[i].RolloutStep = s
		strategy, err := assign.Lookup(s.Vote.Winner)
		if err != nil || s.Vote.Winner == "" || topics == nil {
			held = nil
			continue
		}
		g := assign.Group{Topics: topics}
		for _, b := range s.Vote.Ballots {
			g.Members = append(g.Members, assign.Member{ID: b.Member, Topics: names})
		}
		switched := i > 0 && s.Vote.Winner != steps[i-1].Vote.Winner
		_, step, err := NewChurn(strategy, assign.Carry(g, held, 1))
		if err != nil {
			var ie *assign.InputError
			if errors.As(err, &ie) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w", strategy.Name(), err)
		}
		out[i].Assignment = step.After
		if switched {
			out[i].Switched = true
			out[i].Moves = step.Moves
			for k := range out[i].Moves {
				if mv := &out[i].Moves[k]; mv.Reason == assign.ReasonBalance || mv.Reason == assign.ReasonLayout {
					mv.Reason = assign.ReasonStrategy
				}
			}
		}
		held = step.After
	}
	return out, nil
}
