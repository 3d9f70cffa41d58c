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

	"github.com/IBM/sarama"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
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
	cg   sarama.ConsumerGroup
	sess atomic.Pointer[sarama.ConsumerGroupSession]
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

func (h handler) Setup(s sarama.ConsumerGroupSession) error {
	h.m.sess.Store(&s)
	return nil
}

func (h handler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h handler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
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

func (g *group) start(name string, bs sarama.BalanceStrategy) {
	g.t.Helper()
	cfg := sarama.NewConfig()
	cfg.ClientID = name
	cfg.Version = sarama.V3_6_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Heartbeat.Interval = 100 * time.Millisecond
	cfg.Consumer.Group.Session.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Timeout = 10 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 50 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 50 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{bs}
	cg, err := sarama.NewConsumerGroup(g.addrs, saramaGroupN, cfg)
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
			if err := cg.Consume(ctx, topics, handler{g, m}); err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) && ctx.Err() == nil {
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

// wantGroup is the group after prev, with the members now in it: each one
// still there claims what it had in prev (all at one generation).
func (g *group) wantGroup(prev, now snapshot) assign.Group {
	topics := slices.Sorted(maps.Keys(g.topics))
	ag := assign.Group{Topics: g.topics}
	for _, name := range slices.Sorted(maps.Keys(now.IDs)) {
		m := assign.Member{ID: now.IDs[name], Topics: topics, Generation: -1}
		if id, ok := prev.IDs[name]; ok {
			m.Owned, m.Generation = prev.Assignment[id], 1
		}
		ag.Members = append(ag.Members, m)
	}
	return ag
}

// expect returns a check that the claims are what s computes for the group
// after prev (for CooperativeSticky, the target the group settles on).
func (g *group) expect(s assign.Strategy, prev snapshot) func(snapshot) error {
	return func(now snapshot) error {
		ag := g.wantGroup(prev, now)
		var want assign.Assignment
		var err error
		if c, ok := s.(assign.CooperativeSticky); ok {
			var p *assign.CooperativePlan
			if p, err = c.Plan(ag); err == nil {
				want = p.Target
			}
		} else {
			want, err = s.Assign(ag)
		}
		if err != nil {
			return fmt.Errorf("%s.Assign: %v", s.Name(), err)
		}
		if d := cmp.Diff(want, now.Assignment, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("%s(g) mismatch (-want +got):\n%s", s.Name(), d)
		}
		return nil
	}
}

// settle waits until the members' claims pass check, and returns them.
func (g *group) settle(what string, check func(snapshot) error) snapshot {
	g.t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for range maxTicks {
		now, err := g.report()
		if err == nil {
			if err = check(now); err == nil {
				return now
			}
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

// moved lists the partitions that passed between two members that were in
// the group before and after.
func moved(prev, now snapshot) []string {
	prevOwner := make(map[assign.TopicPartition]string)
	for name, id := range prev.IDs {
		for _, tp := range prev.Assignment[id] {
			prevOwner[tp] = name
		}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(now.IDs)) {
		if _, old := prev.IDs[name]; !old {
			continue
		}
		for _, tp := range now.Assignment[now.IDs[name]] {
			if was, ok := prevOwner[tp]; ok && was != name {
				if _, stayed := now.IDs[was]; stayed {
					out = append(out, fmt.Sprintf("%s: %s -> %s", tp, was, name))
				}
			}
		}
	}
	return out
}

func (g *group) checkProblems() {
	g.t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, p := range g.problems {
		g.t.Error(p)
	}
	g.problems = nil
}

// TestSaramaGroupsSettle runs sarama members through joins and a leave for
// each strategy; after every step their claims must be exactly what assign
// computes for the group, and no partition may be claimed by two members at
// once.
func TestSaramaGroupsSettle(t *testing.T) {
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
				prev = g.settle(what, g.expect(s, prev))
				t.Logf("%s: settled in %v", what, time.Since(start).Round(time.Millisecond))
			}
			join := func(name string) func() { return func() { g.start(name, assignsarama.MustStrategy(s)) } }
			step("c0 joins", join("c0"))
			step("c1 joins", join("c1"))
			step("c2 joins", join("c2"))
			step("c1 leaves", func() { g.leave("c1") })
			step("c3 joins", join("c3"))
			g.closeAll()
			g.checkProblems()
		})
	}
}

// TestSaramaMixedGroups puts our strategy and sarama's own of the same name
// in one group: ours leads first; when it leaves, only sarama's members
// remain and one of them leads; then ours joins under it. Whoever leads, the
// group must settle on a valid, balanced assignment in which no partition
// moved between members that stayed, never claimed twice at once.
func TestSaramaMixedGroups(t *testing.T) {
	for _, c := range []struct {
		s      assign.Strategy
		theirs func() sarama.BalanceStrategy
	}{
		{assign.Sticky{}, sarama.NewBalanceStrategySticky},
		{assign.CooperativeSticky{}, sarama.NewBalanceStrategyCooperativeSticky},
	} {
		t.Run(c.s.Name(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			g := newGroup(ctx, t)
			var led atomic.Int32
			prev := snapshot{IDs: map[string]string{}}
			step := func(what, wantLeader string, do func()) {
				t.Helper()
				before := led.Load()
				do()
				now := g.settle(what, func(now snapshot) error {
					ag := g.wantGroup(prev, now)
					if err := assign.Verify(ag, now.Assignment); err != nil {
						return err
					}
					return assign.VerifyBalanced(ag, now.Assignment)
				})
				if m := moved(prev, now); m != nil {
					t.Errorf("%s: partitions moved between members that stayed: %v", what, m)
				}
				leader := "sarama"
				if led.Load() > before {
					leader = "ours"
				}
				if leader != wantLeader {
					t.Errorf("%s: led by %s, want %s", what, leader, wantLeader)
				}
				prev = now
			}
			ours := func(name string) func() {
				return func() { g.start(name, assignsarama.MustStrategy(counting{c.s, &led})) }
			}
			theirs := func(name string) func() { return func() { g.start(name, c.theirs()) } }
			step("ours0 joins", "ours", ours("ours0"))
			step("sarama0 joins", "ours", theirs("sarama0"))
			step("sarama1 joins", "ours", theirs("sarama1"))
			step("ours0 leaves", "sarama", func() { g.leave("ours0") })
			step("ours1 joins", "sarama", ours("ours1"))
			g.closeAll()
			g.checkProblems()
		})
	}
}

// counting counts the rounds our strategy leads.
type counting struct {
	assign.Strategy
	n *atomic.Int32
}

func (c counting) Assign(g assign.Group) (assign.Assignment, error) {
	c.n.Add(1)
	return c.Strategy.Assign(g)
}
