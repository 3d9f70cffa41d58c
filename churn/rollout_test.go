package churn_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
)

// switchMoves is what a switch from range to roundrobin moves on c0 and
// c1 over t-0..3, by the two layouts: range gives c0 t-0,1 and c1 t-2,3;
// roundrobin deals c0 t-0,2 and c1 t-1,3. t-1 and t-2 change hands,
// between members that stay.
var switchMoves = []assign.Move{
	{Partition: assign.TopicPartition{Topic: "t", Partition: 1}, From: "c0", To: "c1", Reason: assign.ReasonStrategy},
	{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "c1", To: "c0", Reason: assign.ReasonStrategy},
}

// TestChurnStrategySwitch: a switch is one rebalance of the same members
// under the new strategy (rule 9), its moves for ReasonStrategy; eager
// members revoke the four partitions they held.
func TestChurnStrategySwitch(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{churnMember("c0", "t"), churnMember("c1", "t")}}
	c, _ := newChurnT(t, assign.Range{}, g)
	step := churnApply(t, c, churn.Change{Kind: churn.ChangeStrategy, Strategy: assign.RoundRobin{}})
	want := assign.Assignment{"c0": assigntest.TPs("t", 0, 2), "c1": assigntest.TPs("t", 1, 3)}
	if diff := cmp.Diff(want, step.After); diff != "" {
		t.Errorf("after the switch mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(switchMoves, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if step.Rebalances != 1 || step.Revoked != 4 || step.Change.String() != "switch to roundrobin" {
		t.Errorf("%q: %d rebalances, %d revoked; want 1 and 4", step.Change, step.Rebalances, step.Revoked)
	}
	if _, err := c.Apply(churn.Change{Kind: churn.ChangeStrategy}); err == nil {
		t.Error("a switch to no strategy succeeded")
	}
	if step := churnApply(t, c, churn.Change{Kind: churn.ChangeLeave, Member: "c1"}); len(step.Moves) != 2 {
		t.Errorf("a failed switch changed the churn: leave moved %v", step.Moves)
	}
}

// TestRollout: c0 and c1 on range roll out [roundrobin, range], then
// [roundrobin]. Until c1 has restarted the only common strategy is
// range; when it has (step 2) both prefer roundrobin and the group
// switches, moving what switchMoves says; the second phase keeps
// roundrobin and moves nothing.
func TestRollout(t *testing.T) {
	r := coordinator.Rollout{
		Members: []coordinator.VoteMember{{ID: "c0", Protocols: []string{"range"}}, {ID: "c1", Protocols: []string{"range"}}},
		Phases:  [][]string{{"roundrobin", "range"}, {"roundrobin"}},
	}
	steps, err := churn.Rollout(r, map[string]int32{"t": 4})
	if err != nil {
		t.Fatal(err)
	}
	var winners []string
	for i, s := range steps {
		winners = append(winners, s.Vote.Winner)
		if s.Switched != (i == 2) {
			t.Errorf("step %d: switched %v", i, s.Switched)
		}
	}
	if diff := cmp.Diff([]string{"range", "range", "roundrobin", "roundrobin", "roundrobin"}, winners); diff != "" {
		t.Fatalf("winners mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(switchMoves, steps[2].Moves); diff != "" {
		t.Errorf("step 2 moves mismatch (-want +got):\n%s", diff)
	}
	if want := (assign.Assignment{"c0": assigntest.TPs("t", 0, 2), "c1": assigntest.TPs("t", 1, 3)}); !cmp.Equal(want, steps[4].Assignment) {
		t.Errorf("last assignment %v, want %v", steps[4].Assignment, want)
	}
	votesOnly, err := churn.Rollout(r, nil)
	if err != nil || len(votesOnly) != len(steps) || votesOnly[2].Switched || votesOnly[2].Assignment != nil {
		t.Errorf("Rollout without topics: %v, %+v", err, votesOnly)
	}
}
