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

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

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

// A sticky balancer whose Reader does not log through it never learns
// what the Reader was assigned: it reports ErrNoLogger when its Reader
// joins a second time (here, when r1 joins), and a balancer that is the
// Reader's Logger does not.
func TestStickyWithoutLoggerIsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c := startCluster(t)
	var deaf, heard reports
	read := func(name string, bal *kafkago.GroupBalancer, logger kafka.Logger) {
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers:           c.addrs,
			GroupID:           groupName,
			GroupTopics:       []string{"orders"},
			GroupBalancers:    []kafka.GroupBalancer{bal},
			Logger:            logger,
			HeartbeatInterval: 100 * time.Millisecond,
			JoinGroupBackoff:  100 * time.Millisecond,
			MaxWait:           100 * time.Millisecond,
		})
		done := make(chan struct{})
		t.Cleanup(func() { cancel(); <-done; r.Close() })
		go func() {
			defer close(done)
			for i := 0; i < maxFetches && ctx.Err() == nil; i++ {
				fctx, stop := context.WithTimeout(ctx, 200*time.Millisecond)
				r.FetchMessage(fctx)
				stop()
			}
		}()
	}
	read("r0", kafkago.MustBalancer(assign.Sticky{}, kafkago.OnError(deaf.add)), nil)
	// r1 joins once r0 has joined alone, so that r0 joins a second time.
	for i := 0; ; i++ {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Groups = []string{groupName}
		resp, err := req.RequestWith(ctx, c.admin)
		if err == nil && len(resp.Groups) == 1 && resp.Groups[0].State == "Stable" && len(resp.Groups[0].Members) == 1 {
			break
		}
		if i == maxTicks || ctx.Err() != nil {
			t.Fatalf("r0 did not join: %v %v", resp, err)
		}
		time.Sleep(pollEvery)
	}
	bal1 := kafkago.MustBalancer(assign.Sticky{}, kafkago.OnError(heard.add))
	read("r1", bal1, bal1.Logger(nil))
	for i := 0; len(deaf.get()) == 0; i++ {
		if i == maxTicks || ctx.Err() != nil {
			t.Fatal("r0's balancer, which no Reader logs through, reported nothing")
		}
		time.Sleep(pollEvery)
	}
	if errs := deaf.get(); len(errs) != 1 || !errors.Is(errs[0], kafkago.ErrNoLogger) {
		t.Errorf("r0's balancer reported %v, want one ErrNoLogger", errs)
	}
	if errs := heard.get(); len(errs) != 0 {
		t.Errorf("r1's balancer, its Reader's Logger, reported %v", errs)
	}
}
