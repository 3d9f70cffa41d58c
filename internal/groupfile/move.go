package groupfile

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// Move is a partition that changed hands, as every output that lists one
// writes it: the "moves" of simulate --moves, the "stops" of simulate
// under the consumer protocol, and the "moves" of migrate. Its field
// names and their order are a public contract.
//
// The three say the same thing with different details, so the details
// are optional and never meet in one Move:
//
//   - a move of the churn model ([MoveOf]) has "reason" and "deferred",
//     "deferred" written even when false;
//   - a stop ([StopOf]) has "revoked" and "received", the heartbeat rounds
//     in which its old owner gives it up and its new owner gets it
//     (rounds count from 1, so neither is ever omitted);
//   - a handover of migrate ([Handover]) has "revoked" and "received" only
//     when somebody must revoke it first.
type Move struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	From      string `json:"from"` // "" for nobody
	To        string `json:"to"`   // "" for nobody

	// Reason is why the partition moved ([assign.MoveReason.String]).
	Reason string `json:"reason,omitempty"`

	// Deferred is set, true or false, for the moves of the churn model
	// only: a pointer, because false is written there and nowhere else.
	Deferred *bool `json:"deferred,omitempty"`

	// Revoked and Received are heartbeat rounds, from 1; 0 when the
	// partition does not wait.
	Revoked  int `json:"revoked,omitempty"`
	Received int `json:"received,omitempty"`
}

// MoveOf is the Move of m, a move of the churn model, with its reason
// and whether it was deferred.
func MoveOf(m assign.Move) Move {
	return moveOf(m, new(bool))
}

// moveOf is [MoveOf] with deferred, where m.Deferred is stored, given:
// [SimulateStepOf] takes them from one slice for all of a step's moves.
func moveOf(m assign.Move, deferred *bool) Move {
	*deferred = m.Deferred
	return Move{Topic: m.Partition.Topic, Partition: m.Partition.Partition, From: m.From, To: m.To, Reason: m.Reason.String(), Deferred: deferred}
}

// StopOf is the Move of s, a partition nobody consumes between heartbeat
// rounds s.Revoked and s.Received.
func StopOf(s coordinator.Stop) Move {
	return Move{Topic: s.Partition.Topic, Partition: s.Partition.Partition, From: s.From, To: s.To, Revoked: s.Revoked, Received: s.Received}
}

// Handover is the Move of m, a partition of a migration, with the rounds
// of its stop among stops (sorted by partition, as [coordinator.Stops]
// lists them) when it has one.
func Handover(m assign.Move, stops []coordinator.Stop) Move {
	mv := Move{Topic: m.Partition.Topic, Partition: m.Partition.Partition, From: m.From, To: m.To}
	if s, ok := stopOf(stops, m.Partition); ok {
		mv.Revoked, mv.Received = s.Revoked, s.Received
	}
	return mv
}

// stopOf finds the stop of tp among stops, sorted by partition.
func stopOf(stops []coordinator.Stop, tp assign.TopicPartition) (coordinator.Stop, bool) {
	i, ok := slices.BinarySearchFunc(stops, tp, func(s coordinator.Stop, tp assign.TopicPartition) int { return s.Partition.Compare(tp) })
	if !ok {
		return coordinator.Stop{}, false
	}
	return stops[i], true
}
