package assign

import (
	"testing"

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
	g := threeOnFour(t)
	c := g.Members[2]
	g.Members = g.Members[:2]
	ch, first, err := NewChurn(Uniform{}, g)
	if err != nil {
		t.Fatal(err)
	}
	wantFirst := Assignment{"A": tps(0, 1), "B": tps(2, 3)}
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
	wantAfter := Assignment{"A": tps(0, 1), "B": tps(2), "C": tps(3)}
	if diff := cmp.Diff(wantAfter, step.After); diff != "" {
		t.Errorf("after C joins mismatch (-want +got):\n%s", diff)
	}
	wantStops := []Stop{{Partition: TopicPartition{"t", 3}, From: "B", To: "C", Revoked: 1, Received: 2}}
	if diff := cmp.Diff(wantStops, step.Stops); diff != "" {
		t.Errorf("stops mismatch (-want +got):\n%s", diff)
	}
	if step.Rounds != 2 || step.Revoked != 1 || len(step.Moves) != 1 || !step.Moves[0].Deferred {
		t.Errorf("join: %d rounds, %d revoked, moves %v; want 2, 1, one deferred", step.Rounds, step.Revoked, step.Moves)
	}
}

// TestStopsNotFromDeparted: a partition whose owner left is free at once;
// nobody revokes it, so it is no stop. A holds t-0, t-1 and leaves; B
// receives both in its first heartbeat.
func TestStopsNotFromDeparted(t *testing.T) {
	current := Assignment{"A": tps(0, 1)}
	target := Assignment{"B": tps(0, 1)}
	rounds, err := Reconcile(current, target, []string{"B"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := Stops(current, rounds); len(rounds) != 1 || got != nil {
		t.Errorf("%d rounds, stops %v; want one round and no stop", len(rounds), got)
	}
}

// TestStopsMigration: the server-range migration of TestPreviewMigration
// stops every partition: t-3 from A's revocation in round 1 to C's
// heartbeat later in round 2, t-0..2 from round 1 to round 3 (t-2 to B,
// which waits for C in round 2).
func TestStopsMigration(t *testing.T) {
	m, err := PreviewMigration(threeOnFour(t, []int32{3}, []int32{0, 1}, []int32{2}), ServerRange{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Stop{
		{TopicPartition{"t", 0}, "B", "A", 1, 3},
		{TopicPartition{"t", 1}, "B", "A", 1, 3},
		{TopicPartition{"t", 2}, "C", "B", 1, 3},
		{TopicPartition{"t", 3}, "A", "C", 1, 2},
	}
	if diff := cmp.Diff(want, m.Stops); diff != "" {
		t.Errorf("stops mismatch (-want +got):\n%s", diff)
	}
}
