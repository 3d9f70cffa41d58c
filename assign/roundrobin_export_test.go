package assign

// Hooks for the external tests to run the general paths of Range and
// RoundRobin on any group, so that they are checked against the references
// on groups the fast paths would otherwise take, and to force each way of
// dealing RoundRobin.

// RangeMixed is Range without racks, by rangeMixed whatever the
// subscriptions.
func RangeMixed(g Group) (Assignment, error) {
	ix, err := compile(g, checkOwned)
	if err != nil {
		return nil, err
	}
	return rangeMixed(ix), nil
}

// RoundRobinDealtByRows is RoundRobin by dealByRows whatever the
// subscriptions.
func RoundRobinDealtByRows(g Group) (Assignment, error) {
	ix, err := compile(g, checkOwned)
	if err != nil {
		return nil, err
	}
	return ix.assignmentOf(dealByRows(ix), nil, nil), nil
}

// RoundRobinDealtBySets is RoundRobin by dealBySets whatever the
// subscriptions.
func RoundRobinDealtBySets(g Group) (Assignment, error) {
	ix, err := compile(g, checkOwned)
	if err != nil {
		return nil, err
	}
	return ix.assignmentOf(dealBySets(ix), nil, nil), nil
}
