package churn_test

import (
	"fmt"
	"log"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
)

// A rolling restart of a dynamic member under Range: it leaves and rejoins
// with a new member.id, so the partitions it had move to "itself".
func ExampleChurn() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0"}, Generation: -1},
			{ID: "C1", Topics: []string{"t0"}, Generation: -1},
		},
	}
	c, _, err := churn.NewChurn(assign.Range{}, g)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.Assignment()["C0"], c.Assignment()["C1"])
	step, err := c.Apply(churn.Change{Kind: churn.ChangeRestart, Member: "C1", NewID: "C1-2"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(step.Notes[0])
	fmt.Println(step.Rebalances, "rebalances,", step.Revoked, "partitions revoked")
	for _, mv := range step.Moves {
		fmt.Printf("%s: %s → %s (%s)\n", mv.Partition, mv.From, mv.To, mv.Reason)
	}
	// Output:
	// [t0-0 t0-1] [t0-2]
	// C1 is dynamic: it leaves (LeaveGroup on close) and rejoins as C1-2, a new member.id: two rebalances
	// 2 rebalances, 5 partitions revoked
	// t0-2: C1 → C1-2 (its owner restarted with a new member.id)
}
