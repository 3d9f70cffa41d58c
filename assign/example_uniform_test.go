package assign_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// The doc comment's example: C0 and C1 on t0 and t1, three partitions
// each, nothing held. Kafka's UniformAssignor prints the same (see
// assign/testdata/kip848).
func ExampleUniform() {
	t0, _ := assign.ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	t1, _ := assign.ParseTopicID("AAAAAAAAAAAAAAAAAAAAAg")
	g := assign.Group{
		Topics:   map[string]int32{"t0": 3, "t1": 3},
		TopicIDs: map[string]assign.TopicID{"t0": t0, "t1": t1},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	a, err := assign.Uniform{Kafka: assign.Kafka41}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", a["C0"])
	fmt.Println("C1:", a["C1"])
	// Output:
	// C0: [t1-0 t1-1 t1-2]
	// C1: [t0-0 t0-1 t0-2]
}

func ExampleServerRange() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	a, err := assign.ServerRange{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", a["C0"])
	fmt.Println("C1:", a["C1"])
	// Output:
	// C0: [t0-0 t0-1 t1-0 t1-1]
	// C1: [t0-2 t1-2]
}
