package sarama_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/e2e/internal/failing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

type idle struct{}

func (idle) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (idle) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (idle) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		s.MarkMessage(m, "")
	}
	return nil
}

// A strategy that fails at run time: the leader answers every member with
// a valid empty assignment, reports the error once for that rebalance and
// does not retry, and the group assigns again at its next rebalance.
// Before, Plan's error ended every member's session and the Consume loop
// rejoined. The steps wait up to testTimeout for the group to settle, and
// a settled group is watched for a further quiet period, in which a leader
// that retried would report again.
func TestFailingStrategyAssignsNothingAndReportsOncePerGeneration(t *testing.T) {
	const quiet = time.Second // a looping leader reports many times in it
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(4, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addrs := c.ListenAddrs()
	admin, err := sarama.NewClusterAdmin(addrs, sarama.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	var fail atomic.Bool
	var rep failing.Reports
	start := func(name string) {
		cfg := sarama.NewConfig()
		cfg.ClientID = name
		cfg.Consumer.Group.Heartbeat.Interval = 100 * time.Millisecond
		cfg.Consumer.Group.Rebalance.Retry.Backoff = 50 * time.Millisecond
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
			assignsarama.MustStrategy(failing.Flaky{Strategy: assign.Range{}, Fail: &fail}, assignsarama.OnError(rep.Add))}
		cg, err := sarama.NewConsumerGroup(addrs, "g", cfg)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		t.Cleanup(func() { cancel(); <-done; cg.Close() })
		go func() {
			defer close(done)
			for i := 0; i < maxSessions && ctx.Err() == nil; i++ {
				if err := cg.Consume(ctx, []string{"t"}, idle{}); err != nil && ctx.Err() == nil {
					t.Errorf("%s: Consume: %v", name, err)
					return
				}
			}
		}()
	}
	// settle waits for a stable group of n members in which want reports
	// have come, each partition of t assigned when assigned is set and none
	// otherwise; every assignment must be a valid
	// ConsumerProtocolAssignment.
	settle := func(what string, n int, assigned bool, want int) {
		t.Helper()
		var last string
		for range maxTicks {
			if ctx.Err() != nil {
				break
			}
			ds, err := admin.DescribeConsumerGroups([]string{"g"})
			if err == nil && len(ds) != 1 {
				err = fmt.Errorf("%d groups", len(ds))
			}
			parts := 0
			if err == nil {
				for _, m := range ds[0].Members {
					a, derr := wire.DecodeAssignment(m.MemberAssignment)
					if derr != nil {
						err = fmt.Errorf("%s's assignment: %w", m.ClientId, derr)
					}
					parts += len(a.Partitions)
				}
			}
			switch got := len(rep.Get()); {
			case err != nil:
				last = err.Error()
			case ds[0].State != "Stable" || len(ds[0].Members) != n:
				last = fmt.Sprintf("state %s, %d members", ds[0].State, len(ds[0].Members))
			case assigned && parts != 4 || !assigned && parts != 0:
				last = fmt.Sprintf("%d partitions assigned", parts)
			case got != want:
				last = fmt.Sprintf("%d reports, want %d", got, want)
			default:
				return
			}
			time.Sleep(pollEvery)
		}
		t.Fatalf("%s: the group did not settle: %s", what, last)
	}
	checkReports := func(what string, want int) {
		t.Helper()
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
	start("c0")
	settle("c0 joins a failing strategy", 1, false, 1)
	checkReports("c0 joins a failing strategy", 1)

	fail.Store(false)
	start("c1")
	settle("c1 joins, the strategy works again", 2, true, 1)
	checkReports("c1 joins, the strategy works again", 1)

	fail.Store(true)
	start("c2")
	settle("c2 joins, the strategy fails again", 3, false, 2)
	checkReports("c2 joins, the strategy fails again", 2)
}
