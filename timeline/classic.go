package timeline

import (
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// This file is the classic protocol: the group coordinator's states and
// the members' heartbeat threads and poll loops, as Kafka's classic group
// coordinator and Java consumer behave. Each rule lives in one method
// (the rebalance's phases, from startRebalance to sync, in
// classic_rebalance.go):
//
//	heartbeat      a member learns of a rebalance from a heartbeat response
//	scheduleRejoin it rejoins at its next poll, after its current batch
//	rejoin         eager members revoke everything as they send JoinGroup
//	joinGroup      the coordinator admits a member (static members with a
//	               cached assignment skip the rebalance, KIP-345)
//	startRebalance PreparingRebalance: the join phase, with its timeout or,
//	               for an empty group, the initial delay (KIP-134)
//	completeJoin   drop the laggards, assign, sync, Stable; cooperative
//	               members that revoked rejoin for the follow-up (KIP-429)
//	interruptSync  a join phase that begins during the SyncGroup round
//	               trip: members with a RejoinBackoff wait it (backOff)
//	expire         the session timeout
//	pollTimeout    max.poll.interval.ms: dynamic members leave, static ones
//	               stop heartbeating

type groupState int8

const (
	empty groupState = iota
	preparing
	syncing // CompletingRebalance: the assignment is on its way to the members
	stable
)

// classicMember is one consumer process and the classic coordinator's
// record of it. Its atPoll timer is its poll sending JoinGroup, and its
// pendingTopics go with that JoinGroup.
type classicMember struct {
	consumer

	reported    []assign.TopicPartition // what it claims when it rejoins
	reportedGen int32
	given       []assign.TopicPartition // the coordinator's assignment for it

	joinedAt     int64  // when it sent its JoinGroup in the current join phase
	checkAt      int64  // its cooperative check's beat (Config.CooperativeCheck), 0 when none is due
	stallExtra   int64  // a stall that began while it was joining: added to its next batch
	rejoinReason string // why it rejoins at its next poll; "" when it does not

	awaitingSync bool // it was in the join phase that ended and waits for its SyncGroup response
	backingOff   bool // its SyncGroup was answered REBALANCE_IN_PROGRESS: it waits Config.RejoinBackoff to rejoin
}

// classic is the coordinator of one group and its members.
type classic struct {
	groupCoordinator
	protocol assign.RebalanceProtocol // of the strategy

	assignedTopics map[string]int32 // the metadata of the last assignment
	members        map[string]*classicMember
	ids            []string // keys of members, sorted

	state      groupState
	generation int32
	leader     string

	joinPhase      timer // the join phase's timeout, or a wait of the initial delay
	delaying       bool  // the initial delay of an empty group runs
	newMemberAdded bool  // a member joined during the current delay
	delayLeft      int64 // what is left of the rebalance timeout for further delays
}

func newClassic(e *engine, n *normalized) *classic {
	return &classic{
		groupCoordinator: newGroupCoordinator(e, n),
		protocol:         n.Strategy.Protocol(),
		members:          make(map[string]*classicMember),
		joinPhase:        e.timer(rankCoordinator, ""),
	}
}

// add registers a process under m's ID.
func (c *classic) add(m Member) *classicMember {
	cm := &classicMember{consumer: newConsumer(c.engine, m, c.topics), reportedGen: -1}
	c.members[m.ID] = cm
	c.ids = insertSorted(c.ids, m.ID)
	return cm
}

// start sets up t = 0 and schedules the events.
func (c *classic) start() {
	if c.sc.Forming {
		for _, m := range c.sc.members {
			c.at(0, rankEvent, "", func() { c.joinGroup(c.add(m), m.ID+" joins") })
		}
	} else {
		c.startStable()
	}
	c.play(c)
	c.assignedTopics = maps.Clone(c.topics)
}

// startStable puts the group in generation 1 with every member having
// just received its assignment.
func (c *classic) startStable() {
	for _, m := range c.sc.members {
		c.add(m)
	}
	a := c.sc.Initial
	if a == nil {
		var err error
		if a, err = c.sc.Strategy.Assign(c.group()); err != nil {
			c.err = err
			return
		}
	}
	c.state, c.generation, c.leader = stable, 1, c.ids[0]
	for i, id := range c.ids {
		m := c.members[id]
		m.membership = inGroup
		c.sync(m, sortedCopy(a[id]))
		// Its assignment came long before t = 0: the beat a cooperative
		// check (Config.CooperativeCheck) adds after it is past, and
		// must not shift the phase below to the check's cadence.
		m.checkAt = 0
		// Out of lockstep: its heartbeats and polls run from its phase,
		// as if it had last beaten and polled one cycle before.
		ph := phaseOf(c.sc, c.sc.members[i], m.cfg.HeartbeatInterval)
		m.lastContact = ph.Heartbeat - m.cfg.HeartbeatInterval
		c.startHeartbeats(m, ph.Heartbeat)
		m.restart(ph.Poll-m.batch, ph.Poll)
		c.watchPollInterval(m)
	}
}

func (c *classic) settled() bool { return c.state != preparing && c.state != syncing }

// group is the leader's input: the members in the group, with what they
// claim.
func (c *classic) group() assign.Group {
	g := assign.Group{Topics: c.topics}
	for _, id := range c.ids {
		if m := c.members[id]; m.membership != outside || c.state == empty {
			g.Members = append(g.Members, assign.Member{
				ID: id, InstanceID: m.InstanceID, Topics: m.Topics,
				Owned: m.reported, Generation: m.reportedGen,
			})
		}
	}
	return g
}

func (c *classic) consumer(id string) *consumer { return &c.members[id].consumer }

func (c *classic) memberIDs() []string { return c.ids }

func (c *classic) rename(old, id string) {
	m := c.members[old]
	delete(c.members, old)
	if m.membership != outside {
		if m.alive() {
			c.stopProcess(m) // restarts that overlap: the old process ends without a word
		}
		c.leaveBehind(m)
	}
	m.ID = id
	c.members[id] = m
	c.ids = slices.Sorted(maps.Keys(c.members))
}

// newIDWhileKnown is true: a new consumer process sends JoinGroup without
// a member.id and gets a new one (KIP-394), whatever the coordinator
// still holds of its previous process.
func (c *classic) newIDWhileKnown() bool { return true }

// leaveBehind keeps the member.id of m, a dynamic member whose process
// crashed, in the group after m's new process takes a new member.id: the
// coordinator does not know they are one consumer. The old member.id is a
// member that never heartbeats or rejoins again: a join phase waits for it
// until its session expires (or the rebalance timeout drops it), and its
// expiry, counted from its last heartbeat, starts a rebalance if none
// runs, as for any crashed member. Kafka's GroupCoordinator and kfake's
// group.updateHeartbeat expire it on its own timer in the same way.
func (c *classic) leaveBehind(m *classicMember) {
	old := &classicMember{
		consumer: newConsumer(c.engine, m.Member, c.topics),
		reported: m.reported, reportedGen: m.reportedGen, given: m.given, joinedAt: m.joinedAt,
	}
	old.Topics = m.Topics
	old.proc, old.membership, old.lastContact = down, m.membership, m.lastContact
	c.members[old.ID] = old
	m.sessionExpiry.stop()
	m.membership = outside
	if old.membership == inGroup {
		c.scheduleExpiry(old)
	}
}

func (c *classic) onJoin(m Member) { c.joinGroup(c.add(m), m.ID+" joins") }

// onSubscribe: the member rejoins with its new subscription at its next
// poll; a member that is down sends it when it is back.
func (c *classic) onSubscribe(id string, topics []string) {
	m := c.members[id]
	m.pendingTopics = &topics
	if m.alive() && !m.backingOff { // one backing off sends it when its backoff ends
		c.scheduleRejoin(m, m.ID+" rejoins: subscription changed")
	}
}

// stopProcess ends what a member's process was doing: it consumes nothing
// more and none of its scheduled actions run.
func (c *classic) stopProcess(m *classicMember) {
	m.stop(c.ledger, c.now)
	m.rejoinReason = ""
	m.backingOff = false
}

// onCrash: a member stops without a word. The coordinator notices when
// its session expires, counted from the last heartbeat it sent; a member
// whose JoinGroup is pending is kept alive until the join phase ends.
func (c *classic) onCrash(id string) {
	m := c.members[id]
	c.stopProcess(m)
	if m.membership == inGroup {
		c.scheduleExpiry(m)
	}
}

// onClose shuts a running member down: a dynamic member sends
// LeaveGroup, a static one does not (KIP-345), so the coordinator waits
// for its session to expire.
func (c *classic) onClose(id string) {
	m := c.members[id]
	if m.static() {
		c.step(m.ID, "closes (static: no LeaveGroup)")
		c.stopProcess(m)
		if m.membership == inGroup {
			c.scheduleExpiry(m)
		}
		return
	}
	c.step(m.ID, "closes: LeaveGroup")
	c.stopProcess(m)
	if m.membership != outside {
		c.leave(m, m.ID+" leaves")
	}
}

// onReturn starts a restarted member's new process, which remembers no
// assignment, and joins.
func (c *classic) onReturn(id string) {
	m := c.members[id]
	if m.alive() {
		c.stopProcess(m) // restarts that overlap: the newest process replaces the running one
	}
	m.proc = lost // a new process: it joins anew
	m.reported, m.reportedGen = nil, -1
	c.step(m.ID, "starts again")
	c.joinGroup(m, m.ID+" joins")
}

// onStall makes the batch a running member processes now take extra
// longer. If that puts more than max.poll.interval.ms between two polls,
// the member leaves the group when the interval runs out.
func (c *classic) onStall(id string, extra int64) {
	m := c.members[id]
	if m.membership == joining || m.backingOff {
		m.stallExtra += extra
		return
	}
	m.stall(c.now, extra)
	c.watchPollInterval(m)
	if m.rejoinReason != "" {
		c.scheduleRejoin(m, m.rejoinReason)
	}
}

// watchPollInterval schedules the poll timeout when the member's next poll
// comes later than max.poll.interval.ms after its last one.
func (c *classic) watchPollInterval(m *classicMember) {
	m.pollExpiry.stop()
	if expires, overdue := m.pollExpires(); overdue {
		m.pollExpiry.set(expires, func() {
			if m.alive() && m.membership != joining && !m.backingOff {
				c.pollTimeout(m)
			}
		})
	}
}

// pollTimeout: the heartbeat thread finds that poll() was not called for
// max.poll.interval.ms. The member gives its partitions up as lost; a
// dynamic member sends LeaveGroup, a static one stops heartbeating. Either
// joins again at its next poll.
func (c *classic) pollTimeout(m *classicMember) {
	m.pollTimedOut(c.ledger, c.now)
	m.reported, m.reportedGen = nil, -1
	if m.static() {
		c.step(m.ID, "poll timeout: stops heartbeating (static: no LeaveGroup)")
		if m.membership != outside {
			c.scheduleExpiry(m)
		}
	} else {
		c.step(m.ID, "poll timeout: LeaveGroup")
		if m.membership != outside {
			c.leave(m, m.ID+": max.poll.interval.ms exceeded")
		}
	}
	c.scheduleRejoin(m, m.ID+" joins")
}

// onGrow: the leader notices new partitions at its next metadata refresh
// (every metadata.max.age.ms, counted from t = 0) and rejoins at its next
// poll; a rebalance that ends before uses the new metadata already.
func (c *classic) onGrow(string) { c.watchMetadata() }

// watchMetadata schedules the leader's next metadata refresh, at which it
// rejoins if the metadata differs from that of the last assignment. A
// leader that cannot act then (it is down, or a rebalance runs) tries
// again at the refresh after.
func (c *classic) watchMetadata() {
	l := c.members[c.leader]
	if l == nil {
		return // no generation yet: the first one uses the metadata of its time
	}
	age := l.cfg.MetadataMaxAge
	c.at((c.now/age+1)*age, rankMember, l.ID, func() {
		if maps.Equal(c.topics, c.assignedTopics) || c.members[c.leader] != l || l.membership == outside {
			return // the next generation, with a new leader if need be, uses the new metadata
		}
		if !l.alive() || l.membership == joining || l.rejoinReason != "" || c.state != stable {
			c.watchMetadata()
			return
		}
		c.step(l.ID, "metadata refresh: partitions changed")
		c.scheduleRejoin(l, l.ID+" rejoins: metadata changed")
	})
}

// heartbeat is one beat of m's heartbeat thread. It keeps the session
// alive and brings back news: a rebalance in progress, which the member
// acts on at its next poll, or that it is no longer a member.
func (c *classic) heartbeat(m *classicMember) {
	// The news arrives with the response, a round trip after the beat.
	news := c.now + c.sc.RTT
	if m.membership == outside {
		c.step(m.ID, "heartbeat: unknown member")
		m.proc = lost
		c.scheduleRejoinAfter(m, news, m.ID+" joins")
		return
	}
	m.lastContact = c.now
	if c.state == preparing && m.membership != joining && m.rejoinReason == "" {
		c.step(m.ID, "heartbeat: rebalance in progress")
		c.scheduleRejoinAfter(m, news, m.ID+" rejoins")
	}
	next := c.now + m.cfg.HeartbeatInterval
	switch {
	case m.checkAt == c.now:
		m.checkAt = 0
	case m.checkAt > c.now:
		next = min(next, m.checkAt)
	}
	c.startHeartbeats(m, next)
}

// startHeartbeats (re)starts m's heartbeat thread with a beat at t.
func (c *classic) startHeartbeats(m *classicMember, t int64) {
	m.beat.setPeriodic(t, func() { c.heartbeat(m) })
}

// scheduleRejoin makes m rejoin at its next poll, after the batch it is
// processing.
func (c *classic) scheduleRejoin(m *classicMember, reason string) {
	c.scheduleRejoinAfter(m, c.now, reason)
}

// scheduleRejoinAfter makes m rejoin at its first poll at or after t.
func (c *classic) scheduleRejoinAfter(m *classicMember, t int64, reason string) {
	m.rejoinReason = reason
	m.atPoll.set(m.nextPoll(t), func() {
		if m.alive() {
			c.rejoin(m)
		}
	})
}

// rejoin is m's poll sending JoinGroup. Eager members revoke everything
// first (onPartitionsRevoked); cooperative members keep what they own.
func (c *classic) rejoin(m *classicMember) {
	reason := m.rejoinReason
	m.rejoinReason = ""
	if c.protocol == assign.Eager && len(m.owned) > 0 {
		c.step(m.ID, "revokes %s", list(m.owned))
		c.ledger.drop(m.ID, m.owned, c.now)
		m.owned = nil
	}
	c.joinGroup(m, reason)
}

// joinGroup is the coordinator receiving m's JoinGroup.
func (c *classic) joinGroup(m *classicMember, reason string) {
	m.beat.stop() // the heartbeat thread pauses during the rebalance
	m.awaitingSync = false
	if m.proc == lost && !m.static() {
		m.membership = outside // a dynamic member that left comes back as a new one
	}
	changed := m.pendingTopics != nil
	if changed {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
	}
	if m.static() && m.proc == lost && m.membership != outside && c.state == stable {
		switch {
		case changed:
			reason = m.ID + " rejoins: subscription changed"
		case m.ID == c.leader && !maps.Equal(c.topics, c.assignedTopics):
			reason = m.ID + " rejoins: metadata changed"
		case c.sc.broker.StaticRejoinRebalances:
			reason = m.ID + " rejoins (static): the coordinator rebalances"
		default:
			c.cachedRejoin(m)
			return
		}
	}
	if m.membership == outside && c.state == preparing && c.delaying {
		c.newMemberAdded = true
	}
	m.membership, m.proc, m.joinedAt = joining, running, c.now
	c.step(m.ID, "JoinGroup")
	switch c.state {
	case empty:
		c.startRebalance("group forms")
	case stable, syncing:
		c.startRebalance(reason)
	}
	c.tryCompleteJoin()
}

// cachedRejoin: a static member the coordinator still knows rejoins a
// Stable group with its subscription unchanged. It gets the assignment
// cached for its group.instance.id and no rebalance happens (KIP-345),
// whatever its JoinGroup metadata now holds: Kafka's coordinator replaces
// the member.id, stores the new metadata and rebalances only if that
// changes the protocol the group would select (the package doc cites the
// code).
func (c *classic) cachedRejoin(m *classicMember) {
	c.step(m.ID, "JoinGroup (static): cached assignment, no rebalance")
	m.proc = running
	m.sessionExpiry.stop()
	c.sync(m, m.given)
}

// scheduleExpiry makes the coordinator expire m a session timeout after it
// last heard from it, unless it hears from it again.
func (c *classic) scheduleExpiry(m *classicMember) {
	m.sessionExpiry.set(max(c.now, m.lastContact+m.cfg.SessionTimeout), func() {
		if m.membership != outside {
			c.expire(m)
		}
	})
}

// expire removes a member whose session timed out.
func (c *classic) expire(m *classicMember) {
	c.remove(m, "session timeout: removed")
	if c.state == stable || c.state == syncing {
		c.startRebalance(m.ID + ": session timeout")
	}
	c.tryCompleteJoin()
}

// leave removes a member that sent LeaveGroup.
func (c *classic) leave(m *classicMember, reason string) {
	c.remove(m, "LeaveGroup: removed")
	if c.state == stable || c.state == syncing {
		c.startRebalance(reason)
	}
	c.tryCompleteJoin()
}

// remove takes m out of the group. A live member loses its partitions now
// and learns it is out from its next heartbeat.
func (c *classic) remove(m *classicMember, why string) {
	c.step(m.ID, "%s", why)
	m.membership = outside
	m.sessionExpiry.stop()
	if m.alive() && len(m.owned) > 0 {
		c.ledger.drop(m.ID, m.owned, c.now)
		m.owned, m.reported, m.reportedGen = nil, nil, -1
	}
	if m.proc == running && !m.backingOff {
		// Its next heartbeat is answered UNKNOWN_MEMBER_ID. It is not
		// periodic: the run waits for the member to learn it is out.
		// (One backing off learns it from its JoinGroup: backOff.)
		m.beat.set(c.now+m.cfg.HeartbeatInterval, func() { c.heartbeat(m) })
	}
}

func sortedCopy(tps []assign.TopicPartition) []assign.TopicPartition {
	out := slices.Clone(tps)
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return out
}
