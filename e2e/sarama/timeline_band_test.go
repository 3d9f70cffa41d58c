package sarama_test

// Timeline bands (issue 27, item 4): each partition's unowned time,
// measured on real sarama consumer groups (eager range and, since sarama
// v1.60.1, cooperative-sticky, both our strategies through
// adapters/assignsarama) on kfake over loopback, against the band package
// timeline predicts for the same scenario.
//
// Three members (c0 leads), topic t with six partitions, session 3.5 s,
// heartbeat 1 s (a third of the session, the most Kafka advises; see
// adapters/franz's bandConfig for why not shorter), rebalance timeout 10
// s, no records to process. The scenarios: a crash (kfake drops every
// group request of the member), a close, a join, a rolling restart of
// every member (each down 1 s, 5 s apart), a crash whose member's new
// process starts 1 s later, and a static member's restart
// within its session (sarama sends no LeaveGroup for a static member,
// KIP-345; kfake, unlike Kafka, rebalances for sarama's cooperative
// members, which the model is told: playTLS says why). A
// member owns a partition while its ConsumeClaim runs; a
// crashed member's partitions are unowned from the crash. The model gets
// the configuration, the assignment the group had and the members'
// heartbeat phases as kfake saw them; the band is the [p5, p95] over
// tlsDraws draws shifting every phase by one amount (tlband.Predict). Each
// partition's measured unowned time must fall in the band widened by
// tlsTolerance on each side, so must the total in the band of totals, and
// the eager and cooperative totals must be ordered as the model orders
// them (tlband.Order). The figures are logged
// (go test -v -run TestTimelineBands).
//
// Every wait is bounded by tlsTimeout, every loop by a count.

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/e2e/internal/tlband"
	"github.com/assigncalc/assigncalc/timeline"
)

const (
	tlsSession   = 3500 * time.Millisecond // not a whole number of heartbeats: see adapters/franz's bandConfig
	tlsHeartbeat = time.Second
	tlsRebalance = 10 * time.Second
	tlsTolerance = time.Second
	tlsTie       = 300 // partition-ms
	tlsDraws     = 200
	tlsEventAt   = 10_000 // ms: the event in the model
	tlsTimeout   = 60 * time.Second
	tlsTick      = 10 * time.Millisecond
	tlsMaxTicks  = int(tlsTimeout/tlsTick) + 1
	tlsDown      = time.Second
	tlsSpacing   = 5 * time.Second
)

var tlsTopics = map[string]int32{"t": 6}

var tlsConfig = timeline.Config{
	SessionTimeout: tlsSession.Milliseconds(), HeartbeatInterval: tlsHeartbeat.Milliseconds(),
	MaxPollInterval: tlsRebalance.Milliseconds(), MaxPollRecords: 1, MetadataMaxAge: 300_000,
}

// kfake has no group.initial.rebalance.delay.ms.
var tlsBroker = timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: tlsSession.Milliseconds(), ConsumerHeartbeatInterval: tlsHeartbeat.Milliseconds()}

type tlsGroup struct {
	*tlband.Group[*tlsMember]
}

type tlsMember struct {
	name string
	cg   sarama.ConsumerGroup
	stop context.CancelFunc
	done chan struct{}

	// sess is the member's session: under cooperative rebalancing sarama
	// keeps one across generations and calls Setup once, so the member ID
	// and generation are read from it each time.
	sess atomic.Pointer[sarama.ConsumerGroupSession]
}

func (m *tlsMember) Meta() (string, int32) {
	s := m.sess.Load()
	if s == nil {
		return "", -1
	}
	return (*s).MemberID(), (*s).GenerationID()
}

func newTLSGroup(ctx context.Context, t *testing.T) *tlsGroup {
	g := &tlsGroup{}
	g.Group = tlband.NewGroup[*tlsMember](ctx, t, tlband.Settings{
		Partitions: tlsPartitions(), Heartbeat: tlsHeartbeat, EventAt: tlsEventAt, Tick: tlsTick, MaxTicks: tlsMaxTicks,
	}, g.stopMember)
	return g
}

type tlsHandler struct {
	g *tlsGroup
	m *tlsMember
}

func (h tlsHandler) Setup(s sarama.ConsumerGroupSession) error {
	h.m.sess.Store(&s)
	return nil
}

func (h tlsHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

// ConsumeClaim owns its partition from when it starts until it returns.
func (h tlsHandler) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	tp := assign.TopicPartition{Topic: c.Topic(), Partition: c.Partition()}
	h.g.Record(h.m.name, tp, true)
	defer h.g.Record(h.m.name, tp, false)
	for msg := range c.Messages() {
		s.MarkMessage(msg, "")
	}
	return nil
}

func (g *tlsGroup) start(name, instance string, s assign.Strategy) {
	g.T.Helper()
	g.startWith(name, instance, s, 50*time.Millisecond, nil)
}

// startWith starts a member whose Consumer.Group.Rebalance.Retry.Backoff
// is backoff; with a gate, its client is made now but consumes only once
// the gate closes.
func (g *tlsGroup) startWith(name, instance string, s assign.Strategy, backoff time.Duration, gate <-chan struct{}) {
	g.T.Helper()
	cfg := sarama.NewConfig()
	cfg.ClientID = name
	cfg.Version = sarama.V3_6_0_0
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Group.Heartbeat.Interval = tlsHeartbeat
	cfg.Consumer.Group.Session.Timeout = tlsSession
	cfg.Consumer.Group.Rebalance.Timeout = tlsRebalance
	cfg.Consumer.Group.Rebalance.Retry.Backoff = backoff
	// The partitions are idle, so every fetch waits MaxWaitTime at kfake,
	// and a member's claims end only after the fetch in flight (at 50 ms,
	// 51 ms after the heartbeat that told of the rebalance), its
	// heartbeats reaching kfake up to that much late too: each rebalance
	// round moves the members' heartbeats later by up to MaxWaitTime. The
	// model assumes a backlog (fetches return at once). At 50 ms the four
	// rounds before the rolling restart's third close moved the
	// survivors' heartbeats about 320 ms later, past the close, and range
	// measured 3.7-4.0 s against 4.6-4.7 s on the measured phases; at
	// 10 ms, 4.8 s against 4.65 s.
	cfg.Consumer.MaxWaitTime = 10 * time.Millisecond
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{assignsarama.MustStrategy(s)}
	if instance != "" {
		cfg.Consumer.Group.InstanceId = instance
	}
	cg, err := sarama.NewConsumerGroup(g.Addrs, "timeline", cfg)
	if err != nil {
		g.T.Fatalf("NewConsumerGroup(%s): %v", name, err)
	}
	m := &tlsMember{name: name, cg: cg, done: make(chan struct{})}
	ctx, stop := context.WithCancel(g.Ctx)
	m.stop = stop
	go func() {
		defer close(m.done)
		if gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
		}
		for i := 0; i < maxSessions && ctx.Err() == nil; i++ {
			if err := cg.Consume(ctx, []string{"t"}, tlsHandler{g, m}); err != nil && ctx.Err() == nil {
				time.Sleep(50 * time.Millisecond) // a crashed member's rejoin fails; do not spin
			}
		}
	}()
	g.Add(name, m)
}

// stopMember ends the member's session (its claims return) and closes it
// (a LeaveGroup for a dynamic member).
func (g *tlsGroup) stopMember(name string) {
	g.T.Helper()
	m := g.Remove(name)
	m.stop()
	closed := make(chan error, 1)
	go func() {
		<-m.done
		closed <- m.cg.Close()
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		g.T.Fatalf("%s did not close within 10 s", name)
	}
}

func (g *tlsGroup) crash(name string, owned []assign.TopicPartition, at time.Duration) {
	m := g.Crash(name, owned, at)
	m.stop()
	g.T.Cleanup(func() { <-m.done; m.cg.Close() })
}

func tlsPartitions() []assign.TopicPartition {
	var out []assign.TopicPartition
	for p := range tlsTopics["t"] {
		out = append(out, assign.TopicPartition{Topic: "t", Partition: p})
	}
	return out
}

type tlsScenario struct {
	name   string
	byRank bool // dynamic members restart: measured against the bands by rank (tlband.ByRank says why)
	static string
	events []timeline.Event
	play   func(g *tlsGroup, s assign.Strategy, a assign.Assignment, at time.Duration)
}

func tlsScenarios() []tlsScenario {
	down := tlsDown.Milliseconds()
	return []tlsScenario{
		{name: "crash", events: []timeline.Event{{Kind: timeline.Crash, Member: "c1"}},
			play: func(g *tlsGroup, _ assign.Strategy, a assign.Assignment, at time.Duration) {
				g.crash("c1", a["c1"], at)
			}},
		{name: "close", events: []timeline.Event{{Kind: timeline.Close, Member: "c2"}},
			play: func(g *tlsGroup, _ assign.Strategy, _ assign.Assignment, _ time.Duration) { g.stopMember("c2") }},
		{name: "join", events: []timeline.Event{{Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: &tlsConfig}},
			play: func(g *tlsGroup, s assign.Strategy, _ assign.Assignment, _ time.Duration) { g.start("c3", "", s) }},
		{name: "rolling restart", byRank: true,
			events: []timeline.Event{
				{Kind: timeline.Restart, Member: "c0", For: down},
				{At: tlsSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c1", For: down},
				{At: 2 * tlsSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c2", For: down},
			},
			play: func(g *tlsGroup, s assign.Strategy, _ assign.Assignment, at time.Duration) {
				for i, name := range []string{"c0", "c1", "c2"} {
					g.SleepUntil(at + time.Duration(i)*tlsSpacing)
					g.stopMember(name)
					g.SleepUntil(at + time.Duration(i)*tlsSpacing + tlsDown)
					g.start(name, "", s)
				}
			}},
		// The crashed member's new process starts within the old one's
		// session: a new member.id, the old one in the group until its
		// session expires.
		{name: "crash and restart", events: []timeline.Event{{Kind: timeline.Crash, Member: "c1"}, {Kind: timeline.Restart, Member: "c1", For: down}},
			play: func(g *tlsGroup, s assign.Strategy, a assign.Assignment, at time.Duration) {
				g.crash("c1", a["c1"], at)
				g.SleepUntil(at + tlsDown)
				g.start("c1", "", s)
			}},
		{name: "static restart", static: "c1", events: []timeline.Event{{Kind: timeline.Restart, Member: "c1", For: down}},
			play: func(g *tlsGroup, s assign.Strategy, _ assign.Assignment, at time.Duration) {
				g.stopMember("c1")
				g.SleepUntil(at + tlsDown)
				g.start("c1", "i-c1", s)
			}},
	}
}

func tlsMembers(static string) []timeline.Member {
	var ms []timeline.Member
	for _, id := range []string{"c0", "c1", "c2"} {
		m := timeline.Member{ID: id, Topics: []string{"t"}, Config: &tlsConfig}
		if id == static {
			m.InstanceID = "i-" + id
		}
		ms = append(ms, m)
	}
	return ms
}

func playTLS(t *testing.T, sc tlsScenario, s assign.Strategy) tlband.Result {
	ctx, cancel := context.WithTimeout(context.Background(), tlsTimeout)
	defer cancel()
	g := newTLSGroup(ctx, t)
	g.start("c0", "", s)
	g.Settle("c0 alone")
	for _, name := range []string{"c1", "c2"} {
		instance := ""
		if name == sc.static {
			instance = "i-" + name
		}
		g.start(name, instance, s)
	}
	a := g.Settle("forming")
	at := g.Since()
	real := g.Phases(at)
	sc.play(g, s, a, at)
	g.Settle(sc.name)
	broker := tlsBroker
	// kfake rebalances when a static member's new process rejoins with
	// JoinGroup metadata unlike its previous JoinGroup's
	// (group.replaceStaticMember's sameJoin), which Kafka does not
	// (timeline.Broker.StaticRejoinRebalances). sarama's cooperative
	// members join with what they hold and its generation
	// (rejoinCooperative's heldAssignment, in the v2 subscription and
	// the cooperative user data), so a new process's first JoinGroup,
	// generation -1 and owning nothing, always differs from the last one
	// of its previous process, which had joined a generation; its eager
	// members always join with no held assignment and generation -1, the
	// same bytes.
	broker.StaticRejoinRebalances = sc.static != "" && s.Protocol() == assign.Cooperative
	return g.Judge(t, sc.name, timeline.Scenario{
		Members: tlsMembers(sc.static), Topics: tlsTopics, Strategy: s, Broker: &broker,
		Initial: a, Events: sc.events, RTT: 1,
	}, at, real, sc.byRank, tlsTolerance, tlsDraws)
}

// TestTimelineBands plays every scenario under eager range and
// cooperative-sticky, in parallel, each on its own kfake cluster, then
// checks the orderings.
func TestTimelineBands(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real rebalances for about half a minute")
	}
	strategies := []assign.Strategy{assign.Range{}, assign.CooperativeSticky{}}
	var mu sync.Mutex
	results := make(map[string][2]tlband.Result)
	// One scenario at a time, its strategies in parallel: fewer clusters at
	// once add less load of their own.
	for _, sc := range tlsScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			for i, s := range strategies {
				t.Run(s.Name(), func(t *testing.T) {
					t.Parallel()
					r := playTLS(t, sc, s)
					mu.Lock()
					defer mu.Unlock()
					rs := results[sc.name]
					rs[i] = r
					results[sc.name] = rs
				})
			}
		})
	}
	for _, sc := range tlsScenarios() {
		rs, ok := results[sc.name]
		if !ok {
			continue // not run (go test -run), or every run failed and said why
		}
		if rs[0].Measured == nil || rs[1].Measured == nil {
			t.Errorf("%s: no result to order (a run failed)", sc.name)
			continue
		}
		log, err := tlband.Order(rs[0], rs[1], tlsTie, tlsTolerance)
		t.Logf("%s: %s", sc.name, log)
		if err != nil {
			t.Errorf("%s: %v", sc.name, err)
		}
	}
}
