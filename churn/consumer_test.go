package churn

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/google/go-cmp/cmp"
)

// TestChurnUniformReconciles follows, by hand, a join under the consumer
// protocol. A and B (HashMap order A, B: their hashes 65 and 66 fall in
// buckets 1 and 2) share t-0..3 as A 0,1 | B 2,3: quotas of two,
// contiguous chunks. C joins: quotas of one with one +1; A, first,
// keeps both of its partitions with the +1, B keeps 2 and releases 3,
// which C takes. Heartbeating A, B, C: in round 1 B must revoke 3 and C
// waits for it (UNRELEASED_PARTITIONS); in round 2 B has revoked it and C
// receives it. Two rounds, one partition revoked, one stop of one round.
func TestChurnUniformReconciles(t *testing.T) {
	g := assigntest.ThreeOnFour()
	c := g.Members[2]
	g.Members = g.Members[:2]
	ch, first, err := NewChurn(assign.Uniform{}, g)
	if err != nil {
		t.Fatal(err)
	}
	wantFirst := assign.Assignment{"A": assigntest.TPs("t", 0, 1), "B": assigntest.TPs("t", 2, 3)}
	if diff := cmp.Diff(wantFirst, first.After); diff != "" {
		t.Fatalf("fresh group mismatch (-want +got):\n%s", diff)
	}
	if first.Rounds != 1 || first.Revoked != 0 || first.Stops != nil {
		t.Errorf("fresh group: %d rounds, %d revoked, stops %v; want 1, 0, none", first.Rounds, first.Revoked, first.Stops)
	}
	step, err := ch.Apply(Change{Kind: ChangeJoin, Member: c.ID, Topics: c.Topics, Given: GivenTopics})
	if err != nil {
		t.Fatal(err)
	}
	wantAfter := assign.Assignment{"A": assigntest.TPs("t", 0, 1), "B": assigntest.TPs("t", 2), "C": assigntest.TPs("t", 3)}
	if diff := cmp.Diff(wantAfter, step.After); diff != "" {
		t.Errorf("after C joins mismatch (-want +got):\n%s", diff)
	}
	wantStops := []coordinator.Stop{{Partition: assign.TopicPartition{Topic: "t", Partition: 3}, From: "B", To: "C", Revoked: 1, Received: 2}}
	if diff := cmp.Diff(wantStops, step.Stops); diff != "" {
		t.Errorf("stops mismatch (-want +got):\n%s", diff)
	}
	if step.Rounds != 2 || step.Revoked != 1 || len(step.Moves) != 1 || !step.Moves[0].Deferred {
		t.Errorf("join: %d rounds, %d revoked, moves %v; want 2, 1, one deferred", step.Rounds, step.Revoked, step.Moves)
	}
}
