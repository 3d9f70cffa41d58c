package assign

import "slices"

// Migration is what switching a classic group to the consumer protocol
// (group.protocol=consumer, KIP-848) costs: the server-side assignor's
// first target, the partitions that change owner, and the heartbeat
// rounds of reconciliation until every member holds its target.
type Migration struct {
	Target Assignment
	Moves  []Handover
	Rounds []ReconcileRound

	// Stops are the partitions nobody consumes for some rounds: revoked
	// by their classic owner, received later by their new one ([Stops]).
	Stops []Stop
}

// Handover is one partition changing owner; From or To is "" when nobody
// held it or nobody gets it.
type Handover struct {
	Partition TopicPartition
	From, To  string
}

// PreviewMigration computes the [Migration] of g, whose members' Owned is
// the assignment they hold in the classic protocol (from any client-side
// strategy), to the server-side assignor s ([Uniform] or [ServerRange]).
// Kafka converts a classic group by taking each member's assignment as
// its current target, so s sees Owned as [Uniform] reads it: the
// assignment must give each partition to one member at most. Handovers
// are sorted by partition; rounds heartbeat in the order of g.Members, at
// epochs 1 and 2.
func PreviewMigration(g Group, s Strategy) (Migration, error) {
	target, err := s.Assign(g)
	if err != nil {
		return Migration{}, err
	}
	current := make(Assignment, len(g.Members))
	order := make([]string, len(g.Members))
	owner := make(map[TopicPartition]string)
	for i, m := range g.Members {
		order[i] = m.ID
		current[m.ID] = m.Owned
		for _, tp := range m.Owned {
			owner[tp] = m.ID
		}
	}
	var moves []Handover
	for id, ps := range target {
		for _, tp := range ps {
			if from := owner[tp]; from != id {
				moves = append(moves, Handover{tp, from, id})
			}
			delete(owner, tp)
		}
	}
	for tp, from := range owner { // held, and given to nobody
		moves = append(moves, Handover{Partition: tp, From: from})
	}
	slices.SortFunc(moves, func(a, b Handover) int { return a.Partition.Compare(b.Partition) })
	rounds, err := Reconcile(current, target, order, 1)
	if err != nil {
		return Migration{}, err
	}
	return Migration{Target: target, Moves: moves, Rounds: rounds, Stops: Stops(current, rounds)}, nil
}
