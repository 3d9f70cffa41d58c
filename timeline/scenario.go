package timeline

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// Protocol is the group protocol the members speak.
type Protocol int8

const (
	// Classic is the JoinGroup/SyncGroup protocol of Kafka's classic
	// group coordinator (group.protocol=classic).
	Classic Protocol = iota
	// Consumer is the heartbeat-driven protocol of KIP-848
	// (group.protocol=consumer).
	Consumer
)

// String returns "classic" or "consumer", as group.protocol names them.
func (p Protocol) String() string {
	switch p {
	case Classic:
		return "classic"
	case Consumer:
		return "consumer"
	case Share:
		return "share"
	}
	return fmt.Sprintf("Protocol(%d)", int8(p))
}

// Config is one consumer's configuration, with Kafka's names. Every time is
// in milliseconds.
type Config struct {
	SessionTimeout    int64 // session.timeout.ms (classic protocol only)
	HeartbeatInterval int64 // heartbeat.interval.ms (classic protocol only)
	MaxPollInterval   int64 // max.poll.interval.ms, also the member's rebalance timeout
	MaxPollRecords    int   // max.poll.records
	RecordMicros      int64 // processing time of one record, in microseconds
	MetadataMaxAge    int64 // metadata.max.age.ms: how often the leader refreshes metadata

	// CooperativeCheck is a client trait of franz-go (kgo): under the
	// classic protocol with a cooperative strategy, a member heartbeats
	// also this long after each assignment it receives, and every
	// heartbeat.interval.ms from that beat, so that it hears of a
	// follow-up rebalance sooner (kgo's groupConsumer.heartbeat,
	// cooperativeFastCheck: 500 ms in v1.22.3). 0, as Kafka's Java
	// client, for none.
	CooperativeCheck int64

	// RejoinBackoff is a client trait of sarama: under the classic
	// protocol, when a new join phase begins while the member waits for
	// its SyncGroup response (the group completing a rebalance), the
	// coordinator answers that SyncGroup REBALANCE_IN_PROGRESS and the
	// member waits this long before it sends JoinGroup again
	// (Consumer.Group.Rebalance.Retry.Backoff, 2 s by default in v1.61.1).
	// 0, as Kafka's Java client, franz-go and kafka-go, rejoins at once.
	RejoinBackoff int64
}

// DefaultConfig returns Kafka's consumer defaults and a processing time of
// 2 ms per record.
func DefaultConfig() Config {
	return Config{
		SessionTimeout:    45_000,
		HeartbeatInterval: 3_000,
		MaxPollInterval:   300_000,
		MaxPollRecords:    500,
		RecordMicros:      2_000,
		MetadataMaxAge:    300_000,
	}
}

// BatchMs is the time a member spends on the records of one poll: every
// poll returns a full batch (the member has a backlog), so this is
// MaxPollRecords × RecordMicros, rounded up to a whole millisecond.
func (c Config) BatchMs() int64 {
	return (int64(c.MaxPollRecords)*c.RecordMicros + 999) / 1000
}

// Broker is the group coordinator's configuration. Every time is in
// milliseconds.
type Broker struct {
	InitialRebalanceDelay     int64 // group.initial.rebalance.delay.ms (classic, empty groups only)
	ConsumerSessionTimeout    int64 // group.consumer.session.timeout.ms (consumer protocol)
	ConsumerHeartbeatInterval int64 // group.consumer.heartbeat.interval.ms (consumer protocol)

	// ConsumerAssignmentInterval is group.consumer.assignment.interval.ms
	// (consumer protocol, Kafka 4.3 and later, KIP-1263): the coordinator
	// computes a new target assignment at most once per interval. 0 makes
	// it compute one at every change, as Kafka before 4.3 does; before 4.3
	// the value is ignored.
	ConsumerAssignmentInterval int64
	// ShareAssignmentInterval is group.share.assignment.interval.ms, the
	// same rule for a share group (KIP-1263, Kafka 4.3 and later, default
	// 1000 ms): 0 computes a target at every change; before 4.3 ignored.
	ShareAssignmentInterval int64

	// StaticRejoinRebalances makes a Stable classic group rebalance when
	// a static member's new process rejoins while the coordinator still
	// knows its group.instance.id, instead of handing back its cached
	// assignment. Kafka's coordinators never do (the default, false; see
	// the package doc's classic protocol). franz-go's kfake does whenever
	// the rejoin's JoinGroup metadata is not byte for byte its previous
	// JoinGroup's (group.replaceStaticMember's sameJoin), which depends on
	// the client: set it to predict such a client on kfake.
	StaticRejoinRebalances bool
}

// DefaultBroker returns Kafka's broker defaults (the assignment interval
// of Kafka 4.3 and later).
func DefaultBroker() Broker {
	return Broker{InitialRebalanceDelay: 3_000, ConsumerSessionTimeout: 45_000, ConsumerHeartbeatInterval: 5_000, ConsumerAssignmentInterval: 1_000, ShareAssignmentInterval: 1_000}
}

// Member is one consumer of the group.
type Member struct {
	ID         string   // the member's name; stands for its member.id
	InstanceID string   // group.instance.id of a static member (KIP-345), "" if dynamic
	Topics     []string // subscription
	TopicRegex string   // a subscription by pattern beside Topics, consumer protocol only (regex.go); "" for none
	Config     *Config  // nil means [DefaultConfig]
}

// EventKind says what happens at an [Event].
type EventKind int8

const (
	// Join starts a new member, which joins the group at once.
	Join EventKind = iota
	// Crash stops a member without a word: no more heartbeats or polls, no
	// LeaveGroup.
	Crash
	// Close shuts a member down gracefully: a dynamic member leaves the
	// group, a static one does not (KIP-345).
	Close
	// Restart closes a member and starts it again For ms later, with the
	// same group.instance.id if it has one.
	Restart
	// Stall makes the batch the member is processing at At take For ms
	// longer (a GC pause of the poll loop, a slow batch). The heartbeat
	// thread keeps running.
	Stall
	// Subscribe changes a member's subscription to Topics, at its next poll.
	Subscribe
	// Grow sets the partition count of Topic to Partitions (a new topic
	// when it does not exist yet).
	Grow
)

var eventNames = [...]string{"join", "crash", "close", "restart", "stall", "subscribe", "grow"}

// String returns the kind's name: "join", "crash", ...
func (k EventKind) String() string {
	if int(k) >= 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return fmt.Sprintf("EventKind(%d)", int8(k))
}

// Event is something that happens to the group at a given time.
type Event struct {
	At     int64 // milliseconds since the start
	Kind   EventKind
	Member string // the member it happens to; all kinds but Grow
	For    int64  // Restart: the downtime; Stall: the extra time of the batch

	Topics     []string // Subscribe: the new subscription; Join: the subscription, nil for every topic
	TopicRegex string   // Subscribe, Join: a subscription by pattern beside Topics (regex.go)
	InstanceID string   // Join: group.instance.id of the new member
	Config     *Config  // Join: the new member's config, nil for DefaultConfig

	Topic      string // Grow: the topic
	Partitions int32  // Grow: its new partition count
	More       int32  // Grow: or, when positive, the partitions it gains
}

// String describes e in a few words, for error messages.
func (e Event) String() string {
	switch e.Kind {
	case Grow:
		if e.More > 0 {
			return fmt.Sprintf("grow %s by %d at %dms", e.Topic, e.More, e.At)
		}
		return fmt.Sprintf("grow %s to %d at %dms", e.Topic, e.Partitions, e.At)
	case Restart, Stall:
		return fmt.Sprintf("%s %s at %dms for %dms", e.Kind, e.Member, e.At, e.For)
	}
	return fmt.Sprintf("%s %s at %dms", e.Kind, e.Member, e.At)
}

// Scenario is the input of [Simulate].
type Scenario struct {
	Members []Member         // in any order; results never depend on it
	Topics  map[string]int32 // partitions per topic

	// Protocol chooses the group protocol.
	Protocol Protocol

	// Strategy assigns the partitions. Under Classic it is the strategy of
	// every member, run by the leader. Under Consumer it is the
	// server-side assignor: nil means [assign.Uniform] (Kafka 4.1's
	// default, group.consumer.assignors' first entry); [assign.ServerRange]
	// is Kafka's other; a classic strategy stands in for one (for a
	// cooperative strategy, its target, which is Sticky's).
	Strategy assign.Strategy

	// TopicIDs gives the topics' Kafka ids, which the server-side
	// assignors' answers depend on. A topic it leaves out gets an id
	// derived from its name ([assign.Group.WithDerivedTopicIDs]), so a
	// timeline with derived ids is exact only for a cluster whose topics
	// have those ids. Only the server-side assignors read it.
	TopicIDs map[string]assign.TopicID

	// Broker is the coordinator's configuration; nil means [DefaultBroker].
	Broker *Broker

	// Kafka is the brokers' release, which decides how the consumer
	// protocol's coordinator reconciles (Consumer only; the zero value is
	// the newest, [assign.Kafka44]): from 4.2 a member's own pending
	// revocations are no longer unreleased partitions (KAFKA-19449,
	// coordinator.NextAssignment); from 4.3 targets are computed at most
	// once per [Broker].ConsumerAssignmentInterval (KIP-1263). 4.3's
	// per-partition assignment epochs (KIP-1251) change which offset
	// commits the coordinator accepts, which the timeline does not model.
	// The server-side assignors take their version from Strategy.
	Kafka assign.KafkaVersion

	// Forming starts from an empty group that every member joins at t = 0.
	// Otherwise the group is Stable at t = 0, in generation 1, with the
	// assignment Initial gives (partitions it leaves out start unowned)
	// or, when Initial is nil, with the one Strategy computes; every
	// member has just received it.
	Forming bool
	Initial assign.Assignment

	// Events happen in the order of At; events at the same time in the
	// order listed.
	Events []Event

	// Until, when positive, ends the timeline at that time. Otherwise it
	// ends once the last event has played out and the group is stable.
	Until int64

	// Seed draws the phase of every member of a stable start that Phases
	// does not give ([DrawPhase]). Each seed is one draw; [Sample] plays
	// many.
	Seed uint64
	// Phases gives members' phases at a stable start, by member ID.
	Phases map[string]Phase

	// RTT is the round trip of one request to the coordinator, in ms:
	// a heartbeat's news arrives RTT after it is sent, and the members
	// receive their assignment 2 × RTT after the last JoinGroup (the
	// JoinGroup response, then the SyncGroup round trip). 0 makes
	// requests instant; the CLI's default is [DefaultRTT]. Classic only:
	// under Consumer requests are instant.
	RTT int64
}

// DefaultRTT is the request round trip the CLI assumes unless told: a
// few milliseconds, as between a client and a broker in one data centre.
const DefaultRTT = 2

// ErrInvalidScenario is wrapped by every error [Simulate] returns for a
// scenario it cannot play.
var ErrInvalidScenario = errors.New("invalid scenario")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("timeline: %w: %s", ErrInvalidScenario, fmt.Sprintf(format, args...))
}

// normalized is a validated scenario with every default filled in and the
// members sorted by ID.
type normalized struct {
	Scenario
	broker  Broker
	members []Member // sorted by ID, Config set
}

// normalize validates sc and fills in the defaults.
func normalize(sc Scenario) (*normalized, error) {
	n := &normalized{Scenario: sc, broker: DefaultBroker()}
	if sc.Broker != nil {
		n.broker = *sc.Broker
	}
	if sc.Protocol != Classic && sc.Protocol != Consumer && sc.Protocol != Share {
		return nil, invalidf("unknown protocol %d", sc.Protocol)
	}
	if sc.Protocol == Share {
		if err := normalizeShare(n); err != nil {
			return nil, err
		}
	}
	if sc.Protocol == Classic && sc.Strategy == nil {
		return nil, invalidf("the classic protocol needs a strategy")
	}
	if sc.Protocol == Consumer {
		switch {
		case sc.Strategy == nil:
			n.Strategy = assign.Uniform{}
		case sc.Strategy.Protocol() == assign.Cooperative:
			n.Strategy = assign.Sticky{}
		}
	}
	b := n.broker
	if b.InitialRebalanceDelay < 0 || b.ConsumerSessionTimeout <= 0 || b.ConsumerHeartbeatInterval <= 0 || b.ConsumerAssignmentInterval < 0 || b.ShareAssignmentInterval < 0 {
		return nil, invalidf("broker: delays must be positive (initial delay and assignment interval may be 0)")
	}
	if _, err := assign.ParseKafkaVersion(sc.Kafka.String()); err != nil {
		return nil, invalidf("%v", err)
	}
	if len(sc.Topics) == 0 {
		return nil, invalidf("no topics")
	}
	for _, t := range slices.Sorted(maps.Keys(sc.Topics)) {
		if t == "" || sc.Topics[t] < 0 {
			return nil, invalidf("topic %q: want a name and a partition count of at least 0", t)
		}
	}
	if err := checkTotal(sc.Topics, "the topics"); err != nil {
		return nil, err
	}
	ids := make(map[string]bool)
	instances := make(map[string]bool)
	add := func(m Member, where string) (Member, error) {
		if m.ID == "" {
			return m, invalidf("%s: empty member ID", where)
		}
		if ids[m.ID] {
			return m, invalidf("%s: member %q given twice", where, m.ID)
		}
		ids[m.ID] = true
		if m.InstanceID != "" {
			if instances[m.InstanceID] {
				return m, invalidf("%s: group.instance.id %q given twice", where, m.InstanceID)
			}
			instances[m.InstanceID] = true
		}
		cfg := DefaultConfig()
		if m.Config != nil {
			cfg = *m.Config
		}
		if err := checkConfig(cfg, n.Protocol); err != nil {
			return m, invalidf("%s: member %q: %v", where, m.ID, err)
		}
		m.Config = &cfg
		if err := checkPattern(n, m.TopicRegex, m.Topics); err != nil {
			return m, invalidf("%s: member %q: %v", where, m.ID, err)
		}
		m.Topics = withPatternEntry(slices.Clone(m.Topics), m.TopicRegex)
		m.TopicRegex = ""
		return m, nil
	}
	for i, m := range sc.Members {
		m, err := add(m, fmt.Sprintf("member #%d", i))
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, m)
	}
	slices.SortFunc(n.members, func(a, b Member) int { return strings.Compare(a.ID, b.ID) })
	if !sc.Forming && len(n.members) == 0 {
		return nil, invalidf("a stable group needs members; set Forming to start from an empty group")
	}
	// Events are checked in the order they happen: a member must have
	// joined before anything happens to it.
	n.Events = slices.Clone(sc.Events)
	order := make([]int, len(n.Events))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(n.Events[a].At, n.Events[b].At) })
	counts := maps.Clone(sc.Topics)
	for _, i := range order {
		e := n.Events[i]
		where := fmt.Sprintf("event #%d (%s)", i, e)
		if e.At < 0 || e.For < 0 {
			return nil, invalidf("%s: negative time", where)
		}
		switch e.Kind {
		case Join:
			m, err := add(Member{ID: e.Member, InstanceID: e.InstanceID, Topics: e.Topics, TopicRegex: e.TopicRegex, Config: e.Config}, where)
			if err != nil {
				return nil, err
			}
			n.Events[i].Config = m.Config
			if e.TopicRegex != "" {
				n.Events[i].Topics, n.Events[i].TopicRegex = m.Topics, ""
			}
		case Crash, Close, Restart, Stall, Subscribe:
			if !ids[e.Member] {
				return nil, invalidf("%s: no member %q", where, e.Member)
			}
			if err := checkPattern(n, e.TopicRegex, e.Topics); err != nil {
				return nil, invalidf("%s: %v", where, err)
			}
			if e.TopicRegex != "" {
				n.Events[i].Topics, n.Events[i].TopicRegex = withPatternEntry(e.Topics, e.TopicRegex), ""
			}
		case Grow:
			if e.More > 0 {
				if int64(counts[e.Topic])+int64(e.More) > assign.MaxPartitions {
					return nil, invalidf("%s: topic %q would hold more than %d partitions", where, e.Topic, assign.MaxPartitions)
				}
				e.Partitions = counts[e.Topic] + e.More
				n.Events[i].Partitions, n.Events[i].More = e.Partitions, 0
			}
			if e.Topic == "" || e.More < 0 || e.Partitions < counts[e.Topic] {
				return nil, invalidf("%s: want a topic and at least its current partition count (%d); Kafka cannot remove partitions", where, counts[e.Topic])
			}
			counts[e.Topic] = e.Partitions
			if err := checkTotal(counts, where); err != nil {
				return nil, err
			}
		default:
			return nil, invalidf("%s: unknown event kind", where)
		}
	}
	if sc.RTT < 0 {
		return nil, invalidf("negative round trip %d ms", sc.RTT)
	}
	for _, id := range slices.Sorted(maps.Keys(sc.Phases)) {
		i := slices.IndexFunc(n.members, func(m Member) bool { return m.ID == id })
		if i < 0 || sc.Forming {
			return nil, invalidf("phase of %q: only members of a stable start have phases", id)
		}
		cfg, ph := n.members[i].Config, sc.Phases[id]
		interval := cfg.HeartbeatInterval
		if sc.Protocol == Consumer || sc.Protocol == Share {
			interval = n.broker.ConsumerHeartbeatInterval
		}
		if ph.Heartbeat < 1 || ph.Heartbeat > interval || ph.Poll < 0 || ph.Poll > cfg.BatchMs() {
			return nil, invalidf("phase of %q: want a first heartbeat in [1, %d] ms and a first poll in [0, %d] ms", id, interval, cfg.BatchMs())
		}
	}
	if sc.Initial != nil && sc.Forming {
		return nil, invalidf("an initial assignment needs a stable start")
	}
	if err := checkInitial(sc.Initial, sc.Topics, n.members, n.Protocol == Share); err != nil {
		return nil, err
	}
	return n, nil
}

// checkTotal refuses topics holding more than assign.MaxPartitions
// partitions in all: the simulation tracks every partition of the cluster,
// so a count the input merely claims must not make it allocate.
func checkTotal(topics map[string]int32, where string) error {
	var total int64
	for _, n := range topics {
		total += int64(n)
	}
	if total > assign.MaxPartitions {
		return invalidf("%s: more than %d partitions in all", where, assign.MaxPartitions)
	}
	return nil
}

// checkConfig refuses the configurations the simulation cannot play.
func checkConfig(c Config, p Protocol) error {
	switch {
	case p == Classic && (c.SessionTimeout <= 0 || c.HeartbeatInterval <= 0):
		return errors.New("session.timeout.ms and heartbeat.interval.ms must be positive")
	case p == Classic && c.HeartbeatInterval >= c.SessionTimeout:
		return errors.New("heartbeat.interval.ms must be lower than session.timeout.ms")
	case c.CooperativeCheck < 0:
		return errors.New("the cooperative check must be at least 0")
	case c.RejoinBackoff < 0:
		return errors.New("the rejoin backoff must be at least 0")
	case c.MaxPollInterval <= 0 || c.MaxPollRecords <= 0 || c.RecordMicros < 0 || c.MetadataMaxAge <= 0:
		return errors.New("max.poll.interval.ms, max.poll.records and metadata.max.age.ms must be positive, the processing time at least 0")
	case c.BatchMs() > c.MaxPollInterval:
		// Every poll would exceed max.poll.interval.ms and the member
		// would leave the group at each one: refused rather than played.
		return fmt.Errorf("a batch takes %d ms, more than max.poll.interval.ms (%d): the member would leave the group at every poll", c.BatchMs(), c.MaxPollInterval)
	}
	return nil
}

// checkInitial refuses an initial assignment that gives a partition twice
// (in a share group, twice to one member: several members may share it),
// names a member the group does not have, or a partition that does not
// exist. It may leave partitions out: they start unowned.
func checkInitial(a assign.Assignment, topics map[string]int32, members []Member, shared bool) error {
	seen := make(map[assign.TopicPartition]string)
	for _, id := range slices.Sorted(maps.Keys(a)) {
		if !slices.ContainsFunc(members, func(m Member) bool { return m.ID == id }) {
			return invalidf("initial assignment: no member %q", id)
		}
		for _, tp := range a[id] {
			if tp.Partition < 0 || tp.Partition >= topics[tp.Topic] {
				return invalidf("initial assignment: member %q: no partition %s", id, tp)
			}
			switch other, dup := seen[tp]; {
			case dup && other == id:
				return invalidf("initial assignment: %s given to %q twice", tp, id)
			case dup && !shared:
				return invalidf("initial assignment: %s given to %q and %q", tp, other, id)
			}
			seen[tp] = id
		}
	}
	return nil
}
