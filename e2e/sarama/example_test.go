package sarama_test

import (
	"context"
	"fmt"
	"time"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
)

// printer prints its claims and the first record, then ends the session.
type printer struct{ done context.CancelFunc }

func (printer) Setup(s sarama.ConsumerGroupSession) error {
	fmt.Println("assigned orders", s.Claims()["orders"])
	return nil
}

func (printer) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h printer) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for msg := range c.Messages() {
		fmt.Println("consumed", string(msg.Value))
		s.MarkMessage(msg, "")
		h.done()
	}
	return nil
}

// A sarama consumer group "checkout" whose leader assigns with our
// cooperative-sticky, with sarama's default protocol version. It runs
// against kfake, franz-go's in-process broker; a program of yours passes
// its brokers' addresses instead. (This example lives here, not in
// adapters/assignsarama, so that kfake and franz-go stay out of sarama
// users' module graphs.)
func Example() {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	brokers := cluster.ListenAddrs()

	cfg := sarama.NewConfig()
	cfg.Producer.Return.Successes = true // for the SyncProducer below
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
		assignsarama.MustStrategy(assign.CooperativeSticky{})}

	p, err := sarama.NewSyncProducer(brokers, cfg)
	if err != nil {
		panic(err)
	}
	defer p.Close()
	if _, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: "orders", Value: sarama.StringEncoder("order 1")}); err != nil {
		panic(err)
	}

	group, err := sarama.NewConsumerGroup(brokers, "checkout", cfg)
	if err != nil {
		panic(err)
	}
	defer group.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := group.Consume(ctx, []string{"orders"}, printer{cancel}); err != nil {
		panic(err)
	}
	// Output:
	// assigned orders [0]
	// consumed order 1
}
