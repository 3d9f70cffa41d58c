package coordinator

import (
	"errors"
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// MemberState is where a member of a KIP-848 consumer group stands in
// reconciling towards its target assignment (Kafka's MemberState).
type MemberState int8

const (
	// Stable: the member holds its target, or all of it that it may.
	Stable MemberState = iota
	// UnrevokedPartitions: the member must first revoke partitions; it
	// stays at its epoch until its heartbeat no longer reports them.
	UnrevokedPartitions
	// UnreleasedPartitions: the member is at the target epoch but waits
	// for partitions that other members have not released yet.
	UnreleasedPartitions
)

// String returns Kafka's name of the state.
func (s MemberState) String() string {
	switch s {
	case Stable:
		return "STABLE"
	case UnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case UnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	}
	return fmt.Sprintf("MemberState(%d)", int8(s))
}

// Reconciling is one member as the coordinator tracks it after a
// heartbeat: its state and epoch, the partitions it may consume and those
// it must revoke first. Lists are sorted.
type Reconciling struct {
	ID                string
	State             MemberState
	Epoch             int32
	Assigned          []assign.TopicPartition
	PendingRevocation []assign.TopicPartition
}

// ReconcileRound is the members after one round of heartbeats, one per
// member in the order given to [Reconcile].
type ReconcileRound struct {
	Members []Reconciling
}

// MaxReconcileRounds bounds [Reconcile]; reconciliation towards a valid
// target ends in at most three rounds.
const MaxReconcileRounds = 16

// ErrNotReconciled is returned when reconciliation does not end within
// [MaxReconcileRounds], which a target giving one partition to two
// members would cause.
var ErrNotReconciled = errors.New("assign: reconciliation did not end")

// Reconcile runs the KIP-848 coordinator's reconciliation
// (CurrentAssignmentBuilder, every Kafka 4.x alike here) from members that
// are stable at epoch epoch holding current, towards target at epoch+1,
// and returns the members after each round of heartbeats, until every
// member is stable at the target epoch.
//
// order lists the member IDs in the order they heartbeat in each round;
// a member of target missing from current holds nothing. Clients are
// assumed to revoke at once what they are asked to revoke, so that their
// next heartbeat no longer reports it. At each heartbeat a member:
//
//   - keeps Assigned ∩ target and must revoke the rest of Assigned: if
//     there is some, it goes to UNREVOKED_PARTITIONS at its epoch and
//     waits for its next heartbeat;
//   - otherwise moves to the target epoch and is given the partitions of
//     its target that no member holds or is revoking; it is
//     UNRELEASED_PARTITIONS while some of its target is still held
//     elsewhere, STABLE when not.
//
// The coordinator sees each heartbeat's outcome before the next one, so
// a partition released early in a round can be given later in the same
// round.
//
// The one rule that differs between Kafka versions ([NextAssignment],
// KAFKA-19449) concerns a member whose target gives back a partition it
// is revoking. Towards one fixed target that never happens: a member
// revokes only what its target lacks. So every version reconciles alike
// here, and Reconcile takes no version.
func Reconcile(current, target assign.Assignment, order []string, epoch int32) ([]ReconcileRound, error) {
	return reconcile(assign.Kafka44, current, target, order, epoch)
}

// reconcile is [Reconcile] under the rule of Kafka v; a test shows every
// version gives the same rounds.
func reconcile(v assign.KafkaVersion, current, target assign.Assignment, order []string, epoch int32) ([]ReconcileRound, error) {
	members := make([]Reconciling, len(order))
	targets := make([][]assign.TopicPartition, len(order)) // sorted, as NextAssignment reads them
	holder := make(map[assign.TopicPartition]int)          // partition => member index, assigned or pending revocation
	for i, id := range order {
		targets[i] = slices.Clone(target[id])
		slices.SortFunc(targets[i], assign.TopicPartition.Compare)
		targets[i] = slices.Compact(targets[i])
		members[i] = Reconciling{ID: id, State: Stable, Epoch: epoch, Assigned: slices.Clone(current[id])}
		slices.SortFunc(members[i].Assigned, assign.TopicPartition.Compare)
		for _, tp := range members[i].Assigned {
			holder[tp] = i
		}
	}
	targetEpoch := epoch + 1
	var rounds []ReconcileRound
	for range MaxReconcileRounds {
		done := true
		for i := range members {
			m := &members[i]
			switch {
			case m.State == Stable && m.Epoch == targetEpoch:
				continue
			case m.State == UnrevokedPartitions:
				// The client revoked what it was asked to: it no longer
				// reports it, and the partitions are free.
				for _, tp := range m.PendingRevocation {
					delete(holder, tp)
				}
				m.Epoch++
			}
			m.next(v, targets[i], targetEpoch, i, holder)
		}
		round := ReconcileRound{Members: make([]Reconciling, len(members))}
		for i, m := range members {
			round.Members[i] = Reconciling{ID: m.ID, State: m.State, Epoch: m.Epoch,
				Assigned: slices.Clone(m.Assigned), PendingRevocation: slices.Clone(m.PendingRevocation)}
			if m.State != Stable || m.Epoch != targetEpoch {
				done = false
			}
		}
		rounds = append(rounds, round)
		if done {
			return rounds, nil
		}
	}
	return rounds, ErrNotReconciled
}

// next is one heartbeat of member i, whose client reports owning exactly
// its Assigned partitions, applied to m ([NextAssignment]).
func (m *Reconciling) next(v assign.KafkaVersion, target []assign.TopicPartition, targetEpoch int32, i int, holder map[assign.TopicPartition]int) {
	revoked := m.PendingRevocation
	m.PendingRevocation = nil
	revoke, grant, unreleased := NextAssignment(v, m.Assigned, revoked, target, func(tp assign.TopicPartition) bool {
		h, held := holder[tp]
		return held && h != i
	})
	if len(revoke) > 0 {
		m.State, m.Assigned, m.PendingRevocation = UnrevokedPartitions, minus(m.Assigned, revoke), revoke
		return
	}
	for _, tp := range grant {
		holder[tp] = i
	}
	if len(grant) > 0 {
		m.Assigned = append(slices.Clone(m.Assigned), grant...)
		slices.SortFunc(m.Assigned, assign.TopicPartition.Compare)
	}
	m.PendingRevocation, m.Epoch = nil, targetEpoch
	m.State = Stable
	if unreleased {
		m.State = UnreleasedPartitions
	}
}

// NextAssignment is the coordinator's answer to one heartbeat of a member
// reconciling towards its target under Kafka v (CurrentAssignmentBuilder's
// computeNextAssignment): the one rule that [Reconcile], the churn model
// and package timeline share. owned is what the member reports owning,
// target its target, revoked what it was asked to revoke and, by this
// heartbeat, has (the coordinator's partitionsPendingRevocation of the
// member; nil if it was revoking nothing); all sorted by
// [assign.TopicPartition.Compare]. heldElsewhere reports whether the
// coordinator counts another member as holding a partition, assigned or
// pending revocation.
//
// A member that owns partitions outside its target must first revoke
// them: revoke lists them, and it is given nothing. Otherwise grant lists
// the partitions of its target it does not own yet and that nobody else
// holds (KIP-848: a partition goes to its new owner only once the old one
// has released it), and unreleased reports that some of its target is
// still held elsewhere. Both lists are sorted; nil when empty.
//
// What differs by version is a partition of revoked that the target gives
// back to the member (its target changed while it revoked). The
// coordinator updates who holds a partition only after the heartbeat, so
// during it the member's own pending revocation still counts as held.
// Kafka 4.0 and 4.1 count that as unreleased: the member waits a
// heartbeat for its own partition. Kafka 4.2 grants it at once
// (KAFKA-19449, commit 02bd3420da: computeNextAssignment's test for
// unreleased partitions skips the member's own partitionsPendingRevocation).
// The fix was also backported to the 4.0 and 4.1 branches (7ed2403653,
// 77dd47d310) for their later patch releases; [assign.Kafka40] and
// [assign.Kafka41] here are the releases before it.
func NextAssignment(v assign.KafkaVersion, owned, revoked, target []assign.TopicPartition, heldElsewhere func(assign.TopicPartition) bool) (revoke, grant []assign.TopicPartition, unreleased bool) {
	if revoke = minus(owned, target); len(revoke) > 0 {
		return revoke, nil, false
	}
	ownHeld := v == assign.Kafka40 || v == assign.Kafka41 // before KAFKA-19449
	for _, tp := range target {
		if _, mine := slices.BinarySearchFunc(owned, tp, assign.TopicPartition.Compare); mine {
			continue
		}
		if heldElsewhere(tp) {
			unreleased = true
			continue
		}
		if _, own := slices.BinarySearchFunc(revoked, tp, assign.TopicPartition.Compare); own && ownHeld {
			unreleased = true
			continue
		}
		grant = append(grant, tp)
	}
	return nil, grant, unreleased
}

// minus is a without the partitions of b; both sorted.
func minus(a, b []assign.TopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, tp := range a {
		if _, found := slices.BinarySearchFunc(b, tp, assign.TopicPartition.Compare); !found {
			out = append(out, tp)
		}
	}
	return out
}

// States counts the members of r in each state, indexed by [MemberState]
// ([Stable], [UnrevokedPartitions], [UnreleasedPartitions]).
func (r ReconcileRound) States() [3]int {
	var n [3]int
	for _, m := range r.Members {
		n[m.State]++
	}
	return n
}

// Assigned counts the partitions the members of r may consume after the
// round: what they hold, less what they are revoking.
func (r ReconcileRound) Assigned() int {
	n := 0
	for _, m := range r.Members {
		n += len(m.Assigned)
	}
	return n
}

// Stop is a partition nobody consumes for a while when a KIP-848 group
// reconciles towards a new target: From revokes it at heartbeat round
// Revoked and To receives it at round Received, a later one. Rounds count
// from 1 ([Reconcile]'s first round); a [Churn] step counts them across
// the step's rebalances.
type Stop struct {
	Partition         assign.TopicPartition
	From, To          string
	Revoked, Received int
}

// Rounds is how many heartbeat rounds the partition waits for its new
// owner: Received - Revoked.
func (s Stop) Rounds() int { return s.Received - s.Revoked }

// Stops lists, sorted by partition, the partitions of rounds (a
// reconciliation [Reconcile] ran from current) that a member of the
// rounds is asked to revoke and another member then receives. A
// partition given up by a member that is not in the rounds (one that
// left) is not a stop: nobody revokes it, it is free at once. A partition
// revoked and given to nobody is not one either; it is only revoked.
func Stops(current assign.Assignment, rounds []ReconcileRound) []Stop {
	type revocation struct {
		from  string
		round int
	}
	revoked := make(map[assign.TopicPartition]revocation)
	var out []Stop
	for r, round := range rounds {
		for _, m := range round.Members {
			for _, tp := range m.PendingRevocation {
				if _, seen := revoked[tp]; !seen {
					revoked[tp] = revocation{m.ID, r + 1}
				}
			}
		}
		for _, m := range round.Members {
			for _, tp := range m.Assigned {
				if rv, ok := revoked[tp]; ok && rv.from != m.ID {
					out = append(out, Stop{Partition: tp, From: rv.from, To: m.ID, Revoked: rv.round, Received: r + 1})
					delete(revoked, tp)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Stop) int { return a.Partition.Compare(b.Partition) })
	return out
}
