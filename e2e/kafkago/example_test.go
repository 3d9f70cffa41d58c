package kafkago_test

import (
	"context"
	"fmt"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
)

// A kafka-go Reader of group "checkout" whose leader assigns with our
// sticky; the Reader's Logger is how the balancer learns what the Reader
// was assigned. It runs against kfake, franz-go's in-process broker; a
// program of yours passes its brokers' addresses instead. (This example
// lives here, not in adapters/kafkago, so that kfake, which needs a newer
// Go than kafka-go, stays out of kafka-go users' module graphs.)
func Example() {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	if err != nil {
		panic(err)
	}
	defer cluster.Close()
	brokers := cluster.ListenAddrs()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	w := &kafka.Writer{Addr: kafka.TCP(brokers...), Topic: "orders"}
	if err := w.WriteMessages(ctx, kafka.Message{Value: []byte("order 1")}); err != nil {
		panic(err)
	}
	w.Close()

	bal := kafkago.MustBalancer(assign.Sticky{})
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers:        brokers,
		GroupID:        "checkout",
		GroupTopics:    []string{"orders"},
		GroupBalancers: []kafka.GroupBalancer{bal},
		Logger:         bal.Logger(nil),
		StartOffset:    kafka.FirstOffset,
		MaxWait:        500 * time.Millisecond, // a fetch waits this long for records, and Close for the fetch
	})
	defer r.Close()
	m, err := r.ReadMessage(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("consumed", string(m.Value))
	// Output:
	// consumed order 1
}
