package assign

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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
	current := Assignment{"A": tps(0), "B": tps(1), "C": tps(2, 3)}
	target := Assignment{"A": tps(0, 3), "B": tps(1), "C": tps(2)}
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

// TestReconcileReachesUniform: from any valid current targets, the
// members reach Uniform's new target within three rounds.
func TestReconcileReachesUniform(t *testing.T) {
	for i := range 200 {
		g := randomKIP848Group(newTestRand(uint64(i)), "r")
		current := make(Assignment)
		for _, m := range g.Members {
			current[m.ID] = m.Owned
		}
		target, err := Uniform{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, m := range g.Members {
			order = append(order, m.ID)
		}
		rounds, err := Reconcile(current, target, order, 5)
		if err != nil || len(rounds) > 3 {
			t.Fatalf("group %d: %d rounds, %v", i, len(rounds), err)
		}
		last := rounds[len(rounds)-1]
		for _, m := range last.Members {
			want := target[m.ID]
			if len(want) == 0 {
				want = nil
			}
			if diff := cmp.Diff(want, m.Assigned); diff != "" {
				t.Fatalf("group %d member %s mismatch (-target +reached):\n%s", i, m.ID, diff)
			}
		}
	}
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 2)) }
