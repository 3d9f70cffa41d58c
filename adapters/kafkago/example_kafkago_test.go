package kafkago_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/segmentio/kafka-go"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
)

// A Reader of group "checkout" whose leader assigns with our sticky. The
// logger is how the balancer learns what the Reader was assigned.
// (Compiled, not run: it needs a broker. e2e/kafkago/example_test.go in
// the repository runs the same against an in-process broker.)
func ExampleBalancer() {
	bal, err := kafkago.Balancer(assign.Sticky{})
	if err != nil {
		panic(err)
	}
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:        []string{"localhost:9092"},
		GroupID:        "checkout",
		GroupTopics:    []string{"orders"},
		GroupBalancers: []kafka.GroupBalancer{bal},
		Logger:         bal.Logger(nil),
	})
	defer r.Close()
}

// What a leader balancing with Kafka's range hands out to members C0 and C1
// subscribed to topics t0 and t1 of three partitions each: kafka-go's own
// RangeGroupBalancer gives the same here, but deals topic by topic in map
// order and ignores racks.
func ExampleGroupBalancer_AssignGroups() {
	bal, err := kafkago.Balancer(assign.Range{})
	if err != nil {
		panic(err)
	}
	members := []kafka.GroupMember{
		{ID: "C0", Topics: []string{"t0", "t1"}},
		{ID: "C1", Topics: []string{"t0", "t1"}},
	}
	var partitions []kafka.Partition
	for _, t := range []string{"t0", "t1"} {
		for p := range 3 {
			partitions = append(partitions, kafka.Partition{Topic: t, ID: p})
		}
	}
	a := bal.AssignGroups(members, partitions)
	for _, id := range slices.Sorted(maps.Keys(a)) {
		fmt.Println(id, a[id]["t0"], a[id]["t1"])
	}
	// Output:
	// C0 [0 1] [0 1]
	// C1 [2] [2]
}
