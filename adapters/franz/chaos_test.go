package franz_test

// Chaos: kgo consumers balancing with our sticky or cooperative-sticky
// through the adapter, on a kfake broker on loopback, while a producer
// writes to every partition without pause and a seeded random schedule
// crashes consumers, closes them, restarts them (static: same
// group.instance.id; dynamic: a new member), adds new ones and changes
// their subscriptions. Between some events the test waits for the group to
// return to Stable; at the end it stops producing, drains, and checks.
//
// A crash is a process dying: at the crash instant the consumer stops
// processing (what it polls afterwards does not count) and kfake drops every
// group request carrying its member ID from then on (no heartbeat, commit,
// join or leave of it reaches the coordinator; see dropCrashed for the one
// SyncGroup let through), so the group only learns of it when its session
// expires, when it misses a rebalance, or when a static member with its
// group.instance.id replaces it. Once the group has evicted it, the dead
// client is shut down without a LeaveGroup. A close is kgo's
// CloseAllowingRebalance: revoke (our callback commits), then LeaveGroup
// for a dynamic member, nothing for a static one.
//
// Each consumer (an incarnation: "c3.2" is the second start of slot c3)
// processes a poll, then commits what it polled, then allows the rebalance
// (kgo.BlockRebalanceOnPoll); OnPartitionsRevoked commits too.
//
// What must hold:
//
//   - At least once: every record produced is processed.
//   - Exactly once between crashes: a record is processed more than once
//     only because of a crash. Precisely, if r, at offset o of partition p,
//     is processed k > 1 times, then each of its first k-1 processings was
//     by an incarnation that crashed afterwards and never had a commit of
//     p at an offset above o accepted (an accepted commit of offset c means
//     every record below c of p is done). So a record no crash touched, or
//     one the crashed consumer had committed, is processed exactly once.
//   - No partition is held by two live consumers at the same instant, as
//     seen from OnPartitionsAssigned and OnPartitionsRevoked/Lost (a crashed
//     consumer holds nothing from its crash on); no consumer processes a
//     record of a partition it does not hold; no consumer loses partitions
//     (OnPartitionsLost) unless the test is closing it (kgo reports a close
//     that interrupts its leader's balancing as lost; see released), and
//     no commit in OnPartitionsRevoked fails.
//   - Each time the test waits (settle: after the group forms, after about
//     a third of the events, and at the end), the group returns to Stable
//     within chaosSettleTimeout: kfake describes it Stable, with exactly
//     the live consumers as members, each with the subscription the test
//     gave it and the assignment it holds; the consumers agree on the
//     generation; and what they hold passes assign.Verify and
//     assign.VerifyBalanced for the live members and their subscriptions.
//   - Every round our leader ran passes the library's checkers: Verify and
//     VerifyBalanced for sticky; for cooperative-sticky, its target passes
//     them and the round passes VerifyCooperative and CheckCooperative.
//
// The schedule is drawn from the seed and the test's own model of the
// group (who is live, static, subscribed to what), never from timing, so a
// seed replays the same events; their timing still varies from run to run.
// Every run logs its seed, and a failing one prints the command that
// replays it. The default run (go test) is one seed per strategy, taken
// from the clock unless -chaos.seed gives it, with chaosDefaultEvents
// events; -chaos.seeds and -chaos.events make it longer:
//
//	go test -run '^TestChaos$' -chaos.seed=1 -chaos.seeds=20 -chaos.events=30 -timeout=50m
//
// (-chaos.log adds the consumers' kgo logs, to see why a run failed.)
//
// Every wait is bounded: each run by chaosRunTimeout, each settle by
// chaosSettleTimeout, each loop by a count. Pauses between events and the
// time a member stays down are part of the schedule, never a condition
// anything waits on.

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/assign"
)

var (
	chaosSeed   = flag.Uint64("chaos.seed", 0, "first seed of TestChaos (0: derived from the clock)")
	chaosSeeds  = flag.Int("chaos.seeds", 1, "number of seeds TestChaos runs per strategy, from -chaos.seed on")
	chaosEvents = flag.Int("chaos.events", chaosDefaultEvents, "events per TestChaos run")
	chaosLog    = flag.Bool("chaos.log", false, "TestChaos: write the consumers' kgo logs (level info) to stderr")
)

const (
	chaosDefaultEvents = 10
	chaosGroup         = "chaos"
	chaosHeartbeat     = 100 * time.Millisecond
	// chaosRebalance bounds how long kfake waits for every member to
	// rejoin; on a loaded machine (a load average of 12 on two cores has
	// been seen) kgo may take over a second to heartbeat, revoke, commit
	// and rejoin, and a member that misses it is evicted.
	chaosRebalance = 3 * time.Second
	// chaosSession is 3 s above chaosRebalance: kfake expires a member
	// parked in JoinGroup or SyncGroup by its session timer, where Kafka
	// keeps it (see dropCrashed), so a join or sync phase, which the
	// rebalance timeout bounds, must end well before a parked member's
	// session does.
	chaosSession       = chaosRebalance + 3*time.Second
	chaosSettleTimeout = 45 * time.Second // one return to Stable; a crash takes a session to notice
	chaosTick          = 20 * time.Millisecond
	chaosMaxLive       = 5
	chaosProduceEvery  = 20 * time.Millisecond
	chaosCloseTimeout  = 10 * time.Second
	chaosMaxReports    = 20 // bad records reported one by one
)

// chaosRunTimeout bounds one run of events events.
func chaosRunTimeout(events int) time.Duration {
	return 30*time.Second + time.Duration(events)*12*time.Second
}

var chaosTopics = map[string]int32{"orders": 6, "payments": 4}

// TestChaos runs the schedule for both sticky strategies, in parallel
// with each other and with the module's other parallel tests.
func TestChaos(t *testing.T) {
	t.Parallel()
	first := *chaosSeed
	if first == 0 {
		first = uint64(time.Now().UnixNano()%1_000_000) + 1
	}
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		t.Run(s.Name(), func(t *testing.T) {
			t.Parallel()
			for i := range *chaosSeeds {
				seed := first + uint64(i)
				t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
					defer func() {
						if t.Failed() {
							t.Logf("replay: go test -run 'TestChaos/%s/seed=%d$' -chaos.seed=%d -chaos.events=%d", s.Name(), seed, seed, *chaosEvents)
						}
					}()
					runChaos(t, s, seed, *chaosEvents, nil)
				})
			}
		})
	}
}

// chaosMember is one incarnation of a consumer.
type chaosMember struct {
	consumer        // name is the incarnation's, e.g. "c3.2"
	slot     string // "c3": what a restart starts again
	instance string // group.instance.id, "" for a dynamic member

	// Guarded by chaosRun.mu.
	topics    []string                        // subscription, sorted
	crashed   bool                            // it crashed: nothing it does counts any longer
	closing   bool                            // the test is closing it
	committed map[assign.TopicPartition]int64 // highest offset of each partition it had a commit of accepted
}

// chaosProduced is a record produced.
type chaosProduced struct {
	value  string
	tp     assign.TopicPartition
	offset int64
}

// chaosProcessing is one processing of a record.
type chaosProcessing struct {
	by *chaosMember
}

// chaosRun is one run: a cluster, the consumers, the producer, and what
// the observer saw.
type chaosRun struct {
	t      *testing.T
	ctx    context.Context
	s      assign.Strategy
	rng    *rand.Rand
	addrs  []string
	admin  *kgo.Client
	rounds ledger
	began  time.Time

	violation func(format string, args ...any) // reports what breaks the file's rules; t.Errorf
	noCommit  bool                             // consumers never commit (chaos_negative_test.go)
	// unsettledIsViolation: a fault planted on purpose may keep the
	// group from settling; settle then reports a violation, not a fatal
	// error, and the schedule ends there (chaos_negative_test.go).
	unsettledIsViolation bool

	zombiesClosing sync.WaitGroup // crashed clients shutting down

	mu             sync.Mutex
	live           map[string]*chaosMember // incarnation name => member
	slots          map[string]int          // slot => incarnations started
	nextSlot       int
	owner          map[assign.TopicPartition]*chaosMember
	problems       []string
	produced       []chaosProduced
	processed      map[string][]chaosProcessing // record value => its processings, in order
	crashes        int
	kgoLostOnClose int             // OnPartitionsLost calls during a close (see released)
	dropped        map[string]bool // member IDs of crashed members
	zombies        []*chaosMember  // crashed clients still running
}

// runChaos runs one schedule of events events from seed and checks it;
// tweak, when not nil, changes the run before it starts (see
// chaos_negative_test.go).
func runChaos(t *testing.T, s assign.Strategy, seed uint64, events int, tweak func(*chaosRun)) {
	ctx, cancel := context.WithTimeout(context.Background(), chaosRunTimeout(events))
	defer cancel()
	r := newChaosRun(ctx, t, s, seed)
	if tweak != nil {
		tweak(r)
	}
	t.Logf("seed %d, %d events, strategy %s", seed, events, s.Name())

	stopProducing := r.produce(events)
	for range 2 {
		r.add()
	}
	settled := r.settle("forming")
	for i := 0; settled && i < events; i++ {
		r.event(i)
		if r.rng.IntN(3) == 0 {
			settled = r.settle(fmt.Sprintf("after event %d", i))
		} else {
			r.pause(time.Duration(r.rng.IntN(400)) * time.Millisecond)
		}
	}
	if settled {
		r.ensureSubscribers()
		settled = r.settle("end of schedule")
	}
	stopProducing()
	if settled {
		r.drain()
	}
	r.closeAll()
	r.zombiesGone()
	r.check()
}

func newChaosRun(ctx context.Context, t *testing.T, s assign.Strategy, seed uint64) *chaosRun {
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{"group.min.session.timeout.ms": "500"})}
	for _, name := range slices.Sorted(maps.Keys(chaosTopics)) {
		opts = append(opts, kfake.SeedTopics(chaosTopics[name], name))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	t.Cleanup(c.Close)
	admin, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatalf("admin client: %v", err)
	}
	t.Cleanup(admin.Close)
	r := &chaosRun{
		t: t, ctx: ctx, s: s, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), addrs: c.ListenAddrs(),
		admin: admin, began: time.Now(),
		live: make(map[string]*chaosMember), slots: make(map[string]int),
		owner: make(map[assign.TopicPartition]*chaosMember), processed: make(map[string][]chaosProcessing),
		dropped: make(map[string]bool),
	}
	r.violation = t.Errorf
	r.dropCrashed(c)
	t.Cleanup(func() {
		// On a fatal error, shut everything down before the cluster.
		r.closeAll()
		r.zombiesGone()
	})
	return r
}

func (r *chaosRun) logf(format string, args ...any) {
	r.t.Helper()
	r.t.Logf("%6.2fs %s", time.Since(r.began).Seconds(), fmt.Sprintf(format, args...))
}

func (r *chaosRun) problemf(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf("%6.2fs ", time.Since(r.began).Seconds())+fmt.Sprintf(format, args...))
}

// pause waits d, part of the schedule, or until the run's deadline.
func (r *chaosRun) pause(d time.Duration) {
	select {
	case <-time.After(d):
	case <-r.ctx.Done():
	}
}

// event draws one event from the schedule and applies it.
func (r *chaosRun) event(i int) {
	r.t.Helper()
	r.mu.Lock()
	names := slices.Sorted(maps.Keys(r.live))
	var statics []string
	for _, n := range names {
		if r.live[n].instance != "" {
			statics = append(statics, n)
		}
	}
	r.mu.Unlock()
	type choice struct {
		kind string
		ok   bool
	}
	choices := []choice{
		{"crash", len(names) > 1},
		{"crash static and restart", len(statics) > 0},
		{"close", len(names) > 1},
		{"restart dynamic", len(names) > 0},
		{"restart static", len(statics) > 0},
		{"add", len(names) < chaosMaxLive},
		{"change subscription", len(names) > 0},
	}
	var open []string
	for _, c := range choices {
		if c.ok {
			open = append(open, c.kind)
		}
	}
	kind := open[r.rng.IntN(len(open))]
	pick := func(from []string) *chaosMember {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.live[from[r.rng.IntN(len(from))]]
	}
	switch kind {
	case "crash":
		m := pick(names)
		r.logf("event %d: crash %s", i, m.name)
		r.crash(m)
	case "crash static and restart":
		m := pick(statics)
		down := r.downtime()
		r.logf("event %d: crash static %s, back after %v", i, m.name, down)
		r.crash(m)
		r.pause(down)
		r.start(m.slot, m.instance, m.topicsNow(r))
	case "close":
		m := pick(names)
		r.logf("event %d: close %s", i, m.name)
		r.close(m)
	case "restart dynamic":
		m := pick(names)
		r.logf("event %d: restart %s as a new dynamic member", i, m.name)
		r.close(m)
		r.start(m.slot, "", m.topicsNow(r))
	case "restart static":
		m := pick(statics)
		down := r.downtime()
		r.logf("event %d: restart static %s after %v", i, m.name, down)
		r.close(m)
		r.pause(down)
		r.start(m.slot, m.instance, m.topicsNow(r))
	case "add":
		r.logf("event %d: add a consumer", i)
		r.add()
	case "change subscription":
		r.resubscribe(i, pick(names))
	}
}

// downtime is how long a restarted static member stays down: within its
// session (it gets its partitions back with no rebalance) or past it (it
// is expired first).
func (r *chaosRun) downtime() time.Duration {
	if r.rng.IntN(2) == 0 {
		return time.Duration(r.rng.IntN(int(chaosSession/time.Millisecond/2))) * time.Millisecond
	}
	return chaosSession + time.Duration(r.rng.IntN(1000))*time.Millisecond
}

// add starts a consumer in a new slot, static or not, subscribed to every
// topic or to one.
func (r *chaosRun) add() {
	r.t.Helper()
	r.mu.Lock()
	slot := fmt.Sprintf("c%d", r.nextSlot)
	r.nextSlot++
	r.mu.Unlock()
	instance := ""
	if r.rng.IntN(2) == 0 {
		instance = "i-" + slot
	}
	all := slices.Sorted(maps.Keys(chaosTopics))
	topics := all
	if r.rng.IntN(3) == 0 {
		topics = []string{all[r.rng.IntN(len(all))]}
	}
	r.start(slot, instance, topics)
}

// ensureSubscribers adds a consumer of every topic when some topic has no
// live subscriber, so that everything produced can drain.
func (r *chaosRun) ensureSubscribers() {
	r.t.Helper()
	r.mu.Lock()
	missing := false
	for topic := range chaosTopics {
		missing = missing || !slices.ContainsFunc(slices.Collect(maps.Values(r.live)), func(m *chaosMember) bool {
			return slices.Contains(m.topics, topic)
		})
	}
	slot := fmt.Sprintf("c%d", r.nextSlot)
	if missing {
		r.nextSlot++
	}
	r.mu.Unlock()
	if missing {
		r.start(slot, "", slices.Sorted(maps.Keys(chaosTopics)))
	}
}

// resubscribe drops one of m's two topics, or adds the one it lacks.
func (r *chaosRun) resubscribe(i int, m *chaosMember) {
	r.t.Helper()
	all := slices.Sorted(maps.Keys(chaosTopics))
	r.mu.Lock()
	if len(m.topics) == len(all) {
		drop := all[r.rng.IntN(len(all))]
		m.topics = slices.DeleteFunc(slices.Clone(m.topics), func(t string) bool { return t == drop })
		r.mu.Unlock()
		r.logf("event %d: %s stops consuming %s", i, m.name, drop)
		m.cl.PurgeTopicsFromConsuming(drop)
		return
	}
	var add []string
	for _, t := range all {
		if !slices.Contains(m.topics, t) {
			add = append(add, t)
		}
	}
	m.topics = all
	r.mu.Unlock()
	r.logf("event %d: %s also consumes %v", i, m.name, add)
	m.cl.AddConsumeTopics(add...)
}

// produce writes one record to every partition every chaosProduceEvery
// until the returned function is called, or for as long as a run of
// events events may last.
func (r *chaosRun) produce(events int) (stop func()) {
	r.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.addrs...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		r.t.Fatalf("producer: %v", err)
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer cl.Close()
		tick := time.NewTicker(chaosProduceEvery)
		defer tick.Stop()
		limit := int(chaosRunTimeout(events) / chaosProduceEvery)
		for seq := 0; seq < limit; seq++ {
			var recs []*kgo.Record
			for _, topic := range slices.Sorted(maps.Keys(chaosTopics)) {
				for p := range chaosTopics[topic] {
					recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: fmt.Appendf(nil, "%s/%d/%d", topic, p, seq)})
				}
			}
			err := cl.ProduceSync(r.ctx, recs...).FirstErr()
			r.mu.Lock()
			if err != nil {
				r.problemf("produce: %v", err)
				r.mu.Unlock()
				return
			}
			for _, rec := range recs {
				r.produced = append(r.produced, chaosProduced{string(rec.Value), assign.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}, rec.Offset})
			}
			r.mu.Unlock()
			select {
			case <-quit:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		r.mu.Lock()
		r.logf("produced %d records", len(r.produced))
		r.mu.Unlock()
	}
}

// drain waits until every record produced has been processed.
func (r *chaosRun) drain() {
	r.t.Helper()
	var last string
	for range int(chaosSettleTimeout / chaosTick) {
		r.mu.Lock()
		left := 0
		last = ""
		for _, p := range r.produced {
			if len(r.processed[p.value]) == 0 {
				left++
				last = p.value
			}
		}
		r.mu.Unlock()
		if left == 0 {
			return
		}
		if r.ctx.Err() != nil {
			break
		}
		r.pause(chaosTick)
	}
	r.t.Fatalf("draining: records still not processed, %s among them", last)
}

// check applies the checks of the file's comment to what was recorded.
func (r *chaosRun) check() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.problems {
		r.violation("%s", p)
	}
	produced := make(map[string]bool, len(r.produced))
	dups, bad := 0, 0
	for _, p := range r.produced {
		produced[p.value] = true
		ps := r.processed[p.value]
		if len(ps) == 0 {
			bad++
			r.reportf(bad, "record %s (%s offset %d) was never processed", p.value, p.tp, p.offset)
			continue
		}
		dups += len(ps) - 1
		if why := unexcused(p, ps); why != "" {
			bad++
			r.reportf(bad, "record %s (%s offset %d) processed %d times, by %s: %s", p.value, p.tp, p.offset, len(ps), names(ps), why)
		}
	}
	if bad > chaosMaxReports {
		r.violation("... and %d more records processed never or too often", bad-chaosMaxReports)
	}
	for v := range r.processed {
		if !produced[v] {
			r.violation("processed %q, which was never produced", v)
		}
	}
	r.logf("%d records produced; %d crashes; %d processings beyond the first; %d OnPartitionsLost on close", len(r.produced), r.crashes, dups, r.kgoLostOnClose)
	r.checkRounds()
}

// unexcused says why the processings ps of p break exactly-once between
// crashes, or returns "": every processing but the last must be by a
// consumer that crashed afterwards without having had a commit of p's
// partition above p's offset accepted.
func unexcused(p chaosProduced, ps []chaosProcessing) string {
	for _, earlier := range ps[:len(ps)-1] {
		if !earlier.by.crashed {
			return earlier.by.name + " did not crash"
		}
		if c, ok := earlier.by.committed[p.tp]; ok && c > p.offset {
			return fmt.Sprintf("%s had committed offset %d before it crashed", earlier.by.name, c)
		}
	}
	return ""
}

// reportf reports the nth bad record, up to chaosMaxReports of them.
func (r *chaosRun) reportf(n int, format string, args ...any) {
	r.t.Helper()
	if n <= chaosMaxReports {
		r.violation(format, args...)
	}
}

func names(ps []chaosProcessing) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.by.name)
	}
	return strings.Join(out, ", ")
}
