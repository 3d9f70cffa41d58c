package client

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/javasticky"
)

// Profile is what one client library allows a member of a classic
// consumer group, as of Release.
type Profile struct {
	// Name is the name --client takes: "java", "librdkafka", "franz-go",
	// "sarama", "kafka-go" or "assigncalc".
	Name string

	// Release is the release of the library the facts were read from.
	Release string

	// Strategies are the classic strategies the library offers, by
	// Kafka's protocol names.
	Strategies []string

	// Defaults is the library's default strategy list, most preferred
	// first.
	Defaults []string

	// Cooperative: the library rebalances cooperatively (KIP-429) with a
	// cooperative strategy.
	Cooperative bool

	// Mixed: a member may list eager and cooperative strategies together
	// (the first step of Kafka's two-step upgrade); when false such a
	// list is refused when the consumer starts.
	Mixed bool

	// Static: the library lets a member set group.instance.id (KIP-345).
	Static bool

	// RackAware lists the classic strategies that read client.rack and
	// the partitions' replica racks (KIP-881); empty when none do.
	RackAware []string

	// ConsumerProtocol says how the library supports the consumer group
	// protocol of KIP-848, "" when it does not.
	ConsumerProtocol string

	// Kafka is, for the profile "java@RELEASE" [Lookup] returns, the
	// Kafka release whose Java sticky assignors it reproduces; "" for
	// every other profile ([Java] is the newest release).
	Kafka string

	// CooperativeCheck is, in milliseconds, when a member of a
	// cooperative classic group heartbeats after each assignment besides
	// its heartbeat.interval.ms timer, to hear of a follow-up rebalance
	// sooner; 0 when it does not (package timeline's
	// Config.CooperativeCheck).
	CooperativeCheck int64

	// RejoinBackoff is, in milliseconds, how long a member of a classic
	// group waits before it sends JoinGroup again when its SyncGroup is
	// answered REBALANCE_IN_PROGRESS (another join phase began while it
	// waited for its assignment); 0 when it rejoins at once (package
	// timeline's Config.RejoinBackoff). It is the library's default; the
	// setting that changes it is named in the profile's doc comment.
	RejoinBackoff int64
}

// Java is Apache Kafka's Java client.
//
//   - Strategies and defaults: ConsumerConfig's partition.assignment.strategy
//     defaults to [RangeAssignor, CooperativeStickyAssignor] since Kafka 3.0
//     (KIP-726); StickyAssignor and RoundRobinAssignor ship beside them.
//   - Cooperative and mixed lists: KIP-429 (2.4); ConsumerCoordinator takes
//     the highest protocol every configured assignor supports, so
//     [cooperative-sticky, range] runs eagerly: Kafka's documented
//     two-step upgrade.
//   - Static membership: KIP-345 (2.3), group.instance.id.
//   - Racks: KIP-881 (3.5) for RangeAssignor and the sticky assignors.
//   - KIP-848: group.protocol=consumer, generally available in 4.0 and
//     opt-in (the default stays classic).
//   - Rejoin backoff: none. AbstractCoordinator.joinGroupIfNeeded
//     (clients/src/main/java/org/apache/kafka/clients/consumer/internals/
//     AbstractCoordinator.java:536-540, apache/kafka 1eb7644349) loops
//     straight back to JoinGroup after an UnknownMemberId,
//     IllegalGeneration, RebalanceInProgress or MemberIdRequired failure
//     of JoinGroup or SyncGroup (SyncGroupResponseHandler raises
//     REBALANCE_IN_PROGRESS, :866-869); only other retriable errors sleep
//     retry.backoff.ms (:550), and the coordinator answers JoinGroup with
//     REBALANCE_IN_PROGRESS only on a replication timeout (the log line at
//     :736-737).
var Java = &Profile{
	Name: "java", Release: "Apache Kafka 4.0",
	Strategies:       []string{"range", "roundrobin", "sticky", "cooperative-sticky"},
	Defaults:         []string{"range", "cooperative-sticky"},
	Cooperative:      true,
	Mixed:            true,
	Static:           true,
	RackAware:        []string{"range", "sticky", "cooperative-sticky"},
	ConsumerProtocol: "generally available in 4.0, opt-in (group.protocol=consumer)",
}

// Librdkafka is librdkafka, the C client under confluent-kafka-go,
// confluent-kafka-python, confluent-kafka-dotnet and karafka. Read from
// librdkafka v2.15.0 (commit 4c3b017c3de8):
//
//   - Strategies and defaults: CONFIGURATION.md's partition.assignment.strategy,
//     "Available strategies: range, roundrobin, cooperative-sticky",
//     default "range,roundrobin" (src/rdkafka_conf.c). There is no eager
//     sticky.
//   - Cooperative: KIP-429 incremental rebalancing with cooperative-sticky
//     since v1.6.0 (CHANGELOG.md).
//   - Mixed lists: refused at startup, "All partition.assignment.strategy
//     (%s) assignors must have the same protocol type, online migration
//     between assignors with different protocol types is not supported"
//     (rd_kafka_assignors_init, src/rdkafka_assignor.c).
//   - Static membership: group.instance.id (src/rdkafka_conf.c).
//   - Racks: KIP-881 rack-aware assignment since v2.2.0 (CHANGELOG.md, #4184,
//     #4291, #4252), in the range and sticky assignors
//     (src/rdkafka_range_assignor.c, src/rdkafka_sticky_assignor.c); not in
//     roundrobin.
//   - KIP-848: "General Availability" in v2.12.0, not enabled by default:
//     group.protocol defaults to classic (CHANGELOG.md).
//   - Rejoin backoff: no wait of its own, but no JoinGroup within a second
//     of its previous one, which the model does not play (0 here). A
//     SyncGroup answered REBALANCE_IN_PROGRESS is no retriable error
//     (rd_kafka_err_action, src/rdkafka_request.c), so
//     rd_kafka_cgrp_handle_SyncGroup_memberstate rejoins
//     (src/rdkafka_cgrp.c:1992), which only sets the join state to INIT
//     (rd_kafka_cgrp_rejoin, :1585-1627); rd_kafka_cgrp_serve sends
//     JoinGroup from INIT once a second has passed since the last one
//     (rd_interval_immediate on rkcg_join_intvl, 1000 * 1000 µs, :6743; not
//     a setting). So the member waits what is left of the second after its
//     previous JoinGroup: nothing when that join phase lasted a second or
//     more. A JoinGroup answered with an error backs off a second more
//     (:2364).
var Librdkafka = &Profile{
	Name: "librdkafka", Release: "librdkafka 2.15.0",
	Strategies:       []string{"range", "roundrobin", "cooperative-sticky"},
	Defaults:         []string{"range", "roundrobin"},
	Cooperative:      true,
	Mixed:            false,
	Static:           true,
	RackAware:        []string{"range", "cooperative-sticky"},
	ConsumerProtocol: "generally available in 2.12.0, opt-in (group.protocol=consumer)",
}

// FranzGo is twmb/franz-go's kgo. Read from v1.22.3 (the module
// github.com/twmb/franz-go@v1.22.3; paths below are in it):
//
//   - Strategies and defaults: RangeBalancer, RoundRobinBalancer,
//     StickyBalancer, CooperativeStickyBalancer; the default balancers are
//     [CooperativeStickyBalancer()] (pkg/kgo/config.go:715-716).
//   - Mixed lists: accepted; "If you use both cooperative and eager
//     balancers, the group runs cooperatively only if all members support
//     cooperative balancing" (kgo.Balancers' doc, pkg/kgo/config.go:2079-2089).
//   - Static membership: kgo.InstanceID (pkg/kgo/config.go:2422).
//   - Racks: only with BalanceRacks, "Rack aware group partition assignment
//     (KIP-881) now requires BalanceRacks" (CHANGELOG.md, v1.22.0, line
//     193): BalanceRacks "makes the range and sticky balancers prefer giving
//     a member partitions whose leader is in the member's rack", Rack set
//     too (pkg/kgo/config.go:1776-1790). franz-go reads each partition's
//     leader's rack, not every replica's as KIP-881's Java code does.
//   - KIP-848: the ServerSideBalancer option (pkg/kgo/config.go:2094-2101,
//     CHANGELOG.md v1.22.0 "### ServerSideBalancer (KIP-848)", line 304):
//     opt-in, Kafka 4.0+, with a range or sticky balancer; the classic
//     protocol stays the default (pkg/kgo/consumer_group_848.go:36 runs
//     the KIP-848 group only when it is set, or the old context key).
//   - Cooperative check: groupConsumer.heartbeat beats 500 ms after each
//     assignment of a cooperative group (cooperativeFastCheck,
//     pkg/kgo/consumer_group.go; read from v1.22.3).
//   - Rejoin backoff: none on the paths a timeline reaches.
//     groupConsumer.joinAndSync goes straight back to JoinGroup ("goto
//     start") when SyncGroup fails with REBALANCE_IN_PROGRESS
//     (pkg/kgo/consumer_group.go:1555-1558) and when JoinGroup answers
//     MEMBER_ID_REQUIRED or UNKNOWN_MEMBER_ID (handleJoinResp, :1590-1597);
//     other errors go back to manage, which waits RetryBackoff (:586-588,
//     manageFailWait :503).
var FranzGo = &Profile{
	Name: "franz-go", Release: "franz-go 1.22.3",
	Strategies:       []string{"range", "roundrobin", "sticky", "cooperative-sticky"},
	Defaults:         []string{"cooperative-sticky"},
	Cooperative:      true,
	Mixed:            true,
	Static:           true,
	RackAware:        []string{"range", "sticky", "cooperative-sticky"},
	ConsumerProtocol: "ServerSideBalancer since 1.22.0, opt-in (range or sticky balancers, Kafka 4.0+)",
	CooperativeCheck: 500,
}

// Sarama is IBM/sarama. Read from v1.61.1 (the module
// github.com/IBM/sarama@v1.61.1, go mod download; paths below are in it):
//
//   - Strategies and defaults: NewBalanceStrategyRange, ...RoundRobin,
//     ...Sticky, and NewBalanceStrategyCooperativeSticky
//     (balance_strategy_cooperative_sticky.go:18; added by commit 44147ce7,
//     #3671, first tagged v1.60.1); the default GroupStrategies are
//     [NewBalanceStrategyRange()] (config.go:608).
//   - Mixed lists: accepted; selectRebalanceProtocol
//     (rebalance_protocol.go:50-84) runs cooperatively when every strategy
//     supports cooperative, eagerly when every one supports eager (the
//     cooperative strategy supports both), and refuses only a list with no
//     protocol in common: [CooperativeSticky, Range] runs eagerly, the
//     first step of the two-step upgrade.
//   - Static membership: Consumer.Group.InstanceId (config.go:376, checked
//     at config.go:918), KIP-345 in v1.34.0 (CHANGELOG.md, #2230).
//   - Racks: none in the balance strategies (no balance_strategy*.go reads
//     a rack; Config.RackID, config.go:532, serves fetching from the
//     nearest replica).
//   - KIP-848: none (ConsumerGroupHeartbeat, API key 68, is only named in
//     a comment, request.go:242; the consumer group never sends it).
//   - Rejoin backoff: Consumer.Group.Rebalance.Retry.Backoff, 2 s by
//     default (config.go:611). consumerGroup.joinSync answers a SyncGroup
//     failed with REBALANCE_IN_PROGRESS (or NOT_COORDINATOR,
//     COORDINATOR_NOT_AVAILABLE, OFFSETS_LOAD_IN_PROGRESS) with
//     retryJoinSync (consumer_group.go:481-493), which waits the backoff
//     before the next JoinGroup (:308-327); JoinGroup failed with those
//     errors alike (:404-409). UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION
//     rejoin at once with no member.id (:397-403, :473-480), and a
//     heartbeat answered REBALANCE_IN_PROGRESS ends the session without a
//     wait (consumer_group_session.go:444-445). The retries are bounded
//     by Consumer.Group.Rebalance.Retry.Max (4, config.go:610): the fifth
//     such error in a row returns from Consume instead.
var Sarama = &Profile{
	Name: "sarama", Release: "sarama 1.61.1",
	Strategies:    []string{"range", "roundrobin", "sticky", "cooperative-sticky"},
	Defaults:      []string{"range"},
	Cooperative:   true,
	Mixed:         true,
	Static:        true,
	RejoinBackoff: 2_000,
}

// KafkaGo is segmentio/kafka-go. Read from v0.4.51 (the module
// github.com/segmentio/kafka-go@v0.4.51; paths below are in it):
//
//   - Strategies and defaults: RangeGroupBalancer ("range",
//     groupbalancer.go:55), RoundRobinGroupBalancer ("roundrobin",
//     groupbalancer.go:106) and RackAffinityGroupBalancer; the default
//     GroupBalancers are [Range, RoundRobin] (consumergroup.go:188-191).
//     No sticky, no cooperative rebalancing.
//   - Static membership: none; ConsumerGroupConfig (consumergroup.go:68)
//     has no instance id.
//   - Racks: only RackAffinityGroupBalancer, which is not a Kafka strategy
//     (its protocol name is "rack-affinity", groupbalancer.go:161) and is
//     not modelled here.
//   - KIP-848: none (no ConsumerGroupHeartbeat anywhere in the package).
//   - Rejoin backoff: none after REBALANCE_IN_PROGRESS. ConsumerGroup.run
//     (consumergroup.go:714-774) keeps its member.id and joins again at
//     once when JoinGroup or SyncGroup fails with it (:740-745); every
//     other failure sends LeaveGroup, forgets the member.id and waits
//     JoinGroupBackoff (5 s by default, :51, :747-756), the path of a
//     member the coordinator removed while it ran (its JoinGroup, naming
//     the old member.id, is answered UNKNOWN_MEMBER_ID). Package timeline
//     does not model that path for kafka-go: a live member is removed
//     there only by rules of the poll loop (a stall, max.poll.interval.ms)
//     that kafka-go, which rejoins from its own goroutine and has no poll
//     timeout, does not have.
var KafkaGo = &Profile{
	Name: "kafka-go", Release: "kafka-go 0.4.51",
	Strategies: []string{"range", "roundrobin"},
	Defaults:   []string{"range", "roundrobin"},
}

// Assigncalc is this module's own strategies: package assign's, used in
// any client through the adapters.
var Assigncalc = &Profile{
	Name: "assigncalc", Release: "this module",
	Strategies:  []string{"range", "roundrobin", "sticky", "cooperative-sticky"},
	Defaults:    []string{"range"},
	Cooperative: true,
	Mixed:       true,
	Static:      true,
	RackAware:   []string{"range", "sticky", "cooperative-sticky"},
}

// Profiles returns every profile, in the order of [Names].
func Profiles() []*Profile {
	return []*Profile{Java, Librdkafka, FranzGo, Sarama, KafkaGo, Assigncalc}
}

// Names returns the names [Lookup] knows.
func Names() []string {
	var out []string
	for _, p := range Profiles() {
		out = append(out, p.Name)
	}
	return out
}

// ErrUnknownClient is wrapped by Lookup's error for a name it does not know.
var ErrUnknownClient = errors.New("client: unknown client")

// Lookup returns the profile named name (see [Profile.Name]), or for
// "java@RELEASE" (e.g. "java@3.6.1", or "java@3.6" for 3.6.0) the Java
// client of that Kafka release, 3.5.0 or later: [Java] with its sticky
// assignors as that release computes them (see [JavaSticky]), and for a
// release before 4.0 without the consumer protocol, which 3.7 had only
// as early access.
func Lookup(name string) (*Profile, error) {
	if base, release, ok := strings.Cut(name, "@"); ok {
		if base != Java.Name {
			return nil, fmt.Errorf("%w %q: only java takes a release (java@3.6.1)", ErrUnknownClient, name)
		}
		if _, err := javasticky.ForRelease(release); err != nil {
			return nil, fmt.Errorf("%w %q: %s", ErrUnknownClient, name, strings.TrimPrefix(err.Error(), "javasticky: "))
		}
		p := *Java
		p.Name, p.Release, p.Kafka = name, "Apache Kafka "+release, release
		if strings.HasPrefix(release, "3.") {
			p.ConsumerProtocol = ""
		}
		return &p, nil
	}
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w %q: want one of %s", ErrUnknownClient, name, strings.Join(Names(), ", "))
}

// Fidelity says how closely a strategy reproduces a client's leader.
type Fidelity int8

const (
	// Exact: the same answer as the client's leader on every group.
	Exact Fidelity = iota
	// Approximate: package assign's own strategy of the same name, which
	// no test here compares with the client's code.
	Approximate
)

func (f Fidelity) String() string {
	if f == Exact {
		return "exact"
	}
	return "approximate"
}

// UnsupportedError reports something a client does not have or refuses:
// a strategy it does not offer, static membership, or a strategy list it
// refuses at startup.
type UnsupportedError struct {
	Client string // the profile's Name
	What   string // e.g. `strategy "cooperative-sticky"`
	Reason string // why, from the client's own source or docs
	Err    error  // ErrNotOffered, ErrMixedProtocols or ErrNotStatic
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("client: %s does not support %s: %s", e.Client, e.What, e.Reason)
}

// Unwrap returns e.Err, for errors.Is.
func (e *UnsupportedError) Unwrap() error { return e.Err }

// What an [*UnsupportedError] refuses.
var (
	// ErrNotOffered: a strategy the client does not have.
	ErrNotOffered = errors.New("strategy not offered")
	// ErrMixedProtocols: eager and cooperative strategies in one list, on
	// a client that refuses it when the consumer starts.
	ErrMixedProtocols = errors.New("eager and cooperative strategies mixed")
	// ErrNotStatic: group.instance.id on a client without it.
	ErrNotStatic = errors.New("no static membership")
)

// Strategy returns strategy name (a Kafka protocol name) as the client's
// leader computes it, and how faithful it is (see the package doc). A
// strategy the client does not offer yields an [*UnsupportedError]; a name
// [assign.Lookup] does not know, its error.
func (p *Profile) Strategy(name string) (assign.Strategy, Fidelity, error) {
	s, err := assign.Lookup(name)
	if err != nil {
		return nil, Approximate, err
	}
	if s.Protocol() == assign.ServerAssigned || s.Protocol() == assign.Share {
		// The broker computes these; the client has no say.
		return s, Exact, nil
	}
	if !slices.Contains(p.Strategies, s.Name()) {
		return nil, Approximate, &UnsupportedError{Client: p.Name, What: fmt.Sprintf("strategy %q", s.Name()),
			Reason: "it offers " + strings.Join(p.Strategies, ", "), Err: ErrNotOffered}
	}
	switch {
	case p == Assigncalc:
		return s, Exact, nil
	case p == Java || p.Kafka != "":
		switch s.Name() {
		case "sticky":
			return JavaSticky{Kafka: p.Kafka}, Exact, nil
		case "cooperative-sticky":
			return JavaSticky{Cooperative: true, Kafka: p.Kafka}, Exact, nil
		}
		return s, Exact, nil // Range and RoundRobin reproduce Java's
	}
	return s, Approximate, nil
}

// CheckStrategies returns an [*UnsupportedError] when the client refuses
// a consumer configured with names (its partition.assignment.strategy,
// most preferred first): a strategy it does not offer, or, for a client
// that does not allow it ([Profile.Mixed]), eager and cooperative
// strategies in one list. Names this package does not know are custom
// assignors and are not judged.
func (p *Profile) CheckStrategies(names []string) error {
	var eager, coop string
	for _, n := range names {
		s, err := assign.Lookup(n)
		if err != nil {
			continue
		}
		if !slices.Contains(p.Strategies, s.Name()) {
			return &UnsupportedError{Client: p.Name, What: fmt.Sprintf("strategy %q", s.Name()),
				Reason: "it offers " + strings.Join(p.Strategies, ", "), Err: ErrNotOffered}
		}
		switch s.Protocol() {
		case assign.Cooperative:
			if coop == "" {
				coop = s.Name()
			}
		case assign.Eager:
			if eager == "" {
				eager = s.Name()
			}
		}
	}
	if !p.Mixed && eager != "" && coop != "" {
		return &UnsupportedError{Client: p.Name, What: fmt.Sprintf("the strategy list %s", strings.Join(names, ",")),
			Reason: fmt.Sprintf("it mixes eager %s and cooperative %s, which the consumer refuses at startup", eager, coop), Err: ErrMixedProtocols}
	}
	return nil
}

// CheckMember returns an [*UnsupportedError] when m needs what the client
// lacks: static membership (an InstanceID) on a client without it.
func (p *Profile) CheckMember(m assign.Member) error {
	if m.InstanceID != "" && !p.Static {
		return &UnsupportedError{Client: p.Name, What: fmt.Sprintf("static membership (member %q, instance %q)", m.ID, m.InstanceID),
			Reason: "it has no group.instance.id", Err: ErrNotStatic}
	}
	return nil
}
