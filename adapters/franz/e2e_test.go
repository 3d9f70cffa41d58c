package franz_test

// End-to-end tests: real kgo consumers, balancing through the adapter,
// against franz-go's kfake broker running in-process on 127.0.0.1.
//
// A group here is a set of consumers that share one observer. The observer
// records who owns which partition, from the consumers' OnPartitionsAssigned
// and OnPartitionsRevoked callbacks, and complains when a partition is handed
// to a member while another still owns it, or when a member processes a
// record of a partition it does not own. Consumers block rebalances while
// they process a poll (kgo.BlockRebalanceOnPoll) and commit in
// OnPartitionsRevoked, so each produced record must be processed exactly
// once, by the owner of its partition.
//
// Every wait is bounded by the test's context (testTimeout) and every loop by
// a count.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
)

const (
	testTimeout = 20 * time.Second // the whole of one scenario
	pollEvery   = 20 * time.Millisecond
	maxTicks    = int(testTimeout/pollEvery) + 1 // settle gives up after this many checks, if the deadline has not come first
	maxPolls    = 100_000                        // per consumer; far above what 20 s of polling takes
	perBatch    = 4                              // records produced per partition in each batch
)

// startCluster starts a one-broker kfake cluster on loopback with topics
// (name => partitions) and returns its address.
func startCluster(t *testing.T, topics map[string]int32) []string {
	t.Helper()
	opts := []kfake.Opt{kfake.NumBrokers(1)}
	for _, name := range slices.Sorted(maps.Keys(topics)) {
		opts = append(opts, kfake.SeedTopics(topics[name], name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// group is a consumer group under test and its observer.
type group struct {
	t      *testing.T
	ctx    context.Context
	addrs  []string
	name   string
	topics map[string]int32

	mu       sync.Mutex
	owner    map[assign.TopicPartition]string // partition => consumer name owning it now
	problems []string
	consumed map[string][]string // record value => consumers that processed it, in order
	produced []string            // record values produced, in order
	live     map[string]*consumer
}

type consumer struct {
	name string
	cl   *kgo.Client
	stop context.CancelFunc
	done chan struct{}
}

func newGroup(ctx context.Context, t *testing.T, topics map[string]int32) *group {
	g := &group{
		t:        t,
		ctx:      ctx,
		addrs:    startCluster(t, topics),
		name:     "g",
		topics:   topics,
		owner:    make(map[assign.TopicPartition]string),
		consumed: make(map[string][]string),
		live:     make(map[string]*consumer),
	}
	t.Cleanup(g.closeAll)
	return g
}

func (g *group) problemf(format string, args ...any) {
	g.problems = append(g.problems, fmt.Sprintf(format, args...))
}

// assigned records that name now owns a.
func (g *group) assigned(name string, a map[string][]int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, tp := range flat(a) {
		if o, ok := g.owner[tp]; ok && o != name {
			g.problemf("%s assigned %s while %s still owns it", name, tp, o)
		}
		g.owner[tp] = name
	}
}

// released records that name no longer owns r.
func (g *group) released(name string, r map[string][]int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, tp := range flat(r) {
		if o := g.owner[tp]; o != name {
			g.problemf("%s gave up %s, owned by %q", name, tp, o)
			continue
		}
		delete(g.owner, tp)
	}
}

// process records that name processed r.
func (g *group) process(name string, r *kgo.Record) {
	g.mu.Lock()
	defer g.mu.Unlock()
	tp := assign.TopicPartition{Topic: r.Topic, Partition: r.Partition}
	if o := g.owner[tp]; o != name {
		g.problemf("%s processed %s offset %d, owned by %q", name, tp, r.Offset, o)
	}
	g.consumed[string(r.Value)] = append(g.consumed[string(r.Value)], name)
}

// start starts a consumer that balances with bal.
func (g *group) start(name string, bal kgo.GroupBalancer) {
	g.t.Helper()
	c := &consumer{name: name, done: make(chan struct{})}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(g.addrs...),
		kgo.ClientID(name),
		kgo.ConsumerGroup(g.name),
		kgo.ConsumeTopics(slices.Sorted(maps.Keys(g.topics))...),
		kgo.Balancers(bal),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.HeartbeatInterval(100*time.Millisecond),
		kgo.RebalanceTimeout(10*time.Second),
		kgo.FetchMaxWait(50*time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			g.assigned(name, a)
		}),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, r map[string][]int32) {
			if err := cl.CommitUncommittedOffsets(ctx); err != nil {
				g.mu.Lock()
				g.problemf("%s: commit on revoke: %v", name, err)
				g.mu.Unlock()
			}
			g.released(name, r)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, l map[string][]int32) {
			g.mu.Lock()
			g.problemf("%s lost %v", name, flat(l))
			g.mu.Unlock()
			g.released(name, l)
		}),
	)
	if err != nil {
		g.t.Fatalf("kgo.NewClient(%s): %v", name, err)
	}
	c.cl = cl
	ctx, stop := context.WithCancel(g.ctx)
	c.stop = stop
	go func() {
		defer close(c.done)
		for i := 0; i < maxPolls && ctx.Err() == nil; i++ {
			pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			fs := cl.PollRecords(pctx, 1000)
			cancel()
			fs.EachRecord(func(r *kgo.Record) { g.process(name, r) })
			cl.AllowRebalance()
		}
	}()
	g.mu.Lock()
	g.live[name] = c
	g.mu.Unlock()
}

// leave stops a consumer: it commits and leaves the group (LeaveGroup).
func (g *group) leave(name string) {
	g.t.Helper()
	g.mu.Lock()
	c := g.live[name]
	delete(g.live, name)
	g.mu.Unlock()
	if c == nil {
		g.t.Fatalf("leave(%s): no such consumer", name)
	}
	if err := c.close(); err != nil {
		g.t.Fatalf("leave(%s): %v", name, err)
	}
}

func (c *consumer) close() error {
	c.stop()
	closed := make(chan struct{})
	go func() {
		<-c.done
		c.cl.CloseAllowingRebalance()
		close(closed)
	}()
	select {
	case <-closed:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("consumer did not close within 10 s")
	}
}

func (g *group) closeAll() {
	g.mu.Lock()
	live := slices.Collect(maps.Values(g.live))
	clear(g.live)
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range live {
		wg.Go(func() {
			if err := c.close(); err != nil {
				g.t.Errorf("closing %s: %v", c.name, err)
			}
		})
	}
	wg.Wait()
}

// produce writes perBatch records to every partition.
func (g *group) produce(batch int) {
	g.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(g.addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		g.t.Fatalf("producer: %v", err)
	}
	defer cl.Close()
	var recs []*kgo.Record
	for _, topic := range slices.Sorted(maps.Keys(g.topics)) {
		for p := range g.topics[topic] {
			for i := range perBatch {
				v := fmt.Sprintf("%s/%d/%d/%d", topic, p, batch, i)
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
			}
		}
	}
	if err := cl.ProduceSync(g.ctx, recs...).FirstErr(); err != nil {
		g.t.Fatalf("produce: %v", err)
	}
	g.mu.Lock()
	for _, r := range recs {
		g.produced = append(g.produced, string(r.Value))
	}
	g.mu.Unlock()
}

// snapshot is the group as its members report it.
type snapshot struct {
	Generation int32
	IDs        map[string]string // consumer name => member ID
	Assignment assign.Assignment // member ID => what it owns now
}

// report returns the group as the live members report it, or an error when
// they do not agree on a generation yet.
func (g *group) report() (snapshot, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	s := snapshot{Generation: -1, IDs: make(map[string]string), Assignment: make(assign.Assignment)}
	for name, c := range g.live {
		id, gen := c.cl.GroupMetadata()
		if id == "" || gen < 0 {
			return s, fmt.Errorf("%s has not joined yet", name)
		}
		if s.Generation >= 0 && gen != s.Generation {
			return s, fmt.Errorf("members are in generations %d and %d", s.Generation, gen)
		}
		s.Generation = gen
		s.IDs[name] = id
		s.Assignment[id] = nil
	}
	for tp, name := range g.owner {
		c, ok := g.live[name]
		if !ok {
			return s, fmt.Errorf("%s still owned by %s, which left", tp, name)
		}
		id := s.IDs[c.name]
		s.Assignment[id] = append(s.Assignment[id], tp)
	}
	for _, tps := range s.Assignment {
		slices.SortFunc(tps, assign.TopicPartition.Compare)
	}
	return s, nil
}

// settle waits until the members' report passes check, and returns it.
func (g *group) settle(what string, check func(snapshot) error) snapshot {
	g.t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for range maxTicks {
		s, err := g.report()
		if err == nil {
			if err = check(s); err == nil {
				return s
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

// wantGroup is the group the leader sees after prev, with the live members
// of s: each member still there claims what it owned in prev.
func (g *group) wantGroup(prev, s snapshot) assign.Group {
	topics := slices.Sorted(maps.Keys(g.topics))
	var ag assign.Group
	ag.Topics = g.topics
	for _, name := range slices.Sorted(maps.Keys(s.IDs)) {
		m := assign.Member{ID: s.IDs[name], Topics: topics, Generation: -1}
		if id, ok := prev.IDs[name]; ok {
			m.Owned, m.Generation = prev.Assignment[id], prev.Generation
		}
		ag.Members = append(ag.Members, m)
	}
	return ag
}

// expect returns a check that the report equals what s computes for the
// group after prev. For CooperativeSticky, what the group settles on is the
// target of the first round.
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

// drain waits until every record produced has been processed, then closes
// every consumer and checks that each record was processed exactly once
// and that the observer saw nothing wrong.
func (g *group) drain() {
	g.t.Helper()
	g.settle("draining", func(snapshot) error {
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, v := range g.produced {
			if len(g.consumed[v]) == 0 {
				return fmt.Errorf("record %s not processed yet", v)
			}
		}
		return nil
	})
	g.closeAll()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range g.produced {
		if by := g.consumed[v]; len(by) != 1 {
			g.t.Errorf("record %s processed %d times, by %v; want once", v, len(by), by)
		}
	}
	if len(g.consumed) != len(g.produced) {
		g.t.Errorf("processed %d distinct records; produced %d", len(g.consumed), len(g.produced))
	}
	g.checkProblems()
}

func (g *group) checkProblems() {
	g.t.Helper()
	for _, p := range g.problems {
		g.t.Error(p)
	}
	g.problems = nil
}

// moved lists the partitions that passed from one member to another, both
// in the group before and after (nil when none). Partitions a newcomer gets
// and those of a member that left do not count.
func moved(prev, now snapshot) []string {
	prevOwner := make(map[assign.TopicPartition]string)
	for name, id := range prev.IDs {
		for _, tp := range prev.Assignment[id] {
			prevOwner[tp] = name
		}
	}
	var out []string
	for name, id := range now.IDs {
		if _, old := prev.IDs[name]; !old {
			continue
		}
		for _, tp := range now.Assignment[id] {
			if was, ok := prevOwner[tp]; ok && was != name {
				if _, stayed := now.IDs[was]; stayed {
					out = append(out, fmt.Sprintf("%s: %s -> %s", tp, was, name))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

var churnTopics = map[string]int32{"orders": 5, "payments": 3}

// ledger records every rebalance our adapter leads: what the strategy was
// given and what it returned.
type ledger struct {
	mu     sync.Mutex
	rounds []round
}

type round struct {
	group  assign.Group
	result assign.Assignment
}

// take returns the rounds recorded since the last take.
func (l *ledger) take() []round {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.rounds
	l.rounds = nil
	return r
}

// recorded is a strategy that writes its rounds into a ledger.
type recorded struct {
	assign.Strategy
	l *ledger
}

func (r recorded) Assign(g assign.Group) (assign.Assignment, error) {
	a, err := r.Strategy.Assign(g)
	if err == nil {
		r.l.mu.Lock()
		r.l.rounds = append(r.l.rounds, round{g, a})
		r.l.mu.Unlock()
	}
	return a, err
}

// checkCooperativeRounds checks that the rounds our leader ran for one step
// of a cooperative group settle in two (KIP-429): every round heads for the
// same target, the first one, and the first round in which no member still
// claims a partition the target gives to another reaches that target; any
// round after it changes nothing. In the usual run that is the second
// round, or the first when no partition changes owner. A kgo member whose
// revocation is still waiting on its poll loop (BlockRebalanceOnPoll) may
// rejoin a round before it has revoked; that round still withholds the
// partition, and the target is reached one round later.
func checkCooperativeRounds(t *testing.T, what string, rounds []round) {
	t.Helper()
	if len(rounds) == 0 {
		t.Errorf("%s: our leader ran no round", what)
		return
	}
	first, err := assign.CooperativeSticky{}.Plan(rounds[0].group)
	if err != nil {
		t.Fatalf("%s: Plan: %v", what, err)
	}
	target := first.Target
	reached := false
	for i, r := range rounds {
		p, err := assign.CooperativeSticky{}.Plan(r.group)
		if err != nil {
			t.Fatalf("%s: Plan: %v", what, err)
		}
		if d := cmp.Diff(target, p.Target, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: round %d heads for another target than round 1 (-round 1 +round %d):\n%s", what, i+1, i+1, d)
		}
		if !reached && (i == 0 || stale(r.group, target) != nil) {
			reached = cmp.Equal(target, r.result, cmpopts.EquateEmpty())
			if i > 0 {
				t.Logf("%s: round %d: still claimed: %v", what, i+1, stale(r.group, target))
			}
			continue
		}
		reached = true
		if d := cmp.Diff(target, r.result, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: round %d of %d, with every revocation done, differs from the target (-want +got):\n%s", what, i+1, len(rounds), d)
		}
	}
	if !reached {
		t.Errorf("%s: %d rounds and the target was not reached", what, len(rounds))
	}
}

// stale lists the partitions members of g still claim that target gives
// to another member.
func stale(g assign.Group, target assign.Assignment) []string {
	owner := make(map[assign.TopicPartition]string)
	for id, tps := range target {
		for _, tp := range tps {
			owner[tp] = id
		}
	}
	var out []string
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			if o, ok := owner[tp]; ok && o != m.ID {
				out = append(out, tp.String())
			}
		}
	}
	return out
}

// churn runs the story every strategy goes through: three consumers join
// one after the other, c1 leaves, c3 joins; records are produced between
// the steps. After every step the group must settle on exactly what s
// computes for the group as the test saw it before the step (members,
// subscriptions, what each owned and in which generation), and what the
// members report must be what our leader computed last. It returns the
// snapshots after each step.
func churn(t *testing.T, s assign.Strategy) []snapshot {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t, churnTopics)
	var l ledger

	var steps []snapshot
	prev := snapshot{Generation: 0, IDs: map[string]string{}}
	step := func(what string, do func()) {
		t.Helper()
		do()
		now := g.settle(what, g.expect(s, prev))
		rounds := l.take()
		if len(rounds) == 0 {
			t.Fatalf("%s: our leader ran no round", what)
		}
		if d := cmp.Diff(rounds[len(rounds)-1].result, now.Assignment, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s: the members report differs from the leader's last round (-leader +members):\n%s", what, d)
		}
		if s.Protocol() == assign.Cooperative {
			checkCooperativeRounds(t, what, rounds)
		}
		t.Logf("%s: generation %d (+%d), %d rounds led, moved %v", what, now.Generation, now.Generation-prev.Generation, len(rounds), moved(prev, now))
		steps = append(steps, now)
		prev = now
	}
	join := func(name string) func() {
		return func() { g.start(name, franz.MustBalancer(recorded{s, &l})) }
	}

	g.produce(0)
	step("c0 joins", join("c0"))
	step("c1 joins", join("c1"))
	step("c2 joins", join("c2"))
	g.produce(1)
	step("c1 leaves", func() { g.leave("c1") })
	step("c3 joins", join("c3"))
	g.produce(2)
	g.drain()
	return steps
}

func TestRangeAndRoundRobinFollowMembership(t *testing.T) {
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}} {
		t.Run(s.Name(), func(t *testing.T) {
			churn(t, s)
		})
	}
}

// TestStickyKeepsWhatStays checks Kafka's promise for the sticky strategies
// on top of the exact comparison churn makes: when c1 leaves, every
// partition of c0 and c2 stays where it is; when c3 joins, c0 and c2 only
// give partitions up, to c3. For cooperative-sticky, churn also checks that
// every step settles in two rounds.
func TestStickyKeepsWhatStays(t *testing.T) {
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		t.Run(s.Name(), func(t *testing.T) {
			steps := churn(t, s)
			if t.Failed() {
				return
			}
			beforeLeave, afterLeave, afterJoin := steps[2], steps[3], steps[4]
			if m := moved(beforeLeave, afterLeave); m != nil {
				t.Errorf("c1 leaves: partitions moved between members that stayed: %v", m)
			}
			if m := moved(afterLeave, afterJoin); m != nil {
				t.Errorf("c3 joins: partitions moved between members that stayed: %v", m)
			}
		})
	}
}

// TestMixedCooperativeStickyLeaders puts our cooperative-sticky and
// franz-go's own (kgo.CooperativeStickyBalancer) in one group. kfake, like
// Kafka, keeps the leader until it leaves, and then picks one of the members
// left; the steps are laid out so that ours leads, then franz-go's (only
// franz-go members remain), then either, then ours again (only ours
// remain). Whoever leads, the group must settle on a valid, balanced
// assignment, no partition moves between members that stay, no partition
// is ever owned by two members at once, and every record is processed
// once. When ours leads, it must also settle in two rounds.
func TestMixedCooperativeStickyLeaders(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	g := newGroup(ctx, t, churnTopics)
	var l ledger
	ours := func(name string) func() {
		return func() { g.start(name, franz.MustBalancer(recorded{assign.CooperativeSticky{}, &l})) }
	}
	theirs := func(name string) func() {
		return func() { g.start(name, kgo.CooperativeStickyBalancer()) }
	}

	led := map[string]int{}
	prev := snapshot{Generation: 0, IDs: map[string]string{}}
	step := func(what, wantLeader string, do func()) {
		t.Helper()
		do()
		now := g.settle(what, func(now snapshot) error {
			ag := g.wantGroup(prev, now)
			if err := assign.Verify(ag, now.Assignment); err != nil {
				return err
			}
			return assign.VerifyBalanced(ag, now.Assignment)
		})
		rounds := l.take()
		leader := "franz-go"
		if len(rounds) > 0 {
			leader = "ours"
			checkCooperativeRounds(t, what, rounds)
		}
		led[leader]++
		if wantLeader != "" && leader != wantLeader {
			t.Errorf("%s: led by %s, want %s", what, leader, wantLeader)
		}
		if m := moved(prev, now); m != nil {
			t.Errorf("%s: partitions moved between members that stayed: %v", what, m)
		}
		t.Logf("%s: led by %s, generation %d (+%d)", what, leader, now.Generation, now.Generation-prev.Generation)
		prev = now
	}

	g.produce(0)
	step("ours0 joins", "ours", ours("ours0"))
	step("kgo0 joins", "ours", theirs("kgo0"))
	step("kgo1 joins", "ours", theirs("kgo1"))
	g.produce(1)
	step("ours0 leaves", "franz-go", func() { g.leave("ours0") })
	step("ours1 joins", "franz-go", ours("ours1"))
	step("kgo0 leaves", "", func() { g.leave("kgo0") })
	step("kgo1 leaves", "ours", func() { g.leave("kgo1") })
	step("kgo2 joins", "ours", theirs("kgo2"))
	g.produce(2)
	g.drain()
	if led["ours"] == 0 || led["franz-go"] == 0 {
		t.Errorf("leaders: %v, want both", led)
	}
}

// flat turns a topic => partitions map into a sorted list.
func flat(m map[string][]int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, assign.TopicPartition{Topic: t, Partition: p})
		}
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return out
}
