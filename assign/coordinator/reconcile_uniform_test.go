package coordinator_test

// TestReconcileReachesUniform lives in the external test package because
// it reads its groups with internal/groupfile, which imports
// assign/coordinator for the JSON form of the coordinator's answers.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/google/go-cmp/cmp"
)

// TestReconcileReachesUniform: from any valid current targets, the
// members reach Uniform's new target within three rounds. The groups are
// the random ones whose Uniform answers Kafka's own classes computed
// (assign/testdata/kip848/groups.jsonl): members sharing hash buckets,
// static members, deleted topics, stale and unbalanced targets.
func TestReconcileReachesUniform(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "kip848", "groups.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := groupfile.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		g := e.Group
		current := make(assign.Assignment)
		for _, m := range g.Members {
			current[m.ID] = m.Owned
		}
		target, err := assign.Uniform{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, m := range g.Members {
			order = append(order, m.ID)
		}
		rounds, err := coordinator.Reconcile(current, target, order, 5)
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
