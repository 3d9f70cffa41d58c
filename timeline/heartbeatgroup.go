package timeline

import (
	"fmt"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// This file holds what the two heartbeat protocols, the consumer protocol
// of KIP-848 (kip848.go) and the share groups of KIP-932 (share.go), do
// alike: a coordinator that bumps the group epoch on every change and
// computes a target for it (under KIP-1263's assignment interval from
// Kafka 4.3), members that heartbeat on their own timer, member.ids the
// consumer draws itself, and sessions that expire a session timeout after
// the last heartbeat. What a member does with its target, reconciling or
// taking it whole, is the protocol's: heartbeatRules.

// targetMember is a heartbeat group's member: a consumer and the target
// the coordinator last computed for it.
type targetMember struct {
	consumer
	target []assign.TopicPartition

	// onBeat is its heartbeat, made once (startHeartbeats) rather than
	// at every beat (BenchmarkSimulate/protocol=consumer).
	onBeat func()
}

func (m *targetMember) base() *targetMember { return m }

// heartbeatMember is a protocol's member type, which embeds a
// targetMember.
type heartbeatMember interface {
	comparable
	base() *targetMember
}

// heartbeatRules are the steps in which the two heartbeat protocols
// differ; heartbeatGroup calls them on the protocol that embeds it.
type heartbeatRules[M heartbeatMember] interface {
	protocol
	// newMember returns a member of the protocol around c.
	newMember(c consumer) M
	// group is the assignor's input.
	group() assign.Group
	// heartbeat is any heartbeat of m after its first (join).
	heartbeat(m M)
	// fresh resets, for a new incarnation of m that joins, what the
	// protocol keeps of m beyond its consumer and target.
	fresh(m M)
	// stableMember sets up, in a stable start, what the protocol keeps
	// of m beyond its target, which it owns, its ledger entry and its
	// heartbeats; ph is m's phase.
	stableMember(m M, ph Phase)
	// stopProcess ends what m's process was doing.
	stopProcess(m M)
	// splitBehind returns a new member for m's old member.id, which
	// stays behind (leaveBehind), moving to it what the protocol keeps
	// of m beyond its consumer and target.
	splitBehind(m M) M
	// remove takes m out of the group.
	remove(m M)
	// assignmentInterval is KIP-1263's interval for the group type.
	assignmentInterval() int64
	// joinStartsEpoch reports whether m's first heartbeat starts a group
	// epoch by itself, and when it does not, why not (a step's words).
	joinStartsEpoch(m M) (bool, string)
}

// heartbeatGroup is a heartbeat protocol's coordinator and its members.
type heartbeatGroup[M heartbeatMember] struct {
	groupCoordinator
	rules   heartbeatRules[M] // the protocol that embeds this group
	members map[string]M
	ids     []string // keys of members, sorted
	epoch   int32    // the group epoch

	// The last target: its group epoch, and when it was computed
	// (KIP-1263's interval runs from then); computed is false until the
	// timeline computes one.
	targetEpoch int32
	computedAt  int64
	computed    bool

	// settledStep is the step maybeSettled logs; the protocols word it
	// differently (a share member holds its target at once, a consumer
	// reaches it), and the words are part of the output.
	settledStep string
}

func newHeartbeatGroup[M heartbeatMember](e *engine, n *normalized, settledStep string) heartbeatGroup[M] {
	return heartbeatGroup[M]{groupCoordinator: newGroupCoordinator(e, n), members: make(map[string]M), settledStep: settledStep}
}

func (g *heartbeatGroup[M]) add(m Member) M {
	hm := g.rules.newMember(newConsumer(g.engine, m, g.topics))
	g.members[m.ID] = hm
	g.ids = insertSorted(g.ids, m.ID)
	return hm
}

func (g *heartbeatGroup[M]) start() {
	for _, m := range g.sc.members {
		g.add(m)
	}
	if g.sc.Forming {
		for _, id := range g.ids {
			m := g.members[id]
			g.at(0, rankEvent, "", func() { g.join(m) })
		}
	} else {
		g.startStable()
	}
	g.play(g.rules)
}

// startStable puts the group at epoch 1 with every member owning its
// target, its heartbeats out of lockstep: they run from its phase.
func (g *heartbeatGroup[M]) startStable() {
	for _, id := range g.ids {
		g.members[id].base().membership = inGroup
	}
	a := g.sc.Initial
	if a == nil {
		var err error
		if a, err = g.sc.Strategy.Assign(g.rules.group()); err != nil {
			g.err = err
			return
		}
	}
	g.epoch, g.targetEpoch = 1, 1
	for i, id := range g.ids {
		hm := g.members[id]
		m := hm.base()
		m.target = sortedCopy(a[id])
		m.owned = m.target
		g.ledger.take(id, m.owned, 0)
		ph := phaseOf(g.sc, g.sc.members[i], g.sc.broker.ConsumerHeartbeatInterval)
		g.rules.stableMember(hm, ph)
		m.lastContact = ph.Heartbeat - g.sc.broker.ConsumerHeartbeatInterval
		g.startHeartbeats(hm, ph.Heartbeat)
	}
}

func (g *heartbeatGroup[M]) consumer(id string) *consumer { return &g.members[id].base().consumer }

func (g *heartbeatGroup[M]) memberIDs() []string { return g.ids }

func (g *heartbeatGroup[M]) rename(old, id string) {
	hm := g.members[old]
	m := hm.base()
	delete(g.members, old)
	if m.membership != outside {
		if m.alive() {
			g.rules.stopProcess(hm) // restarts that overlap: the old process ends without a word
		}
		g.leaveBehind(hm)
	}
	m.ID = id
	g.members[id] = hm
	g.ids = slices.Sorted(maps.Keys(g.members))
}

// newIDWhileKnown is true under both protocols: the consumer generates
// its member.id itself, once per process (KIP-1082; AbstractMembershipManager,
// which ConsumerMembershipManager and ShareMembershipManager extend, draws
// its memberId with Uuid.randomUuid() in Kafka 4.0 to 4.4), so a new
// process joins under a new one (member epoch 0) whatever the coordinator
// still holds of the old one.
func (g *heartbeatGroup[M]) newIDWhileKnown() bool { return true }

// leaveBehind keeps the member.id of m, a dynamic member whose process
// crashed, in the group after m's new process takes a new member.id: the
// coordinator does not know they are one consumer. The old member.id
// never heartbeats again: it keeps its target, which the assignor counts
// as its current assignment, until its session expires, counted from its
// last heartbeat. What the protocol lets it hold meanwhile is the
// protocol's (splitBehind).
func (g *heartbeatGroup[M]) leaveBehind(hm M) {
	m := hm.base()
	hold := g.rules.splitBehind(hm)
	old := hold.base()
	old.target = m.target
	old.Topics = m.Topics
	old.proc, old.membership, old.lastContact = down, m.membership, m.lastContact
	g.members[old.ID] = hold
	m.sessionExpiry.stop()
	m.membership = outside
	m.target = nil
	if old.membership != outside {
		g.scheduleExpiry(hold, old.lastContact)
	}
}

func (g *heartbeatGroup[M]) onJoin(m Member) { g.join(g.add(m)) }

// join is a member's first heartbeat (member epoch 0): a new member, so
// a new group epoch, unless the protocol says its subscription starts
// none yet (joinStartsEpoch).
func (g *heartbeatGroup[M]) join(hm M) {
	m := hm.base()
	if m.membership != outside {
		g.rules.remove(hm) // a new incarnation gets a new member ID
	}
	m.membership, m.proc = inGroup, running
	m.owned, m.target = nil, nil
	g.rules.fresh(hm)
	g.step(m.ID, "heartbeat: joins")
	if starts, why := g.rules.joinStartsEpoch(hm); starts {
		g.bump(m.ID + " joins")
	} else {
		g.step("", "no new group epoch for %s's join: %s", m.ID, why)
	}
	g.rules.heartbeat(hm)
}

// onCrash: the coordinator removes the member a session timeout after
// its last heartbeat.
func (g *heartbeatGroup[M]) onCrash(id string) {
	hm := g.members[id]
	g.rules.stopProcess(hm)
	g.scheduleExpiry(hm, hm.base().lastContact)
}

// scheduleExpiry makes the coordinator remove m a session timeout after
// from, unless it hears from it again.
func (g *heartbeatGroup[M]) scheduleExpiry(hm M, from int64) {
	m := hm.base()
	m.sessionExpiry.set(max(g.now, from+g.sc.broker.ConsumerSessionTimeout), func() {
		if m.membership != outside {
			g.expire(hm)
		}
	})
}

// expire removes a member whose session timed out: a new group epoch.
func (g *heartbeatGroup[M]) expire(hm M) {
	id := hm.base().ID
	g.step(id, "session timeout: removed")
	g.rules.remove(hm)
	g.bump(id + ": session timeout")
}

// bump starts a new group epoch with a new target assignment, or, within
// the assignment interval, one whose target a later heartbeat computes.
func (g *heartbeatGroup[M]) bump(reason string) {
	g.epoch++
	if !g.mayCompute() {
		g.beginRebalance(reason, g.epoch)
		g.step("", "group epoch %d: %s; its target waits for the assignment interval, until %s", g.epoch, reason, FormatMs(g.computedAt+g.rules.assignmentInterval()))
		return
	}
	if !g.computeTarget() {
		return
	}
	g.beginRebalance(reason, g.epoch)
	g.step("", "group epoch %d: %s", g.epoch, reason)
}

// mayCompute reports whether the coordinator may compute a target now,
// under the group type's assignment interval (mayComputeTarget).
func (g *heartbeatGroup[M]) mayCompute() bool {
	return g.mayComputeTarget(g.computed, g.computedAt, g.rules.assignmentInterval())
}

// computeTarget runs the assignor for the group epoch and gives every
// member its target; false on an error, which it records.
func (g *heartbeatGroup[M]) computeTarget() bool {
	a, err := g.sc.Strategy.Assign(g.rules.group())
	if err != nil {
		g.err = fmt.Errorf("timeline: %s at %d ms: %w", g.sc.Strategy.Name(), g.now, err)
		return false
	}
	for _, id := range g.ids {
		if m := g.members[id].base(); m.membership != outside {
			m.target = sortedCopy(a[id])
		}
	}
	g.targetEpoch, g.computedAt, g.computed = g.epoch, g.now, true
	return true
}

// computeDeferred is the start of m's heartbeat, once the coordinator has
// heard it: a target the assignment interval deferred is computed now if
// the interval is over. False on an error, which it records.
func (g *heartbeatGroup[M]) computeDeferred(id string) bool {
	if g.targetEpoch < g.epoch && g.mayCompute() {
		if !g.computeTarget() {
			return false
		}
		g.step(id, "heartbeat: the coordinator computes the target of group epoch %d", g.epoch)
	}
	return true
}

// heard records a heartbeat of m now and schedules its next one.
func (g *heartbeatGroup[M]) heard(hm M) {
	hm.base().lastContact = g.now
	g.startHeartbeats(hm, g.now+g.sc.broker.ConsumerHeartbeatInterval)
}

// maybeSettled closes the open rebalance once the protocol's group is
// settled.
func (g *heartbeatGroup[M]) maybeSettled() {
	if g.open >= 0 && g.rules.settled() {
		g.endRebalance()
		g.step("", "%s", g.settledStep)
	}
}

// startHeartbeats starts m's heartbeats at t, one every heartbeat
// interval.
func (g *heartbeatGroup[M]) startHeartbeats(hm M, t int64) {
	m := hm.base()
	if m.onBeat == nil {
		m.onBeat = func() { g.rules.heartbeat(hm) }
	}
	m.beat.setPeriodic(t, m.onBeat)
}
