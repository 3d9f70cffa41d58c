package assignsarama_test

import (
	"github.com/IBM/sarama"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
)

// A consumer group "checkout" whose leader assigns with our
// cooperative-sticky. (Compiled, not run: it needs a broker.)
func ExampleStrategy() {
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
		assignsarama.Strategy(assign.CooperativeSticky{})}
	group, err := sarama.NewConsumerGroup([]string{"localhost:9092"}, "checkout", cfg)
	if err != nil {
		panic(err)
	}
	defer group.Close()
}
