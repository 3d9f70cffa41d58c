package assign

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/balance"
)

// Test hooks: the external tests reach the alternatives of the sticky
// strategies through the exported ones below, and the package's own
// tests reach Uniform's reference path through solveOwner.

// PlanFromLists is CooperativeSticky.Plan with the claims always settled
// from per-member lists, as when generations differ, so that the external
// tests can check the claims compile resolves directly against them.
func PlanFromLists(g Group) (*CooperativePlan, error) { return plan(g, ownedListed) }

// StickyByClaims and CooperativeByClaims are the sticky strategies with
// every claim settled partition by partition, never by keepAndDeal, so
// that the external tests can check the shortcut against them.
func StickyByClaims(g Group) (Assignment, error) { return stickyAssign(g, ownedResolved) }

// CooperativeByClaims: see StickyByClaims.
func CooperativeByClaims(g Group) (Assignment, error) { return cooperativeAssign(g, ownedResolved) }

// KeepsEveryClaim reports whether the sticky strategies take keepAndDeal
// for g.
func KeepsEveryClaim(g Group) bool {
	cg, err := compile(g, ownedKeptIfLossless)
	return err == nil && cg.kept != nil
}

// solveOwner is Uniform.solve on the owner array for every group: the
// targets read into owner (readOwner) and, for a homogeneous group, the
// loop over owner that uniformHomogeneous replaced
// (uniformHomogeneousOwner), the reference the differential tests hold
// the builder on runs to.
func solveOwner(u Uniform, g Group) (*serverGroup, error) {
	if err := u.Kafka.check(); err != nil {
		return nil, err
	}
	sg, err := newServerGroup(g)
	if err != nil {
		return nil, err
	}
	if err := sg.readOwner(); err != nil {
		return nil, err
	}
	if !sg.homogeneous {
		sg.uniformHeterogeneous()
		return sg, nil
	}
	if err := sg.uniformHomogeneousOwner(u.Kafka); err != nil {
		return nil, err
	}
	return sg, nil
}

// assignmentWritingAll is assignment with every list written, none
// handed back: the answer that TestUniformAssignShares and the
// differential tests compare the shared lists with.
func (sg *serverGroup) assignmentWritingAll() Assignment {
	goOrder := sg.cg.goOrder()
	runs, counts := sg.answerRuns(goOrder, partitionsIn)
	return sg.writeAssignment(goOrder, runs, counts, make([]bool, len(sg.cg.g.Members)))
}

// GivesUpByPosition reports whether the sticky strategies take
// keepAndDeal for g with some member over its target (keep_join.go).
func GivesUpByPosition(g Group) bool {
	cg, err := compile(g, ownedKeptIfLossless)
	return err == nil && cg.kept != nil && cg.kept.over
}

// FollowUpTargetsMove reports whether CooperativeSticky answers g from
// keepAndDeal with a member over its target where the claims of the
// follow-up round (this round's answer) get other targets than this
// round's: the groups where the answer once came from settling every
// claim again, and lands where keepAndDeal's does (see keepAndDeal).
func FollowUpTargetsMove(g Group) bool {
	cg, err := compile(g, ownedKeptIfLossless)
	if err != nil || cg.kept == nil || !cg.kept.over {
		return false
	}
	a, err := cg.keepAndDeal(true)
	if err != nil {
		return false
	}
	held := make([]int32, len(cg.kafkaOrder)) // by rank
	for rk, m := range cg.kafkaOrder {
		held[rk] = int32(len(a[cg.g.Members[m].ID]))
	}
	return !slices.Equal(balance.Targets(held, int(cg.start[len(cg.topics)])), cg.kept.target)
}

// RunsReversed is runsReversed (keep_fast_internal_test.go), for the
// external tests of the same paths.
var RunsReversed = runsReversed
