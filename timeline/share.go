package timeline

import (
	"fmt"
	"maps"
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

// Share is the share group protocol of KIP-932 (Kafka 4.2 and later),
// whose members may share partitions.
const Share Protocol = Consumer + 1

// shareMember is one share consumer and the coordinator's record of it.
type shareMember struct {
	consumer
	target []assign.TopicPartition
	epoch  int32 // the target epoch it last took
}

// shareGroup is a share group coordinator and its members.
type shareGroup struct {
	groupCoordinator
	members map[string]*shareMember
	ids     []string // keys of members, sorted
	epoch   int32    // the group epoch

	// The last target: its epoch, which the members take, and when it was
	// computed (KIP-1263's interval runs from then); computed is false
	// until the timeline computes one.
	targetEpoch int32
	computedAt  int64
	computed    bool
}

func newShareGroup(e *engine, n *normalized) *shareGroup {
	return &shareGroup{groupCoordinator: newGroupCoordinator(e, n), members: make(map[string]*shareMember)}
}

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

func (s *shareGroup) add(m Member) *shareMember {
	sm := &shareMember{consumer: newConsumer(s.engine, m, s.topics)}
	s.members[m.ID] = sm
	s.ids = insertSorted(s.ids, m.ID)
	return sm
}

func (s *shareGroup) start() {
	for _, m := range s.sc.members {
		s.add(m)
	}
	if s.sc.Forming {
		for _, id := range s.ids {
			m := s.members[id]
			s.at(0, rankEvent, "", func() { s.join(m) })
		}
	} else {
		s.startStable()
	}
	s.play(s)
}

// startStable puts the group at epoch 1 with every member holding its
// target.
func (s *shareGroup) startStable() {
	for _, id := range s.ids {
		s.members[id].membership = inGroup
	}
	a := s.sc.Initial
	if a == nil {
		var err error
		if a, err = s.sc.Strategy.Assign(s.group()); err != nil {
			s.err = err
			return
		}
	}
	s.epoch, s.targetEpoch = 1, 1
	for i, id := range s.ids {
		m := s.members[id]
		m.target, m.epoch = sortedCopy(a[id]), 1
		m.owned = m.target
		s.ledger.take(id, m.owned, 0)
		m.proc = running
		ph := phaseOf(s.sc, s.sc.members[i], s.sc.broker.ConsumerHeartbeatInterval)
		m.lastContact = ph.Heartbeat - s.sc.broker.ConsumerHeartbeatInterval
		s.startHeartbeats(m, ph.Heartbeat)
	}
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

func (s *shareGroup) consumer(id string) *consumer { return &s.members[id].consumer }

func (s *shareGroup) memberIDs() []string { return s.ids }

func (s *shareGroup) rename(old, id string) {
	m := s.members[old]
	delete(s.members, old)
	if m.membership != outside {
		if m.alive() {
			m.stop(s.ledger, s.now) // restarts that overlap: the old process ends without a word
		}
		s.leaveBehind(m)
	}
	m.ID = id
	s.members[id] = m
	s.ids = slices.Sorted(maps.Keys(s.members))
}

// newIDWhileKnown is true, as under the consumer protocol: the share
// consumer generates its member.id itself, once per process
// (ShareMembershipManager is an AbstractMembershipManager, whose memberId
// is Uuid.randomUuid(), KIP-1082), so a new process joins under a new one
// whatever the coordinator still holds of the old one.
func (s *shareGroup) newIDWhileKnown() bool { return true }

// leaveBehind keeps the member.id of m, a member whose process crashed, in
// the group after m's new process takes a new member.id. The old member.id
// never heartbeats again: it keeps its target, which the assignor counts
// as its current assignment, until its session expires, counted from its
// last heartbeat; what only it held is unowned until then, since nobody
// consumes for it, while what it shared others go on consuming.
func (s *shareGroup) leaveBehind(m *shareMember) {
	old := &shareMember{consumer: newConsumer(s.engine, m.Member, s.topics), target: m.target, epoch: m.epoch}
	old.Topics = m.Topics
	old.proc, old.membership, old.lastContact = down, m.membership, m.lastContact
	s.members[old.ID] = old
	m.sessionExpiry.stop()
	m.membership = outside
	m.target = nil
	s.scheduleExpiry(old)
}

func (s *shareGroup) onJoin(m Member) { s.join(s.add(m)) }

// onCrash: the coordinator removes the member a session timeout after
// its last heartbeat.
func (s *shareGroup) onCrash(id string) {
	m := s.members[id]
	m.stop(s.ledger, s.now)
	s.scheduleExpiry(m)
}

// scheduleExpiry removes m a session timeout after its last heartbeat.
func (s *shareGroup) scheduleExpiry(m *shareMember) {
	m.sessionExpiry.set(max(s.now, m.lastContact+s.sc.broker.ConsumerSessionTimeout), func() {
		if m.membership != outside {
			s.step(m.ID, "session timeout: removed")
			s.remove(m)
			s.bump(m.ID + ": session timeout")
		}
	})
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

// join is a member's first heartbeat (member epoch 0): a new group epoch.
func (s *shareGroup) join(m *shareMember) {
	if m.membership != outside {
		s.remove(m)
	}
	m.membership, m.proc = inGroup, running
	m.owned, m.target, m.epoch = nil, nil, 0
	s.step(m.ID, "heartbeat: joins")
	s.bump(m.ID + " joins")
	s.heartbeat(m)
}

// onReturn starts a restarted member's new process, which joins anew.
func (s *shareGroup) onReturn(id string) {
	m := s.members[id]
	if m.alive() {
		m.stop(s.ledger, s.now)
	}
	if m.pendingTopics != nil {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
	}
	s.step(m.ID, "starts again")
	s.join(m)
}

// onClose: the member leaves with epoch -1, which frees what it held.
func (s *shareGroup) onClose(id string) {
	m := s.members[id]
	s.step(m.ID, "closes")
	m.stop(s.ledger, s.now)
	if m.membership == outside {
		return
	}
	s.step(m.ID, "heartbeat (epoch -1): leaves")
	s.remove(m)
	s.bump(m.ID + " leaves")
}

// remove takes m out of the group.
func (s *shareGroup) remove(m *shareMember) {
	m.membership = outside
	m.sessionExpiry.stop()
	m.beat.stop()
	m.target = nil
}

// bump starts a new group epoch and computes its target, or, within the
// assignment interval, leaves that to a later heartbeat.
func (s *shareGroup) bump(reason string) {
	s.epoch++
	if !s.mayCompute() {
		s.beginRebalance(reason, s.epoch)
		s.step("", "group epoch %d: %s; its target waits for the assignment interval, until %s", s.epoch, reason, FormatMs(s.computedAt+s.sc.broker.ShareAssignmentInterval))
		return
	}
	if !s.computeTarget() {
		return
	}
	s.beginRebalance(reason, s.epoch)
	s.step("", "group epoch %d: %s", s.epoch, reason)
}

// mayCompute reports whether the coordinator may compute a target now,
// under group.share.assignment.interval.ms (mayComputeTarget).
func (s *shareGroup) mayCompute() bool {
	return s.mayComputeTarget(s.computed, s.computedAt, s.sc.broker.ShareAssignmentInterval)
}

// computeTarget runs the assignor for the group epoch and gives every
// member its target; false on an error, which it records.
func (s *shareGroup) computeTarget() bool {
	a, err := s.sc.Strategy.Assign(s.group())
	if err != nil {
		s.err = fmt.Errorf("timeline: %s at %d ms: %w", s.sc.Strategy.Name(), s.now, err)
		return false
	}
	for _, id := range s.ids {
		if m := s.members[id]; m.membership != outside {
			m.target = sortedCopy(a[id])
		}
	}
	s.targetEpoch, s.computedAt, s.computed = s.epoch, s.now, true
	return true
}

// maybeSettled closes the open rebalance once every member holds its
// target.
func (s *shareGroup) maybeSettled() {
	if s.open >= 0 && s.settled() {
		s.endRebalance()
		s.step("", "every member holds its target")
	}
}

func (s *shareGroup) startHeartbeats(m *shareMember, t int64) {
	m.beat.setPeriodic(t, func() { s.heartbeat(m) })
}

// heartbeat: a subscription changed since the last one goes with it (a
// new epoch); a target the interval deferred is computed once it is over;
// the member then takes the target of the last computation whole, less
// topics it no longer subscribes to, dropping what it lost and consuming
// what it gained at once.
func (s *shareGroup) heartbeat(m *shareMember) {
	m.lastContact = s.now
	s.startHeartbeats(m, s.now+s.sc.broker.ConsumerHeartbeatInterval)
	resubscribed := m.pendingTopics != nil
	if resubscribed {
		m.Topics, m.pendingTopics = *m.pendingTopics, nil
		s.step(m.ID, "heartbeat: new subscription")
		s.bump(m.ID + ": subscription changed")
	}
	if s.targetEpoch < s.epoch && s.mayCompute() {
		if !s.computeTarget() {
			return
		}
		s.step(m.ID, "heartbeat: the coordinator computes the target of group epoch %d", s.epoch)
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
