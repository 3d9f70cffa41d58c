package timeline

import (
	"fmt"
	"maps"

	"github.com/assigncalc/assigncalc/assign"
)

// This file is the classic coordinator's rebalance, phase by phase:
// PreparingRebalance and its join phase (startRebalance, tryCompleteJoin),
// the assignment and the SyncGroup round trip (completeJoin, chooseLeader),
// and each member's SyncGroup response (syncAll, sync).

// startRebalance moves the group to PreparingRebalance. The join phase
// ends when every member has rejoined or the rebalance timeout (the
// largest max.poll.interval.ms) passes. An empty group instead waits
// group.initial.rebalance.delay.ms, and as long again each time members
// joined during the wait, within the rebalance timeout (KIP-134).
func (c *classic) startRebalance(reason string) {
	if c.state == syncing {
		c.interruptSync()
	}
	wasEmpty := c.state == empty
	c.state = preparing
	c.beginRebalance(reason, 0) // its generation is known when it ends
	c.step("", "PreparingRebalance: %s", reason)
	timeout := c.rebalanceTimeout()
	if delay := c.sc.broker.InitialRebalanceDelay; wasEmpty && delay > 0 {
		first := min(delay, timeout)
		c.delaying, c.newMemberAdded, c.delayLeft = true, false, timeout-first
		c.joinPhase.set(c.now+first, c.initialDelayEnds)
		return
	}
	c.joinPhase.set(c.now+timeout, func() {
		if c.state == preparing {
			c.step("", "rebalance timeout")
			c.completeJoin()
		}
	})
}

// rebalanceTimeout is the largest max.poll.interval.ms of the members.
func (c *classic) rebalanceTimeout() int64 {
	var t int64
	for _, id := range c.ids {
		if m := c.members[id]; m.membership != outside {
			t = max(t, m.cfg.MaxPollInterval)
		}
	}
	return t
}

// initialDelayEnds ends one wait of the initial delay: if members joined
// during it and the rebalance timeout allows, the coordinator waits again.
func (c *classic) initialDelayEnds() {
	if c.newMemberAdded && c.delayLeft > 0 {
		wait := min(c.sc.broker.InitialRebalanceDelay, c.delayLeft)
		c.newMemberAdded, c.delayLeft = false, c.delayLeft-wait
		c.step("", "initial delay: members joined, waiting %d ms more", wait)
		c.joinPhase.set(c.now+wait, c.initialDelayEnds)
		return
	}
	c.delaying = false
	c.completeJoin()
}

// tryCompleteJoin ends the join phase once every member has rejoined.
func (c *classic) tryCompleteJoin() {
	if c.state != preparing || c.delaying {
		return
	}
	for _, id := range c.ids {
		if m := c.members[id]; m.membership == inGroup {
			return
		}
	}
	c.completeJoin()
}

// completeJoin ends the join phase: members that did not rejoin are
// dropped, the leader assigns with the strategy, every member receives its
// assignment in SyncGroup (taking no time), and the group is Stable in a
// new generation. Cooperative members that had to revoke rejoin at once
// for the follow-up rebalance.
func (c *classic) completeJoin() {
	c.joinPhase.stop()
	c.delaying = false
	for _, id := range c.ids {
		if m := c.members[id]; m.membership == inGroup {
			c.remove(m, "did not rejoin in time: removed")
		}
	}
	c.generation++
	c.state = stable
	g := c.group()
	c.assignedTopics = maps.Clone(c.topics)
	if len(g.Members) == 0 {
		c.state = empty
		c.closeRebalance()
		return
	}
	c.chooseLeader()
	a, err := c.sc.Strategy.Assign(g)
	if err != nil {
		c.err = fmt.Errorf("timeline: %s at %d ms: %w", c.sc.Strategy.Name(), c.now, err)
		return
	}
	c.step(c.leader, "leader assigns generation %d", c.generation)
	if c.sc.RTT == 0 {
		c.syncAll(a)
		return
	}
	// The JoinGroup responses, then the SyncGroup round trip: a rebalance
	// that starts meanwhile (a JoinGroup, a LeaveGroup, an expiry) stops
	// this timer, and the members, still joining, take part in it
	// (interruptSync).
	c.state = syncing
	c.awaitSyncs()
	c.joinPhase.set(c.now+2*c.sc.RTT, func() {
		c.state = stable
		c.syncAll(a)
	})
}

// syncAll hands every member its assignment; the group is Stable.
// Cooperative members that had to revoke rejoin at once for the
// follow-up rebalance.
func (c *classic) syncAll(a assign.Assignment) {
	var revoking []*classicMember
	for _, id := range c.ids {
		c.members[id].awaitingSync = false
		if m := c.members[id]; m.membership != outside {
			if c.sync(m, sortedCopy(a[id])) {
				revoking = append(revoking, m)
			}
		}
	}
	c.closeRebalance()
	for _, m := range revoking {
		m.rejoinReason = m.ID + " rejoins: cooperative follow-up"
		c.rejoin(m)
	}
}

func (c *classic) closeRebalance() {
	if r := c.endRebalance(); r != nil {
		r.Generation = c.generation
	}
	if c.state == empty {
		c.step("", "Empty in generation %d", c.generation)
	} else {
		c.step("", "Stable in generation %d", c.generation)
	}
}

// chooseLeader keeps the leader if it is still a member, or else takes the
// member that joined first (ties by ID).
func (c *classic) chooseLeader() {
	if l := c.members[c.leader]; l != nil && l.membership != outside {
		return
	}
	c.leader = ""
	var first int64
	for _, id := range c.ids {
		if m := c.members[id]; m.membership != outside && (c.leader == "" || m.joinedAt < first) {
			c.leader, first = id, m.joinedAt
		}
	}
}

// sync hands m its assignment. An eager member consumes all of it; a
// cooperative one revokes what it owned and did not get, keeps the rest
// and adds what is new. It reports whether m revoked anything. A member
// that crashed while its JoinGroup waited is assigned too, and the
// coordinator expires it a session timeout later.
func (c *classic) sync(m *classicMember, tps []assign.TopicPartition) bool {
	m.membership = inGroup
	m.given = tps
	m.lastContact = c.now
	if !m.alive() {
		c.scheduleExpiry(m)
		return false
	}
	revoked := minus(m.owned, tps)
	if len(revoked) > 0 {
		c.step(m.ID, "revokes %s", list(revoked))
		c.ledger.drop(m.ID, revoked, c.now)
	}
	if c.sc.Forming || c.generation > 1 {
		c.step(m.ID, "SyncGroup: receives %s", list(tps))
	}
	c.ledger.take(m.ID, tps, c.now)
	m.owned, m.reported, m.reportedGen = tps, tps, c.generation
	m.proc = running
	m.sessionExpiry.stop()
	first := c.now + m.cfg.HeartbeatInterval
	m.checkAt = 0
	if check := m.cfg.CooperativeCheck; check > 0 && c.protocol == assign.Cooperative {
		// kgo beats at its timer (from the assignment, then from each
		// beat) and once at the check; the check's beat resets the timer.
		m.checkAt = c.now + check
		first = min(first, m.checkAt)
	}
	c.startHeartbeats(m, first)
	m.prevPoll, m.pollBase = c.now, c.now+m.batch+m.stallExtra
	m.stallExtra = 0
	c.watchPollInterval(m)
	return len(revoked) > 0
}
