package assign

import (
	"errors"
	"maps"
	"slices"
)

// Check judges an assignment of g that strategy s computed elsewhere (by
// Kafka's Java client, another Go client, a hand-written plan), choosing
// the checkers that apply to s:
//
//   - every strategy: [Verify], on round for an eager strategy and on
//     target for a cooperative one;
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
// [*InputError] alone when g is invalid.
func Check(s Strategy, g Group, round, target Assignment) error {
	if err := g.Validate(); err != nil {
		return err
	}
	round = withEveryMember(g, round)
	if s == nil {
		return Verify(g, round)
	}
	var errs []error
	whole := round
	if s.Protocol() == Cooperative {
		whole = nil
		if target != nil {
			whole = withEveryMember(g, target)
		}
		for _, id := range slices.Sorted(maps.Keys(round)) {
			if !slices.ContainsFunc(g.Members, func(m Member) bool { return m.ID == id }) {
				errs = append(errs, invalidf("member %q is not in the group", id))
				break
			}
		}
		if err := VerifyCooperative(g, round); err != nil {
			errs = append(errs, err)
		}
	}
	if whole != nil {
		faults := verifyAll(g, whole)
		if len(faults) == 0 && balances(s) {
			if err := VerifyBalanced(g, whole); err != nil {
				faults = append(faults, err)
			}
		}
		errs = append(errs, faults...)
	}
	return errors.Join(errs...)
}

// MaxFaults is how many faults of validity [Check] lists before it
// counts the rest.
const MaxFaults = 10

// verifyAll returns the faults [Verify] finds in a, up to MaxFaults,
// then one error counting the rest. g must be valid.
func verifyAll(g Group, a Assignment) []error {
	var out []error
	n := 0
	if err := verifyEach(g, a, func(fault error) bool {
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

// balances reports whether s promises balance ([VerifyBalanced]): the
// sticky strategies do; Range and RoundRobin follow a layout instead.
func balances(s Strategy) bool {
	switch s.(type) {
	case Sticky, CooperativeSticky, *Sticky, *CooperativeSticky:
		return true
	}
	return false
}

// keepsToQuota reports whether s is [Uniform], which keeps what each
// member holds up to a quota and so moves a partition only to even the
// members' counts, though without [VerifyBalanced]'s promise.
func keepsToQuota(s Strategy) bool {
	switch s.(type) {
	case Uniform, *Uniform:
		return true
	}
	return false
}

// withEveryMember returns a with an empty entry for every member of g it
// lacks, or a itself when it lacks none.
func withEveryMember(g Group, a Assignment) Assignment {
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

// Difference is one partition that two assignments give to different
// members, or that only one of them assigns.
type Difference struct {
	Partition TopicPartition
	A, B      string // the member holding it in each assignment, "" for none
}

// Differences lists the partitions whose holder differs between a and b,
// sorted by [TopicPartition.Compare]. Members with empty lists and members
// missing from an assignment are alike.
func Differences(a, b Assignment) []Difference {
	holder := func(x Assignment) map[TopicPartition]string {
		out := make(map[TopicPartition]string)
		for id, tps := range x {
			for _, tp := range tps {
				out[tp] = id
			}
		}
		return out
	}
	ha, hb := holder(a), holder(b)
	var out []Difference
	for tp, ida := range ha {
		if hb[tp] != ida {
			out = append(out, Difference{tp, ida, hb[tp]})
		}
	}
	for tp, idb := range hb {
		if _, ok := ha[tp]; !ok {
			out = append(out, Difference{tp, "", idb})
		}
	}
	slices.SortFunc(out, func(x, y Difference) int { return x.Partition.Compare(y.Partition) })
	return out
}
