package churn

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// reconcileRebalance is one rebalance of a server-assigned strategy
// (rule 7 of [Churn], for the consumer protocol): the coordinator computes
// one target from g, whose members carry what they own as their current
// targets, bumps the group epoch, and reconciles the members towards it
// with [Reconcile], heartbeating in the order of g.Members. It adds the
// heartbeat rounds to step.Rounds, the partitions members revoke to
// step.Revoked and the stops to step.Stops (rounds numbered across the
// step), and marks the stopped partitions in deferred.
//
// Kafka 4.3's assignment interval (KIP-1263: at most one target per
// group.consumer.assignment.interval.ms, 1 s by default) changes nothing
// here: the model has no clock, each rebalance's target is computed once
// the previous rebalance has settled, heartbeat rounds later, and a
// dynamic member's restart rejoins after its leave has settled, so no
// target falls within the interval of the one before. Where targets do
// wait for the interval (changes closer together than it), the timeline
// models it in time. TestSimulateKafka43AsKafka42 in cmd/assigncalc
// holds simulate to it.
func (c *Churn) reconcileRebalance(g assign.Group, step *Step, deferred map[assign.TopicPartition]bool) (assign.Assignment, error) {
	s := c.strategy
	target, _, err := assign.AssignChecked(s, g)
	if err != nil {
		return nil, err
	}
	current := make(assign.Assignment, len(g.Members))
	order := make([]string, len(g.Members))
	for i, m := range g.Members {
		order[i], current[m.ID] = m.ID, m.Owned
		for _, tp := range m.Owned {
			if _, kept := slices.BinarySearchFunc(target[m.ID], tp, assign.TopicPartition.Compare); !kept {
				step.Revoked++
			}
		}
	}
	rounds, err := coordinator.Reconcile(current, target, order, c.generation)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	for _, st := range coordinator.Stops(current, rounds) {
		st.Revoked += step.Rounds
		st.Received += step.Rounds
		step.Stops = append(step.Stops, st)
		deferred[st.Partition] = true
	}
	step.Rounds += len(rounds)
	c.generation++
	return target, nil
}
