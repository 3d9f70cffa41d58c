package franz_test

// Timeline checks: what package timeline predicts against what real kgo
// consumers do on kfake, on loopback, with short timeouts (session 3 s,
// heartbeat 300 ms, rebalance timeout 10 s). Each scenario forms a group of
// three consumers, waits until it is stable, then crashes one (kfake drops
// its group requests: no heartbeat, no LeaveGroup), closes one, or
// restarts a static one, and measures when the partitions reach their next
// owner. The model is given the same configuration and the assignment the
// group actually had, and its prediction of the same delay must agree
// within timelineTolerance.
//
// The model's members heartbeat in phase; the real ones do not: a crashed
// member's last heartbeat falls anywhere in the 300 ms before the crash and
// the survivors hear of the rebalance anywhere in the 300 ms after the
// session expires. Add the round trips and kfake's timers, and the real
// delay may differ from the prediction by up to a heartbeat interval and a
// little more: the tolerance is 700 ms, two heartbeat intervals and change.
// The measured differences are logged (go test -v -run TestTimeline).
//
// Every wait is bounded by timelineTimeout and every loop by a count.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

const (
	tlSession         = 3 * time.Second
	tlHeartbeat       = 300 * time.Millisecond
	tlRebalance       = 10 * time.Second
	timelineTolerance = 700 * time.Millisecond
	timelineTimeout   = 25 * time.Second // one scenario, from start to finish
	tlTick            = 10 * time.Millisecond
	tlMaxTicks        = int(timelineTimeout/tlTick) + 1
	tlModelCrashAt    = 10_000 // when the event happens in the model, in ms
)

var tlTopics = map[string]int32{"t": 6}

// tlConfig is the model's view of the consumers' configuration: kgo does
// not block rebalances on the poll loop here, so a member rejoins as soon
// as a heartbeat brings the news (no batch to finish).
var tlConfig = timeline.Config{
	SessionTimeout:    tlSession.Milliseconds(),
	HeartbeatInterval: tlHeartbeat.Milliseconds(),
	MaxPollInterval:   tlRebalance.Milliseconds(),
	MaxPollRecords:    1,
	RecordMicros:      0,
	MetadataMaxAge:    300_000,
}

// kfake has no group.initial.rebalance.delay.ms; its consumer-protocol
// session and heartbeat are set to the classic ones.
var tlBroker = timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: tlSession.Milliseconds(), ConsumerHeartbeatInterval: tlHeartbeat.Milliseconds()}

// tlBalancer is a balancer under test and the strategy the model runs
// for it.
type tlBalancer struct {
	name     string
	new      func() kgo.GroupBalancer
	strategy assign.Strategy
	protocol timeline.Protocol
}

var tlOurs = tlBalancer{"ours/cooperative-sticky", func() kgo.GroupBalancer { return franz.MustBalancer(assign.CooperativeSticky{}) }, assign.CooperativeSticky{}, timeline.Classic}
var tlOursRange = tlBalancer{"ours/range", func() kgo.GroupBalancer { return franz.MustBalancer(assign.Range{}) }, assign.Range{}, timeline.Classic}
var tlKgoCoop = tlBalancer{"kgo/cooperative-sticky", func() kgo.GroupBalancer { return kgo.CooperativeStickyBalancer() }, assign.CooperativeSticky{}, timeline.Classic}
var tlKgoRange = tlBalancer{"kgo/range", func() kgo.GroupBalancer { return kgo.RangeBalancer() }, assign.Range{}, timeline.Classic}

// tlKIP848 is the consumer protocol: kfake's server-side uniform assignor,
// which the model answers with assign.Uniform (a nil strategy). kfake's
// topic ids are its own, but over the one topic t they change nothing.
var tlKIP848 = tlBalancer{"kip848/uniform", func() kgo.GroupBalancer { return kgo.CooperativeStickyBalancer() }, nil, timeline.Consumer}

// tlGroup is a group under test: its cluster, its consumers, and who
// received which partition when.
type tlGroup struct {
	t       *testing.T
	ctx     context.Context
	cluster *kfake.Cluster
	addrs   []string
	bal     tlBalancer
	began   time.Time
	hb      time.Duration // heartbeat.interval.ms (and the broker's KIP-848 one)
	session time.Duration // session.timeout.ms (and the broker's KIP-848 one)

	mu       sync.Mutex
	owner    map[assign.TopicPartition]string
	receipts []tlReceipt
	releases []tlReceipt // every revocation or loss, when its callback ran (timeline_band_e2e_test.go)
	live     map[string]*tlConsumer
	dropped  map[string]bool          // member IDs whose group requests kfake drops
	beats848 int                      // ConsumerGroupHeartbeat requests seen: the group speaks KIP-848
	lastBeat map[string]time.Duration // member ID => when its last heartbeat reached kfake (timeline_band_e2e_test.go)
}

type tlReceipt struct {
	member string
	tp     assign.TopicPartition
	at     time.Duration // since start
}

type tlConsumer struct {
	name string
	cl   *kgo.Client
	stop context.CancelFunc
	done chan struct{}
}

func newTLGroup(ctx context.Context, t *testing.T, bal tlBalancer) *tlGroup {
	return newTLGroupHB(ctx, t, bal, tlHeartbeat, tlSession)
}

// newTLGroupHB is newTLGroup with heartbeat interval hb and session
// timeout session (timeline_band_e2e_test.go uses longer ones).
func newTLGroupHB(ctx context.Context, t *testing.T, bal tlBalancer, hb, session time.Duration) *tlGroup {
	// Kafka's group.min.session.timeout.ms is 6 s; our session is 3 s.
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{
		"group.min.session.timeout.ms":         "1000",
		"group.consumer.session.timeout.ms":    strconv.FormatInt(session.Milliseconds(), 10),
		"group.consumer.heartbeat.interval.ms": strconv.FormatInt(hb.Milliseconds(), 10),
	})}
	for _, name := range slices.Sorted(maps.Keys(tlTopics)) {
		opts = append(opts, kfake.SeedTopics(tlTopics[name], name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	g := &tlGroup{
		t: t, ctx: ctx, cluster: c, addrs: c.ListenAddrs(), bal: bal, began: time.Now(), hb: hb, session: session,
		owner: make(map[assign.TopicPartition]string), live: make(map[string]*tlConsumer), dropped: make(map[string]bool), lastBeat: make(map[string]time.Duration),
	}
	g.dropCrashed()
	t.Cleanup(func() {
		g.mu.Lock()
		clear(g.dropped) // let the crashed members leave, so that closing does not wait
		g.mu.Unlock()
		g.closeAll()
		c.Close()
	})
	return g
}

func (g *tlGroup) since() time.Duration { return time.Since(g.began) }

// dropCrashed installs kfake control functions that close the connection
// of any group request from a crashed member: no heartbeat, JoinGroup,
// SyncGroup, LeaveGroup or commit of it reaches the coordinator.
func (g *tlGroup) dropCrashed() {
	memberOf := map[int16]func(kmsg.Request) string{
		kmsg.Heartbeat.Int16():    func(r kmsg.Request) string { return r.(*kmsg.HeartbeatRequest).MemberID },
		kmsg.JoinGroup.Int16():    func(r kmsg.Request) string { return r.(*kmsg.JoinGroupRequest).MemberID },
		kmsg.SyncGroup.Int16():    func(r kmsg.Request) string { return r.(*kmsg.SyncGroupRequest).MemberID },
		kmsg.OffsetCommit.Int16(): func(r kmsg.Request) string { return r.(*kmsg.OffsetCommitRequest).MemberID },
		kmsg.ConsumerGroupHeartbeat.Int16(): func(r kmsg.Request) string {
			return r.(*kmsg.ConsumerGroupHeartbeatRequest).MemberID
		},
		kmsg.LeaveGroup.Int16(): func(r kmsg.Request) string {
			req := r.(*kmsg.LeaveGroupRequest)
			if len(req.Members) > 0 {
				return req.Members[0].MemberID
			}
			return req.MemberID
		},
	}
	for key, member := range memberOf {
		g.cluster.ControlKey(key, func(r kmsg.Request) (kmsg.Response, error, bool) {
			g.cluster.KeepControl()
			g.mu.Lock()
			drop := g.dropped[member(r)]
			if _, ok := r.(*kmsg.ConsumerGroupHeartbeatRequest); ok {
				g.beats848++
			}
			if key == kmsg.Heartbeat.Int16() || key == kmsg.ConsumerGroupHeartbeat.Int16() {
				g.lastBeat[member(r)] = g.since()
			}
			g.mu.Unlock()
			if drop {
				return nil, errors.New("the member crashed"), true
			}
			return nil, nil, false
		})
	}
}

// start starts a consumer; instance makes it static.
func (g *tlGroup) start(name, instance string) {
	g.t.Helper()
	opts := []kgo.Opt{
		kgo.SeedBrokers(g.addrs...),
		kgo.ClientID(name),
		kgo.ConsumerGroup("timeline"),
		kgo.ConsumeTopics(slices.Sorted(maps.Keys(tlTopics))...),
		kgo.Balancers(g.bal.new()),
		kgo.SessionTimeout(g.session),
		kgo.HeartbeatInterval(g.hb),
		kgo.RebalanceTimeout(tlRebalance),
		kgo.FetchMaxWait(50 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) {
			g.mu.Lock()
			defer g.mu.Unlock()
			for _, tp := range flat(a) {
				g.owner[tp] = name
				g.receipts = append(g.receipts, tlReceipt{name, tp, g.since()})
			}
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, r map[string][]int32) { g.release(name, r) }),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, l map[string][]int32) { g.release(name, l) }),
	}
	if instance != "" {
		opts = append(opts, kgo.InstanceID(instance))
	}
	if g.bal.protocol == timeline.Consumer {
		opts = append(opts, kgo.ServerSideBalancer())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		g.t.Fatalf("kgo.NewClient(%s): %v", name, err)
	}
	ctx, stop := context.WithCancel(g.ctx)
	c := &tlConsumer{name: name, cl: cl, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for i := 0; i < maxPolls && ctx.Err() == nil; i++ {
			pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			cl.PollRecords(pctx, 100)
			cancel()
		}
	}()
	g.mu.Lock()
	g.live[name] = c
	g.mu.Unlock()
}

func (g *tlGroup) release(name string, r map[string][]int32) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, tp := range flat(r) {
		g.releases = append(g.releases, tlReceipt{name, tp, g.since()})
		if g.owner[tp] == name {
			delete(g.owner, tp)
		}
	}
}

// stopConsumer closes a consumer (kgo sends LeaveGroup for a dynamic
// member, not for a static one) and returns when it is closed.
func (g *tlGroup) stopConsumer(name string) {
	g.t.Helper()
	g.mu.Lock()
	c := g.live[name]
	delete(g.live, name)
	g.mu.Unlock()
	if c == nil {
		g.t.Fatalf("no consumer %s", name)
	}
	c.stop()
	closed := make(chan struct{})
	go func() {
		<-c.done
		c.cl.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		g.t.Fatalf("%s did not close within 10 s", name)
	}
}

// crash makes kfake drop every group request of the consumer from now on;
// its poll loop stops too.
func (g *tlGroup) crash(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.live[name]
	id, _ := c.cl.GroupMetadata()
	g.dropped[id] = true
	c.stop()
}

func (g *tlGroup) closeAll() {
	g.mu.Lock()
	names := slices.Sorted(maps.Keys(g.live))
	g.mu.Unlock()
	for _, n := range names {
		g.stopConsumer(n)
	}
}

// settle waits until every partition has an owner among the live
// consumers, they agree on a generation, and nothing was received for
// two and a quarter heartbeats (no follow-up rebalance is coming). It returns
// who owns what.
func (g *tlGroup) settle(what string) assign.Assignment {
	g.t.Helper()
	var last string
	for range tlMaxTicks {
		a, err := g.stable()
		if err == nil {
			return a
		}
		last = err.Error()
		select {
		case <-g.ctx.Done():
			g.t.Fatalf("%s: the group did not settle: %s", what, last)
		case <-time.After(tlTick):
		}
	}
	g.t.Fatalf("%s: the group did not settle after %d checks: %s", what, tlMaxTicks, last)
	return nil
}

// settleOwned is settle that also waits until every live consumer owns
// a partition (tlTopics has enough for each): a scenario measures how the
// partitions of one member move, which says nothing when it has none.
// A group can look settled with a member owning nothing, as CI saw once
// (a static restart "measured" at minus the restart's start time).
func (g *tlGroup) settleOwned(what string) assign.Assignment {
	g.t.Helper()
	for range tlMaxTicks {
		a := g.settle(what)
		idle := ""
		for _, name := range slices.Sorted(maps.Keys(a)) {
			if len(a[name]) == 0 {
				idle = name
				break
			}
		}
		if idle == "" {
			return a
		}
		select {
		case <-g.ctx.Done():
			g.t.Fatalf("%s: %s owns no partition", what, idle)
		case <-time.After(tlTick):
		}
	}
	g.t.Fatalf("%s: a member owned no partition after %d checks", what, tlMaxTicks)
	return nil
}

func (g *tlGroup) stable() (assign.Assignment, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gen := int32(-2)
	a := make(assign.Assignment)
	for name, c := range g.live {
		if g.dropped[memberID(c)] {
			continue
		}
		_, gn := c.cl.GroupMetadata()
		if gen != -2 && gn != gen {
			return nil, fmt.Errorf("generations %d and %d", gen, gn)
		}
		gen = gn
		a[name] = nil
	}
	for _, tp := range allPartitions() {
		o, ok := g.owner[tp]
		if _, live := a[o]; !ok || !live {
			return nil, fmt.Errorf("%s has no live owner", tp)
		}
		a[o] = append(a[o], tp)
	}
	// Two and a quarter heartbeats, neither a whole nor a half number:
	// kgo's heartbeat timer runs from the assignment (and, cooperative,
	// from a beat 500 ms after it), so either would put the event of the
	// band tests within milliseconds of a heartbeat, which could then come
	// just before or just after it (see tlband.Stable in e2e).
	if n := len(g.receipts); n > 0 && g.since()-g.receipts[n-1].at < 2*g.hb+g.hb/4 {
		return nil, errors.New("partitions were received less than two and a quarter heartbeats ago")
	}
	return a, nil
}

func memberID(c *tlConsumer) string {
	id, _ := c.cl.GroupMetadata()
	return id
}

func allPartitions() []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, t := range slices.Sorted(maps.Keys(tlTopics)) {
		for p := range tlTopics[t] {
			out = append(out, assign.TopicPartition{Topic: t, Partition: p})
		}
	}
	return out
}

// received returns, once every partition of tps has been received by a
// member other than (or, with back, by) who after since, the time the last
// of them arrived.
func (g *tlGroup) received(what string, tps []assign.TopicPartition, who string, back bool, since time.Duration) time.Duration {
	g.t.Helper()
	if len(tps) == 0 {
		g.t.Fatalf("%s: %s owned no partition to follow", what, who)
	}
	for range tlMaxTicks {
		g.mu.Lock()
		var last time.Duration
		got := 0
		for _, tp := range tps {
			for _, r := range g.receipts {
				if r.tp == tp && r.at >= since && (r.member == who) == back {
					last = max(last, r.at)
					got++
					break
				}
			}
		}
		g.mu.Unlock()
		if got == len(tps) {
			return last
		}
		select {
		case <-g.ctx.Done():
			g.t.Fatalf("%s: %d of %d partitions arrived", what, got, len(tps))
		case <-time.After(tlTick):
		}
	}
	g.t.Fatalf("%s: not all partitions arrived after %d checks", what, tlMaxTicks)
	return 0
}

// predict runs the model from the group's actual assignment, with event
// at tlModelCrashAt, and returns when the last of tps reaches an owner
// other than (or, with back, equal to) who, counted from the event.
func predict(t *testing.T, bal tlBalancer, members []timeline.Member, a assign.Assignment, ev timeline.Event, tps []assign.TopicPartition, who string, back bool) (time.Duration, *timeline.Timeline) {
	t.Helper()
	ev.At = tlModelCrashAt
	tl, err := timeline.Simulate(timeline.Scenario{
		Members: members, Topics: tlTopics, Protocol: bal.protocol, Strategy: bal.strategy, Broker: &tlBroker,
		Initial: a, Events: []timeline.Event{ev},
	})
	if err != nil {
		t.Fatalf("timeline.Simulate: %v", err)
	}
	var last int64
	for _, tp := range tps {
		p, _ := tl.Partition(tp)
		found := false
		for _, o := range p.Owners {
			if o.From >= tlModelCrashAt && (o.Member == who) == back {
				last, found = max(last, o.From-tlModelCrashAt), true
				break
			}
		}
		if !found {
			t.Fatalf("the model never gives %s to %s", tp, map[bool]string{true: who, false: "another member than " + who}[back])
		}
	}
	return time.Duration(last) * time.Millisecond, tl
}

func tlMembers(static string) []timeline.Member {
	var ms []timeline.Member
	for _, id := range []string{"c0", "c1", "c2"} {
		m := timeline.Member{ID: id, Topics: []string{"t"}, Config: &tlConfig}
		if id == static {
			m.InstanceID = "i-" + id
		}
		ms = append(ms, m)
	}
	return ms
}

// compare checks the measured delay against the prediction.
func compare(t *testing.T, what string, measured, predicted time.Duration) {
	t.Helper()
	diff := measured - predicted
	t.Logf("%s: measured %v, model %v, difference %+v (tolerance ±%v)", what, measured.Round(time.Millisecond), predicted, diff.Round(time.Millisecond), timelineTolerance)
	if diff < -timelineTolerance || diff > timelineTolerance {
		t.Errorf("%s: measured %v, the model predicts %v: off by more than %v", what, measured.Round(time.Millisecond), predicted, timelineTolerance)
	}
}

// TestTimelineAgainstKgo runs each scenario under our adapter and kgo's
// own balancers, in parallel, each with its own kfake cluster.
func TestTimelineAgainstKgo(t *testing.T) {
	type scenario struct {
		name     string
		static   string // the consumer that is static, if any
		balancer []tlBalancer
		run      func(t *testing.T, g *tlGroup, a assign.Assignment, bal tlBalancer)
	}
	scenarios := []scenario{
		{
			// c1 stops heartbeating; the coordinator expires it a session
			// timeout after its last heartbeat, and the survivors take
			// its partitions at their next heartbeat.
			name: "crash", balancer: []tlBalancer{tlOurs, tlOursRange, tlKgoCoop, tlKgoRange, tlKIP848},
			run: func(t *testing.T, g *tlGroup, a assign.Assignment, bal tlBalancer) {
				at := g.since()
				g.crash("c1")
				measured := g.received("crash", a["c1"], "c1", false, at) - at
				predicted, _ := predict(t, bal, tlMembers(""), a, timeline.Event{Kind: timeline.Crash, Member: "c1"}, a["c1"], "c1", false)
				compare(t, "crash c1 to its partitions reassigned", measured, predicted)
			},
		},
		{
			// c2 closes and sends LeaveGroup: the survivors hear of the
			// rebalance at their next heartbeat.
			name: "close", balancer: []tlBalancer{tlOurs, tlKgoRange, tlKIP848},
			run: func(t *testing.T, g *tlGroup, a assign.Assignment, bal tlBalancer) {
				at := g.since()
				g.stopConsumer("c2")
				measured := g.received("close", a["c2"], "c2", false, at) - at
				predicted, _ := predict(t, bal, tlMembers(""), a, timeline.Event{Kind: timeline.Close, Member: "c2"}, a["c2"], "c2", false)
				compare(t, "close c2 to its partitions reassigned", measured, predicted)
			},
		},
		{
			// The static c1 is down 1 s, less than its session: it gets
			// its partitions back and nobody else rebalances (KIP-345).
			name: "static restart within the session", static: "c1", balancer: []tlBalancer{tlOurs, tlKgoRange},
			run: func(t *testing.T, g *tlGroup, a assign.Assignment, bal tlBalancer) {
				const down = time.Second
				at := g.since()
				g.stopConsumer("c1")
				time.Sleep(down)
				g.start("c1", "i-c1")
				measured := g.received("static restart", a["c1"], "c1", true, at) - at
				predicted, tl := predict(t, bal, tlMembers("c1"), a, timeline.Event{Kind: timeline.Restart, Member: "c1", For: down.Milliseconds()}, a["c1"], "c1", true)
				compare(t, "static c1 down 1 s to its partitions back", measured, predicted)
				if len(tl.Rebalances) != 0 {
					t.Errorf("the model predicts %d rebalances, want none", len(tl.Rebalances))
				}
				g.mu.Lock()
				for _, r := range g.receipts {
					if r.at >= at && r.member != "c1" {
						t.Errorf("%s received %s at %v: a rebalance happened", r.member, r.tp, r.at)
					}
				}
				g.mu.Unlock()
			},
		},
		{
			// The static c1 is down 4.5 s, more than its session: the
			// survivors take its partitions when it expires, and it gets
			// partitions back in a new rebalance when it returns.
			name: "static restart past the session", static: "c1", balancer: []tlBalancer{tlOurs, tlKgoRange},
			run: func(t *testing.T, g *tlGroup, a assign.Assignment, bal tlBalancer) {
				const down = 4500 * time.Millisecond
				at := g.since()
				g.stopConsumer("c1")
				members := tlMembers("c1")
				ev := timeline.Event{Kind: timeline.Restart, Member: "c1", For: down.Milliseconds()}
				measured := g.received("expiry", a["c1"], "c1", false, at) - at
				predicted, tl := predict(t, bal, members, a, ev, a["c1"], "c1", false)
				compare(t, "static c1 down 4.5 s to its partitions reassigned", measured, predicted)
				if wait := down - (g.since() - at); wait > 0 {
					time.Sleep(wait)
				}
				g.start("c1", "i-c1")
				// What the model gives c1 when it is back, and when.
				back := tl.Final["c1"]
				if len(back) == 0 {
					t.Fatalf("the model gives c1 nothing when it is back: %v", tl.Final)
				}
				measured = g.received("return", back, "c1", true, at+down) - at
				predicted, _ = predict(t, bal, members, a, ev, back, "c1", true)
				compare(t, "static c1 down 4.5 s to partitions back", measured, predicted)
			},
		},
	}
	for _, sc := range scenarios {
		for _, bal := range sc.balancer {
			t.Run(sc.name+"/"+bal.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), timelineTimeout)
				defer cancel()
				g := newTLGroup(ctx, t, bal)
				// c0 joins first and leads: the events hit members that do
				// not lead. (A static leader that restarts makes kgo rejoin
				// for a rebalance, where Kafka's KIP-814 lets it skip one.)
				g.start("c0", "")
				g.settle("c0 alone")
				for _, name := range []string{"c1", "c2"} {
					instance := ""
					if name == sc.static {
						instance = "i-" + name
					}
					g.start(name, instance)
				}
				a := g.settleOwned("forming")
				g.mu.Lock()
				beats := g.beats848
				g.mu.Unlock()
				if speaks := beats > 0; speaks != (bal.protocol == timeline.Consumer) {
					t.Fatalf("%d ConsumerGroupHeartbeat requests under the %s protocol", beats, bal.protocol)
				}
				sc.run(t, g, a, bal)
			})
		}
	}
}
