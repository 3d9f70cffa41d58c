// Package failing holds what the e2e tests of the sarama and kafka-go
// adapters use to make a strategy fail at run time and to collect what
// the adapters report of it.
package failing

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/assigncalc/assigncalc/assign"
)

// ErrBroken is what a Flaky strategy fails with.
var ErrBroken = errors.New("broken on purpose")

// Flaky is a strategy that fails with ErrBroken while Fail is set. It
// embeds the interface, not a strategy of package assign, so that
// assign.AssignPacked runs its Assign.
type Flaky struct {
	assign.Strategy
	Fail *atomic.Bool
}

// Assign fails while Fail is set, and is the embedded strategy's otherwise.
func (f Flaky) Assign(g assign.Group) (assign.Assignment, error) {
	if f.Fail.Load() {
		return nil, ErrBroken
	}
	return f.Strategy.Assign(g)
}

// Reports collects what an adapter hands its OnError, safe for the
// adapter's goroutines.
type Reports struct {
	mu   sync.Mutex
	errs []error
}

// Add records err; pass it as the adapter's OnError.
func (r *Reports) Add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

// Get returns what has been recorded so far.
func (r *Reports) Get() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}
