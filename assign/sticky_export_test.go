package assign

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
