package coordinator_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// Two members prefer range, one roundrobin: range wins. A fourth member
// offering only sticky shares nothing with the group and is refused.
func ExampleVote() {
	members := []coordinator.VoteMember{
		{ID: "c0", Protocols: []string{"range", "roundrobin"}},
		{ID: "c1", Protocols: []string{"roundrobin", "range"}},
		{ID: "c2", Protocols: []string{"range", "roundrobin"}},
		{ID: "c3", Protocols: []string{"sticky"}},
	}
	r, err := coordinator.Vote(members, coordinator.JavaCoordinator, coordinator.ClassicGroup)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("candidates:", r.Candidates)
	fmt.Println("tally:", r.Tally)
	fmt.Println("winner:", r.Winner)
	for _, e := range r.Refused {
		fmt.Println("refused:", e)
	}
	// Output:
	// candidates: [range roundrobin]
	// tally: [{range 2} {roundrobin 1}]
	// winner: range
	// refused: assign: member "c3" (at index 3): inconsistent group protocol: no strategy in common with every member of the group
}

// On a tie the two coordinators disagree: the Java one iterates range
// (bucket 9 of its HashMap) before roundrobin (bucket 10), the Scala one
// roundrobin before range.
func ExampleVote_tie() {
	members := []coordinator.VoteMember{
		{ID: "c0", Protocols: []string{"range", "roundrobin"}},
		{ID: "c1", Protocols: []string{"roundrobin", "range"}},
	}
	for _, c := range []coordinator.Coordinator{coordinator.JavaCoordinator, coordinator.ScalaCoordinator} {
		r, _ := coordinator.Vote(members, c, coordinator.ClassicGroup)
		fmt.Printf("%s: %s\n", c, r.Winner)
	}
	// Output:
	// java: range
	// scala: roundrobin
}

func ExampleClientProtocol() {
	for _, strategies := range [][]string{
		{"range"},
		{"cooperative-sticky", "range"},
		{"cooperative-sticky"},
	} {
		p, _ := coordinator.ClientProtocol(strategies)
		fmt.Println(strategies, p)
	}
	// Output:
	// [range] eager
	// [cooperative-sticky range] eager
	// [cooperative-sticky] cooperative
}

// Kafka's documented upgrade from range to cooperative-sticky, as two
// rolling bounces of a three-member group: no member is ever refused, the
// vote switches to cooperative-sticky once every member offers it, and the
// group turns cooperative once the last member has dropped range.
func ExampleSimulateRollout() {
	steps, err := coordinator.SimulateRollout(coordinator.Rollout{
		Members: []coordinator.VoteMember{
			{ID: "c0", Protocols: []string{"range"}},
			{ID: "c1", Protocols: []string{"range"}},
			{ID: "c2", Protocols: []string{"range"}},
		},
		Phases: [][]string{
			{"cooperative-sticky", "range"},
			{"cooperative-sticky"},
		},
		Coordinator: coordinator.JavaCoordinator,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range steps {
		var protocols []string
		for _, p := range s.Protocols {
			protocols = append(protocols, p.Protocol.String())
		}
		fmt.Printf("phase %2d restart %-2s winner %-18s %v safe=%v\n",
			s.Phase+1, s.Restarted, s.Vote.Winner, protocols, s.Safe())
	}
	// Output:
	// phase  0 restart    winner range              [eager eager eager] safe=true
	// phase  1 restart c0 winner range              [eager eager eager] safe=true
	// phase  1 restart c1 winner range              [eager eager eager] safe=true
	// phase  1 restart c2 winner cooperative-sticky [eager eager eager] safe=true
	// phase  2 restart c0 winner cooperative-sticky [eager eager cooperative] safe=true
	// phase  2 restart c1 winner cooperative-sticky [eager cooperative cooperative] safe=true
	// phase  2 restart c2 winner cooperative-sticky [cooperative cooperative cooperative] safe=true
}

// A one-step switch from range to cooperative-sticky: the restarted member
// shares no strategy with the members still on range and is refused.
func ExampleSimulateRollout_oneStep() {
	steps, _ := coordinator.SimulateRollout(coordinator.Rollout{
		Members: []coordinator.VoteMember{
			{ID: "c0", Protocols: []string{"range"}},
			{ID: "c1", Protocols: []string{"range"}},
		},
		Phases:      [][]string{{"cooperative-sticky"}},
		Coordinator: coordinator.ScalaCoordinator,
	})
	for _, e := range steps[1].Vote.Refused {
		fmt.Println(e)
	}
	// Output:
	// assign: member "c0" (at index 1): inconsistent group protocol: no strategy in common with every member of the group
}
