package timeline

import "github.com/assigncalc/assigncalc/assign"

// This file is what a member is and does alike under both protocols: its
// process runs or not, polls in a loop and heartbeats, and the coordinator
// counts it in the group or not and expires its session. classicMember
// and kipMember embed a consumer and add what their protocol needs.

// process is where a member's consumer process stands, as the member
// itself knows it:
//
//	running → down     it crashes or closes (consumer.stop)
//	running → lost     its poll timer expires (consumer.pollTimedOut), or,
//	                   under the classic protocol, a heartbeat is answered
//	                   UNKNOWN_MEMBER_ID
//	lost    → running  it joins anew at its next poll (a consumer-protocol
//	                   member by way of down: it restarts as on close)
//	lost    → down     it crashes or closes
//	down    → lost     a restarted classic member's new process, which
//	                   must join as a new one
//	down    → running  a restarted consumer-protocol member's heartbeat
type process int8

const (
	running process = iota // consuming, a member of the group as far as it knows
	down                   // not running: crashed, closed, or restarting
	lost                   // running, but it knows it is out of the group and joins anew at its next poll
)

// membership is the coordinator's record of a member. The classic
// coordinator uses joining, the consumer-protocol coordinator away:
//
//	outside → inGroup  a consumer-protocol member's joining heartbeat
//	outside → joining  a classic member's JoinGroup
//	joining → inGroup  SyncGroup hands it its assignment
//	inGroup → joining  it rejoins for a rebalance
//	inGroup → away     a static consumer-protocol member leaves with
//	                   epoch -2, its assignment kept
//	away    → inGroup  it comes back within the session timeout
//	*       → outside  it leaves, or its session or the join phase expires
type membership int8

const (
	outside membership = iota // the coordinator does not count it: not joined yet, or removed
	inGroup                   // the coordinator counts it
	joining                   // classic: counted, its JoinGroup waiting for the join phase to end
	away                      // consumer protocol: a static member that left, whose assignment waits for it
)

// consumer is one consumer process and the coordinator's record of it.
type consumer struct {
	Member
	cfg Config
	pollLoop

	proc       process
	membership membership

	owned         []assign.TopicPartition // what it consumes now, sorted
	lastContact   int64                   // the coordinator last heard from it
	pendingTopics *[]string               // a subscription it sends when it next can

	beat          timer // its heartbeat thread's next beat
	atPoll        timer // what it does at its next poll, after the batch it processes
	pollExpiry    timer // max.poll.interval.ms running out
	sessionExpiry timer // the coordinator's session timeout for it
}

// newConsumer returns m's running process, which subscribes to every topic
// of topics unless m names its topics.
func newConsumer(e *engine, m Member, topics map[string]int32) consumer {
	c := consumer{
		Member:        m,
		cfg:           *m.Config,
		beat:          e.timer(rankHeartbeat, m.ID),
		atPoll:        e.timer(rankMember, m.ID),
		pollExpiry:    e.timer(rankMember, m.ID),
		sessionExpiry: e.timer(rankCoordinator, ""),
	}
	c.batch = c.cfg.BatchMs()
	if c.Topics == nil {
		c.Topics = allTopics(topics)
	}
	return c
}

func (m *consumer) static() bool { return m.InstanceID != "" }

func (m *consumer) alive() bool { return m.proc != down }

// stop ends m's process at now: it consumes nothing more and none of its
// scheduled actions run.
func (m *consumer) stop(l *ledger, now int64) {
	l.drop(m.ID, m.owned, now)
	m.owned = nil
	m.proc = down
	m.beat.stop()
	m.atPoll.stop()
	m.pollExpiry.stop()
}

// pollTimedOut: m's heartbeat thread finds that poll() was not called for
// max.poll.interval.ms. The member gives its partitions up as lost and
// stops heartbeating; it joins anew at its next poll.
func (m *consumer) pollTimedOut(l *ledger, now int64) {
	l.drop(m.ID, m.owned, now)
	m.owned = nil
	m.proc = lost
	m.beat.stop()
}

// pollExpires reports whether m's next poll comes more than
// max.poll.interval.ms after its last one, and when its poll timer then
// expires.
func (m *consumer) pollExpires() (int64, bool) { return m.overdue(m.cfg.MaxPollInterval) }
