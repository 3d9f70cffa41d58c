package assign

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

// KeptSettles reports whether CooperativeSticky answers g from
// keepAndDeal, rather than settling every claim because the follow-up
// round would settle elsewhere (keptSettled).
func KeptSettles(g Group) bool {
	cg, err := compile(g, ownedKeptIfLossless)
	if err != nil || cg.kept == nil {
		return false
	}
	_, settled, err := cg.keepAndDeal(true)
	return err == nil && settled
}

// RunsReversed is runsReversed (keep_fast_internal_test.go), for the
// external tests of the same paths.
var RunsReversed = runsReversed
