package timeline

import (
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/churn"
)

// A protocol is one group protocol's coordinator and its members, as
// the scenario's events drive them. [Simulate] plays either through
// coordinator.play, which applies what both protocols do alike at an
// event, and the protocol the rest.
type protocol interface {
	// start sets up t = 0: a stable group, or members about to join.
	start()
	// settled reports whether no rebalance is under way.
	settled() bool
	// consumer returns the member with that ID.
	consumer(id string) *consumer

	onJoin(m Member)                        // a new member's process has started
	onCrash(id string)                      // a running member has crashed and logged the step
	onClose(id string)                      // a running member closes
	onReturn(id string)                     // a restarted member's new process starts
	onStall(id string, extra int64)         // a running member's batch takes extra ms longer
	onSubscribe(id string, topics []string) // a member's subscription changes
	onGrow(topic string)                    // a topic has grown, already in topics

	// memberIDs returns the IDs of the members, in the group or not.
	memberIDs() []string
	// rename gives the member old the member.id id. A member the
	// coordinator still knows stays behind under old where the protocol
	// keeps it (newIDWhileKnown).
	rename(old, id string)
	// newIDWhileKnown reports whether a dynamic member's new process
	// joins under a new member.id even while the coordinator still
	// knows its old one, which then stays in the group until its
	// session expires.
	newIDWhileKnown() bool
}

// groupCoordinator is what both protocols' coordinators hold alike.
type groupCoordinator struct {
	*engine
	sc     *normalized
	topics map[string]int32 // partitions per topic, as the cluster has them now
	open   int              // index in rebalances of the open rebalance, -1 when none

	// renamed maps the scenario's name of a dynamic member that
	// restarted to the member.id it has now (c1 => c1-r1), and restarts
	// counts the restarts behind those names (churn.RestartedID's).
	renamed  map[string]string
	restarts map[string]int
}

func newGroupCoordinator(e *engine, n *normalized) groupCoordinator {
	c := groupCoordinator{engine: e, sc: n, topics: maps.Clone(n.Topics), open: -1,
		renamed: make(map[string]string), restarts: make(map[string]int)}
	e.ledger.exist(c.topics, 0)
	return c
}

// beginRebalance records a rebalance that starts now, in generation (or
// group epoch) gen, ending the open one.
func (c *groupCoordinator) beginRebalance(reason string, gen int32) {
	c.endRebalance()
	c.rebalances = append(c.rebalances, Rebalance{Start: c.now, End: -1, Reason: reason, Generation: gen})
	c.open = len(c.rebalances) - 1
}

// endRebalance ends the open rebalance now and returns it, or nil when
// none is open.
func (c *groupCoordinator) endRebalance() *Rebalance {
	if c.open < 0 {
		return nil
	}
	r := &c.rebalances[c.open]
	r.End, c.open = c.now, -1
	return r
}

// mayComputeTarget reports whether the coordinator may compute a target
// assignment now, under KIP-1263's assignment interval
// (group.consumer.assignment.interval.ms, group.share.assignment.interval.ms;
// Kafka's GroupMetadataManager.canComputeNextTargetAssignment, one rule for
// both group types): always before Kafka 4.3; from 4.3 when no target was
// computed yet (computed false; a stable start counts as computed long
// before t = 0), the interval is 0, or interval ms have passed since the
// last computation, at lastAt.
func (c *groupCoordinator) mayComputeTarget(computed bool, lastAt, interval int64) bool {
	if v := c.sc.Kafka; v != assign.Kafka43 && v != assign.Kafka44 {
		return true
	}
	return !computed || interval == 0 || c.now >= lastAt+interval
}

// restartedID gives the member the scenario calls name, whose new
// process starts, the member.id it starts with: a dynamic member's is a
// new one (ID-r1, as simulate names it, churn.RestartedID); a static
// member keeps its own. When the coordinator still knows the dynamic
// member (it crashed, and its session has not expired), its old
// member.id stays in the group beside the new one until its session
// expires, under every protocol (newIDWhileKnown). Later events that name
// the member go to the new one.
func (c *groupCoordinator) restartedID(p protocol, name string) string {
	id := name
	if current, ok := c.renamed[name]; ok {
		id = current
	}
	m := p.consumer(id)
	if m.static() || (m.membership != outside && !p.newIDWhileKnown()) {
		return id
	}
	// Taken: the members' IDs, and those of members yet to join.
	g := assign.Group{}
	for _, other := range p.memberIDs() {
		g.Members = append(g.Members, assign.Member{ID: other})
	}
	for _, ev := range c.sc.Events {
		if ev.Kind == Join {
			g.Members = append(g.Members, assign.Member{ID: ev.Member})
		}
	}
	newID := churn.RestartedID(g, id, c.restarts)
	p.rename(id, newID)
	c.renamed[name] = newID
	return newID
}

// play schedules the scenario's events, each to be applied to p.
func (c *groupCoordinator) play(p protocol) {
	for _, ev := range eventsInOrder(c.sc) {
		c.at(ev.At, rankEvent, "", func() { c.apply(p, ev) })
	}
}

// apply is a scenario event happening to p. A crash, a stall or a close
// happens only to a running process; a restart is a close and, For ms
// later, a new process. The event names a member as the scenario does;
// a dynamic member that restarted goes by its new member.id since.
func (c *groupCoordinator) apply(p protocol, ev Event) {
	name := ev.Member // the scenario's
	if id, ok := c.renamed[name]; ok && ev.Kind != Join {
		ev.Member = id
	}
	switch ev.Kind {
	case Join:
		c.step(ev.Member, "starts")
		p.onJoin(Member{ID: ev.Member, InstanceID: ev.InstanceID, Topics: ev.Topics, Config: ev.Config})
	case Crash:
		if p.consumer(ev.Member).alive() {
			c.step(ev.Member, "crashes")
			p.onCrash(ev.Member)
		}
	case Close:
		if p.consumer(ev.Member).alive() {
			p.onClose(ev.Member)
		}
	case Restart:
		if p.consumer(ev.Member).alive() {
			p.onClose(ev.Member)
		}
		c.at(c.now+ev.For, rankEvent, "", func() {
			p.onReturn(c.restartedID(p, name))
		})
	case Stall:
		if p.consumer(ev.Member).alive() {
			c.step(ev.Member, "stalls for %d ms", ev.For)
			p.onStall(ev.Member, ev.For)
		}
	case Subscribe:
		p.onSubscribe(ev.Member, slices.Clone(ev.Topics))
	case Grow:
		c.topics[ev.Topic] = ev.Partitions
		c.ledger.exist(c.topics, c.now)
		c.step("", "%s has %d partitions", ev.Topic, ev.Partitions)
		p.onGrow(ev.Topic)
	}
}
