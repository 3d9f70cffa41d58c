package assign_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// The example of [assign.Simple]'s doc: two members and six partitions
// share nothing; five members and two partitions share each partition
// three ways, which [assign.Summarize] counts. Kafka's SimpleAssignor gives the same answers
// (testdata/share/scenarios.jsonl holds both groups).
func ExampleSimple() {
	t0, _ := assign.ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	t1, _ := assign.ParseTopicID("AAAAAAAAAAAAAAAAAAAAAg")
	both := []string{"t0", "t1"}
	g := assign.Group{
		Members:  []assign.Member{{ID: "C0", Topics: both}, {ID: "C1", Topics: both}},
		Topics:   map[string]int32{"t0": 3, "t1": 3},
		TopicIDs: map[string]assign.TopicID{"t0": t0, "t1": t1},
	}
	a, err := assign.Simple{}.Assign(g)
	if err != nil {
		panic(err)
	}
	fmt.Println("C0:", a["C0"])
	fmt.Println("C1:", a["C1"])

	shared := assign.Group{Topics: map[string]int32{"t0": 2}, TopicIDs: map[string]assign.TopicID{"t0": t0}}
	for i := range 5 {
		shared.Members = append(shared.Members, assign.Member{ID: fmt.Sprintf("C%d", i), Topics: []string{"t0"}})
	}
	a, err = assign.Simple{}.Assign(shared)
	if err != nil {
		panic(err)
	}
	for _, m := range shared.Members {
		fmt.Println(m.ID+":", a[m.ID])
	}
	fmt.Println(assign.VerifyShare(shared, a))
	st := assign.Summarize(shared, a)
	fmt.Println("shared:", st.Shared, "most:", st.MaxSharing)
	// Output:
	// C0: [t0-2 t1-0 t1-2]
	// C1: [t0-0 t0-1 t1-1]
	// C0: [t0-0]
	// C1: [t0-1]
	// C2: [t0-1]
	// C3: [t0-0 t0-1]
	// C4: [t0-0]
	// <nil>
	// shared: map[t0-0:3 t0-1:3] most: 3
}
