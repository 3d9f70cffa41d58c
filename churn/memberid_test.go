package churn_test

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
)

// TestRestartedID follows one simulation's restarts in order, with one
// map of counts, as simulate --restart does.
func TestRestartedID(t *testing.T) {
	g := assign.Group{Members: []assign.Member{{ID: "c0"}, {ID: "c1"}, {ID: "c1-r1"}, {ID: "my-rack"}}}
	restarts := make(map[string]int)
	steps := []struct {
		name, ref, want string
	}{
		{"first restart", "c0", "c0-r1"},
		{"a later restart counts on from the first ID", "c0-r1", "c0-r2"},
		{"restarting by the first ID counts on too", "c0", "c0-r3"},
		{"an ID in use is skipped", "c1", "c1-r2"},
		{"-r not followed by a number is part of the ID", "my-rack", "my-rack-r1"},
		{"-r followed by more than a number too", "x-r1a", "x-r1a-r1"},
	}
	for _, s := range steps {
		if got := churn.RestartedID(g, s.ref, restarts); got != s.want {
			t.Errorf("%s: RestartedID(%q) = %q, want %q", s.name, s.ref, got, s.want)
		}
	}
	if restarts["c0"] != 3 || restarts["c1"] != 2 {
		t.Errorf("restarts = %v, want c0:3 and c1:2 among them", restarts)
	}
}
