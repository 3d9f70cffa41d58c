package churn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// TestRolloutReuse: Rollout, which keeps a step's assignment where the
// winner and the accepted members do not change, returns what a rebalance
// at every step returns, on random rolling restarts: one to seven
// members, one to three phases, lists drawn from the classic strategies
// (so that some steps refuse members and some switch strategy), one or
// two topics.
func TestRolloutReuse(t *testing.T) {
	strategies := []string{"range", "roundrobin", "sticky", "cooperative-sticky"}
	rng := rand.New(rand.NewPCG(30, 11))
	list := func() []string {
		l := rng.Perm(len(strategies))[:1+rng.IntN(2)]
		out := make([]string, len(l))
		for i, k := range l {
			out[i] = strategies[k]
		}
		return out
	}
	reused := 0
	for k := range 300 {
		var r coordinator.Rollout
		start := list()
		for i := range 1 + rng.IntN(7) {
			r.Members = append(r.Members, coordinator.VoteMember{ID: fmt.Sprintf("c%d", i), Protocols: start})
		}
		for range 1 + rng.IntN(3) {
			r.Phases = append(r.Phases, list())
		}
		topics := map[string]int32{"a": int32(1 + rng.IntN(20))}
		if rng.IntN(2) == 0 {
			topics["b"] = int32(1 + rng.IntN(20))
		}
		want, err := rollout(r, topics, false)
		if err != nil {
			t.Fatalf("rollout %d (%v, phases %v): %v", k, start, r.Phases, err)
		}
		got, err := rollout(r, topics, true)
		if err != nil {
			t.Fatalf("rollout %d (%v, phases %v) with reuse: %v", k, start, r.Phases, err)
		}
		if diff := cmp.Diff(computed(want), computed(got)); diff != "" {
			t.Fatalf("rollout %d (%v, phases %v, topics %v): reuse differs (-rebalance every step +reuse):\n%s", k, start, r.Phases, topics, diff)
		}
		for i := 1; i < len(got); i++ {
			if got[i].Assignment != nil && fmt.Sprintf("%p", got[i].Assignment) == fmt.Sprintf("%p", got[i-1].Assignment) {
				reused++
			}
		}
	}
	if reused == 0 {
		t.Error("no step reused the assignment of the step before: the test exercises nothing")
	}
	t.Logf("%d steps reused the assignment before them", reused)
}

// computed keeps what Rollout adds to the coordinator's steps.
func computed(steps []RolloutStep) []RolloutStep {
	out := make([]RolloutStep, len(steps))
	for i, s := range steps {
		out[i] = RolloutStep{Assignment: s.Assignment, Switched: s.Switched, Moves: s.Moves}
	}
	return out
}
