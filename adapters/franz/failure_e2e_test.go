package franz_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
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

// reports collects what the leaders hand OnError.
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

var generationRE = regexp.MustCompile(`generation (\d+)`)

// describeGroup returns the group's state and, per member (by client ID),
// the partitions the coordinator stored from the leader's SyncGroup; an
// assignment that is not a valid ConsumerProtocolAssignment is an error.
func describeGroup(ctx context.Context, admin *kgo.Client, group string) (string, map[string][]assign.TopicPartition, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, admin)
	if err != nil {
		return "", nil, err
	}
	if len(resp.Groups) != 1 {
		return "", nil, fmt.Errorf("DescribeGroups: %d groups", len(resp.Groups))
	}
	out := make(map[string][]assign.TopicPartition)
	for _, m := range resp.Groups[0].Members {
		a, err := wire.DecodeAssignment(m.MemberAssignment)
		if err != nil {
			return "", nil, fmt.Errorf("%s's assignment: %w", m.ClientID, err)
		}
		out[m.ClientID] = a.Partitions
	}
	return resp.Groups[0].State, out, nil
}

// A strategy that fails at run time: the leader answers every member with
// a valid empty assignment, reports the error once for that generation
// and does not retry, and the group assigns again at its next rebalance.
// Before, kgo failed the JoinGroup on the balancer's error and rejoined
// for ever. The steps wait up to testTimeout for the group to settle, and
// a settled group is watched for a further quiet period, in which a
// leader that retried would report again.
func TestFailingStrategyAssignsNothingAndReportsOncePerGeneration(t *testing.T) {
	const quiet = time.Second // a looping leader reports many times in it
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	addrs := startCluster(t, map[string]int32{"t": 4})
	admin, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	var fail atomic.Bool
	var rep reports
	start := func(name string) {
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(addrs...), kgo.ClientID(name),
			kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"),
			kgo.Balancers(franz.MustBalancer(flaky{assign.Range{}, &fail}, franz.OnError(rep.add))),
			kgo.HeartbeatInterval(100*time.Millisecond),
		)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		go func() {
			for ctx.Err() == nil {
				pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				cl.PollFetches(pctx)
				cancel()
			}
		}()
	}
	// settle waits for a stable group of exactly names in which want
	// reports about the strategy's error have come, each partition of t
	// assigned when assigned is set and none otherwise.
	settle := func(what string, names []string, assigned bool, want int) {
		t.Helper()
		var last string
		for range int(testTimeout / pollEvery) {
			if ctx.Err() != nil {
				break
			}
			state, a, err := describeGroup(ctx, admin, "g")
			n := 0
			for _, tps := range a {
				n += len(tps)
			}
			switch got := len(rep.get()); {
			case err != nil:
				last = err.Error()
			case state != "Stable" || len(a) != len(names):
				last = fmt.Sprintf("state %s, members %v", state, a)
			case assigned && n != 4 || !assigned && n != 0:
				last = fmt.Sprintf("%d partitions assigned: %v", n, a)
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
		errs := rep.get()
		gens := make(map[string]bool)
		for _, err := range errs {
			m := generationRE.FindStringSubmatch(err.Error())
			if !errors.Is(err, errBroken) || m == nil || gens[m[1]] {
				t.Errorf("%s: report %q: want errBroken, once per generation", what, err)
				continue
			}
			gens[m[1]] = true
		}
		if len(errs) != want {
			t.Fatalf("%s: %d reports after a quiet %v, want %d: %v", what, len(errs), quiet, want, errs)
		}
	}

	fail.Store(true)
	start("c0")
	settle("c0 joins a failing strategy", []string{"c0"}, false, 1)
	checkReports("c0 joins a failing strategy", 1)

	fail.Store(false)
	start("c1")
	settle("c1 joins, the strategy works again", []string{"c0", "c1"}, true, 1)
	checkReports("c1 joins, the strategy works again", 1)

	fail.Store(true)
	start("c2")
	settle("c2 joins, the strategy fails again", []string{"c0", "c1", "c2"}, false, 2)
	checkReports("c2 joins, the strategy fails again", 2)
}

// Two clients sharing one sticky balancer send the same history, that of
// whichever synced last, so each claims the other's partitions. At the
// next rebalance the leader reports ErrShared (and still assigns).
func TestSharedBalancerIsReported(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	addrs := startCluster(t, map[string]int32{"t": 4})
	var rep reports
	shared := franz.MustBalancer(assign.Sticky{}, franz.OnError(rep.add))
	start := func(name string, bal kgo.GroupBalancer) {
		cl, err := kgo.NewClient(
			kgo.SeedBrokers(addrs...), kgo.ClientID(name),
			kgo.ConsumerGroup("g"), kgo.ConsumeTopics("t"),
			kgo.Balancers(bal), kgo.HeartbeatInterval(100*time.Millisecond),
		)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Close)
		go func() {
			for ctx.Err() == nil {
				pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				cl.PollFetches(pctx)
				cancel()
			}
		}()
	}
	start("c0", shared)
	start("c1", shared)
	// Both must have history (a stable generation that assigned them
	// everything) before c2 joins.
	admin, err := kgo.NewClient(kgo.SeedBrokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for i := 0; ; i++ {
		state, a, err := describeGroup(ctx, admin, "g")
		if err == nil && state == "Stable" && len(a) == 2 && len(a["c0"])+len(a["c1"]) == 4 {
			break
		}
		if i == int(testTimeout/pollEvery) || ctx.Err() != nil {
			t.Fatalf("c0 and c1 did not settle: %s %v %v", state, a, err)
		}
		time.Sleep(pollEvery)
	}
	start("c2", franz.MustBalancer(assign.Sticky{}, franz.OnError(rep.add)))
	for range int(testTimeout / pollEvery) {
		if errs := rep.get(); len(errs) > 0 {
			for _, err := range errs {
				if !errors.Is(err, franz.ErrShared) {
					t.Errorf("report %v, want ErrShared", err)
				}
			}
			return
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(pollEvery)
	}
	t.Fatal("no leader reported the shared balancer")
}
