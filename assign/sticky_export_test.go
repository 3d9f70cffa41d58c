package assign

// PlanFromLists is CooperativeSticky.Plan with the claims always settled
// from per-member lists, as when generations differ, so that the external
// tests can check the claims compile resolves directly against them.
func PlanFromLists(g Group) (*CooperativePlan, error) { return plan(g, listOwned) }
