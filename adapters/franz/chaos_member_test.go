package franz_test

// The chaos test's consumers: starting, committing, what the observer
// records from their callbacks, crashing and closing them (see
// chaos_test.go).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
)

// topicsNow returns m's subscription.
func (m *chaosMember) topicsNow(r *chaosRun) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(m.topics)
}

// start starts a new incarnation of slot.
func (r *chaosRun) start(slot, instance string, topics []string) {
	r.t.Helper()
	r.mu.Lock()
	r.slots[slot]++
	name := fmt.Sprintf("%s.%d", slot, r.slots[slot])
	r.mu.Unlock()
	m := &chaosMember{consumer: consumer{name: name, done: make(chan struct{})}, slot: slot, instance: instance,
		topics: slices.Clone(topics), committed: make(map[assign.TopicPartition]int64)}
	opts := []kgo.Opt{
		kgo.SeedBrokers(r.addrs...),
		kgo.ClientID(name),
		kgo.ConsumerGroup(chaosGroup),
		kgo.ConsumeTopics(topics...),
		kgo.Balancers(franz.MustBalancer(recorded{r.s, &r.rounds})),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.SessionTimeout(chaosSession),
		kgo.HeartbeatInterval(chaosHeartbeat),
		kgo.RebalanceTimeout(chaosRebalance),
		kgo.FetchMaxWait(50 * time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, a map[string][]int32) { r.assigned(m, a) }),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, rv map[string][]int32) {
			if err := r.commit(ctx, m, cl); err != nil {
				r.mu.Lock()
				if !m.crashed {
					r.problemf("%s: commit on revoke: %v", name, err)
				}
				r.mu.Unlock()
			}
			r.released(m, rv, false)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, l map[string][]int32) { r.released(m, l, true) }),
	}
	if instance != "" {
		opts = append(opts, kgo.InstanceID(instance))
	}
	if *chaosLog {
		opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelInfo, func() string {
			return fmt.Sprintf("%6.2fs %s ", time.Since(r.began).Seconds(), name)
		})))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		r.t.Fatalf("kgo.NewClient(%s): %v", name, err)
	}
	m.cl = cl
	ctx, stop := context.WithCancel(r.ctx)
	m.stop = stop
	go func() {
		defer close(m.done)
		for i := 0; i < maxPolls && ctx.Err() == nil; i++ {
			pctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			fs := cl.PollRecords(pctx, 500)
			cancel()
			fs.EachRecord(func(rec *kgo.Record) { r.process(m, rec) })
			if !fs.Empty() {
				// A failed commit here is retried by the next one, or by
				// the commit on revoke, which must not fail. Its context
				// is not the poll loop's: a close cancels that one, and
				// what the last poll returned must still be committed.
				cctx, cancel := context.WithTimeout(r.ctx, chaosCloseTimeout)
				_ = r.commit(cctx, m, cl)
				cancel()
			}
			cl.AllowRebalance()
		}
	}()
	r.mu.Lock()
	r.live[name] = m
	r.mu.Unlock()
	kind := "dynamic"
	if instance != "" {
		kind = "static " + instance
	}
	r.logf("start %s (%s) on %v", name, kind, topics)
}

// commit commits what m polled and records what the broker accepted.
func (r *chaosRun) commit(ctx context.Context, m *chaosMember, cl *kgo.Client) error {
	offsets := cl.UncommittedOffsets()
	if len(offsets) == 0 || r.noCommit {
		return nil
	}
	var cerr error
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, req *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err != nil {
			cerr = err
			return
		}
		sent := make(map[assign.TopicPartition]int64)
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				sent[assign.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
			}
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				tp := assign.TopicPartition{Topic: t.Topic, Partition: p.Partition}
				if e := kerr.ErrorForCode(p.ErrorCode); e != nil {
					cerr = fmt.Errorf("%s: %w", tp, e)
					continue
				}
				if o, ok := sent[tp]; ok && o > m.committed[tp] {
					m.committed[tp] = o
				}
			}
		}
	})
	return cerr
}

// assigned records that m now holds a.
func (r *chaosRun) assigned(m *chaosMember, a map[string][]int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.crashed {
		return
	}
	for _, tp := range flat(a) {
		if o := r.owner[tp]; o != nil && o != m {
			r.problemf("%s assigned %s while %s still holds it", m.name, tp, o.name)
		}
		r.owner[tp] = m
	}
}

// released records that m no longer holds rv; lost says it lost them.
func (r *chaosRun) released(m *chaosMember, rv map[string][]int32, lost bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.crashed {
		return
	}
	switch {
	case lost && len(rv) > 0 && !m.closing:
		r.problemf("%s lost %v", m.name, flat(rv))
	case lost && len(rv) > 0:
		// kgo calls OnPartitionsLost, not OnPartitionsRevoked, when a
		// leader closes while it fetches metadata to balance: kgo's
		// group_balancer.go formats the cancelation with %v, so
		// manageFailWait's errors.Is(err, context.Canceled) misses it
		// and the closing member cannot commit in OnPartitionsRevoked.
		// The commit after each poll has committed what it processed.
		r.kgoLostOnClose++
		r.logf("%s lost %v while closing (kgo: see released)", m.name, flat(rv))
	}
	for _, tp := range flat(rv) {
		if o := r.owner[tp]; o != m {
			name := "nobody"
			if o != nil {
				name = o.name
			}
			r.problemf("%s gave up %s, held by %s", m.name, tp, name)
			continue
		}
		delete(r.owner, tp)
	}
}

// process records that m processed rec.
func (r *chaosRun) process(m *chaosMember, rec *kgo.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.crashed {
		return
	}
	tp := assign.TopicPartition{Topic: rec.Topic, Partition: rec.Partition}
	if o := r.owner[tp]; o != m {
		r.problemf("%s processed %s offset %d, which it does not hold", m.name, tp, rec.Offset)
	}
	v := string(rec.Value)
	r.processed[v] = append(r.processed[v], chaosProcessing{by: m})
}

// crash kills m: kfake drops its group requests from now on (see
// dropCrashed), and it holds and processes nothing any longer. It waits,
// bounded, for m to have joined (a crash needs its member ID). The dead
// client is shut down once the group has evicted it (closeZombies).
func (r *chaosRun) crash(m *chaosMember) {
	r.t.Helper()
	var id string
	for range int(chaosSettleTimeout / chaosTick) {
		var gen int32
		if id, gen = m.cl.GroupMetadata(); id != "" && gen > 0 {
			break
		}
		id = ""
		r.pause(chaosTick)
	}
	if id == "" {
		r.t.Fatalf("crash %s: it never joined", m.name)
	}
	r.mu.Lock()
	r.dropped[id] = true
	m.crashed = true
	r.crashes++
	delete(r.live, m.name)
	for tp, o := range r.owner {
		if o == m {
			delete(r.owner, tp)
		}
	}
	r.zombies = append(r.zombies, m)
	r.mu.Unlock()
	m.stop()
	go func() {
		<-m.done
		m.cl.AllowRebalance() // kgo's own revoke must not wait for a poll loop that is gone
	}()
}

// dropCrashed installs kfake control functions that close the connection
// of a crashed member's group requests, save one: the SyncGroup of a
// leader (the one that carries the assignments) goes through, as if the
// process had died just after sending it. Otherwise the followers would
// wait in SyncGroup for the leader's session or for the rebalance timeout,
// and kfake expires a member parked in SyncGroup by its own session timer
// without answering it (Kafka does not: MemberMetadata.hasSatisfiedHeartbeat
// exempts members awaiting a join or a sync), which kicks a healthy member
// out of the group. The timeline test's dropCrashed drops everything.
func (r *chaosRun) dropCrashed(c *kfake.Cluster) {
	memberOf := map[int16]func(kmsg.Request) (string, bool){
		kmsg.Heartbeat.Int16():    func(q kmsg.Request) (string, bool) { return q.(*kmsg.HeartbeatRequest).MemberID, true },
		kmsg.JoinGroup.Int16():    func(q kmsg.Request) (string, bool) { return q.(*kmsg.JoinGroupRequest).MemberID, true },
		kmsg.OffsetCommit.Int16(): func(q kmsg.Request) (string, bool) { return q.(*kmsg.OffsetCommitRequest).MemberID, true },
		kmsg.SyncGroup.Int16(): func(q kmsg.Request) (string, bool) {
			req := q.(*kmsg.SyncGroupRequest)
			return req.MemberID, len(req.GroupAssignment) == 0
		},
		kmsg.LeaveGroup.Int16(): func(q kmsg.Request) (string, bool) {
			req := q.(*kmsg.LeaveGroupRequest)
			if len(req.Members) > 0 {
				return req.Members[0].MemberID, true
			}
			return req.MemberID, true
		},
	}
	for key, member := range memberOf {
		c.ControlKey(key, func(q kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			id, droppable := member(q)
			r.mu.Lock()
			drop := droppable && r.dropped[id]
			r.mu.Unlock()
			if drop {
				return nil, errors.New("the member crashed"), true
			}
			return nil, nil, false
		})
	}
}

// closeZombies shuts the crashed clients down, in the background, without
// a LeaveGroup. Call it only when kfake no longer lists them.
func (r *chaosRun) closeZombies() {
	r.mu.Lock()
	zs := r.zombies
	r.zombies = nil
	r.mu.Unlock()
	for _, m := range zs {
		r.zombiesClosing.Go(func() {
			<-m.done
			gone, cancel := context.WithCancel(context.Background())
			cancel()
			m.cl.LeaveGroupContext(gone) // with a dead context: no LeaveGroup is sent
			m.cl.Close()
		})
	}
}

// close closes m as a normal shutdown.
func (r *chaosRun) close(m *chaosMember) {
	r.t.Helper()
	r.mu.Lock()
	delete(r.live, m.name)
	m.closing = true
	r.mu.Unlock()
	if err := m.consumer.close(); err != nil {
		r.t.Fatalf("close %s: %v", m.name, err)
	}
}

// closeAll closes every live consumer, in parallel.
func (r *chaosRun) closeAll() {
	r.mu.Lock()
	live := slices.Collect(maps.Values(r.live))
	clear(r.live)
	for _, m := range live {
		m.closing = true
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range live {
		wg.Go(func() {
			if err := m.consumer.close(); err != nil {
				r.t.Errorf("closing %s: %v", m.name, err)
			}
		})
	}
	wg.Wait()
}

// zombiesGone shuts the crashed clients down and waits, bounded, until
// they are.
func (r *chaosRun) zombiesGone() {
	r.closeZombies()
	done := make(chan struct{})
	go func() {
		r.zombiesClosing.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(chaosCloseTimeout):
		r.t.Errorf("crashed clients did not shut down within %v", chaosCloseTimeout)
	}
}
