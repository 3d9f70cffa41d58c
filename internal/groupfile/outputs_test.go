package groupfile

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/assigncalc/assigncalc/internal/benchmem"
	"github.com/google/go-cmp/cmp"
)

// TestMoveForms pins the three forms of a partition that changed hands
// to the bytes the command line has always written: one Move type serves
// them only because each form's optional fields are omitted in the
// others, and a move's "deferred" is written even when false.
func TestMoveForms(t *testing.T) {
	tp := assign.TopicPartition{Topic: "t", Partition: 3}
	stops := []coordinator.Stop{{Partition: tp, From: "c0", To: "c1", Revoked: 1, Received: 2}}
	tests := []struct {
		name string
		move Move
		want string
	}{
		{"a move of the churn model", MoveOf(assign.Move{Partition: tp, From: "c0", To: "c1", Reason: assign.ReasonBalance}),
			`{"topic":"t","partition":3,"from":"c0","to":"c1","reason":"balance required it","deferred":false}`},
		{"a deferred move", MoveOf(assign.Move{Partition: tp, From: "c0", To: "c1", Reason: assign.ReasonOwnerLeft, Deferred: true}),
			`{"topic":"t","partition":3,"from":"c0","to":"c1","reason":"its owner left","deferred":true}`},
		{"a stop", StopOf(stops[0]),
			`{"topic":"t","partition":3,"from":"c0","to":"c1","revoked":1,"received":2}`},
		{"a handover that waits", Handover(assign.Move{Partition: tp, From: "c0", To: "c1"}, stops),
			`{"topic":"t","partition":3,"from":"c0","to":"c1","revoked":1,"received":2}`},
		{"a handover that does not wait", Handover(assign.Move{Partition: assign.TopicPartition{Topic: "t", Partition: 4}, From: "", To: "c1"}, stops),
			`{"topic":"t","partition":4,"from":"","to":"c1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.move)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestAppendSimulateStep: the step's figures follow the keys of its
// result in the same object.
func TestAppendSimulateStep(t *testing.T) {
	r := Result{Name: "g", Strategy: "range", Members: []string{"c0"}, Assignment: assign.Assignment{"c0": {{Topic: "t", Partition: 0}}}}
	got, err := AppendSimulateStep([]byte("x"), r, SimulateStep{Step: 1, Change: "leave c1", Moved: 1, Affected: 1, Rounds: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `x{"name":"g","strategy":"range","assignment":{"c0":{"t":[0]}},"step":1,"change":"leave c1","moved":1,"affected":1,"revoked":0,"rounds":1,"spread":0}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestMigrationNothingMoves: a migration that moves nothing writes
// "moves" as [] and, with no heartbeat round, "heartbeats" as null.
func TestMigrationNothingMoves(t *testing.T) {
	r := Result{Name: "", Strategy: "uniform", Members: []string{"c0"}, Assignment: assign.Assignment{}}
	got, err := AppendMigration(nil, r, MigrationOf("owned", assign.Kafka41, coordinator.Migration{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"","strategy":"uniform","assignment":{"c0":{}},"from":"owned","kafka":"4.1","moved":0,"rounds":0,"moves":[],"heartbeats":null}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestVoteOfNothing: a vote with no candidates, ballots, tally or
// refusals writes empty lists and maps, never null, so readers need not
// tell the two apart.
func TestVoteOfNothing(t *testing.T) {
	members := []coordinator.VoteMember{{ID: "c0", Protocols: []string{"range"}}, {ID: "c1"}}
	r := coordinator.VoteResult{Coordinator: coordinator.JavaCoordinator, Kind: coordinator.ClassicGroup}
	got, err := json.Marshal(VoteOf(members, r))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"coordinator":"java","kind":"classic","candidates":[],"ballots":[],"votes":{},"tally":[],"winner":"","refused":{},"rebalance":{"c0":"eager","c1":"-"},"orderDependent":false}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestUpgradeSteps: Kafka's two-step upgrade from range to
// cooperative-sticky for two members, without topics: no step moves
// anything, and every step is safe. A member rebalances eagerly while its
// list holds range, so EAGER falls only in the second phase; the winner
// changes once both members offer cooperative-sticky first.
func TestUpgradeSteps(t *testing.T) {
	start := []string{"range"}
	phases := [][]string{{"cooperative-sticky", "range"}, {"cooperative-sticky"}}
	ro := coordinator.Rollout{Phases: phases, Coordinator: coordinator.JavaCoordinator,
		Members: []coordinator.VoteMember{{ID: "c0", Protocols: start}, {ID: "c1", Protocols: start}}}
	steps, err := churn.Rollout(ro, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := UpgradeSteps(start, phases, steps)
	type row struct {
		Phase     int
		Restarted string
		Winner    string
		Eager     int
		Safe      bool
	}
	var rows []row
	for _, s := range got {
		if s.Moved != nil || s.Refused == nil {
			t.Errorf("step %d: moved %v, refused %v; want no moved and an empty list", s.Step, s.Moved, s.Refused)
		}
		rows = append(rows, row{s.Phase, s.Restarted, s.Winner, s.Eager, s.Safe})
	}
	want := []row{
		{-1, "", "range", 2, true},
		{0, "c0", "range", 2, true}, // c0 lists range too: still eager
		{0, "c1", "cooperative-sticky", 2, true},
		{1, "c0", "cooperative-sticky", 1, true},
		{1, "c1", "cooperative-sticky", 0, true},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("steps mismatch (-want +got):\n%s", diff)
	}
}

// BenchmarkSimulateStep writes the step of a big group's churn with every
// move listed, as simulate --moves --format jsonl does for each step and
// strategy.
func BenchmarkSimulateStep(b *testing.B) {
	for _, n := range []int{10000} {
		var s churn.Step
		for i := range n {
			tp := assign.TopicPartition{Topic: "topic", Partition: int32(i)}
			s.Moves = append(s.Moves, assign.Move{Partition: tp, From: "member-1", To: "member-2", Reason: assign.ReasonBalance, Deferred: i%2 == 0})
			if i%4 == 0 {
				s.Stops = append(s.Stops, coordinator.Stop{Partition: tp, From: "member-1", To: "member-2", Revoked: 1, Received: 2})
			}
		}
		r := Result{Name: "g", Strategy: "uniform"}
		b.Run(fmt.Sprintf("moves=%d", n), func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			bytes := benchmem.Start(b, n) // the group's partitions: every one moves
			for b.Loop() {
				var err error
				if buf, err = AppendSimulateStep(buf[:0], r, SimulateStepOf(1, "join c9", s, true)); err != nil {
					b.Fatal(err)
				}
			}
			bytes.Report()
		})
	}
}
