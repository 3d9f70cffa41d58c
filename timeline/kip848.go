package timeline

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// This file is the consumer protocol of KIP-848: no join or sync phase;
// members heartbeat, the coordinator bumps the group epoch on every
// change and computes a target assignment at once, and each member
// reconciles towards its target at its heartbeats. Each rule lives in one
// method:
//
//	bump       a change: new group epoch, new target (server-side assignor)
//	           unless the assignment interval defers it (Kafka 4.3+)
//	heartbeat  computes a deferred target once the interval is over, then
//	           the coordinator answers with the member's assignment
//	reconcile  what that assignment is: first what to revoke; once it is
//	           revoked, the target partitions nobody else still holds
//	revoke     the member revokes at its next poll (the callback runs in
//	           poll) and acknowledges with a heartbeat right away
//	expire     the session timeout frees a member's partitions
//	leave      a dynamic member leaves (epoch -1) and frees them at once; a
//	           static one (epoch -2) keeps them for a session timeout
//	pollTimeout max.poll.interval.ms: the member leaves as on close
//
// What changes by Kafka version (Scenario.Kafka):
//
//   - 4.0 and 4.1: a partition a member has just revoked and that its
//     target gives back (the target changed while it revoked) counts as
//     unreleased during the heartbeat that acknowledges the revocation; the
//     member gets it at its next heartbeat. 4.2 and later grant it in that
//     heartbeat (KAFKA-19449, coordinator.NextAssignment).
//   - 4.3 and later: the coordinator computes a target at most once per
//     group.consumer.assignment.interval.ms (KIP-1263, default 1000 ms;
//     GroupMetadataManager.canComputeNextTargetAssignment). A change within
//     the interval of the last computation bumps the group epoch at once,
//     but members reconcile towards the old target until the first
//     heartbeat at or after the interval's end computes the new one; a
//     member that joins meanwhile gets nothing yet. A stable start counts
//     as computed long before t = 0.
//   - 4.3's per-partition assignment epochs (KIP-1251) change which offset
//     commits the coordinator accepts, not what a member holds or
//     consumes; the timeline models no commits, so nothing here changes.
//
// As before 4.3, a target that may be computed is computed at the change
// itself; Kafka computes it at the next heartbeat of any member, which
// gives the same target unless two changes come between two heartbeats.
//
// What the consumer protocol does as share groups do (the group epoch,
// targets, heartbeats, sessions, member.ids) is heartbeatGroup's
// (heartbeatgroup.go); kip848 adds reconciliation and polls.

// kipMember is one consumer and the consumer-protocol coordinator's record
// of it. Its atPoll timer runs onPoll; its pendingTopics are a
// subscription changed while it was down.
type kipMember struct {
	targetMember

	revoking []assign.TopicPartition // asked to revoke, not yet acknowledged
	revoked  []assign.TopicPartition // revoked, acknowledged by the heartbeat under way
	onPoll   []func()                // what it does at its next poll

	// counted holds, sorted, the partitions the coordinator counts as
	// this member's (k.holder maps them to it), and may hold some it no
	// longer does: heartbeat and remove visit these instead of every
	// partition of the group.
	counted []assign.TopicPartition
}

// kip848 is a consumer-protocol group coordinator and its members.
type kip848 struct {
	heartbeatGroup[*kipMember]
	holder map[assign.TopicPartition]string // partition => the member the coordinator counts as holding it

	regex patternRefresh // what the members' patterns matched when last resolved (regex.go)
}

func newKIP848(e *engine, n *normalized) *kip848 {
	k := &kip848{
		heartbeatGroup: newHeartbeatGroup[*kipMember](e, n, "every member has reached its target"),
		holder:         make(map[assign.TopicPartition]string),
	}
	k.rules = k
	return k
}

func (k *kip848) newMember(c consumer) *kipMember {
	return &kipMember{targetMember: targetMember{consumer: c}}
}

func (k *kip848) assignmentInterval() int64 { return k.sc.broker.ConsumerAssignmentInterval }

// stableMember: in a stable start the coordinator counts what m owns as
// its, and m's polls run from its phase.
func (k *kip848) stableMember(m *kipMember, ph Phase) {
	for _, tp := range m.owned {
		k.holder[tp] = m.ID
	}
	m.counted = slices.Clone(m.owned)
	m.restart(ph.Poll-m.batch, ph.Poll)
}

// settled reports whether every member has reached its target.
func (k *kip848) settled() bool {
	deferred := k.targetEpoch < k.epoch || k.patternsPending() // a target not yet computed, or patterns not yet resolved again
	for _, id := range k.ids {
		m := k.members[id]
		if m.membership == inGroup && (deferred || !m.alive() || len(m.revoking) > 0 || !slices.Equal(m.owned, m.target)) {
			return false
		}
	}
	return true
}

// group is the assignor's input: the members, each claiming its current
// target, as the server-side assignors read it.
func (k *kip848) group() assign.Group {
	g := assign.Group{Topics: k.topics}
	for _, id := range k.ids {
		if m := k.members[id]; m.membership != outside {
			gen := int32(-1)
			if len(m.target) > 0 {
				gen = k.epoch
			}
			g.Members = append(g.Members, assign.Member{ID: id, InstanceID: m.InstanceID, Topics: m.Topics, Owned: m.target, Generation: gen})
		}
	}
	g.Members = k.regex.resolve(g.Members, k.topics, k.now)
	if k.sc.Strategy.Protocol() == assign.ServerAssigned {
		g.TopicIDs = k.sc.TopicIDs
		g, _ = g.WithDerivedTopicIDs()
	}
	return g
}

// splitBehind: the old member.id of a crashed process holds the
// partitions the coordinator counts as its, which no other member may
// take until its session expires (the expiry onCrash scheduled), which
// frees them and bumps the group epoch. The new process starts with
// nothing counted and nothing under way.
func (k *kip848) splitBehind(m *kipMember) *kipMember {
	old := k.newMember(newConsumer(k.engine, m.Member, k.topics))
	old.counted = m.counted
	m.counted, m.revoking, m.revoked = nil, nil, nil
	return old
}

func (k *kip848) onStall(id string, extra int64) {
	m := k.members[id]
	m.stall(k.now, extra)
	k.schedulePoll(m)
}

// onSubscribe: the member sends its new subscription with the heartbeat
// of its next poll, or, if it is down, when it is back.
func (k *kip848) onSubscribe(id string, topics []string) {
	m := k.members[id]
	if !m.alive() {
		m.pendingTopics = &topics
		return
	}
	k.atNextPoll(m, func() {
		old := m.Topics
		m.Topics = topics
		k.step(m.ID, "heartbeat: new subscription")
		k.subscriptionChanged(m, old)
		k.heartbeat(m)
	})
}

// onGrow: the broker notices new partitions at once; a topic no member
// subscribes to, by name or by what its pattern matched when last
// resolved, changes no group epoch (subscribedTo, regex.go).
func (k *kip848) onGrow(topic string) {
	if !subscribedTo(k.group(), topic) {
		k.step("", "no member subscribes to %s, by name or by a pattern as last resolved: no new group epoch", topic)
		return
	}
	k.bump(fmt.Sprintf("%s grows to %d partitions", topic, k.topics[topic]))
	k.maybeSettled()
}

// fresh: a new incarnation revokes nothing yet and starts polling now.
func (k *kip848) fresh(m *kipMember) {
	m.revoking = nil
	m.restart(k.now, k.now)
}

// onReturn starts a restarted member's new process.
func (k *kip848) onReturn(id string) { k.comeBack(k.members[id]) }

// comeBack starts a member's new process. A static member whose
// assignment the coordinator kept gets it back without a new epoch.
func (k *kip848) comeBack(m *kipMember) {
	if m.alive() {
		k.stopProcess(m) // restarts that overlap: the newest process replaces the running one
	}
	m.proc = running
	old, changed := m.Topics, m.pendingTopics != nil
	if changed {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
	}
	if m.static() && m.membership != outside {
		m.membership = inGroup
		m.owned, m.revoking = nil, nil
		m.sessionExpiry.stop()
		m.restart(k.now, k.now)
		k.step(m.ID, "heartbeat (static): rejoins with its assignment")
		if changed {
			k.subscriptionChanged(m, old)
		}
		k.heartbeat(m)
		return
	}
	k.step(m.ID, "starts again")
	k.join(m)
}

// stopProcess ends what a member's process was doing.
func (k *kip848) stopProcess(m *kipMember) {
	m.stop(k.ledger, k.now)
	m.revoking, m.onPoll = nil, nil
}

// onClose: a dynamic member revokes and leaves with member epoch -1,
// which frees its partitions at once; a static member leaves with epoch
// -2 and the coordinator keeps its assignment for a session timeout
// (KIP-848).
func (k *kip848) onClose(id string) {
	m := k.members[id]
	k.step(m.ID, "closes")
	k.stopProcess(m)
	k.leave(m, m.ID+" leaves")
}

// leave is a leave heartbeat: epoch -1 for a dynamic member, -2 for a
// static one.
func (k *kip848) leave(m *kipMember, reason string) {
	if m.membership == outside {
		return
	}
	if m.static() {
		k.step(m.ID, "heartbeat (epoch -2): leaves, assignment kept")
		m.membership = away
		k.scheduleExpiry(m, k.now)
		return
	}
	k.step(m.ID, "heartbeat (epoch -1): leaves")
	k.remove(m)
	k.bump(reason)
}

// remove takes m out of the group and frees what it held.
func (k *kip848) remove(m *kipMember) {
	m.membership = outside
	if p, _ := patternOf(m.Topics); p != "" {
		k.regex.gathered = false
		k.forgetPattern(p)
	}
	m.sessionExpiry.stop()
	for _, tp := range m.counted {
		if k.holder[tp] == m.ID {
			delete(k.holder, tp)
		}
	}
	m.target, m.counted = nil, nil
}

// heartbeat: the member reports what it owns and the coordinator answers
// with its assignment, as reconcile decides: first what to revoke, which
// the member does at its next poll; once it has acknowledged that, what
// it is given.
func (k *kip848) heartbeat(m *kipMember) {
	k.heard(m)
	k.refreshPatterns()
	if !k.computeDeferred(m.ID) {
		return
	}
	// The heartbeat reports what the member owns: what the coordinator
	// counted as its and it no longer owns (a restarted static member's
	// old partitions) is free.
	// Both are sorted; equal, the member owns all it is counted for.
	if !slices.Equal(m.counted, m.owned) {
		counted := m.counted[:0]
		for _, tp := range m.counted {
			if k.holder[tp] != m.ID {
				continue
			}
			if _, owns := slices.BinarySearchFunc(m.owned, tp, assign.TopicPartition.Compare); !owns {
				delete(k.holder, tp)
				continue
			}
			counted = append(counted, tp)
		}
		m.counted = counted
	}
	revoke, grant := k.reconcile(m)
	m.revoked = nil
	if len(revoke) > 0 {
		m.revoking = revoke
		k.step(m.ID, "heartbeat: must revoke %s", list(revoke))
		k.atNextPoll(m, func() { k.revoke(m) })
	} else if len(grant) > 0 {
		for _, tp := range grant {
			k.holder[tp] = m.ID
		}
		m.counted = sortedCopy(append(m.counted, grant...))
		k.ledger.take(m.ID, grant, k.now)
		m.owned = sortedCopy(append(m.owned, grant...))
		k.step(m.ID, "heartbeat: receives %s", list(grant))
	}
	if len(m.revoking) == 0 { // a member still revoking has not reached its target
		k.maybeSettled()
	}
}

// reconcile is the coordinator's reconciliation rule at one heartbeat of
// m: what m must revoke, and what it is given. A member that has yet to
// acknowledge a revocation gets nothing new; otherwise the rule is the
// library's one, [coordinator.NextAssignment] under Scenario.Kafka: first
// revoke what it owns outside its target, and only once it owns nothing
// outside it take the partitions of its target that no other member still
// holds (nor, before 4.2, that it is itself just done revoking). It reads
// m.revoking, m.revoked, m.owned, m.target and k.holder and writes
// nothing: heartbeat applies the answer.
func (k *kip848) reconcile(m *kipMember) (revoke, grant []assign.TopicPartition) {
	if len(m.revoking) > 0 {
		return nil, nil
	}
	revoke, grant, _ = coordinator.NextAssignment(k.sc.Kafka, m.owned, m.revoked, m.target, func(tp assign.TopicPartition) bool {
		h, held := k.holder[tp]
		return held && h != m.ID
	})
	return revoke, grant
}

// revoke is the member's poll running onPartitionsRevoked; it then
// acknowledges with a heartbeat at once, which frees the partitions.
func (k *kip848) revoke(m *kipMember) {
	k.ledger.drop(m.ID, m.revoking, k.now)
	for _, tp := range m.revoking {
		if k.holder[tp] == m.ID {
			delete(k.holder, tp)
		}
	}
	k.step(m.ID, "revokes %s, acknowledges", list(m.revoking))
	m.owned = minus(m.owned, m.revoking)
	m.revoked, m.revoking = sortedCopy(m.revoking), nil
	k.heartbeat(m)
}

// atNextPoll runs do at m's next poll, after the batch it is processing.
func (k *kip848) atNextPoll(m *kipMember, do func()) {
	m.onPoll = append(m.onPoll, do)
	k.schedulePoll(m)
}

// schedulePoll (re)schedules what m does at its next poll, and the poll
// timeout when that poll comes more than max.poll.interval.ms after the
// last one.
func (k *kip848) schedulePoll(m *kipMember) {
	m.atPoll.stop()
	m.pollExpiry.stop()
	if len(m.onPoll) > 0 {
		m.atPoll.set(m.nextPoll(k.now), func() {
			if m.alive() {
				todo := m.onPoll
				m.onPoll = nil
				for _, do := range todo {
					do()
				}
			}
		})
	}
	if expires, overdue := m.pollExpires(); overdue && m.proc != lost {
		m.pollExpiry.set(expires, func() {
			if m.alive() {
				k.pollTimeout(m)
			}
		})
	}
}

// pollTimeout: poll() was not called for max.poll.interval.ms. The member
// gives its partitions up as lost and leaves as on close; it joins again
// at its next poll.
func (k *kip848) pollTimeout(m *kipMember) {
	k.step(m.ID, "poll timeout")
	m.pollTimedOut(k.ledger, k.now)
	m.revoking = nil
	k.leave(m, m.ID+": max.poll.interval.ms exceeded")
	m.onPoll = []func(){func() { k.comeBack(m) }}
	k.schedulePoll(m)
}
