package coordinator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
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
		revoke, grant, unreleased := NextAssignment(assign.Kafka44, tc.owned, nil, tc.target, held)
		if !cmp.Equal(tc.wantRevoke, revoke) || !cmp.Equal(tc.wantGet, grant) || unreleased != tc.wantUnreleased {
			t.Errorf("%s: revoke %v, grant %v, unreleased %v; want %v, %v, %v", tc.name, revoke, grant, unreleased, tc.wantRevoke, tc.wantGet, tc.wantUnreleased)
		}
	}
}

// TestNextAssignmentOwnRevocation is KAFKA-19449, worked by hand from
// CurrentAssignmentBuilder.computeNextAssignment. Member A owned t-0 and
// t-1 and was asked to revoke t-0, which a new target gave to B; before A
// revoked, B left and the next target gives t-0 back to A. A's heartbeat
// acknowledging the revocation reports owning t-1; its pending revocation
// is t-0 and its target t-0, t-1. New assigned = {t-1} ∩ target = {t-1};
// nothing to revoke; pending assignment = {t-0}. The coordinator still
// records t-0 as held (A's pending revocation, until this heartbeat's
// outcome is written), so:
//
//   - Kafka 4.0 and 4.1 remove t-0 from the pending assignment as
//     unreleased: A goes to UNRELEASED_PARTITIONS with nothing new and gets
//     t-0 at its next heartbeat;
//   - Kafka 4.2, 4.3 and 4.4 skip the member's own pending revocation: A
//     gets t-0 at once and is STABLE.
func TestNextAssignmentOwnRevocation(t *testing.T) {
	nobody := func(assign.TopicPartition) bool { return false }
	owned, revoked, target := assigntest.TPs("t", 1), assigntest.TPs("t", 0), assigntest.TPs("t", 0, 1)
	tests := []struct {
		v              assign.KafkaVersion
		wantGrant      []assign.TopicPartition
		wantUnreleased bool
	}{
		{assign.Kafka40, nil, true},
		{assign.Kafka41, nil, true},
		{assign.Kafka42, assigntest.TPs("t", 0), false},
		{assign.Kafka43, assigntest.TPs("t", 0), false},
		{assign.Kafka44, assigntest.TPs("t", 0), false},
	}
	for _, tc := range tests {
		revoke, grant, unreleased := NextAssignment(tc.v, owned, revoked, target, nobody)
		if revoke != nil || !cmp.Equal(tc.wantGrant, grant) || unreleased != tc.wantUnreleased {
			t.Errorf("Kafka %v: revoke %v, grant %v, unreleased %v; want nil, %v, %v", tc.v, revoke, grant, unreleased, tc.wantGrant, tc.wantUnreleased)
		}
	}
	// A partition another member holds stays unreleased in every version:
	// the fix skips only the member's own pending revocations.
	held := func(tp assign.TopicPartition) bool { return tp.Partition == 0 }
	for _, v := range []assign.KafkaVersion{assign.Kafka40, assign.Kafka44} {
		if _, grant, unreleased := NextAssignment(v, owned, nil, target, held); grant != nil || !unreleased {
			t.Errorf("Kafka %v, t-0 held by another: grant %v, unreleased %v; want nil, true", v, grant, unreleased)
		}
	}
}

// TestReconcileSameInEveryVersion: towards one fixed target a member never
// revokes a partition its target holds, so KAFKA-19449 cannot apply and
// Kafka 4.0's rule gives the rounds 4.4's does, on random groups of up to
// five members and twelve partitions, each heartbeat order random.
func TestReconcileSameInEveryVersion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := []string{"A", "B", "C", "D", "E"}[:rapid.IntRange(1, 5).Draw(t, "members")]
		parts := rapid.IntRange(0, 12).Draw(t, "partitions")
		current, target := assign.Assignment{}, assign.Assignment{}
		for p := range parts {
			tp := assign.TopicPartition{Topic: "t", Partition: int32(p)}
			if c := rapid.IntRange(-1, len(ids)-1).Draw(t, "owner"); c >= 0 {
				current[ids[c]] = append(current[ids[c]], tp)
			}
			to := rapid.IntRange(0, len(ids)-1).Draw(t, "target")
			target[ids[to]] = append(target[ids[to]], tp)
		}
		order := rapid.Permutation(ids).Draw(t, "order")
		old, errOld := reconcile(assign.Kafka40, current, target, order, 1)
		now, errNow := reconcile(assign.Kafka44, current, target, order, 1)
		if errOld != nil || errNow != nil {
			t.Fatalf("errors: %v, %v", errOld, errNow)
		}
		if diff := cmp.Diff(renderRounds(now), renderRounds(old)); diff != "" {
			t.Fatalf("Kafka 4.0 against 4.4 (-4.4 +4.0):\n%s", diff)
		}
	})
}
