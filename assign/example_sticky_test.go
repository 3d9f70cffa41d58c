package assign_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// ExampleSticky is the worked example of Sticky's documentation: a fresh
// group of two, then a third member joining.
func ExampleSticky() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	first, err := assign.Sticky{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", first["C0"])
	fmt.Println("C1:", first["C1"])

	// C0 and C1 rejoin owning what they got at generation 1; C2 joins.
	g.Members[0].Owned, g.Members[0].Generation = first["C0"], 1
	g.Members[1].Owned, g.Members[1].Generation = first["C1"], 1
	g.Members = append(g.Members, assign.Member{ID: "C2", Topics: []string{"t0", "t1"}, Generation: -1})
	second, err := assign.Sticky{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", second["C0"])
	fmt.Println("C1:", second["C1"])
	fmt.Println("C2:", second["C2"])
	// Output:
	// C0: [t0-0 t0-2 t1-1]
	// C1: [t0-1 t1-0 t1-2]
	// C0: [t0-0 t1-1]
	// C1: [t0-1 t1-0]
	// C2: [t0-2 t1-2]
}

// ExampleCooperativeSticky is the same join under the cooperative
// protocol: C2 gets its partitions only in the follow-up round, once C0
// and C1 have revoked them.
func ExampleCooperativeSticky() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	g.Members[0].Owned = []assign.TopicPartition{{"t0", 0}, {"t0", 2}, {"t1", 1}}
	g.Members[1].Owned = []assign.TopicPartition{{"t0", 1}, {"t1", 0}, {"t1", 2}}
	g.Members[0].Generation, g.Members[1].Generation = 1, 1
	g.Members = append(g.Members, assign.Member{ID: "C2", Topics: []string{"t0", "t1"}, Generation: -1})
	plan, err := assign.CooperativeSticky{}.Plan(g)
	if err != nil {
		panic(err)
	}
	for _, id := range []string{"C0", "C1", "C2"} {
		fmt.Printf("%s: now %v, revokes %v, then gets %v\n", id, plan.Assignment[id], plan.Revoked[id], plan.Pending[id])
	}
	// Output:
	// C0: now [t0-0 t1-1], revokes [t0-2], then gets []
	// C1: now [t0-1 t1-0], revokes [t1-2], then gets []
	// C2: now [], revokes [], then gets [t0-2 t1-2]
}
