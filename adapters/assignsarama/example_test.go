package assignsarama_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/IBM/sarama"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
)

// A consumer group "checkout" whose leader assigns with our
// cooperative-sticky, with sarama's default protocol version. (Compiled,
// not run: it needs a broker. e2e/sarama/example_test.go in the repository
// runs the same against an in-process broker.)
func ExampleMustStrategy() {
	cfg := sarama.NewConfig()
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
		assignsarama.MustStrategy(assign.CooperativeSticky{})}
	group, err := sarama.NewConsumerGroup([]string{"localhost:9092"}, "checkout", cfg)
	if err != nil {
		panic(err)
	}
	defer group.Close()
}

// What a leader balancing with Kafka's range hands out to members C0 and C1
// subscribed to topics t0 and t1 of three partitions each, as sarama asks
// its strategy for the plan.
func ExampleMustStrategy_plan() {
	s := assignsarama.MustStrategy(assign.Range{})
	members := map[string]sarama.ConsumerGroupMemberMetadata{
		"C0": {Topics: []string{"t0", "t1"}},
		"C1": {Topics: []string{"t0", "t1"}},
	}
	plan, err := s.Plan(members, map[string][]int32{"t0": {0, 1, 2}, "t1": {0, 1, 2}})
	if err != nil {
		panic(err)
	}
	for _, id := range slices.Sorted(maps.Keys(plan)) {
		fmt.Println(id, plan[id]["t0"], plan[id]["t1"])
	}
	// Output:
	// C0 [0 1] [0 1]
	// C1 [2] [2]
}
