package assign_test

import (
	"fmt"
	"log"

	"github.com/assigncalc/assigncalc/assign"
)

// Example_readme is the library quick start of README.md, which a test of
// cmd/assigncalc keeps identical to this body and its output.
func Example_readme() {
	g := assign.Group{
		Topics: map[string]int32{"t0": 3, "t1": 3},
		Members: []assign.Member{
			{ID: "C0", Topics: []string{"t0", "t1"}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	s, err := assign.Lookup("range") // or a Java class name: org.apache.kafka.clients.consumer.RangeAssignor
	if err != nil {
		log.Fatal(err)
	}
	a, err := s.Assign(g)
	if err != nil {
		log.Fatal(err) // an *assign.InputError naming the member, topic or partition at fault
	}
	for _, m := range g.Members {
		fmt.Println(m.ID, a[m.ID])
	}
	fmt.Println("spread:", assign.Summarize(g, a).Spread)
	// Output:
	// C0 [t0-0 t0-1 t1-0 t1-1]
	// C1 [t0-2 t1-2]
	// spread: 2
}
