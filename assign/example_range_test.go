package assign_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// The examples are Kafka's javadoc example: members C0 and C1 both
// subscribe to topics t0 and t1, each with three partitions.

func ExampleRange() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	a, err := assign.Range{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", a["C0"])
	fmt.Println("C1:", a["C1"])
	// Output:
	// C0: [t0-0 t0-1 t1-0 t1-1]
	// C1: [t0-2 t1-2]
}

func ExampleRoundRobin() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	a, err := assign.RoundRobin{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", a["C0"])
	fmt.Println("C1:", a["C1"])
	// Output:
	// C0: [t0-0 t0-2 t1-1]
	// C1: [t0-1 t1-0 t1-2]
}
