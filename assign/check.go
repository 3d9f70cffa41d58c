package assign

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// Check judges an assignment of g that strategy s computed elsewhere (by
// Kafka's Java client, another Go client, a hand-written plan), choosing
// the checkers that apply to s:
//
//   - every strategy: [Verify], on round for an eager strategy and on
//     target for a cooperative one; a share group's ([Share]): only
//     [VerifyShare], on round;
//   - the balancing strategies, [Sticky] and [CooperativeSticky]: also
//     [VerifyBalanced] on the same assignment;
//   - a cooperative strategy: [VerifyCooperative] on round, the leader's
//     rule (not Kafka's weaker consumer-side [CheckCooperative]), and no
//     member in round that is not in g.
//
// round is what each member gets this round; target is the cooperative
// target, where the group is heading, or nil when it is not known (a
// cooperative round without its target can be checked only for safety
// and membership: it withholds partitions by design). For an eager
// strategy target is ignored. A nil s is a strategy this package does not
// know: only [Verify] applies, to round.
//
// Results written by other tools often leave out the members that get
// nothing; Check reads a member of g missing from round or target as
// getting nothing.
//
// Check runs every checker that applies and returns nil, or the errors of
// all that fail, joined with [errors.Join]; each wraps
// [ErrInvalidAssignment]. Validity is reported fault by fault (the first
// [MaxFaults] of them in the order [Verify] looks, then how many more);
// the other checkers name the first fault they find. It returns an
// [*InputError] alone when g is invalid. For [Uniform] and [ServerRange]
// a member's TopicRegex is resolved first ([ResolveTopicRegex]), as they
// resolve it.
func Check(s Strategy, g Group, round, target Assignment) error {
	g, err := resolveFor(s, g)
	if err != nil {
		return err
	}
	if err := g.Validate(); err != nil {
		return err
	}
	round = g.WithEveryMember(round)
	if s == nil {
		return Verify(g, round)
	}
	if s.Protocol() == Share {
		return VerifyShare(g, round)
	}
	var errs []error
	whole := round
	if s.Protocol() == Cooperative {
		whole = nil
		if target != nil {
			whole = g.WithEveryMember(target)
		}
		members := make(map[string]bool, len(g.Members)) // one look-up per member of round, not a scan of g (issue 30)
		for _, m := range g.Members {
			members[m.ID] = true
		}
		for _, id := range slices.Sorted(maps.Keys(round)) {
			if !members[id] {
				errs = append(errs, invalidf("member %q is not in the group", id))
				break
			}
		}
		if err := verifyCooperative(g, round, ownedUnread); err != nil { // g is valid: Owned is not read again
			errs = append(errs, err)
		}
	}
	if whole != nil {
		faults := verifyAll(g, whole)
		if len(faults) == 0 && s.Traits().Balanced {
			if err := verifyBalancedOnly(g, whole); err != nil { // verifyAll found no fault
				faults = append(faults, err)
			}
		}
		errs = append(errs, faults...)
	}
	return errors.Join(errs...)
}

// Planner is a strategy that can show a rebalance whole: this round, the
// target, and what moves in between ([CooperativeSticky]).
type Planner interface {
	Strategy
	Plan(g Group) (*CooperativePlan, error)
}

// AssignChecked runs s on g, through [Planner.Plan] where s shows its
// plan, and judges the answer with [Check], so that a strategy's bug
// shows as an error rather than as a wrong answer. It returns this
// round's assignment, with an entry for every member of g, and the plan
// where s is a Planner (nil otherwise; for an eager or server-assigned
// strategy the round is the target). Its errors are s's own, unwrapped
// (an [*InputError] for an invalid g), or those of Check, which wrap
// [ErrInvalidAssignment] and name s.
func AssignChecked(s Strategy, g Group) (Assignment, *CooperativePlan, error) {
	g, err := resolveFor(s, g) // once, not in Assign and again in Check
	if err != nil {
		return nil, nil, err
	}
	var round, target Assignment
	var plan *CooperativePlan
	if p, ok := s.(Planner); ok {
		var err error
		if plan, err = p.Plan(g); err != nil {
			return nil, nil, err
		}
		round, target = plan.Assignment, plan.Target
	} else {
		var err error
		if round, err = s.Assign(g); err != nil {
			return nil, nil, err
		}
	}
	if err := Check(s, g, round, target); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name(), err)
	}
	return g.WithEveryMember(round), plan, nil
}

// MaxFaults is how many faults of validity [Check] lists before it
// counts the rest.
const MaxFaults = 10

// verifyAll returns the faults [Verify] finds in a, up to MaxFaults,
// then one error counting the rest. g must be valid.
func verifyAll(g Group, a Assignment) []error {
	var out []error
	n := 0
	if err := verifyEach(g, a, ownedUnread, func(fault error) bool { // Check validated g
		if n++; n <= MaxFaults {
			out = append(out, fault)
		}
		return true
	}); err != nil {
		return []error{err}
	}
	if n > MaxFaults {
		out = append(out, invalidf("and %d more faults", n-MaxFaults))
	}
	return out
}

// WithEveryMember returns a with an empty entry for every member of g it
// lacks, or a itself when it lacks none: the form [Check] reads, since
// results written by other tools often leave out the members that get
// nothing.
func (g Group) WithEveryMember(a Assignment) Assignment {
	missing := false
	for _, m := range g.Members {
		if _, ok := a[m.ID]; !ok {
			missing = true
			break
		}
	}
	if !missing {
		return a
	}
	out := make(Assignment, len(g.Members))
	for id, tps := range a {
		out[id] = tps
	}
	for _, m := range g.Members {
		if _, ok := out[m.ID]; !ok {
			out[m.ID] = nil
		}
	}
	return out
}
