package kafkago_test

// The harness of the end-to-end tests: kafka-go Readers, balancing through the adapter, against
// franz-go's kfake broker running in-process on 127.0.0.1.
//
// What the group settled on is read from the coordinator, with
// DescribeGroups through a franz-go client, not from the balancers: the
// members' assignments as the broker stored them from the leader's
// SyncGroup. Records are produced only once a step has settled, and the
// next step starts only once every one of them has been processed, so the
// owner of a record's partition is known; each Reader commits every record
// it processes before taking the next (CommitInterval 0). So every record
// must be processed exactly once, by the owner of its partition, and a
// Reader that started from the wrong offset after a rebalance would show as
// a record processed twice or never.
//
// kafka-go hands a Reader records it fetched for a partition before a
// rebalance until the Reader subscribes to the next generation (reader.go,
// unsubscribe), so with records in flight during a rebalance a record may be
// processed twice; that is kafka-go's at-least-once, and these tests do not
// produce during rebalances.
//
// Every wait is bounded by the test's context (testTimeout) and every loop
// by a count.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

const (
	testTimeout = 30 * time.Second // the whole of one scenario
	pollEvery   = 25 * time.Millisecond
	maxTicks    = int(testTimeout/pollEvery) + 1 // settle gives up after this many checks, if the deadline has not come first
	maxFetches  = 100_000                        // per Reader; far above what 30 s of fetching takes
	perBatch    = 3                              // records produced per partition after each step
	groupName   = "g"
)

var e2eTopics = map[string]int32{"orders": 5, "payments": 3}

// cluster is a one-broker kfake cluster on loopback and a franz-go client
// that produces to it and describes the group.
type cluster struct {
	addrs []string
	admin *kgo.Client
}

func startCluster(t *testing.T) cluster {
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
	admin, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(admin.Close)
	return cluster{addrs: c.ListenAddrs(), admin: admin}
}

// group is a consumer group under test: its live members and what they
// processed.
type group struct {
	t   *testing.T
	ctx context.Context
	cluster

	mu        sync.Mutex
	live      map[string]*member
	processed map[string][]string // record value => members that processed it, in order
	produced  map[string]string   // record value => the member owning its partition when it was produced
	problems  []string
	joinFails []string // kafka-go's "Failed to join group" errors
}

// member is a kafka-go Reader, or a franz-go client, in the group.
type member struct {
	name   string
	reader *kafka.Reader // nil for a franz-go client
	client *kgo.Client   // nil for a Reader
	gen    atomic.Int32  // a Reader's generation, from its log
	stop   context.CancelFunc
	done   chan struct{}
}

func newGroup(ctx context.Context, t *testing.T) *group {
	g := &group{t: t, ctx: ctx, cluster: startCluster(t), live: make(map[string]*member),
		processed: make(map[string][]string), produced: make(map[string]string)}
	t.Cleanup(g.closeAll)
	return g
}

func (g *group) problemf(format string, args ...any) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.problems = append(g.problems, fmt.Sprintf(format, args...))
}

// startReader starts a kafka-go Reader whose balancer is b. It processes
// every record it fetches and commits it before fetching the next.
func (g *group) startReader(name string, b *kafkago.GroupBalancer) {
	g.t.Helper()
	m := &member{name: name, done: make(chan struct{})}
	m.gen.Store(-1)
	seen := kafka.LoggerFunc(func(msg string, args ...any) {
		if strings.HasPrefix(msg, "Joined group ") && len(args) == 3 {
			if gen, ok := args[2].(int32); ok {
				m.gen.Store(gen)
			}
		}
	})
	errorLog := kafka.LoggerFunc(func(msg string, args ...any) {
		if line := fmt.Sprintf(msg, args...); strings.HasPrefix(line, "Failed to join group") {
			g.mu.Lock()
			g.joinFails = append(g.joinFails, name+": "+line)
			g.mu.Unlock()
		}
	})
	m.reader = kafka.NewReader(kafka.ReaderConfig{
		Brokers:           g.addrs,
		Dialer:            &kafka.Dialer{ClientID: name, Timeout: 5 * time.Second},
		GroupID:           groupName,
		GroupTopics:       slices.Sorted(maps.Keys(e2eTopics)),
		GroupBalancers:    []kafka.GroupBalancer{b},
		Logger:            b.Logger(seen),
		ErrorLogger:       errorLog,
		HeartbeatInterval: 100 * time.Millisecond,
		SessionTimeout:    10 * time.Second,
		RebalanceTimeout:  10 * time.Second,
		JoinGroupBackoff:  100 * time.Millisecond,
		MaxWait:           100 * time.Millisecond,
		ReadBackoffMin:    20 * time.Millisecond,
		ReadBackoffMax:    100 * time.Millisecond,
	})
	ctx, stop := context.WithCancel(g.ctx)
	m.stop = stop
	go func() {
		defer close(m.done)
		for i := 0; i < maxFetches && ctx.Err() == nil; i++ {
			fctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			msg, err := m.reader.FetchMessage(fctx)
			cancel()
			if err != nil {
				continue // a timeout, or an error the Reader recovers from by rejoining
			}
			g.process(name, msg)
			if err := m.reader.CommitMessages(ctx, msg); err != nil && ctx.Err() == nil {
				g.problemf("%s: commit %s-%d@%d: %v", name, msg.Topic, msg.Partition, msg.Offset, err)
			}
		}
	}()
	g.add(m)
}

// startFranz starts a franz-go client that balances with bal. It does not
// poll: kgo manages its group membership without it.
func (g *group) startFranz(name string, bal kgo.GroupBalancer) {
	g.t.Helper()
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(g.addrs...),
		kgo.ClientID(name),
		kgo.ConsumerGroup(groupName),
		kgo.ConsumeTopics(slices.Sorted(maps.Keys(e2eTopics))...),
		kgo.Balancers(bal),
		kgo.DisableAutoCommit(),
		kgo.HeartbeatInterval(100*time.Millisecond),
		kgo.RebalanceTimeout(10*time.Second),
	)
	if err != nil {
		g.t.Fatalf("kgo.NewClient(%s): %v", name, err)
	}
	m := &member{name: name, client: cl, stop: func() {}, done: make(chan struct{})}
	close(m.done)
	g.add(m)
}

func (g *group) add(m *member) {
	g.mu.Lock()
	g.live[m.name] = m
	g.mu.Unlock()
}

// process records that name processed msg.
func (g *group) process(name string, msg kafka.Message) {
	g.mu.Lock()
	defer g.mu.Unlock()
	v := string(msg.Value)
	if owner, ok := g.produced[v]; !ok {
		g.problems = append(g.problems, fmt.Sprintf("%s processed %q, never produced", name, v))
	} else if owner != name {
		g.problems = append(g.problems, fmt.Sprintf("%s processed %q, of a partition %s owned", name, v, owner))
	}
	g.processed[v] = append(g.processed[v], name)
}

// generation returns the member's generation: from a Reader's log, or from
// a franz-go client.
func (m *member) generation() (string, int32) {
	if m.client != nil {
		return m.client.GroupMetadata()
	}
	return "", m.gen.Load()
}

func (m *member) close() error {
	m.stop()
	closed := make(chan error, 1)
	go func() {
		<-m.done
		if m.reader != nil {
			closed <- m.reader.Close() // leaves the group
			return
		}
		m.client.Close() // leaves the group
		closed <- nil
	}()
	select {
	case err := <-closed:
		return err
	case <-time.After(10 * time.Second):
		return errors.New("member did not close within 10 s")
	}
}

// leave stops a member, which leaves the group.
func (g *group) leave(name string) {
	g.t.Helper()
	g.mu.Lock()
	m := g.live[name]
	delete(g.live, name)
	g.mu.Unlock()
	if m == nil {
		g.t.Fatalf("leave(%s): no such member", name)
	}
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

// snapshot is the group as the coordinator describes it.
type snapshot struct {
	Generation int32
	IDs        map[string]string // member name => member ID
	Assignment assign.Assignment // member ID => what the leader assigned it
}

// describe returns the group as the coordinator describes it, or an error
// when it is not stable with exactly the live members, in one generation.
func (g *group) describe() (snapshot, error) {
	s := snapshot{IDs: make(map[string]string), Assignment: make(assign.Assignment)}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{groupName}
	ctx, cancel := context.WithTimeout(g.ctx, time.Second)
	defer cancel()
	resp, err := req.RequestWith(ctx, g.admin)
	if err != nil {
		return s, err
	}
	if len(resp.Groups) != 1 {
		return s, fmt.Errorf("DescribeGroups: %d groups", len(resp.Groups))
	}
	dg := resp.Groups[0]
	if dg.State != "Stable" {
		return s, fmt.Errorf("group state %s", dg.State)
	}
	for _, dm := range dg.Members {
		a, err := wire.DecodeAssignment(dm.MemberAssignment)
		if err != nil {
			return s, fmt.Errorf("%s: %v", dm.ClientID, err)
		}
		if _, dup := s.IDs[dm.ClientID]; dup {
			return s, fmt.Errorf("%s is in the group twice", dm.ClientID)
		}
		s.IDs[dm.ClientID] = dm.MemberID
		tps := slices.Clone(a.Partitions)
		slices.SortFunc(tps, assign.TopicPartition.Compare)
		s.Assignment[dm.MemberID] = tps
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if names := slices.Sorted(maps.Keys(s.IDs)); !slices.Equal(names, slices.Sorted(maps.Keys(g.live))) {
		return s, fmt.Errorf("members %v, want %v", names, slices.Sorted(maps.Keys(g.live)))
	}
	s.Generation = -1
	for name, m := range g.live {
		_, gen := m.generation()
		if gen < 0 || s.Generation >= 0 && gen != s.Generation {
			return s, fmt.Errorf("%s is in generation %d, another in %d", name, gen, s.Generation)
		}
		s.Generation = gen
	}
	return s, nil
}

// settle waits until the group is stable and passes check, and returns it.
func (g *group) settle(what string, check func(snapshot) error) snapshot {
	g.t.Helper()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var last error
	for range maxTicks {
		s, err := g.describe()
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

// wantGroup is the group a leader sees after prev, with the members of now:
// each member still there claims what it owned in prev, in prev's
// generation.
func wantGroup(prev, now snapshot) assign.Group {
	topics := slices.Sorted(maps.Keys(e2eTopics))
	ag := assign.Group{Topics: e2eTopics}
	for _, name := range slices.Sorted(maps.Keys(now.IDs)) {
		m := assign.Member{ID: now.IDs[name], Topics: topics, Generation: -1}
		if id, ok := prev.IDs[name]; ok {
			m.Owned, m.Generation = prev.Assignment[id], prev.Generation
		}
		ag.Members = append(ag.Members, m)
	}
	return ag
}

// exactly returns a check that the group settled on what s computes for
// the group after prev.
func exactly(s assign.Strategy, prev snapshot) func(snapshot) error {
	return func(now snapshot) error {
		want, err := s.Assign(wantGroup(prev, now))
		if err != nil {
			return fmt.Errorf("%s.Assign: %v", s.Name(), err)
		}
		if d := cmp.Diff(want, now.Assignment, cmpopts.EquateEmpty()); d != "" {
			return fmt.Errorf("%s(g) mismatch (-want +got):\n%s", s.Name(), d)
		}
		return nil
	}
}

// produce writes perBatch records to every partition, each recorded with
// the member that owns its partition in s.
func (g *group) produce(batch int, s snapshot) {
	g.t.Helper()
	owner := make(map[assign.TopicPartition]string)
	for name, id := range s.IDs {
		for _, tp := range s.Assignment[id] {
			owner[tp] = name
		}
	}
	var recs []*kgo.Record
	g.mu.Lock()
	for _, topic := range slices.Sorted(maps.Keys(e2eTopics)) {
		for p := range e2eTopics[topic] {
			for i := range perBatch {
				v := fmt.Sprintf("%s/%d/%d/%d", topic, p, batch, i)
				g.produced[v] = owner[assign.TopicPartition{Topic: topic, Partition: p}]
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
			}
		}
	}
	g.mu.Unlock()
	if err := g.admin.ProduceSync(g.ctx, recs...).FirstErr(); err != nil {
		g.t.Fatalf("produce: %v", err)
	}
}

// drain waits until every record produced has been processed.
func (g *group) drain(what string) {
	g.t.Helper()
	g.settle(what+": processing", func(snapshot) error {
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, v := range slices.Sorted(maps.Keys(g.produced)) {
			if len(g.processed[v]) == 0 {
				return fmt.Errorf("record %s not processed yet", v)
			}
		}
		return nil
	})
}

// checkRecords closes every member, then checks that each record produced
// was processed exactly once and that nothing else went wrong.
func (g *group) checkRecords() {
	g.t.Helper()
	g.closeAll()
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, v := range slices.Sorted(maps.Keys(g.produced)) {
		if by := g.processed[v]; len(by) != 1 {
			g.t.Errorf("record %s processed %d times, by %v; want once, by %s", v, len(by), by, g.produced[v])
		}
	}
	for _, p := range g.problems {
		g.t.Error(p)
	}
}
