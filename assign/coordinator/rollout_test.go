package coordinator_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"pgregory.net/rapid"
)

func rangeGroup(n int) []coordinator.VoteMember {
	var ms []coordinator.VoteMember
	for i := range n {
		ms = append(ms, coordinator.VoteMember{ID: fmt.Sprintf("c%d", i), Protocols: []string{"range"}})
	}
	return ms
}

// TestTwoStepUpgradeIsSafe: Kafka's documented upgrade to
// cooperative-sticky never refuses a member and never falls back, on
// either coordinator and for any restart order, and ends with a
// cooperative group using cooperative-sticky.
func TestTwoStepUpgradeIsSafe(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		members := rangeGroup(rapid.IntRange(1, 7).Draw(t, "members"))
		var ids []string
		for _, m := range members {
			ids = append(ids, m.ID)
		}
		steps, err := coordinator.SimulateRollout(coordinator.Rollout{
			Members:     members,
			Phases:      [][]string{{"cooperative-sticky", "range"}, {"cooperative-sticky"}},
			Order:       rapid.Permutation(ids).Draw(t, "order"),
			Coordinator: rapid.SampledFrom([]coordinator.Coordinator{coordinator.JavaCoordinator, coordinator.ScalaCoordinator}).Draw(t, "coordinator"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := 1 + 2*len(members); len(steps) != want {
			t.Fatalf("%d steps, want %d", len(steps), want)
		}
		for i, s := range steps {
			if !s.Safe() {
				t.Fatalf("step %d (%s) is unsafe: refused %v, fell back %v", i, s.Restarted, s.Vote.Refused, s.FellBack)
			}
			// Phase 1 keeps range until its last restart.
			if s.Phase == 0 && i < len(members) && s.Vote.Winner != "range" {
				t.Fatalf("step %d: winner %s during phase 1, want range", i, s.Vote.Winner)
			}
		}
		last := steps[len(steps)-1]
		if last.Vote.Winner != "cooperative-sticky" || last.Eager {
			t.Fatalf("final step: winner %s, eager %v; want cooperative-sticky, cooperative", last.Vote.Winner, last.Eager)
		}
	})
}

// TestOneStepSwitchIsRefused: going straight from [range] to
// [cooperative-sticky] gets the first restarted member refused with
// INCONSISTENT_GROUP_PROTOCOL whenever another member is left on range.
func TestOneStepSwitchIsRefused(t *testing.T) {
	for n := 2; n <= 5; n++ {
		steps, err := coordinator.SimulateRollout(coordinator.Rollout{
			Members:     rangeGroup(n),
			Phases:      [][]string{{"cooperative-sticky"}},
			Coordinator: coordinator.JavaCoordinator,
		})
		if err != nil {
			t.Fatal(err)
		}
		first := steps[1]
		if !first.Refused() || first.Vote.Refused[0].Member != "c0" || !errors.Is(first.Vote.Refused[0], coordinator.ErrInconsistentProtocol) {
			t.Errorf("n=%d: first restart refused %v, want c0 with INCONSISTENT_GROUP_PROTOCOL", n, first.Vote.Refused)
		}
		for _, s := range steps[1 : len(steps)-1] {
			if !s.Refused() {
				t.Errorf("n=%d: restart of %s not refused while range members remain", n, s.Restarted)
			}
		}
		if last := steps[len(steps)-1]; last.Refused() || last.Vote.Winner != "cooperative-sticky" {
			t.Errorf("n=%d: after the last restart winner %s, refused %v", n, last.Vote.Winner, last.Vote.Refused)
		}
	}
}

// A rollout whose every list shares a strategy with the list before it is
// never refused; one that shares none refuses its first restart (with two
// members or more).
func TestRolloutOverlapProperty(t *testing.T) {
	pool := []string{"range", "roundrobin", "sticky", "cooperative-sticky", "custom"}
	rapid.Check(t, func(t *rapid.T) {
		list := func(label string) []string {
			return rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 1, 3, func(s string) string { return s }).Draw(t, label)
		}
		initial := list("initial")
		var members []coordinator.VoteMember
		for i := range rapid.IntRange(2, 5).Draw(t, "members") {
			members = append(members, coordinator.VoteMember{ID: fmt.Sprintf("c%d", i), Protocols: initial})
		}
		phases := [][]string{list("phase1"), list("phase2")}
		steps, err := coordinator.SimulateRollout(coordinator.Rollout{Members: members, Phases: phases, Coordinator: coordinator.JavaCoordinator})
		if err != nil {
			t.Fatal(err)
		}
		shares := func(a, b []string) bool {
			return slices.ContainsFunc(a, func(s string) bool { return slices.Contains(b, s) })
		}
		// At the end of each phase every member has the same list, so
		// nobody is refused there and each phase starts from a full group.
		prev := initial
		for k, phase := range phases {
			inPhase := steps[1+k*len(members) : 1+(k+1)*len(members)]
			switch {
			case shares(prev, phase) && slices.ContainsFunc(inPhase, coordinator.RolloutStep.Refused):
				t.Fatalf("phase %d shares a strategy with the list before, yet a member was refused", k+1)
			case !shares(prev, phase) && !inPhase[0].Refused():
				t.Fatalf("phase %d shares nothing with the list before, yet its first restart was accepted", k+1)
			}
			prev = phase
		}
	})
}

func TestSimulateInputErrors(t *testing.T) {
	for _, order := range [][]string{{"c9"}, {"c0", "c0"}} {
		_, err := coordinator.SimulateRollout(coordinator.Rollout{Members: rangeGroup(2), Phases: [][]string{{"sticky"}}, Order: order})
		var ie *assign.InputError
		if !errors.As(err, &ie) {
			t.Errorf("SimulateRollout(order %q) error = %v, want an *InputError", order, err)
		}
	}
}
