package sarama_test

// End-to-end tests: sarama consumer groups, planning through the adapter,
// against franz-go's kfake broker in-process on 127.0.0.1.
//
// A member owns a partition while its ConsumeClaim runs: the observer
// complains when a claim starts while another member's claim of the same
// partition still runs. Every wait is bounded by the test's context and
// every loop by a count.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ibm "github.com/IBM/sarama"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kfake"

	assignsarama "github.com/assigncalc/assigncalc/adapters/sarama"
	"github.com/assigncalc/assigncalc/assign"
)

const (
	testTimeout  = 30 * time.Second // one scenario
	pollEvery    = 25 * time.Millisecond
	maxTicks     = int(testTimeout/pollEvery) + 1 // settle gives up after this many checks, if the deadline has not come first
	maxSessions  = 10_000                         // Consume calls per member
	saramaGroupN = "g"
)

var e2eTopics = map[string]int32{"orders": 5, "payments": 3}

type group struct {
	t      *testing.T
	ctx    context.Context
	addrs  []string
	topics map[string]int32

	mu       sync.Mutex
	owner    map[assign.TopicPartition]string // partition => member running its claim
	problems []string
	live     map[string]*member
}

type member struct {
	name string
	cg   ibm.ConsumerGroup
	sess atomic.Pointer[ibm.ConsumerGroupSession]
	stop context.CancelFunc
	done chan struct{}
}

func newGroup(ctx context.Context, t *testing.T) *group {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	for _, name := range slices.Sorted(maps.Keys(e2eTopics)) {
		opts = append(opts, kfake.SeedTopics(e2eTopics[name], name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	t.Cleanup(c.Close)
	g := &group{t: t, ctx: ctx, addrs: c.ListenAddrs(), topics: e2eTopics,
		owner: make(map[assign.TopicPartition]string), live: make(map[string]*member)}
	t.Cleanup(g.closeAll)
	return g
}

// handler observes one member's claims.
type handler struct {
	g *group
	m *member
}

func (h handler) Setup(s ibm.ConsumerGroupSession) error {
	h.m.sess.Store(&s)
	return nil
}

func (h handler) Cleanup(ibm.ConsumerGroupSession) error { return nil }

func (h handler) ConsumeClaim(s ibm.ConsumerGroupSession, c ibm.ConsumerGroupClaim) error {
	h.m.sess.Store(&s)
	tp := assign.TopicPartition{Topic: c.Topic(), Partition: c.Partition()}
	h.g.mu.Lock()
	if o, ok := h.g.owner[tp]; ok && o != h.m.name {
		h.g.problems = append(h.g.problems, fmt.Sprintf("%s claims %s while %s still does", h.m.name, tp, o))
	}
	h.g.owner[tp] = h.m.name
	h.g.mu.Unlock()
	defer func() {
		h.g.mu.Lock()
		if h.g.owner[tp] == h.m.name {
			delete(h.g.owner, tp)
		}
		h.g.mu.Unlock()
	}()
	for msg := range c.Messages() {
		s.MarkMessage(msg, "")
	}
	return nil
}

func (g *group) start(name string, s assign.Strategy) {
	g.t.Helper()
	cfg := ibm.NewConfig()
	cfg.ClientID = name
	cfg.Version = ibm.V3_6_0_0
	cfg.Consumer.Offsets.Initial = ibm.OffsetOldest
	cfg.Consumer.Group.Heartbeat.Interval = 100 * time.Millisecond
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 50 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []ibm.BalanceStrategy{assignsarama.Strategy(s)}
	cg, err := ibm.NewConsumerGroup(g.addrs, saramaGroupN, cfg)
	if err != nil {
		g.t.Fatalf("NewConsumerGroup(%s): %v", name, err)
	}
	m := &member{name: name, cg: cg, done: make(chan struct{})}
	ctx, stop := context.WithCancel(g.ctx)
	m.stop = stop
	topics := slices.Sorted(maps.Keys(g.topics))
	go func() {
		defer close(m.done)
		for i := 0; i < maxSessions && ctx.Err() == nil; i++ {
			if err := cg.Consume(ctx, topics, handler{g, m}); err != nil && !errors.Is(err, ibm.ErrClosedConsumerGroup) && ctx.Err() == nil {
				g.mu.Lock()
				g.problems = append(g.problems, fmt.Sprintf("%s: Consume: %v", name, err))
				g.mu.Unlock()
				return
			}
		}
	}()
	g.mu.Lock()
	g.live[name] = m
	g.mu.Unlock()
}

func (m *member) close() error {
	m.stop()
	closed := make(chan error, 1)
	go func() {
		<-m.done
		closed <- m.cg.Close()
	}()
	select {
	case err := <-closed:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("consumer group did not close within 10 s")
	}
}

func (g *group) leave(name string) {
	g.t.Helper()
	g.mu.Lock()
	m := g.live[name]
	delete(g.live, name)
	g.mu.Unlock()
	if err := m.close(); err != nil {
		g.t.Fatalf("leave(%s): %v", name, err)
	}
}

func (g *group) closeAll() {
	g.mu.Lock()
	live := slices.Collect(maps.Values(g.live))
	clear(g.live)
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range live {
		wg.Go(func() {
			if err := m.close(); err != nil {
				g.t.Errorf("closing %s: %v", m.name, err)
			}
		})
	}
	wg.Wait()
}

type snapshot struct {
	IDs        map[string]string // member name => member ID
	Assignment assign.Assignment
}

func (g *group) report() (snapshot, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := snapshot{IDs: make(map[string]string), Assignment: make(assign.Assignment)}
	gen := int32(-1)
	for name, m := range g.live {
		sp := m.sess.Load()
		if sp == nil {
			return s, fmt.Errorf("%s has no session yet", name)
		}
		gn := (*sp).GenerationID()
		if gen >= 0 && gn != gen {
			return s, fmt.Errorf("members are in generations %d and %d", gen, gn)
		}
		gen = gn
		id := (*sp).MemberID()
		s.IDs[name] = id
		s.Assignment[id] = nil
	}
	for tp, name := range g.owner {
		if _, ok := g.live[name]; !ok {
			return s, fmt.Errorf("%s still claimed by %s, which left", tp, name)
		}
		id := s.IDs[name]
		s.Assignment[id] = append(s.Assignment[id], tp)
	}
	for _, tps := range s.Assignment {
		slices.SortFunc(tps, assign.TopicPartition.Compare)
	}
	return s, nil
}

// settle waits until the members' claims are what s computes for the group
// after prev: the members now in the group, each still there claiming what
// it had in prev.
func (g *group) settle(what string, s assign.Strategy, prev snapshot) snapshot {
	g.t.Helper()
	topics := slices.Sorted(maps.Keys(g.topics))
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for range maxTicks {
		now, err := g.report()
		if err == nil {
			ag := assign.Group{Topics: g.topics}
			for _, name := range slices.Sorted(maps.Keys(now.IDs)) {
				m := assign.Member{ID: now.IDs[name], Topics: topics, Generation: -1}
				if id, ok := prev.IDs[name]; ok {
					m.Owned, m.Generation = prev.Assignment[id], 1
				}
				ag.Members = append(ag.Members, m)
			}
			var want assign.Assignment
			if c, ok := s.(assign.CooperativeSticky); ok {
				var p *assign.CooperativePlan
				if p, err = c.Plan(ag); err == nil {
					want = p.Target
				}
			} else {
				want, err = s.Assign(ag)
			}
			if err != nil {
				g.t.Fatalf("%s: %s.Assign: %v", what, s.Name(), err)
			}
			d := cmp.Diff(want, now.Assignment, cmpopts.EquateEmpty())
			if d == "" {
				return now
			}
			err = fmt.Errorf("%s(g) mismatch (-want +got):\n%s", s.Name(), d)
		}
		last = err
		select {
		case <-g.ctx.Done():
			g.t.Fatalf("%s: the group did not settle: %v", what, last)
		case <-tick.C:
		}
	}
	g.t.Fatalf("%s: the group did not settle after %d checks: %v", what, maxTicks, last)
	return snapshot{} // not reached: Fatalf stops the test
}

// TestSaramaGroupsSettle runs sarama members through joins and a leave for
// each strategy; after every step their claims must be exactly what assign
// computes for the group, and no partition may be claimed by two members at
// once.
func TestSaramaGroupsSettle(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	for _, s := range []assign.Strategy{assign.Range{}, assign.Sticky{}, assign.CooperativeSticky{}} {
		t.Run(s.Name(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			g := newGroup(ctx, t)
			prev := snapshot{IDs: map[string]string{}}
			step := func(what string, do func()) {
				t.Helper()
				start := time.Now()
				do()
				prev = g.settle(what, s, prev)
				t.Logf("%s: settled in %v", what, time.Since(start).Round(time.Millisecond))
			}
			step("c0 joins", func() { g.start("c0", s) })
			step("c1 joins", func() { g.start("c1", s) })
			step("c2 joins", func() { g.start("c2", s) })
			step("c1 leaves", func() { g.leave("c1") })
			step("c3 joins", func() { g.start("c3", s) })
			g.closeAll()
			g.mu.Lock()
			defer g.mu.Unlock()
			for _, p := range g.problems {
				t.Error(p)
			}
		})
	}
}
