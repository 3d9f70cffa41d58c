package assignsarama_test

import (
	"fmt"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
)

// Strategy returns the error MustStrategy panics with: here, that the
// group coordinator's uniform assignor cannot run in a client.
func ExampleStrategy() {
	_, err := assignsarama.Strategy(assign.Uniform{})
	fmt.Println(err)
	// Output:
	// assignsarama: uniform: the strategy is a group coordinator's (KIP-848 server-side), which a classic group's leader cannot run
}
