package coordinator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
)

func renderRounds(rounds []ReconcileRound) []string {
	var out []string
	for _, r := range rounds {
		var b strings.Builder
		for i, m := range r.Members {
			if i > 0 {
				b.WriteString(" | ")
			}
			fmt.Fprintf(&b, "%s %s@%d %v", m.ID, m.State, m.Epoch, m.Assigned)
			if len(m.PendingRevocation) > 0 {
				fmt.Fprintf(&b, " revoking %v", m.PendingRevocation)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestReconcile works by hand the reconciliation of Kafka 4.0.0's answer
// for the balanced group of TestUniformWhoTakesThePlusOne: A 0 | B 1 |
// C 2,3 at epoch 1 towards A 0,3 | B 1 | C 2 at epoch 2.
//
// Heartbeating A, B, C: in round 1 A keeps 0 and moves to epoch 2, but 3
// is C's (UNRELEASED_PARTITIONS); B is done; C must revoke 3
// (UNREVOKED_PARTITIONS, epoch 1). In round 2 A heartbeats before C has
// released 3 and still waits; C acknowledges and is done. In round 3 A
// gets 3. Heartbeating C first, two rounds suffice.
func TestReconcile(t *testing.T) {
	current := assign.Assignment{"A": assigntest.TPs("t", 0), "B": assigntest.TPs("t", 1), "C": assigntest.TPs("t", 2, 3)}
	target := assign.Assignment{"A": assigntest.TPs("t", 0, 3), "B": assigntest.TPs("t", 1), "C": assigntest.TPs("t", 2)}
	tests := []struct {
		order []string
		want  []string
	}{
		{[]string{"A", "B", "C"}, []string{
			"A UNRELEASED_PARTITIONS@2 [t-0] | B STABLE@2 [t-1] | C UNREVOKED_PARTITIONS@1 [t-2] revoking [t-3]",
			"A UNRELEASED_PARTITIONS@2 [t-0] | B STABLE@2 [t-1] | C STABLE@2 [t-2]",
			"A STABLE@2 [t-0 t-3] | B STABLE@2 [t-1] | C STABLE@2 [t-2]",
		}},
		{[]string{"C", "A", "B"}, []string{
			"C UNREVOKED_PARTITIONS@1 [t-2] revoking [t-3] | A UNRELEASED_PARTITIONS@2 [t-0] | B STABLE@2 [t-1]",
			"C STABLE@2 [t-2] | A STABLE@2 [t-0 t-3] | B STABLE@2 [t-1]",
		}},
	}
	for _, tc := range tests {
		rounds, err := Reconcile(current, target, tc.order, 1)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, renderRounds(rounds)); diff != "" {
			t.Errorf("order %v: mismatch (-want +got):\n%s", tc.order, diff)
		}
	}
}

// TestStopsNotFromDeparted: a partition whose owner left is free at once;
// nobody revokes it, so it is no stop. A holds t-0, t-1 and leaves; B
// receives both in its first heartbeat.
func TestStopsNotFromDeparted(t *testing.T) {
	current := assign.Assignment{"A": assigntest.TPs("t", 0, 1)}
	target := assign.Assignment{"B": assigntest.TPs("t", 0, 1)}
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
	m, err := PreviewMigration(assigntest.ThreeOnFour([]int32{3}, []int32{0, 1}, []int32{2}), assign.ServerRange{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Stop{
		{assign.TopicPartition{Topic: "t", Partition: 0}, "B", "A", 1, 3},
		{assign.TopicPartition{Topic: "t", Partition: 1}, "B", "A", 1, 3},
		{assign.TopicPartition{Topic: "t", Partition: 2}, "C", "B", 1, 3},
		{assign.TopicPartition{Topic: "t", Partition: 3}, "A", "C", 1, 2},
	}
	if diff := cmp.Diff(want, m.Stops); diff != "" {
		t.Errorf("stops mismatch (-want +got):\n%s", diff)
	}
}

// TestNextAssignment: a member owning a partition outside its target must
// revoke it and is given nothing; one that owns nothing outside it is
// given what nobody else holds, and waits for the rest.
func TestNextAssignment(t *testing.T) {
	held := func(tp assign.TopicPartition) bool { return tp.Partition == 2 }
	tests := []struct {
		name                string
		owned, target       []assign.TopicPartition
		wantRevoke, wantGet []assign.TopicPartition
		wantUnreleased      bool
	}{
		{"revoke first", assigntest.TPs("t", 0, 1), assigntest.TPs("t", 1, 3), assigntest.TPs("t", 0), nil, false},
		{"take what is free, wait for t-2", assigntest.TPs("t", 1), assigntest.TPs("t", 1, 2, 3), nil, assigntest.TPs("t", 3), true},
		{"stable", assigntest.TPs("t", 1), assigntest.TPs("t", 1), nil, nil, false},
		{"everything from nothing", nil, assigntest.TPs("t", 0, 1), nil, assigntest.TPs("t", 0, 1), false},
	}
	for _, tc := range tests {
		revoke, grant, unreleased := NextAssignment(tc.owned, tc.target, held)
		if !cmp.Equal(tc.wantRevoke, revoke) || !cmp.Equal(tc.wantGet, grant) || unreleased != tc.wantUnreleased {
			t.Errorf("%s: revoke %v, grant %v, unreleased %v; want %v, %v, %v", tc.name, revoke, grant, unreleased, tc.wantRevoke, tc.wantGet, tc.wantUnreleased)
		}
	}
}
