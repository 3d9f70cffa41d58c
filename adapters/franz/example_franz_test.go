package franz_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
)

// A consumer of group "checkout" whose leader assigns with our
// cooperative-sticky. It runs against kfake, franz-go's in-process broker;
// a program of yours passes its brokers' addresses to kgo.SeedBrokers
// instead.
func ExampleMustBalancer() {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "orders"))
	if err != nil {
		panic(err)
	}
	defer cluster.Close()

	assigned := make(chan map[string][]int32, 1)
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(cluster.ListenAddrs()...),
		kgo.ConsumerGroup("checkout"), kgo.ConsumeTopics("orders"),
		kgo.Balancers(franz.MustBalancer(assign.CooperativeSticky{})),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			select {
			case assigned <- a:
			default: // a later round's; this example reads the first
			}
		}),
	)
	if err != nil {
		panic(err)
	}
	defer cl.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("order 1")}).FirstErr(); err != nil {
		panic(err)
	}
	for {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			fmt.Println("no record within 10 s")
			return
		}
		if rs := fs.Records(); len(rs) > 0 {
			a := <-assigned
			slices.Sort(a["orders"])
			fmt.Println("assigned orders", a["orders"])
			fmt.Println("consumed", string(rs[0].Value))
			return
		}
	}
	// Output:
	// assigned orders [0 1 2]
	// consumed order 1
}

// Balancer returns the error MustBalancer panics with: here, that the
// group coordinator's uniform assignor cannot run in a client.
func ExampleBalancer() {
	_, err := franz.Balancer(assign.Uniform{})
	fmt.Println(err)
	// Output:
	// franz: uniform: the strategy is a group coordinator's (KIP-848 server-side), which a classic group's leader cannot run
}
