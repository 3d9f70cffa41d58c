package kafkago_test

// Timeline bands (issue 27, item 4): each partition's unowned time,
// measured on real kafka-go consumer groups (kafka.ConsumerGroup, the
// machinery under a Reader with a GroupID, eager range through
// adapters/kafkago) on kfake over loopback, against the band package
// timeline predicts for the same scenario.
//
// Three members (c0 leads), topic t with six partitions, session 3.5 s,
// heartbeat 1 s (a third of the session, the most Kafka advises; see
// adapters/franz's bandConfig for why not shorter), rebalance timeout 10
// s, no records to process. The scenarios: a crash (kfake drops every
// group request of the member), a close (kafka-go sends LeaveGroup), a
// join and a rolling restart of every member (each down 1 s, 5 s apart).
// kafka-go v0.4.51 has neither cooperative rebalancing nor static
// membership (no group.instance.id), so there is no static restart to play
// and no eager-versus-cooperative ordering to check for it. A member owns
// a partition from when Next hands it the generation until the
// generation's context ends (kafka-go ends it before rejoining); a crashed
// member's partitions are unowned from the crash. The model gets the
// configuration, the assignment the group had and the members' heartbeat
// phases as kfake saw them; the band is the [p5, p95] over tlkDraws draws
// shifting every phase by one amount (tlband.Predict). Each partition's
// measured unowned time must fall in the band widened by tlkTolerance on
// each side. The figures are logged (go test -v -run TestTimelineBands).
//
// Every wait is bounded by tlkTimeout, every loop by a count.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/e2e/internal/tlband"
	"github.com/assigncalc/assigncalc/timeline"
)

const (
	tlkSession   = 3500 * time.Millisecond // not a whole number of heartbeats: see adapters/franz's bandConfig
	tlkHeartbeat = time.Second
	tlkRebalance = 10 * time.Second
	tlkTolerance = time.Second
	tlkTie       = 300 // partition-ms
	tlkDraws     = 200
	tlkEventAt   = 10_000 // ms: the event in the model
	tlkTimeout   = 60 * time.Second
	tlkTick      = 10 * time.Millisecond
	tlkMaxTicks  = int(tlkTimeout/tlkTick) + 1
	tlkDown      = time.Second
	tlkSpacing   = 5 * time.Second

	tlkMaxGenerations = 10_000 // per member
)

var tlkTopics = map[string]int32{"t": 6}

var tlkConfig = timeline.Config{
	SessionTimeout: tlkSession.Milliseconds(), HeartbeatInterval: tlkHeartbeat.Milliseconds(),
	MaxPollInterval: tlkRebalance.Milliseconds(), MaxPollRecords: 1, MetadataMaxAge: 300_000,
}

// kfake has no group.initial.rebalance.delay.ms.
var tlkBroker = timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: tlkSession.Milliseconds(), ConsumerHeartbeatInterval: tlkHeartbeat.Milliseconds()}

type tlkGroup struct {
	*tlband.Group[*tlkMember]
}

type tlkMember struct {
	name string
	cg   *kafka.ConsumerGroup
	stop context.CancelFunc
	done chan struct{}

	mu  sync.Mutex
	id  string
	gen int32
}

func (m *tlkMember) Meta() (string, int32) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.id, m.gen
}

func newTLKGroup(ctx context.Context, t *testing.T) *tlkGroup {
	g := &tlkGroup{}
	g.Group = tlband.NewGroup[*tlkMember](ctx, t, tlband.Settings{
		Partitions: tlkPartitions(), Heartbeat: tlkHeartbeat, EventAt: tlkEventAt, Tick: tlkTick, MaxTicks: tlkMaxTicks,
	}, g.stopMember)
	return g
}

func (g *tlkGroup) start(name string, s assign.Strategy) {
	g.T.Helper()
	g.startWith(name, s, 50*time.Millisecond, nil)
}

// startWith starts a member whose JoinGroupBackoff is backoff; with a
// gate, its ConsumerGroup is made now but joins only once the gate
// closes (NewConsumerGroup starts joining at once).
func (g *tlkGroup) startWith(name string, s assign.Strategy, backoff time.Duration, gate <-chan struct{}) {
	g.T.Helper()
	if gate != nil {
		select {
		case <-gate:
		case <-g.Ctx.Done():
			g.T.Fatalf("%s: the gate never opened", name)
		}
	}
	cg, err := kafka.NewConsumerGroup(kafka.ConsumerGroupConfig{
		ID:                "timeline",
		Brokers:           g.Addrs,
		Topics:            []string{"t"},
		GroupBalancers:    []kafka.GroupBalancer{kafkago.MustBalancer(s)},
		HeartbeatInterval: tlkHeartbeat,
		SessionTimeout:    tlkSession,
		RebalanceTimeout:  tlkRebalance,
		JoinGroupBackoff:  backoff,
		StartOffset:       kafka.FirstOffset,
	})
	if err != nil {
		g.T.Fatalf("NewConsumerGroup(%s): %v", name, err)
	}
	m := &tlkMember{name: name, cg: cg, done: make(chan struct{}), gen: -1}
	ctx, stop := context.WithCancel(g.Ctx)
	m.stop = stop
	go func() {
		defer close(m.done)
		for i := 0; i < tlkMaxGenerations && ctx.Err() == nil; i++ {
			gen, err := cg.Next(ctx)
			if err != nil {
				if errors.Is(err, kafka.ErrGroupClosed) {
					return
				}
				continue // Next waits JoinGroupBackoff after a failed join, or ctx is done
			}
			var tps []assign.TopicPartition
			for topic, pas := range gen.Assignments {
				for _, pa := range pas {
					tps = append(tps, assign.TopicPartition{Topic: topic, Partition: int32(pa.ID)})
				}
			}
			m.mu.Lock()
			m.id, m.gen = gen.MemberID, gen.ID
			m.mu.Unlock()
			for _, tp := range tps {
				g.Record(name, tp, true)
			}
			gen.Start(func(gctx context.Context) {
				<-gctx.Done()
				for _, tp := range tps {
					g.Record(name, tp, false)
				}
			})
		}
	}()
	g.Add(name, m)
}

// stopMember closes the member: its generation ends, then it sends
// LeaveGroup.
func (g *tlkGroup) stopMember(name string) {
	g.T.Helper()
	m := g.Remove(name)
	closed := make(chan error, 1)
	go func() {
		closed <- m.cg.Close()
		m.stop()
		<-m.done
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		g.T.Fatalf("%s did not close within 10 s", name)
	}
}

func (g *tlkGroup) crash(name string, owned []assign.TopicPartition, at time.Duration) {
	m := g.Crash(name, owned, at)
	m.stop()
	g.T.Cleanup(func() { m.cg.Close(); <-m.done })
}

func tlkPartitions() []assign.TopicPartition {
	var out []assign.TopicPartition
	for p := range tlkTopics["t"] {
		out = append(out, assign.TopicPartition{Topic: "t", Partition: p})
	}
	return out
}

type tlkScenario struct {
	name   string
	byRank bool // dynamic members restart: measured against the bands by rank (tlband.ByRank says why)
	events []timeline.Event
	play   func(g *tlkGroup, s assign.Strategy, a assign.Assignment, at time.Duration)
}

func tlkScenarios() []tlkScenario {
	down := tlkDown.Milliseconds()
	return []tlkScenario{
		{name: "crash", events: []timeline.Event{{Kind: timeline.Crash, Member: "c1"}},
			play: func(g *tlkGroup, _ assign.Strategy, a assign.Assignment, at time.Duration) {
				g.crash("c1", a["c1"], at)
			}},
		{name: "close", events: []timeline.Event{{Kind: timeline.Close, Member: "c2"}},
			play: func(g *tlkGroup, _ assign.Strategy, _ assign.Assignment, _ time.Duration) { g.stopMember("c2") }},
		{name: "join", events: []timeline.Event{{Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: &tlkConfig}},
			play: func(g *tlkGroup, s assign.Strategy, _ assign.Assignment, _ time.Duration) { g.start("c3", s) }},
		{name: "rolling restart", byRank: true,
			events: []timeline.Event{
				{Kind: timeline.Restart, Member: "c0", For: down},
				{At: tlkSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c1", For: down},
				{At: 2 * tlkSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c2", For: down},
			},
			play: func(g *tlkGroup, s assign.Strategy, _ assign.Assignment, at time.Duration) {
				for i, name := range []string{"c0", "c1", "c2"} {
					g.SleepUntil(at + time.Duration(i)*tlkSpacing)
					g.stopMember(name)
					g.SleepUntil(at + time.Duration(i)*tlkSpacing + tlkDown)
					g.start(name, s)
				}
			}},
	}
}

func tlkMembers() []timeline.Member {
	var ms []timeline.Member
	for _, id := range []string{"c0", "c1", "c2"} {
		ms = append(ms, timeline.Member{ID: id, Topics: []string{"t"}, Config: &tlkConfig})
	}
	return ms
}

func playTLK(t *testing.T, sc tlkScenario, s assign.Strategy) tlband.Result {
	ctx, cancel := context.WithTimeout(context.Background(), tlkTimeout)
	defer cancel()
	g := newTLKGroup(ctx, t)
	g.start("c0", s)
	g.Settle("c0 alone")
	for _, name := range []string{"c1", "c2"} {
		g.start(name, s)
	}
	a := g.Settle("forming")
	at := g.Since()
	real := g.Phases(at)
	sc.play(g, s, a, at)
	g.Settle(sc.name)
	return g.Judge(t, sc.name, timeline.Scenario{
		Members: tlkMembers(), Topics: tlkTopics, Strategy: s, Broker: &tlkBroker,
		Initial: a, Events: sc.events, RTT: 1,
	}, at, real, sc.byRank, tlkTolerance, tlkDraws)
}

// TestTimelineBands plays every scenario under eager range, one at a
// time (fewer clusters at once add less load of their own), each on its
// own kfake cluster.
func TestTimelineBands(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real rebalances for about a minute")
	}
	for _, sc := range tlkScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			playTLK(t, sc, assign.Range{})
		})
	}
}
