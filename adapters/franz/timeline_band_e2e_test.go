package franz_test

// Timeline bands: each partition's unowned time, measured on real kgo
// consumers on kfake (loopback), against the band package timeline
// predicts for the same scenario over many draws of the members' phases
// (issue 27, item 4).
//
// The group is the one of timeline_e2e_test.go: three consumers (c0
// leads), topic t with six partitions, rebalance timeout 10 s, but a
// heartbeat of 1 s and a session of 3.5 s (bandConfig says why), no batch to finish (kgo does not block a
// rebalance on the poll loop). The scenarios are a crash, a close, a
// join, a rolling restart of every member (each down 1 s, 5 s apart), a
// crash whose member's new process starts 1 s later (a new member.id
// beside the old one until its session expires) and a static member's
// restart within its session, each under eager range,
// cooperative-sticky (both our strategies through the adapter, so that the
// model computes the very assignments the leader does) and the consumer
// protocol (kgo's ServerSideBalancer: kfake implements
// ConsumerGroupHeartbeat and its uniform assignor, which the model answers
// with assign.Uniform).
//
// What is measured: from the event to the end of the scenario (the group
// settled and quiet for two and a quarter heartbeats), the time each partition had no
// owner, from kgo's OnPartitionsAssigned, OnPartitionsRevoked and
// OnPartitionsLost callbacks (a crashed member's partitions from the
// crash). What is predicted: the model is given the configuration, the
// assignment the group actually had, and the members' heartbeat phases as
// kfake saw them (each member's last heartbeat before the event); then
// the band is the nearest-rank [p5, p95] of each partition's unowned time
// over bandDraws draws that shift all the members' phases by one amount
// (seeds 1 to bandDraws, bandRTT round trip): the members keep their
// measured offsets from each other and the event falls anywhere in their
// cycle. (Drawn for each member apart, as the model does by default, the
// band put the eager survivors of a join up to a heartbeat apart, where
// kgo's, which restart their heartbeat timers when SyncGroup returns, are
// in step within milliseconds and rejoin together.) The measurement must
// fall within the band widened by bandTolerance on each side (under the
// consumer protocol matched by rank; byRank says why): kgo's and
// kfake's timers drift under load (this machine's load is often 4 times
// its cores), the callbacks run a little after the state changes, and a
// rolling restart's events are placed by sleeping. The figures are logged
// (go test -v -run TestTimelineBands).
//
// And per scenario, the eager-versus-cooperative ordering of the group's
// total unowned partition-time must agree between model and measurement,
// as checkOrdering states.
//
// Every wait is bounded by bandTimeout, every loop by a count.

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

const (
	bandDraws     = 200
	bandRTT       = 1 // ms: loopback
	bandHeartbeat = time.Second
	bandSession   = 3500 * time.Millisecond
	bandTolerance = time.Second
	bandTie       = 300 // partition-ms: totals closer than this are a tie
	bandTimeout   = 60 * time.Second
	bandDown      = time.Second     // a restart's downtime
	bandSpacing   = 5 * time.Second // between the restarts of a rolling restart
)

// bandConfig is tlConfig with bandHeartbeat: a heartbeat of 1 s, a third
// of the session (the most Kafka's heartbeat.interval.ms doc advises), makes what the protocols
// cost (a heartbeat's wait for each round) large beside what this
// machine's load adds to every request (up to some hundreds of
// milliseconds at a load of 10 on 2 cores), so that the orderings and
// the bands stand out from it; with 300 ms the load reversed the join's
// ordering (6 eager partitions 80 ms late each against one cooperative
// partition waiting 300 ms). The session, 3.5 s, is not a whole number of
// heartbeats: members in step heartbeat together, so a crashed member's
// session would otherwise expire at the very instant the survivors
// heartbeat, and whether they hear of it then or a heartbeat later would
// be a coin toss of a millisecond, a whole heartbeat apart.
var bandConfig = func() timeline.Config {
	c := tlConfig
	c.HeartbeatInterval = bandHeartbeat.Milliseconds()
	c.SessionTimeout = bandSession.Milliseconds()
	// kgo's cooperative members also heartbeat 500 ms after each
	// assignment (the model's client trait, timeline.Config's
	// CooperativeCheck, says where in kgo).
	c.CooperativeCheck = 500
	return c
}()

var bandBroker = timeline.Broker{InitialRebalanceDelay: 0, ConsumerSessionTimeout: bandSession.Milliseconds(), ConsumerHeartbeatInterval: bandHeartbeat.Milliseconds()}

// bandScenario is one scenario, as the model sees it (events, at offsets
// from the event's start) and as the test plays it on the real group.
type bandScenario struct {
	name   string
	static string // the member that is static, if any
	events []timeline.Event
	play   func(g *tlGroup, a assign.Assignment, at time.Duration)
}

// sleepUntil sleeps until the group's clock reads t (never past ctx).
func (g *tlGroup) sleepUntil(t time.Duration) {
	if d := t - g.since(); d > 0 {
		select {
		case <-time.After(d):
		case <-g.ctx.Done():
		}
	}
}

func bandScenarios() []bandScenario {
	down := bandDown.Milliseconds()
	return []bandScenario{
		{
			name:   "crash",
			events: []timeline.Event{{Kind: timeline.Crash, Member: "c1"}},
			play: func(g *tlGroup, a assign.Assignment, at time.Duration) {
				g.crash("c1")
				g.mu.Lock()
				for _, tp := range a["c1"] {
					g.releases = append(g.releases, tlReceipt{"c1", tp, at})
				}
				g.mu.Unlock()
			},
		},
		{
			name:   "close",
			events: []timeline.Event{{Kind: timeline.Close, Member: "c2"}},
			play:   func(g *tlGroup, _ assign.Assignment, _ time.Duration) { g.stopConsumer("c2") },
		},
		{
			name:   "join",
			events: []timeline.Event{{Kind: timeline.Join, Member: "c3", Topics: []string{"t"}, Config: &bandConfig}},
			play:   func(g *tlGroup, _ assign.Assignment, _ time.Duration) { g.start("c3", "") },
		},
		{
			name: "rolling restart",
			events: []timeline.Event{
				{Kind: timeline.Restart, Member: "c0", For: down},
				{At: bandSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c1", For: down},
				{At: 2 * bandSpacing.Milliseconds(), Kind: timeline.Restart, Member: "c2", For: down},
			},
			play: func(g *tlGroup, _ assign.Assignment, at time.Duration) {
				for i, name := range []string{"c0", "c1", "c2"} {
					g.sleepUntil(at + time.Duration(i)*bandSpacing)
					g.stopConsumer(name)
					g.sleepUntil(at + time.Duration(i)*bandSpacing + bandDown)
					g.start(name, "")
				}
			},
		},
		{
			// A dynamic member crashes and its new process starts within
			// the old one's session: the new process is a new member
			// (kgo draws a new member.id, under the consumer protocol too,
			// KIP-1082), and the old member.id stays in the group until
			// its session expires.
			name: "crash and restart",
			events: []timeline.Event{
				{Kind: timeline.Crash, Member: "c1"},
				{Kind: timeline.Restart, Member: "c1", For: down},
			},
			play: func(g *tlGroup, a assign.Assignment, at time.Duration) {
				g.crash("c1")
				g.mu.Lock()
				for _, tp := range a["c1"] {
					g.releases = append(g.releases, tlReceipt{"c1", tp, at})
					delete(g.owner, tp) // the new c1 does not own them
				}
				old := g.live["c1"]
				delete(g.live, "c1")
				g.mu.Unlock()
				g.t.Cleanup(func() {
					closed := make(chan struct{})
					go func() { <-old.done; old.cl.Close(); close(closed) }()
					select {
					case <-closed:
					case <-time.After(10 * time.Second):
					}
				})
				g.sleepUntil(at + bandDown)
				g.start("c1", "")
			},
		},
		{
			name:   "static restart",
			static: "c1",
			events: []timeline.Event{{Kind: timeline.Restart, Member: "c1", For: down}},
			play: func(g *tlGroup, _ assign.Assignment, at time.Duration) {
				g.stopConsumer("c1")
				g.sleepUntil(at + bandDown)
				g.start("c1", "i-c1")
			},
		},
	}
}

// bandResult is one scenario under one balancer: per partition and in
// total, the measured unowned time and the predicted band.
type bandResult struct {
	measured map[assign.TopicPartition]time.Duration
	total    int64 // measured, partition-ms
	pred     bandPrediction
}

// measureUnowned returns, for each partition, how long it had no owner
// between at and end, replaying receipts and releases from the
// assignment a the group had at at.
func (g *tlGroup) measureUnowned(a assign.Assignment, at, end time.Duration) map[assign.TopicPartition]time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	type change struct {
		at     time.Duration
		member string
		own    bool
	}
	byTP := make(map[assign.TopicPartition][]change)
	for _, r := range g.receipts {
		if r.at >= at && r.at <= end {
			byTP[r.tp] = append(byTP[r.tp], change{r.at, r.member, true})
		}
	}
	for _, r := range g.releases {
		if r.at >= at && r.at <= end {
			byTP[r.tp] = append(byTP[r.tp], change{r.at, r.member, false})
		}
	}
	out := make(map[assign.TopicPartition]time.Duration)
	for _, tp := range allPartitions() {
		owners := make(map[string]bool)
		for m, tps := range a {
			if slices.Contains(tps, tp) {
				owners[m] = true
			}
		}
		cs := byTP[tp]
		// Releases before receipts at one instant: an eager member that
		// revokes and receives in one millisecond had a gap of zero.
		slices.SortStableFunc(cs, func(x, y change) int {
			if x.at != y.at {
				return int(x.at - y.at)
			}
			if x.own == y.own {
				return 0
			}
			if !x.own {
				return -1
			}
			return 1
		})
		var unowned time.Duration
		last := at
		for _, c := range cs {
			if len(owners) == 0 {
				unowned += c.at - last
			}
			last = c.at
			if c.own {
				owners[c.member] = true
			} else {
				delete(owners, c.member)
			}
		}
		if len(owners) == 0 {
			unowned += end - last
		}
		out[tp] = unowned
	}
	return out
}

// bandPrediction is what the model says of one scenario on one group.
type bandPrediction struct {
	band   map[assign.TopicPartition][2]int64 // [p5, p95] of each partition's unowned ms
	totals [3]int64                           // p5, p50 and p95 of the total
	exact  int64                              // the total under the phases measured (this run's draw)
}

// predictBand plays the scenario from the group's actual assignment and
// the members' measured phases (the exact draw), then bandDraws times with
// the phases shifted, and returns each partition's [p5, p95] unowned ms
// from the scenario's start, and the totals.
func predictBand(t *testing.T, bal tlBalancer, sc bandScenario, a assign.Assignment, real map[string]timeline.Phase) bandPrediction {
	t.Helper()
	events := make([]timeline.Event, len(sc.events))
	for i, e := range sc.events {
		e.At += tlModelCrashAt
		events[i] = e
	}
	broker := bandBroker
	// kfake rebalances when a static member's new process rejoins with
	// JoinGroup metadata unlike its previous JoinGroup's
	// (group.replaceStaticMember's sameJoin), which Kafka does not
	// (timeline.Broker.StaticRejoinRebalances). kgo hands every balancer
	// the generation and what the member was assigned, which our adapter
	// writes into the subscription, so the restart's first JoinGroup
	// (generation -1, owning nothing) is the same as the last one only if
	// that was the member's first too. Under eager range it was: c1 and c2
	// joined the group together, once. Under cooperative-sticky it was
	// not: c0 revoked four partitions when they joined, and the
	// follow-up round had them join again in a generation.
	broker.StaticRejoinRebalances = sc.static != "" && bal.protocol == timeline.Classic && bal.strategy.Protocol() == assign.Cooperative
	var pr bandPrediction
	per := make(map[assign.TopicPartition][]int64)
	var totals []int64
	for seed := uint64(0); seed <= bandDraws; seed++ {
		tl, err := timeline.Simulate(timeline.Scenario{
			Members: bandMembers(sc.static), Topics: tlTopics, Protocol: bal.protocol, Strategy: bal.strategy,
			Broker: &broker, Initial: a, Events: events, Seed: seed, RTT: bandRTT,
			Phases: shifted(real, seed),
		})
		if err != nil {
			t.Fatalf("timeline.Simulate (seed %d): %v", seed, err)
		}
		var total int64
		for _, p := range tl.Partitions {
			var ms int64
			for _, s := range p.Unowned {
				if s.To > tlModelCrashAt {
					ms += s.To - max(s.From, tlModelCrashAt)
				}
			}
			if seed > 0 {
				per[p.TopicPartition] = append(per[p.TopicPartition], ms)
			}
			total += ms
		}
		if seed == 0 {
			pr.exact = total
			continue
		}
		totals = append(totals, total)
	}
	pr.band = make(map[assign.TopicPartition][2]int64)
	for tp, xs := range per {
		pr.band[tp] = [2]int64{nearestRank(xs, 5), nearestRank(xs, 95)}
	}
	pr.totals = [3]int64{nearestRank(totals, 5), nearestRank(totals, 50), nearestRank(totals, 95)}
	return pr
}

// realPhases returns each member's heartbeat phase at the event, as the
// model takes it: its next heartbeat is due one heartbeat interval after
// its last one reached kfake, and the model's heartbeats come at the
// phase plus whole intervals, with the event at tlModelCrashAt.
func (g *tlGroup) realPhases(at time.Duration) map[string]timeline.Phase {
	g.mu.Lock()
	defer g.mu.Unlock()
	hb := bandHeartbeat.Milliseconds()
	phases := make(map[string]timeline.Phase)
	for name, c := range g.live {
		id, _ := c.cl.GroupMetadata()
		next := tlModelCrashAt + (g.lastBeat[id] + bandHeartbeat - at).Milliseconds()
		phases[name] = timeline.Phase{Heartbeat: ((next-1)%hb+hb)%hb + 1}
	}
	return phases
}

// shifted moves every phase of real by the same amount, drawn from seed
// (none for seed 0): the members keep their measured offsets from each
// other, which kgo, like the Java consumer, sets when SyncGroup returns
// (a classic group that formed in one rebalance is in step within a few
// milliseconds) or, under the consumer protocol, from each member's own
// heartbeat responses; what is drawn is where in their cycle the event
// falls. (Drawn for each member apart, as the model draws by default,
// the band put the eager survivors of a join up to a heartbeat apart,
// where the real ones rejoin within a millisecond of each other.)
func shifted(real map[string]timeline.Phase, seed uint64) map[string]timeline.Phase {
	if seed == 0 {
		return real
	}
	hb := bandHeartbeat.Milliseconds()
	shift := timeline.DrawPhase(seed, "group", hb, 0).Heartbeat - 1
	out := make(map[string]timeline.Phase, len(real))
	for name, p := range real {
		out[name] = timeline.Phase{Heartbeat: (p.Heartbeat-1+shift)%hb + 1}
	}
	return out
}

func bandMembers(static string) []timeline.Member {
	ms := tlMembers(static)
	for i := range ms {
		ms[i].Config = &bandConfig
	}
	return ms
}

// byRank pairs the measured times with the bands by rank instead of by
// partition: the longest measured with the band of the highest p95, and
// so on, under partition names t-0, t-1, ... of the ranks. Under the
// consumer protocol which partitions move is kfake's uniform assignor's
// choice among its members' ids, which kgo draws at random and the model
// cannot know (it names members c0, c1, ...), so only how many partitions
// wait how long can be compared.
func byRank(measured map[assign.TopicPartition]time.Duration, band map[assign.TopicPartition][2]int64) (map[assign.TopicPartition]time.Duration, map[assign.TopicPartition][2]int64) {
	tps := allPartitions()
	ms := slices.Collect(maps.Values(measured))
	slices.SortFunc(ms, func(x, y time.Duration) int { return cmp.Compare(y, x) })
	bs := slices.Collect(maps.Values(band))
	slices.SortFunc(bs, func(x, y [2]int64) int { return cmp.Or(cmp.Compare(y[1], x[1]), cmp.Compare(y[0], x[0])) })
	m2 := make(map[assign.TopicPartition]time.Duration)
	b2 := make(map[assign.TopicPartition][2]int64)
	for i, tp := range tps {
		m2[tp], b2[tp] = ms[i], bs[i]
	}
	return m2, b2
}

// nearestRank is the smallest of xs that at least p% of xs do not exceed.
func nearestRank(xs []int64, p int) int64 {
	s := slices.Sorted(slices.Values(xs))
	return s[(p*len(s)+99)/100-1]
}

// TestTimelineBands plays every scenario under eager range,
// cooperative-sticky and the consumer protocol, in parallel, each on its
// own kfake cluster, then checks the orderings.
func TestTimelineBands(t *testing.T) {
	if testing.Short() {
		t.Skip("plays real rebalances for about two minutes")
	}
	bals := []tlBalancer{tlOursRange, tlOurs, tlKIP848}
	var mu sync.Mutex
	results := make(map[string]map[string]bandResult) // scenario => balancer => result
	// One scenario at a time, its balancers in parallel: fewer clusters at
	// once add less load of their own to what the tolerance must absorb.
	for _, sc := range bandScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			for _, bal := range bals {
				t.Run(bal.name, func(t *testing.T) {
					t.Parallel()
					r := playBand(t, sc, bal)
					mu.Lock()
					defer mu.Unlock()
					if results[sc.name] == nil {
						results[sc.name] = make(map[string]bandResult)
					}
					results[sc.name][bal.name] = r
				})
			}
		})
	}
	for _, sc := range bandScenarios() {
		if results[sc.name] == nil {
			continue // not run (go test -run), or every run failed and said why
		}
		eager, ok1 := results[sc.name][tlOursRange.name]
		coop, ok2 := results[sc.name][tlOurs.name]
		if !ok1 || !ok2 {
			t.Errorf("%s: no result to order (a run failed)", sc.name)
			continue
		}
		checkOrdering(t, sc.name, eager, coop)
	}
}

// checkOrdering checks that the model and the measurement order eager and
// cooperative the same way. The model orders them strictly when the
// [p5, p95] bands of their totals do not overlap and its answer on the
// measured phases puts the same one ahead by more than bandTie (a real
// join once split members in step within a millisecond, which the exact
// answer sees and the band does not); then the measured totals must differ
// the same way. Otherwise (a tie, or an order that depends on the draw) the
// measured totals must differ by no more than bandTie plus bandTolerance
// for each partition that was unowned at all.
func checkOrdering(t *testing.T, name string, eager, coop bandResult) {
	t.Helper()
	median := eager.pred.totals[1] - coop.pred.totals[1]
	exact := eager.pred.exact - coop.pred.exact
	meas := eager.total - coop.total
	t.Logf("%s: unowned partition-time measured eager %d ms, cooperative %d ms; model on the measured phases %d ms and %d ms; model medians %d ms and %d ms",
		name, eager.total, coop.total, eager.pred.exact, coop.pred.exact, eager.pred.totals[1], coop.pred.totals[1])
	switch {
	case eager.pred.totals[0] > coop.pred.totals[2] && exact > bandTie:
		if meas <= 0 {
			t.Errorf("%s: the model puts eager above cooperative (medians %+d, measured phases %+d partition-ms), the measurement %+d ms", name, median, exact, meas)
		}
	case eager.pred.totals[2] < coop.pred.totals[0] && exact < -bandTie:
		if meas >= 0 {
			t.Errorf("%s: the model puts eager below cooperative (medians %+d, measured phases %+d partition-ms), the measurement %+d ms", name, median, exact, meas)
		}
	default:
		inPlay := 0
		for tp, d := range eager.measured {
			if d > 0 || coop.measured[tp] > 0 {
				inPlay++
			}
		}
		if limit := bandTie + int64(inPlay)*bandTolerance.Milliseconds(); meas > limit || meas < -limit {
			t.Errorf("%s: the model does not order eager and cooperative (medians %+d, measured phases %+d partition-ms), the measurement has them %+d ms apart (limit %d)", name, median, exact, meas, limit)
		}
	}
}

// playBand forms the group, plays the scenario and compares each
// partition's unowned time with the model's band.
func playBand(t *testing.T, sc bandScenario, bal tlBalancer) bandResult {
	ctx, cancel := context.WithTimeout(context.Background(), bandTimeout)
	defer cancel()
	g := newTLGroupHB(ctx, t, bal, bandHeartbeat, bandSession)
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
	at := g.since()
	real := g.realPhases(at)
	sc.play(g, a, at)
	g.settleOwned(sc.name)
	end := g.since()
	measured := g.measureUnowned(a, at, end)
	pred := predictBand(t, bal, sc, a, real)
	band := pred.band

	matched := "by partition"
	if bal.protocol == timeline.Consumer {
		measured, band = byRank(measured, band)
		matched = "by rank"
	}

	r := bandResult{measured: measured, pred: pred}
	var lines []string
	for _, tp := range allPartitions() {
		m, b := measured[tp], band[tp]
		r.total += m.Milliseconds()
		lo := time.Duration(b[0])*time.Millisecond - bandTolerance
		hi := time.Duration(b[1])*time.Millisecond + bandTolerance
		verdict := "ok"
		if m < lo || m > hi {
			verdict = "OUT"
			t.Errorf("%s: %s unowned %v, the model's [p5, p95] is [%d ms, %d ms] (tolerance ±%v)", sc.name, tp, m.Round(time.Millisecond), b[0], b[1], bandTolerance)
		}
		lines = append(lines, tp.String()+": "+m.Round(time.Millisecond).String()+" in ["+time.Duration(b[0]*1e6).String()+", "+time.Duration(b[1]*1e6).String()+"] "+verdict)
	}
	owners := slices.Sorted(maps.Keys(a))
	t.Logf("%s under %s (initial %v, phases %v, matched %s): total %d partition-ms, model p5/p50/p95 %v, on the measured phases %d\n\t%s",
		sc.name, bal.name, owners, real, matched, r.total, pred.totals, pred.exact, strings.Join(lines, "\n\t"))
	return r
}
