package assign

import (
	"errors"
	"fmt"
	"strings"
)

// Strategy is a partition assignment strategy, Kafka's
// ConsumerPartitionAssignor.
type Strategy interface {
	// Name is the strategy's name in Kafka's protocol and in the consumer
	// config partition.assignment.strategy: "range", "roundrobin",
	// "sticky" or "cooperative-sticky".
	Name() string

	// Protocol is the rebalance protocol the strategy supports at best.
	Protocol() RebalanceProtocol

	// Traits is what the strategy promises of its answers, which
	// checkers ([Check]) and models read instead of asking which
	// strategy they hold.
	Traits() Traits

	// Assign computes the assignment of g, or returns an [*InputError]
	// when g is invalid (see [Group.Validate]). Its lists may be g's own
	// Owned lists ([Uniform.Assign] hands back those it keeps whole):
	// treat them as read-only.
	//
	// An eager strategy answers with where the group ends up, and so
	// does a server-assigned one (its target). A cooperative strategy
	// ([CooperativeSticky]) answers with this round, as Kafka's leader
	// does: the target without the partitions that other members must
	// first revoke, so that members who will get them appear idle. Use
	// [Target] to compare strategies by where they lead the group.
	Assign(g Group) (Assignment, error)
}

// Traits are what a [Strategy] promises beyond its [RebalanceProtocol].
// The zero Traits promise nothing but validity.
type Traits struct {
	// Balanced: every answer passes [VerifyBalanced] (no member could
	// take a partition from one holding two more).
	Balanced bool

	// Sticky: a partition whose owner stays and still subscribes to its
	// topic moves only to even the members' counts. A strategy that is
	// not sticky follows a layout that may move any partition.
	Sticky bool

	// JavaClass is the simple name of the Kafka client's Java class
	// for the strategy ("RangeAssignor"), "" when it has none.
	JavaClass string
}

// KafkaVersioned is a strategy that reproduces the code of one Kafka
// version: the group coordinator's assignors, [Uniform] and
// [ServerRange].
type KafkaVersioned interface {
	Strategy

	// KafkaVersion is the version whose answers the strategy gives.
	KafkaVersion() KafkaVersion

	// WithKafkaVersion returns the same strategy for version v.
	WithKafkaVersion(v KafkaVersion) KafkaVersioned
}

// Target returns where s leads g: the target of a cooperative strategy
// that shows its plan ([Planner]), and what [Strategy.Assign] returns for
// any other. It is what tools comparing strategies want; a group leader
// hands out Assign's answer.
func Target(s Strategy, g Group) (Assignment, error) {
	if p, ok := s.(Planner); ok {
		plan, err := p.Plan(g)
		if err != nil {
			return nil, err
		}
		return plan.Target, nil
	}
	return s.Assign(g)
}

// RebalanceProtocol is how members give up partitions during a rebalance
// (KIP-429).
type RebalanceProtocol int8

const (
	// Eager members revoke every partition before they rejoin.
	Eager RebalanceProtocol = iota
	// Cooperative members keep their partitions across the rebalance and
	// revoke only those the new assignment takes away, in a second round.
	Cooperative
	// ServerAssigned is the KIP-848 consumer group protocol: the group
	// coordinator computes each member's target ([Uniform],
	// [ServerRange]) and reconciles members towards it, a member revoking
	// only what moves and receiving a partition once its previous owner
	// has released it. Assign returns the whole target.
	ServerAssigned
	// Share is KIP-932's share group: the group coordinator computes each
	// member's target ([Simple]) and one partition may go to several
	// members at once, which share its records. Assign returns the whole
	// target; [VerifyShare], not [Verify], judges it.
	Share
)

func (p RebalanceProtocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Cooperative:
		return "cooperative"
	case ServerAssigned:
		return "server-assigned"
	case Share:
		return "share"
	}
	return fmt.Sprintf("RebalanceProtocol(%d)", int8(p))
}

// ErrUnknownStrategy is returned by [Lookup] for a name it does not know.
var ErrUnknownStrategy = errors.New("unknown strategy")

// javaClassPrefix is the package of Kafka's built-in assignors, as users
// paste them from a consumer config.
const javaClassPrefix = "org.apache.kafka.clients.consumer."

// Lookup returns the strategy named by Kafka's protocol name ("range",
// "roundrobin", "sticky", "cooperative-sticky") or by the Java class name of
// the assignor ("org.apache.kafka.clients.consumer.RangeAssignor", ...),
// or one of the KIP-848 server-side assignors [ServerStrategies] by its
// name here, "uniform" or "server-range", for the default Kafka version,
// or the share groups' assignor [ShareStrategies], "simple".
// Surrounding spaces are ignored, as Kafka's config parser ignores them.
func Lookup(name string) (Strategy, error) {
	name = strings.TrimSpace(name)
	for _, s := range Strategies() {
		if name == s.Name() || name == javaClassPrefix+s.Traits().JavaClass {
			return s, nil
		}
	}
	others := append(ServerStrategies(), ShareStrategies()...)
	for _, s := range others {
		if name == s.Name() {
			return s, nil
		}
	}
	names := StrategyNames()
	for _, s := range others {
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("assign: %w %q: want one of %s, or a Java class name such as %sRangeAssignor",
		ErrUnknownStrategy, name, strings.Join(names, ", "), javaClassPrefix)
}

// ServerStrategies returns the KIP-848 server-side assignors, for the
// default Kafka version ([Kafka44]). They are not in [Strategies], which
// lists the client-side assignors a classic group's leader runs.
func ServerStrategies() []Strategy {
	return []Strategy{Uniform{}, ServerRange{}}
}

// ShareStrategies returns the assignors of KIP-932's share groups: the
// group coordinator's only one, [Simple]. Their answers may give one
// partition to several members ([Share]).
func ShareStrategies() []Strategy {
	return []Strategy{Simple{}}
}

// Strategies returns every strategy this package implements, in Kafka's
// order of introduction.
func Strategies() []Strategy {
	return []Strategy{Range{}, RoundRobin{}, Sticky{}, CooperativeSticky{}}
}

// StrategyNames returns the Kafka names of [Strategies].
func StrategyNames() []string {
	var names []string
	for _, s := range Strategies() {
		names = append(names, s.Name())
	}
	return names
}
