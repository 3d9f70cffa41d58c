package assign

import (
	"fmt"
	"slices"
)

// Stop is a partition nobody consumes for a while when a KIP-848 group
// reconciles towards a new target: From revokes it at heartbeat round
// Revoked and To receives it at round Received, a later one. Rounds count
// from 1 ([Reconcile]'s first round); a [Churn] step counts them across
// the step's rebalances.
type Stop struct {
	Partition         TopicPartition
	From, To          string
	Revoked, Received int
}

// Rounds is how many heartbeat rounds the partition waits for its new
// owner: Received - Revoked.
func (s Stop) Rounds() int { return s.Received - s.Revoked }

// Stops lists, sorted by partition, the partitions of rounds (a
// reconciliation [Reconcile] ran from current) that a member of the
// rounds is asked to revoke and another member then receives. A
// partition given up by a member that is not in the rounds (one that
// left) is not a stop: nobody revokes it, it is free at once. A partition
// revoked and given to nobody is not one either; it is only revoked.
func Stops(current Assignment, rounds []ReconcileRound) []Stop {
	type revocation struct {
		from  string
		round int
	}
	revoked := make(map[TopicPartition]revocation)
	var out []Stop
	for r, round := range rounds {
		for _, m := range round.Members {
			for _, tp := range m.PendingRevocation {
				if _, seen := revoked[tp]; !seen {
					revoked[tp] = revocation{m.ID, r + 1}
				}
			}
		}
		for _, m := range round.Members {
			for _, tp := range m.Assigned {
				if rv, ok := revoked[tp]; ok && rv.from != m.ID {
					out = append(out, Stop{Partition: tp, From: rv.from, To: m.ID, Revoked: rv.round, Received: r + 1})
					delete(revoked, tp)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Stop) int { return a.Partition.Compare(b.Partition) })
	return out
}

// reconcileRebalance is one rebalance of a server-assigned strategy
// (rule 7 of [Churn], for the consumer protocol): the coordinator computes
// one target from g, whose members carry what they own as their current
// targets, bumps the group epoch, and reconciles the members towards it
// with [Reconcile], heartbeating in the order of g.Members. It adds the
// heartbeat rounds to step.Rounds, the partitions members revoke to
// step.Revoked and the stops to step.Stops (rounds numbered across the
// step), and marks the stopped partitions in deferred.
func (c *Churn) reconcileRebalance(g Group, step *Step, deferred map[TopicPartition]bool) (Assignment, error) {
	s := c.strategy
	target, err := s.Assign(g)
	if err != nil {
		return nil, err
	}
	if err := Check(s, g, target, nil); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	target = g.WithEveryMember(target)
	current := make(Assignment, len(g.Members))
	order := make([]string, len(g.Members))
	for i, m := range g.Members {
		order[i], current[m.ID] = m.ID, m.Owned
		for _, tp := range m.Owned {
			if _, kept := slices.BinarySearchFunc(target[m.ID], tp, TopicPartition.Compare); !kept {
				step.Revoked++
			}
		}
	}
	rounds, err := Reconcile(current, target, order, c.generation)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	for _, st := range Stops(current, rounds) {
		st.Revoked += step.Rounds
		st.Received += step.Rounds
		step.Stops = append(step.Stops, st)
		deferred[st.Partition] = true
	}
	step.Rounds += len(rounds)
	c.generation++
	return target, nil
}
