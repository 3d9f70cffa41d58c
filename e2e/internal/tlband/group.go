package tlband

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// Member is a client's consumer in a band test: its member.id and
// generation as it last learned them ("" and -1 before its first).
type Member interface {
	Meta() (id string, generation int32)
}

// Settings are what a band test's group is checked against: its one
// topic's partitions, the heartbeat interval, the model's event time and
// the bounded settle loop's tick and count.
type Settings struct {
	Partitions []assign.TopicPartition
	Heartbeat  time.Duration
	EventAt    int64 // ms: the event in the model
	Tick       time.Duration
	MaxTicks   int
}

// Group is a consumer group of a client's members on a kfake cluster of
// its own, and what the test measures of it: who owns what when (Record),
// each member.id's last heartbeat at kfake, and the crashed members whose
// group requests kfake drops. The client's test starts and stops its
// members and tells Group (Add, Remove, Crash).
type Group[M Member] struct {
	T     *testing.T
	Ctx   context.Context
	Addrs []string
	Began time.Time
	Settings

	// Adjust, when set, is Predict's adjust for Judge: it turns each
	// draw's scenario into the one the model plays.
	Adjust func(timeline.Scenario) (timeline.Scenario, error)

	c *kfake.Cluster

	mu       sync.Mutex
	changes  []Change
	owners   map[assign.TopicPartition]map[string]bool
	live     map[string]M
	dropped  map[string]bool          // member IDs whose group requests kfake drops
	lastBeat map[string]time.Duration // member ID => its last Heartbeat at kfake
	interrupt
}

// NewGroup starts a kfake cluster of one broker with topic "t" of
// len(s.Partitions) partitions and a minimum session of 1 s, and returns
// the group on it. When the test ends the drops are lifted, every live
// member is stopped with stop, and the cluster closes.
func NewGroup[M Member](ctx context.Context, t *testing.T, s Settings, stop func(name string)) *Group[M] {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(int32(len(s.Partitions)), "t"),
		kfake.BrokerConfigs(map[string]string{"group.min.session.timeout.ms": "1000"}))
	if err != nil {
		t.Fatalf("kfake.NewCluster: %v", err)
	}
	g := &Group[M]{T: t, Ctx: ctx, Addrs: c.ListenAddrs(), Began: time.Now(), Settings: s, c: c,
		owners: make(map[assign.TopicPartition]map[string]bool), live: make(map[string]M),
		dropped: make(map[string]bool), lastBeat: make(map[string]time.Duration)}
	memberOf := map[int16]func(kmsg.Request) string{
		kmsg.Heartbeat.Int16():    func(r kmsg.Request) string { return r.(*kmsg.HeartbeatRequest).MemberID },
		kmsg.JoinGroup.Int16():    func(r kmsg.Request) string { return r.(*kmsg.JoinGroupRequest).MemberID },
		kmsg.SyncGroup.Int16():    func(r kmsg.Request) string { return r.(*kmsg.SyncGroupRequest).MemberID },
		kmsg.OffsetCommit.Int16(): func(r kmsg.Request) string { return r.(*kmsg.OffsetCommitRequest).MemberID },
		kmsg.LeaveGroup.Int16(): func(r kmsg.Request) string {
			req := r.(*kmsg.LeaveGroupRequest)
			if len(req.Members) > 0 {
				return req.Members[0].MemberID
			}
			return req.MemberID
		},
	}
	for key, member := range memberOf {
		c.ControlKey(key, func(r kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			g.mu.Lock()
			defer g.mu.Unlock()
			if key == kmsg.Heartbeat.Int16() {
				g.lastBeat[member(r)] = g.Since()
			}
			if g.dropped[member(r)] {
				return nil, errors.New("the member crashed"), true
			}
			return nil, nil, false
		})
	}
	t.Cleanup(func() {
		g.mu.Lock()
		clear(g.dropped)
		names := slices.Sorted(maps.Keys(g.live))
		g.mu.Unlock()
		for _, n := range names {
			stop(n)
		}
		c.Close()
	})
	return g
}

// Since is the time since the test began.
func (g *Group[M]) Since() time.Duration { return time.Since(g.Began) }

// Record notes that member name received (own) or gave up tp now.
func (g *Group[M]) Record(name string, tp assign.TopicPartition, own bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.changes = append(g.changes, Change{At: g.Since(), Member: name, TP: tp, Own: own})
	if g.owners[tp] == nil {
		g.owners[tp] = make(map[string]bool)
	}
	if own {
		g.owners[tp][name] = true
	} else {
		delete(g.owners[tp], name)
	}
}

// Add counts m, started under name, as a live member.
func (g *Group[M]) Add(name string, m M) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.live[name] = m
}

// Member returns the live member name.
func (g *Group[M]) Member(name string) M {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.live[name]
}

// Remove stops counting the member name and returns it.
func (g *Group[M]) Remove(name string) M {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.live[name]
	delete(g.live, name)
	return m
}

// Crash makes kfake drop the member's group requests from now on, records
// that it lost owned at at, stops counting it and returns it, for the
// test to end its process (and close it once the drops are lifted).
func (g *Group[M]) Crash(name string, owned []assign.TopicPartition, at time.Duration) M {
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.live[name]
	id, _ := m.Meta()
	g.dropped[id] = true
	for _, tp := range owned {
		g.changes = append(g.changes, Change{At: at, Member: name, TP: tp})
		delete(g.owners[tp], name)
	}
	delete(g.live, name) // no longer counted, nor closed before the drops are lifted
	return m
}

// Changes returns what Record and Crash noted so far.
func (g *Group[M]) Changes() []Change {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.changes)
}

// Stable returns who owns what once the group has settled ([Stable]).
func (g *Group[M]) Stable() (assign.Assignment, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gens := make(map[string]int32, len(g.live))
	for name, m := range g.live {
		_, gens[name] = m.Meta()
	}
	since := time.Duration(-1)
	if n := len(g.changes); n > 0 {
		since = g.Since() - g.changes[n-1].At
	}
	return Stable(gens, g.owners, g.Partitions, since, g.Heartbeat)
}

// Settle waits, bounded, until the group has settled ([Settle]).
func (g *Group[M]) Settle(what string) assign.Assignment {
	g.T.Helper()
	return Settle(g.Ctx, g.T, what, g.Stable, g.MaxTicks, g.Tick)
}

// SleepUntil sleeps until t since the test began ([SleepUntil]).
func (g *Group[M]) SleepUntil(t time.Duration) { SleepUntil(g.Ctx, g.Began, t) }

// Phases returns each live member's heartbeat phase for the model, from
// its last heartbeat at kfake before at ([Phase]).
func (g *Group[M]) Phases(at time.Duration) map[string]timeline.Phase {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]timeline.Phase)
	for name, m := range g.live {
		id, _ := m.Meta()
		out[name] = Phase(g.lastBeat[id], at, g.EventAt, g.Heartbeat)
	}
	return out
}

// Judge measures each partition's unowned time from at, when the group
// held sc.Initial, until now, predicts the band of sc on the phases real
// measured at at (draws draws), and fails t, naming the scenario, for
// each partition or total outside it widened by tol (matched by rank when
// byRank), logging the figures.
func (g *Group[M]) Judge(t *testing.T, name string, sc timeline.Scenario, at time.Duration, real map[string]timeline.Phase, byRank bool, tol time.Duration, draws int) Result {
	t.Helper()
	measured := Unowned(sc.Initial, g.Changes(), g.Partitions, at, g.Since())
	pr, err := Predict(sc, g.EventAt, real, g.Heartbeat, draws, g.Adjust)
	if err != nil {
		t.Fatal(err)
	}
	checked, band := measured, pr
	if byRank {
		checked, band = ByRank(measured, pr, g.Partitions)
	}
	log, total, errs := Check(checked, band, g.Partitions, tol)
	t.Logf("%s under %s (phases %v): total %d partition-ms, model p5/p50/p95 %v, on the measured phases %d\n\t%s",
		name, sc.Strategy.Name(), real, total, pr.Totals, pr.Exact, log)
	for _, e := range errs {
		t.Errorf("%s: %s", name, e)
	}
	return Result{Measured: measured, Total: total, Pred: pr}
}

// interrupt is the state of InterruptSync.
type interrupt struct {
	holding, over bool
	joinedCh      chan struct{}
	seen          Interruption
}

// Interruption is what InterruptSync saw, in times since the test began.
type Interruption struct {
	Held    time.Duration            // the leader's SyncGroup reached kfake and was held
	Joined  time.Duration            // the JoinGroup that interrupted arrived; 0 if none did
	Rejoins map[string]time.Duration // member ID => its first JoinGroup after Joined
}

// InterruptSync makes a JoinGroup arrive while the group completes its
// next rebalance, which a loopback round trip leaves no time for by
// itself. kfake holds the next SyncGroup that carries the leader's
// assignment and closes the channel it returns, for the test to start the
// member that joins; once a JoinGroup for which triggers is true arrives
// (one that starts a rebalance at kfake: with KIP-394 a new member's
// second), the held SyncGroup goes on. kfake handles that JoinGroup first
// (its control functions and requests run on one loop), so it answers
// the leader's SyncGroup, and every other SyncGroup of the generation,
// REBALANCE_IN_PROGRESS. The hold lasts wait at most. seen returns what
// happened, with each member's first JoinGroup after the interruption.
func (g *Group[M]) InterruptSync(triggers func(*kmsg.JoinGroupRequest) bool, wait time.Duration) (start <-chan struct{}, seen func() Interruption) {
	startCh := make(chan struct{})
	g.mu.Lock()
	g.interrupt = interrupt{joinedCh: make(chan struct{}), seen: Interruption{Rejoins: make(map[string]time.Duration)}}
	joined := g.interrupt.joinedCh
	g.mu.Unlock()
	g.c.ControlKey(kmsg.SyncGroup.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		g.c.KeepControl()
		g.mu.Lock()
		hold := !g.holding && !g.over && len(r.(*kmsg.SyncGroupRequest).GroupAssignment) > 0
		if hold {
			g.holding, g.seen.Held = true, g.Since()
		}
		g.mu.Unlock()
		if hold {
			g.c.SleepControl(func() {
				close(startCh)
				select {
				case <-joined:
				case <-time.After(wait):
				case <-g.Ctx.Done():
				}
			})
		}
		return nil, nil, false
	})
	g.c.ControlKey(kmsg.JoinGroup.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
		g.c.KeepControl()
		req := r.(*kmsg.JoinGroupRequest)
		g.mu.Lock()
		defer g.mu.Unlock()
		switch {
		case g.holding && !g.over && triggers(req):
			g.over, g.seen.Joined = true, g.Since()
			close(joined)
		case g.over && req.MemberID != "":
			if _, ok := g.seen.Rejoins[req.MemberID]; !ok {
				g.seen.Rejoins[req.MemberID] = g.Since()
			}
		}
		return nil, nil, false
	})
	return startCh, func() Interruption {
		g.mu.Lock()
		defer g.mu.Unlock()
		out := g.seen
		out.Rejoins = maps.Clone(g.seen.Rejoins)
		return out
	}
}
