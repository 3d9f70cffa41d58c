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

	// Assign computes the assignment of g, or returns an [*InputError]
	// when g is invalid (see [Group.Validate]). Its lists may be g's own
	// Owned lists ([Uniform.Assign] hands back those it keeps whole):
	// treat them as read-only.
	Assign(g Group) (Assignment, error)
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
)

func (p RebalanceProtocol) String() string {
	switch p {
	case Eager:
		return "eager"
	case Cooperative:
		return "cooperative"
	case ServerAssigned:
		return "server-assigned"
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
// name here, "uniform" or "server-range", for the default Kafka version.
// Surrounding spaces are ignored, as Kafka's config parser ignores them.
func Lookup(name string) (Strategy, error) {
	name = strings.TrimSpace(name)
	for _, s := range Strategies() {
		if name == s.Name() || name == javaClassPrefix+javaClassName(s) {
			return s, nil
		}
	}
	for _, s := range ServerStrategies() {
		if name == s.Name() {
			return s, nil
		}
	}
	names := StrategyNames()
	for _, s := range ServerStrategies() {
		names = append(names, s.Name())
	}
	return nil, fmt.Errorf("assign: %w %q: want one of %s, or a Java class name such as %sRangeAssignor",
		ErrUnknownStrategy, name, strings.Join(names, ", "), javaClassPrefix)
}

// ServerStrategies returns the KIP-848 server-side assignors, for the
// default Kafka version ([Kafka41]). They are not in [Strategies], which
// lists the client-side assignors a classic group's leader runs.
func ServerStrategies() []Strategy {
	return []Strategy{Uniform{}, ServerRange{}}
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

func javaClassName(s Strategy) string {
	switch s.(type) {
	case Range:
		return "RangeAssignor"
	case RoundRobin:
		return "RoundRobinAssignor"
	case Sticky:
		return "StickyAssignor"
	case CooperativeSticky:
		return "CooperativeStickyAssignor"
	}
	return ""
}
