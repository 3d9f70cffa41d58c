package assign

// Hooks for the external tests to run the general paths of Range and
// RoundRobin on any group, so that they are checked against the references
// on groups the fast paths would otherwise take, and to force each way of
// dealing RoundRobin.

// RangeMixed is Range without racks, by rangeMixed whatever the
// subscriptions.
func RangeMixed(g Group) (Assignment, error) {
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return nil, err
	}
	return rangeMixed(cg), nil
}

// RoundRobinDealtByRows is RoundRobin by dealByRows whatever the
// subscriptions.
func RoundRobinDealtByRows(g Group) (Assignment, error) {
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return nil, err
	}
	return cg.assignmentOf(dealByRows(cg), nil, nil), nil
}

// RoundRobinDealtBySets is RoundRobin by dealBySets whatever the
// subscriptions.
func RoundRobinDealtBySets(g Group) (Assignment, error) {
	cg, err := compile(g, ownedIgnored)
	if err != nil {
		return nil, err
	}
	return cg.assignmentOf(dealBySets(cg), nil, nil), nil
}
