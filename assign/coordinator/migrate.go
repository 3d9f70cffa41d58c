package coordinator

import "github.com/assigncalc/assigncalc/assign"

// Migration is what switching a classic group to the consumer protocol
// (group.protocol=consumer, KIP-848) costs: the server-side assignor's
// first target, the partitions that change owner, and the heartbeat
// rounds of reconciliation until every member holds its target.
type Migration struct {
	Target assign.Assignment
	Moves  []assign.Move
	Rounds []ReconcileRound

	// Stops are the partitions nobody consumes for some rounds: revoked
	// by their classic owner, received later by their new one ([Stops]).
	Stops []Stop
}

// PreviewMigration computes the [Migration] of g, whose members' Owned is
// the assignment they hold in the classic protocol (from any client-side
// strategy), to the server-side assignor s ([Uniform] or [ServerRange]).
// Kafka converts a classic group by taking each member's assignment as
// its current target, so s sees Owned as [Uniform] reads it: the
// assignment must give each partition to one member at most. Moves are
// sorted by partition, without reasons ([Moves]); rounds heartbeat in
// the order of g.Members, at epochs 1 and 2.
func PreviewMigration(g assign.Group, s assign.Strategy) (Migration, error) {
	target, err := s.Assign(g)
	if err != nil {
		return Migration{}, err
	}
	current := make(assign.Assignment, len(g.Members))
	order := make([]string, len(g.Members))
	for i, m := range g.Members {
		order[i] = m.ID
		current[m.ID] = m.Owned
	}
	rounds, err := Reconcile(current, target, order, 1)
	if err != nil {
		return Migration{}, err
	}
	return Migration{Target: target, Moves: assign.Moves(current, target), Rounds: rounds, Stops: Stops(current, rounds)}, nil
}
