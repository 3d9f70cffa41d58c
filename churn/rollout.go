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
	// is none. Steps that hold the same assignment share one map: read
	// it, do not modify it.
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
//
// A step that keeps the winner and the accepted members of the step
// before holds what that step held, without a rebalance computed: every
// strategy of package assign gives the same members the same answer when
// each already holds its share of it (range and roundrobin read only the
// members and topics; the sticky ones move nothing from an assignment
// they made). A rolling restart is mostly such steps, so the assignments
// computed are those of the steps that change something, not one per
// member restarted (TestRolloutReuse compares with a rebalance at every
// step).
func Rollout(r coordinator.Rollout, topics map[string]int32) ([]RolloutStep, error) {
	return rollout(r, topics, true)
}

// rollout is Rollout; with reuse false it rebalances at every step.
func rollout(r coordinator.Rollout, topics map[string]int32, reuse bool) ([]RolloutStep, error) {
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
		if reuse && held != nil && s.Vote.Winner == steps[i-1].Vote.Winner && sameVoters(s.Vote.Ballots, held) {
			out[i].Assignment = held
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

// sameVoters reports whether ballots come from exactly the members of
// held: the same members (in any order), none added, none gone.
func sameVoters(ballots []coordinator.Ballot, held assign.Assignment) bool {
	if len(ballots) != len(held) {
		return false
	}
	for _, b := range ballots {
		if _, ok := held[b.Member]; !ok {
			return false
		}
	}
	return true
}
