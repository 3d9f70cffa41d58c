package timeline

import (
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// This file is the share group protocol of KIP-932 (Kafka 4.2 and later):
// members heartbeat as consumer-protocol members do (ShareGroupHeartbeat),
// the coordinator bumps the group epoch on every change and computes a
// target with the share assignor ([assign.Simple]), but there is no
// reconciliation to wait for. Kafka's ShareGroupAssignmentBuilder
// (group-coordinator, modern/share; the same on the 4.2, 4.3 and 4.4
// branches, last changed by 35bd71cfc2) moves a member whose epoch is
// behind the target's straight to the target epoch, STABLE, with the
// target's partitions less topics it no longer subscribes to: no
// UNREVOKED_PARTITIONS state and no check that another member still
// holds a partition, since several members may hold one. The share
// consumer (ShareMembershipManager) has no rebalance listener and no
// max.poll.interval.ms: it stops fetching what it lost and starts on
// what it gained when the heartbeat's answer arrives. So here a member
// takes its whole target at its next heartbeat; one partition may have
// several owners at once, and a partition is unowned only while no
// member holds it.
//
// Rules, one method each:
//
//	bump       a change: new group epoch, new target (share assignor)
//	           unless the assignment interval defers it (Kafka 4.3+)
//	heartbeat  computes a deferred target once the interval is over; the
//	           member takes its target, whole
//	expire     the session timeout removes a crashed member: a new epoch
//	leave      a member closes: heartbeat with epoch -1, removed at once
//
// Share groups have no static membership (ShareGroupHeartbeat carries no
// group.instance.id), so a member with an instance id is refused. The
// coordinator's group.share.heartbeat.interval.ms and
// group.share.session.timeout.ms are read from [Broker]'s consumer
// fields, whose defaults (5 s and 45 s) are the share settings' too.
//
// From Kafka 4.3 the coordinator computes a target at most once per
// group.share.assignment.interval.ms ([Broker].ShareAssignmentInterval,
// KIP-1263, default 1000 ms), by the consumer protocol's rule
// (GroupMetadataManager.canComputeNextTargetAssignment, called from the
// share group's maybeUpdateTargetAssignment as from the consumer
// group's; mayComputeTarget). A change within the interval of the last
// computation bumps the group epoch at once, but the members keep the old
// target until the first heartbeat at or after the interval's end
// computes the new one; a member that joins meanwhile gets nothing yet,
// and one whose subscription changed drops at once what it no longer
// subscribes to (ShareGroupAssignmentBuilder filters the target by the
// subscription). As for the consumer protocol, a target that may be
// computed is computed at the change itself.
//
// What share groups do as the consumer protocol does (the group epoch,
// targets, heartbeats, sessions, member.ids) is heartbeatGroup's
// (heartbeatgroup.go); shareGroup adds how a member takes its target.

// Share is the share group protocol of KIP-932 (Kafka 4.2 and later),
// whose members may share partitions.
const Share Protocol = Consumer + 1

// shareMember is one share consumer and the coordinator's record of it.
type shareMember struct {
	targetMember
	epoch int32 // the target epoch it last took
}

// shareGroup is a share group coordinator and its members.
type shareGroup struct {
	heartbeatGroup[*shareMember]
}

func newShareGroup(e *engine, n *normalized) *shareGroup {
	s := &shareGroup{newHeartbeatGroup[*shareMember](e, n, "every member holds its target")}
	s.rules = s
	return s
}

func (s *shareGroup) newMember(c consumer) *shareMember {
	return &shareMember{targetMember: targetMember{consumer: c}}
}

func (s *shareGroup) assignmentInterval() int64 { return s.sc.broker.ShareAssignmentInterval }

// normalizeShare checks what a share group allows of n: the share
// assignor (nil means simple) and no static members.
func normalizeShare(n *normalized) error {
	if n.Strategy == nil {
		n.Strategy = assign.Simple{}
	}
	if n.Strategy.Protocol() != assign.Share {
		return invalidf("share groups have one assignor, simple; not %s", n.Strategy.Name())
	}
	for _, m := range n.Members {
		if m.InstanceID != "" {
			return invalidf("member %q: share groups have no static membership (group.instance.id %q)", m.ID, m.InstanceID)
		}
	}
	for _, ev := range n.Events {
		if ev.InstanceID != "" {
			return invalidf("%s: share groups have no static membership", ev)
		}
	}
	return nil
}

// stableMember: in a stable start every member runs, at the target
// epoch 1.
func (s *shareGroup) stableMember(m *shareMember, _ Phase) {
	m.epoch = 1
	m.proc = running
}

// settled reports whether every member in the group holds the target of
// the group epoch.
func (s *shareGroup) settled() bool {
	for _, id := range s.ids {
		m := s.members[id]
		if m.membership == inGroup && (!m.alive() || m.epoch != s.epoch) {
			return false
		}
	}
	return true
}

// group is the assignor's input: the members in the group, each with its
// current target.
func (s *shareGroup) group() assign.Group {
	g := assign.Group{Topics: s.topics, TopicIDs: s.sc.TopicIDs}
	for _, id := range s.ids {
		if m := s.members[id]; m.membership != outside {
			g.Members = append(g.Members, assign.Member{ID: id, Topics: m.Topics, Owned: m.target, Generation: -1})
		}
	}
	g, _ = g.WithDerivedTopicIDs()
	return g
}

// stopProcess: a share consumer's process has nothing under way beyond
// its consumer's (no revocation, no poll callbacks).
func (s *shareGroup) stopProcess(m *shareMember) { m.stop(s.ledger, s.now) }

// splitBehind: the old member.id of a crashed process keeps the target
// epoch it last took. It holds no partition for itself: what only it
// held is unowned until its session expires, since nobody consumes for
// it, while what it shared others go on consuming.
func (s *shareGroup) splitBehind(m *shareMember) *shareMember {
	old := s.newMember(newConsumer(s.engine, m.Member, s.topics))
	old.epoch = m.epoch
	return old
}

// onStall: a share consumer has no max.poll.interval.ms and its
// heartbeats run on their own thread; a slow batch changes nothing the
// group sees.
func (s *shareGroup) onStall(string, int64) {}

// onSubscribe: the member sends its new subscription with its next
// heartbeat, or, if it is down, when it is back.
func (s *shareGroup) onSubscribe(id string, topics []string) {
	s.members[id].pendingTopics = &topics
}

// onGrow: the broker notices new partitions at once.
func (s *shareGroup) onGrow(topic string) {
	s.bump(fmt.Sprintf("%s grows to %d partitions", topic, s.topics[topic]))
	s.maybeSettled()
}

// fresh: a new incarnation has taken no target epoch yet.
func (s *shareGroup) fresh(m *shareMember) { m.epoch = 0 }

// onReturn starts a restarted member's new process, which joins anew.
// It is kip848's comeBack without the static member's rejoin, which a
// share group (no group.instance.id) never takes; kept apart rather than
// shared behind a hook only one protocol could reach.
func (s *shareGroup) onReturn(id string) {
	m := s.members[id]
	if m.alive() {
		s.stopProcess(m)
	}
	if m.pendingTopics != nil {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
	}
	s.step(m.ID, "starts again")
	s.join(m)
}

// onClose: the member leaves with epoch -1, which frees what it held.
// Unlike kip848's onClose and leave there is no epoch -2 (static) leave
// and no revocation to run first.
func (s *shareGroup) onClose(id string) {
	m := s.members[id]
	s.step(m.ID, "closes")
	s.stopProcess(m)
	if m.membership == outside {
		return
	}
	s.step(m.ID, "heartbeat (epoch -1): leaves")
	s.remove(m)
	s.bump(m.ID + " leaves")
}

// remove takes m out of the group. Unlike kip848's remove it frees no
// holder map (several members may hold a partition, so the coordinator
// keeps none) and it stops m's heartbeats.
// joinStartsEpoch: a share member subscribes by topic names only, which
// a joining member brings new, so its join starts a group epoch.
func (s *shareGroup) joinStartsEpoch(*shareMember) (bool, string) { return true, "" }

func (s *shareGroup) remove(m *shareMember) {
	m.membership = outside
	m.sessionExpiry.stop()
	m.beat.stop()
	m.target = nil
}

// heartbeat: a subscription changed since the last one goes with it (a
// new epoch); a target the interval deferred is computed once it is over;
// the member then takes the target of the last computation whole, less
// topics it no longer subscribes to, dropping what it lost and consuming
// what it gained at once.
func (s *shareGroup) heartbeat(m *shareMember) {
	s.heard(m)
	resubscribed := m.pendingTopics != nil
	if resubscribed {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
		s.step(m.ID, "heartbeat: new subscription")
		s.bump(m.ID + ": subscription changed")
	}
	if !s.computeDeferred(m.ID) {
		return
	}
	if m.epoch != s.targetEpoch || resubscribed {
		next := subscribed(m.target, m.Topics)
		lost, gained := minus(m.owned, next), minus(next, m.owned)
		s.ledger.drop(m.ID, lost, s.now)
		s.ledger.take(m.ID, gained, s.now)
		m.owned, m.epoch = next, s.targetEpoch
		switch {
		case len(lost) > 0 && len(gained) > 0:
			s.step(m.ID, "heartbeat: takes its target: stops %s, receives %s", list(lost), list(gained))
		case len(lost) > 0:
			s.step(m.ID, "heartbeat: takes its target: stops %s", list(lost))
		case len(gained) > 0:
			s.step(m.ID, "heartbeat: takes its target: receives %s", list(gained))
		}
	}
	s.maybeSettled()
}

// subscribed returns the partitions of tps whose topics are in topics,
// as ShareGroupAssignmentBuilder filters a target the member takes by its
// subscription: tps itself when it keeps them all.
func subscribed(tps []assign.TopicPartition, topics []string) []assign.TopicPartition {
	dropped := func(tp assign.TopicPartition) bool { return !slices.Contains(topics, tp.Topic) }
	if !slices.ContainsFunc(tps, dropped) {
		return tps
	}
	return slices.DeleteFunc(slices.Clone(tps), dropped)
}
