package kafkago_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/e2e/internal/failing"

	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
)

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
	var rep failing.Reports
	total := 0
	for _, n := range e2eTopics {
		total += int(n)
	}
	start := func(name string) {
		g.startReader(name, kafkago.MustBalancer(failing.Flaky{Strategy: assign.Range{}, Fail: &fail}, kafkago.OnError(rep.Add)))
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
			if got := len(rep.Get()); got != want {
				return fmt.Errorf("%d reports, want %d", got, want)
			}
			return nil
		})
		time.Sleep(quiet)
		errs := rep.Get()
		for _, err := range errs {
			if !errors.Is(err, failing.ErrBroken) {
				t.Errorf("%s: report %q, want failing.ErrBroken", what, err)
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
	var deaf, heard failing.Reports
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
	read("r0", kafkago.MustBalancer(assign.Sticky{}, kafkago.OnError(deaf.Add)), nil)
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
	bal1 := kafkago.MustBalancer(assign.Sticky{}, kafkago.OnError(heard.Add))
	read("r1", bal1, bal1.Logger(nil))
	for i := 0; len(deaf.Get()) == 0; i++ {
		if i == maxTicks || ctx.Err() != nil {
			t.Fatal("r0's balancer, which no Reader logs through, reported nothing")
		}
		time.Sleep(pollEvery)
	}
	if errs := deaf.Get(); len(errs) != 1 || !errors.Is(errs[0], kafkago.ErrNoLogger) {
		t.Errorf("r0's balancer reported %v, want one ErrNoLogger", errs)
	}
	if errs := heard.Get(); len(errs) != 0 {
		t.Errorf("r1's balancer, its Reader's Logger, reported %v", errs)
	}
}
