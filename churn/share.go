package churn

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// A share group (KIP-932, [assign.Share]) in the churn model. The group
// coordinator computes each member's target with the share assignor
// ([assign.Simple]) from the members' current targets, and a member takes
// its new target whole at its next ShareGroupHeartbeat: Kafka's
// ShareGroupAssignmentBuilder (group-coordinator, modern/share, the same
// on the 4.2, 4.3 and 4.4 branches, last changed by 35bd71cfc2) moves a
// member whose epoch is behind the target's straight to the target epoch,
// STABLE, with the target's partitions (less topics it no longer
// subscribes to). There is no revocation and no waiting for another
// member to release a partition: several members may hold one. So a
// rebalance is one round of heartbeats, and what the members lose and
// gain is all that changes; no partition "changes hands" as in the other
// protocols, which is why [Step.Moves] is nil for a share group and
// [Step.Received] and [Step.Revoked] count per member and partition.
//
// Kafka 4.3's group.share.assignment.interval.ms (KIP-1263) changes
// nothing here, for the reason it changes nothing for the consumer
// protocol (see reconcileRebalance): each target is computed after the
// previous rebalance settled, never within the interval of the one
// before; the timeline models the interval in time.

// shareRebalance is one rebalance of a share group: one target from g,
// whose members carry their current targets as Owned, reached in one
// heartbeat round. It adds what members lose to step.Revoked and what
// they gain to step.Received.
func (c *Churn) shareRebalance(g assign.Group, step *Step) (assign.Assignment, error) {
	target, _, err := assign.AssignChecked(c.strategy, g)
	if err != nil {
		return nil, err
	}
	for _, m := range g.Members {
		lost, gained := diffSorted(m.Owned, target[m.ID])
		step.Revoked += lost
		step.Received += gained
	}
	step.Rounds++
	c.generation++
	return target, nil
}

// diffSorted counts the partitions of before missing from after and those
// of after missing from before; after is sorted, before need not be.
func diffSorted(before, after []assign.TopicPartition) (lost, gained int) {
	before = slices.SortedFunc(slices.Values(before), assign.TopicPartition.Compare)
	i, j := 0, 0
	for i < len(before) || j < len(after) {
		switch {
		case j == len(after) || i < len(before) && before[i].Compare(after[j]) < 0:
			lost++
			i++
		case i == len(before) || before[i].Compare(after[j]) > 0:
			gained++
			j++
		default:
			i++
			j++
		}
	}
	return lost, gained
}

// shareStart is what a share group's members hold before the first
// rebalance: each member's current target, as listed (a partition may be
// in several), for [NewChurn]. The claims rules of [assign.Owned], under
// which two members claiming one partition cancel, are the consumer
// groups'.
func shareStart(g assign.Group) assign.Assignment {
	a := make(assign.Assignment, len(g.Members))
	for _, m := range g.Members {
		a[m.ID] = slices.SortedFunc(slices.Values(m.Owned), assign.TopicPartition.Compare)
	}
	return a
}

// shareSwitch refuses a strategy switch between a share group and a
// consumer group: they are different kinds of group (a group id names one
// or the other), not strategies one vote chooses between.
func shareSwitch(from, to assign.Strategy) error {
	if (from.Protocol() == assign.Share) == (to.Protocol() == assign.Share) {
		return nil
	}
	return &assign.InputError{Index: -1, Partition: -1, Err: fmt.Errorf("%w: %s to %s: a share group and a consumer group do not switch into one another", assign.ErrUnknownStrategy, from.Name(), to.Name())}
}
