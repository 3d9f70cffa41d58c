package coordinator

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// Rollout describes a rolling restart of a group.
type Rollout struct {
	// Members is the group before the restart, in the order they joined.
	Members []VoteMember

	// Phases lists the configurations rolled out one after the other: in
	// phase k every member of Order restarts, in that order, with
	// Phases[k] as its strategies. Kafka's two-step upgrade to
	// cooperative-sticky is two phases.
	Phases [][]string

	// Order lists member IDs in restart order; nil restarts every member
	// in the order of Members. An ID may appear once.
	Order []string

	// Coordinator is the coordinator whose vote is replayed.
	Coordinator Coordinator
}

// MemberProtocol is the rebalance protocol one member uses.
type MemberProtocol struct {
	Member   string
	Protocol assign.RebalanceProtocol
}

// RolloutStep is the state of the group after one restart.
type RolloutStep struct {
	// Phase is the index in Rollout.Phases of the configuration being
	// rolled out, and Restarted the ID of the member that just restarted
	// with it. The first step describes the group before any restart, with
	// Phase -1 and Restarted "".
	Phase     int
	Restarted string

	// Members is the group's configuration, in join order: a restarted
	// member leaves the group and joins again last.
	Members []VoteMember

	// Vote is the coordinator's decision for Members: the strategy the
	// group uses and the members it refuses.
	Vote VoteResult

	// Protocols gives the rebalance protocol of each member the vote
	// accepted, in the order of Vote.Ballots.
	Protocols []MemberProtocol

	// Eager reports that at least one accepted member rebalances eagerly,
	// revoking all its partitions at every rebalance.
	Eager bool

	// FellBack reports that the group was cooperative throughout at the
	// previous step and no longer is: a member has brought eager
	// rebalancing back.
	FellBack bool
}

// Refused reports whether the coordinator refuses some member at this step.
func (s RolloutStep) Refused() bool { return len(s.Vote.Refused) > 0 }

// Safe reports whether the step neither refuses a member nor falls back
// to eager rebalancing.
func (s RolloutStep) Safe() bool { return !s.Refused() && !s.FellBack }

// SimulateRollout replays a rolling restart and returns the group's state before
// it and after every restart: one member at a time, each step replayed
// through the coordinator's [Vote].
//
// # Upgrading to cooperative-sticky
//
// Kafka documents a two-step upgrade of a group from an eager strategy to
// cooperative-sticky: a first rolling bounce gives every member
// [cooperative-sticky, range]; a second removes range. During the first
// bounce every member still rebalances eagerly (range supports nothing
// else) and the vote keeps range until the last member has restarted;
// then cooperative-sticky wins, still run eagerly. During the second bounce
// members turn cooperative one by one, and the group is cooperative once
// the last one has. No step refuses a member. A one-step switch from
// [range] to [cooperative-sticky] is refused instead: the first restarted
// member shares no strategy with the others and gets
// INCONSISTENT_GROUP_PROTOCOL, and so does every one after it until the
// last range member leaves.
//
// # Members
//
// Members are dynamic: a restarted consumer leaves the group (LeaveGroup on
// close) and joins again with its new configuration, after every member
// still in the group, and so must share a strategy with all of them. It
// keeps its member ID here so that steps are easy to follow; a real broker
// gives it a new one, which on the Java coordinator may change the order
// of ballots (see [VoteResult.OrderDependent]). A member the coordinator
// refuses keeps retrying, as a consumer does after
// INCONSISTENT_GROUP_PROTOCOL when its application restarts it, and is
// admitted at a later step once it shares a strategy with the members
// ahead of it. Static members (group.instance.id), which rejoin in place,
// are not modelled.
//
// SimulateRollout returns an [*InputError] for the errors of [Vote] and for an
// Order naming an unknown member or naming one twice.
func SimulateRollout(r Rollout) ([]RolloutStep, error) {
	order := r.Order
	if order == nil {
		for _, m := range r.Members {
			order = append(order, m.ID)
		}
	}
	for i, id := range order {
		if !slices.ContainsFunc(r.Members, func(m VoteMember) bool { return m.ID == id }) {
			return nil, &assign.InputError{Member: id, Index: -1, Partition: -1, Err: fmt.Errorf("%w: %q, #%d of the restart order", assign.ErrUnknownMember, id, i)}
		}
		if slices.Contains(order[:i], id) {
			return nil, &assign.InputError{Member: id, Index: -1, Partition: -1, Err: fmt.Errorf("%w: %q, #%d of the restart order", assign.ErrDuplicateMemberID, id, i)}
		}
	}

	group := slices.Clone(r.Members)
	var steps []RolloutStep
	record := func(phase int, restarted string) error {
		s := RolloutStep{Phase: phase, Restarted: restarted, Members: slices.Clone(group)}
		var err error
		if s.Vote, err = Vote(s.Members, r.Coordinator, ClassicGroup); err != nil {
			return err
		}
		wasCooperative := len(steps) > 0 && !steps[len(steps)-1].Eager && len(steps[len(steps)-1].Protocols) > 0
		i := 0 // Ballots follow Members' order: one pass finds every voter
		for _, b := range s.Vote.Ballots {
			for s.Members[i].ID != b.Member {
				i++
			}
			p, err := ClientProtocol(s.Members[i].Protocols)
			if err != nil {
				return err
			}
			s.Protocols = append(s.Protocols, MemberProtocol{Member: b.Member, Protocol: p})
			s.Eager = s.Eager || p == assign.Eager
		}
		s.FellBack = wasCooperative && s.Eager
		steps = append(steps, s)
		return nil
	}

	if err := record(-1, ""); err != nil {
		return nil, err
	}
	for phase, strategies := range r.Phases {
		for _, id := range order {
			i := slices.IndexFunc(group, func(m VoteMember) bool { return m.ID == id })
			m := group[i]
			m.Protocols = slices.Clone(strategies)
			group = append(slices.Delete(group, i, i+1), m)
			if err := record(phase, id); err != nil {
				return nil, err
			}
		}
	}
	return steps, nil
}
