package coordinator

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
)

// TestPreviewMigration works two migrations of threeOnFour's group (t-0..3
// over A, B, C) by hand.
func TestPreviewMigration(t *testing.T) {
	// From Range's A 0,1 | B 2 | C 3 to uniform 4.1: A takes the +1 and
	// fills its quota of 2 with what it holds, B and C keep theirs.
	// Nothing moves, and one round of heartbeats settles everyone at
	// epoch 2.
	m, err := PreviewMigration(assigntest.ThreeOnFour([]int32{0, 1}, []int32{2}, []int32{3}), assign.Uniform{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Moves) != 0 || len(m.Rounds) != 1 {
		t.Errorf("moves %v, %d rounds; want none and one", m.Moves, len(m.Rounds))
	}

	// From A 3 | B 0,1 | C 2 to server-side range (A 0,1 | B 2 | C 3):
	// every partition moves. Round 1: everyone must revoke everything.
	// Round 2: A has revoked 3 but 0, 1 are B's until B's heartbeat; B
	// releases them but waits for 2, C's; C releases 2 and takes 3, which
	// A released earlier in the round. Round 3: A and B take theirs.
	m, err = PreviewMigration(assigntest.ThreeOnFour([]int32{3}, []int32{0, 1}, []int32{2}), assign.ServerRange{})
	if err != nil {
		t.Fatal(err)
	}
	wantMoves := []assign.Move{
		{Partition: assign.TopicPartition{Topic: "t", Partition: 0}, From: "B", To: "A"}, {Partition: assign.TopicPartition{Topic: "t", Partition: 1}, From: "B", To: "A"},
		{Partition: assign.TopicPartition{Topic: "t", Partition: 2}, From: "C", To: "B"}, {Partition: assign.TopicPartition{Topic: "t", Partition: 3}, From: "A", To: "C"},
	}
	if diff := cmp.Diff(wantMoves, m.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	wantRounds := []string{
		"A UNREVOKED_PARTITIONS@1 [] revoking [t-3] | B UNREVOKED_PARTITIONS@1 [] revoking [t-0 t-1] | C UNREVOKED_PARTITIONS@1 [] revoking [t-2]",
		"A UNRELEASED_PARTITIONS@2 [] | B UNRELEASED_PARTITIONS@2 [] | C STABLE@2 [t-3]",
		"A STABLE@2 [t-0 t-1] | B STABLE@2 [t-2] | C STABLE@2 [t-3]",
	}
	if diff := cmp.Diff(wantRounds, renderRounds(m.Rounds)); diff != "" {
		t.Errorf("rounds mismatch (-want +got):\n%s", diff)
	}
}
