package timeline

import "github.com/assigncalc/assigncalc/assign"

// This file is the classic protocol's rejoin backoff, a client trait
// (Config.RejoinBackoff): what a member does when its SyncGroup is
// answered REBALANCE_IN_PROGRESS.

// awaitSyncs marks the members of the join phase that just ended as
// waiting for their SyncGroup responses. A member's own JoinGroup
// (joinGroup) and its assignment (syncAll) clear the mark.
func (c *classic) awaitSyncs() {
	for _, id := range c.ids {
		if m := c.members[id]; m.membership == joining {
			m.awaitingSync = true
		}
	}
}

// interruptSync: a join phase begins while the group completes the
// previous one (the JoinGroup responses and the SyncGroup round trip), so
// the coordinator answers the SyncGroup of every member still waiting for
// its assignment REBALANCE_IN_PROGRESS. A member that rejoins at once
// (Java, franz-go, kafka-go) takes part in the new join phase as if it
// had rejoined already: the model leaves out the round trips that takes.
// One with a Config.RejoinBackoff (sarama) backs off first.
func (c *classic) interruptSync() {
	for _, id := range c.ids {
		m := c.members[id]
		if !m.awaitingSync {
			continue
		}
		m.awaitingSync = false
		if m.alive() && m.membership == joining && m.cfg.RejoinBackoff > 0 {
			c.backOff(m)
		}
	}
}

// backOff: m's SyncGroup was answered REBALANCE_IN_PROGRESS and its
// client waits Config.RejoinBackoff before it sends JoinGroup again
// (sarama's retryJoinSync). Meanwhile the coordinator counts it as a
// member that has not rejoined: the join phase waits for it, or drops it
// at the rebalance timeout. An eager member has no heartbeat during its
// join, so the coordinator expires it if its session runs out first; a
// cooperative sarama member's session keeps heartbeating and is not
// expired. A member removed meanwhile learns it from that JoinGroup
// (UNKNOWN_MEMBER_ID) and joins at once as a new member, as sarama does.
func (c *classic) backOff(m *classicMember) {
	wait := m.cfg.RejoinBackoff
	c.step(m.ID, "SyncGroup: rebalance in progress; rejoins after a %s backoff", FormatMs(wait))
	m.membership = inGroup
	m.backingOff = true
	m.lastContact = c.now
	if c.protocol == assign.Eager {
		c.scheduleExpiry(m)
	}
	m.atPoll.set(c.now+wait, func() {
		m.backingOff = false
		m.sessionExpiry.stop()
		reason := m.ID + " rejoins after its backoff"
		if m.membership == outside {
			m.proc = lost
			reason = m.ID + " joins"
		}
		m.rejoinReason = reason
		c.rejoin(m)
	})
}
