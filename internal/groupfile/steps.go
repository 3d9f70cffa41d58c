package groupfile

import (
	"encoding/json"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
)

// SimulateStep is what one step of a simulation did under one strategy,
// as simulate writes it in json and jsonl after the keys of the step's
// [Result] ([AppendSimulateStep]). Its field names are a public contract.
type SimulateStep struct {
	Step     int      `json:"step"`     // 0 for the first rebalance, then one per change
	Change   string   `json:"change"`   // "start", or the change as given ("leave c0")
	Moved    int      `json:"moved"`    // partitions that changed owner
	Affected int      `json:"affected"` // members whose assignment changed
	Revoked  int      `json:"revoked"`  // partitions members gave up along the way
	Rounds   int      `json:"rounds"`   // rebalances, or heartbeat rounds under the consumer protocol
	Spread   int      `json:"spread"`   // most minus fewest partitions a member holds after the step
	Notes    []string `json:"notes,omitempty"`
	Moves    []Move   `json:"moves,omitempty"` // with --moves only
	Stops    []Move   `json:"stops,omitempty"` // under the consumer protocol

	// Owned, on step 0 only, is what the members owned before the first
	// rebalance (from --in or --from-describe), from which its figures
	// are computed; absent when they owned nothing.
	Owned *MemberPartitions `json:"owned,omitempty"`

	// Assumed, on step 0 only, lists what the input did not say and was
	// assumed, as stderr says it (Notes are the churn model's per step).
	Assumed []string `json:"assumed,omitempty"`
}

// SimulateStepOf is step number n, change, as s, the churn model's
// answer, says; its moves are listed when withMoves.
func SimulateStepOf(n int, change string, s churn.Step, withMoves bool) SimulateStep {
	out := SimulateStep{Step: n, Change: change, Moved: len(s.Moves), Affected: s.Affected(), Revoked: s.Revoked,
		Rounds: s.Rounds, Spread: assign.Summarize(s.Group, s.After).Spread, Notes: s.Notes}
	if len(s.Stops) > 0 {
		out.Stops = make([]Move, len(s.Stops))
		for i, st := range s.Stops {
			out.Stops[i] = StopOf(st)
		}
	}
	if withMoves && len(s.Moves) > 0 {
		// One allocation for the flags of every move rather than one per
		// move, for the step of a big group
		// (BenchmarkSimulateStep/moves=10000 in package groupfile).
		deferred := make([]bool, len(s.Moves))
		out.Moves = make([]Move, len(s.Moves))
		for i, mv := range s.Moves {
			out.Moves[i] = moveOf(mv, &deferred[i])
		}
	}
	return out
}

// AppendSimulateStep appends r, the step's result, with the step's
// figures after its keys, as compact JSON without a newline, to buf.
func AppendSimulateStep(buf []byte, r Result, s SimulateStep) ([]byte, error) {
	return appendExtended(buf, r, s)
}

// Migration is the preview of a classic group's switch to the consumer
// protocol, as migrate writes it in json and jsonl after the keys of the
// [Result] of its first target ([AppendMigration]). Its field names are
// a public contract.
type Migration struct {
	From       string      `json:"from"`  // the classic strategy, or "owned"
	Kafka      string      `json:"kafka"` // the Kafka version the server-side assignor reproduces
	Moved      int         `json:"moved"`
	Rounds     int         `json:"rounds"`
	Moves      []Move      `json:"moves"`      // [Handover]s, [] when nothing moves
	Heartbeats []Heartbeat `json:"heartbeats"` // one per heartbeat round

	// Owned is what each member holds before the switch (the table's
	// CLASSIC, or OWNED for a group already on the consumer protocol),
	// from which the moves are computed.
	Owned *MemberPartitions `json:"owned,omitempty"`

	// Assumed lists what the input did not say and was assumed, as stderr
	// says it.
	Assumed []string `json:"assumed,omitempty"`
}

// Heartbeat is one round of heartbeats of a [Migration]: how many
// members are in each state after it, and how many partitions nobody
// consumes.
type Heartbeat struct {
	Round      int `json:"round"` // from 1
	Stable     int `json:"stable"`
	Unrevoked  int `json:"unrevoked"`
	Unreleased int `json:"unreleased"`
	Idle       int `json:"idle"`
}

// MigrationOf is m, a migration from the classic strategy from (or
// "owned") to a server-side assignor reproducing Kafka version kafka.
func MigrationOf(from string, kafka assign.KafkaVersion, m coordinator.Migration) Migration {
	total := 0
	for _, ps := range m.Target {
		total += len(ps)
	}
	out := Migration{From: from, Kafka: kafka.String(), Moved: len(m.Moves), Rounds: len(m.Rounds), Moves: make([]Move, len(m.Moves))}
	for i, mv := range m.Moves {
		out.Moves[i] = Handover(mv, m.Stops)
	}
	if len(m.Rounds) > 0 {
		out.Heartbeats = make([]Heartbeat, len(m.Rounds))
	}
	for i, r := range m.Rounds {
		n := r.States()
		out.Heartbeats[i] = Heartbeat{i + 1, n[coordinator.Stable], n[coordinator.UnrevokedPartitions], n[coordinator.UnreleasedPartitions], total - r.Assigned()}
	}
	return out
}

// AppendMigration appends r, the result of the migration's first target,
// with the migration's figures after its keys, as compact JSON without a
// newline, to buf.
func AppendMigration(buf []byte, r Result, m Migration) ([]byte, error) {
	return appendExtended(buf, r, m)
}

// appendExtended appends r as [AppendResult] does, with the fields of
// ext, a struct, after its keys.
func appendExtended(buf []byte, r Result, ext any) ([]byte, error) {
	buf, err := AppendResult(buf, r)
	if err != nil {
		return buf, err
	}
	tail, err := json.Marshal(ext)
	if err != nil {
		return buf, err
	}
	if len(tail) == 2 { // {}: every field of ext omitted
		return buf, nil
	}
	return append(append(buf[:len(buf)-1], ','), tail[1:]...), nil
}
