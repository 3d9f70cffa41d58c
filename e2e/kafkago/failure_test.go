package kafkago_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
)

var errBroken = errors.New("broken on purpose")

// flaky is a strategy that fails while fail is set. It embeds the
// interface, not a strategy of package assign, so that assign.AssignPacked
// runs its Assign.
type flaky struct {
	assign.Strategy
	fail *atomic.Bool
}

func (f flaky) Assign(g assign.Group) (assign.Assignment, error) {
	if f.fail.Load() {
		return nil, errBroken
	}
	return f.Strategy.Assign(g)
}

// reports collects what the balancers hand OnError.
type reports struct {
	mu   sync.Mutex
	errs []error
}

func (r *reports) add(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err)
	r.mu.Unlock()
}

func (r *reports) get() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}

// A strategy that fails at run time: the kafka-go leader answers every
// member with a valid empty assignment (describe decodes each), reports
// the error once for that generation and does not retry, and the group
// assigns again at its next rebalance. The steps wait up to testTimeout
// for the group to settle, and a settled group is watched for a further
// quiet period, in which a leader that retried would report again.
func TestFailingStrategyAssignsNothingAndReportsOncePerGeneration(t *testing.T) {
	const quiet = time.Second // a looping leader reports many times in it
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t)
	var fail atomic.Bool
	var rep reports
	total := 0
	for _, n := range e2eTopics {
		total += int(n)
	}
	start := func(name string) {
		g.startReader(name, kafkago.MustBalancer(flaky{assign.Range{}, &fail}, kafkago.OnError(rep.add)))
	}
	step := func(what string, assigned bool, want int) {
		t.Helper()
		g.settle(what, func(s snapshot) error {
			n := 0
			for _, tps := range s.Assignment {
				n += len(tps)
			}
			if assigned && n != total || !assigned && n != 0 {
				return fmt.Errorf("%d partitions assigned", n)
			}
			if got := len(rep.get()); got != want {
				return fmt.Errorf("%d reports, want %d", got, want)
			}
			return nil
		})
		time.Sleep(quiet)
		errs := rep.get()
		for _, err := range errs {
			if !errors.Is(err, errBroken) {
				t.Errorf("%s: report %q, want errBroken", what, err)
			}
		}
		if len(errs) != want {
			t.Fatalf("%s: %d reports after a quiet %v, want %d: %v", what, len(errs), quiet, want, errs)
		}
	}

	fail.Store(true)
	start("r0")
	step("r0 joins a failing strategy", false, 1)

	fail.Store(false)
	start("r1")
	step("r1 joins, the strategy works again", true, 1)

	fail.Store(true)
	start("r2")
	step("r2 joins, the strategy fails again", false, 2)
}
