package franz_test

import (
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
)

// A consumer of group "checkout" whose leader assigns with our
// cooperative-sticky. (Compiled, not run: it needs a broker.)
func ExampleBalancer() {
	cl, err := kgo.NewClient(
		kgo.SeedBrokers("localhost:9092"),
		kgo.ConsumerGroup("checkout"), kgo.ConsumeTopics("orders"),
		kgo.Balancers(franz.MustBalancer(assign.CooperativeSticky{})),
	)
	if err != nil {
		panic(err)
	}
	defer cl.Close()
}
