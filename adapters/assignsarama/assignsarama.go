// Package assignsarama plugs the strategies of package assign into IBM/sarama's
// consumer group (github.com/IBM/sarama):
//
//	cfg := sarama.NewConfig()
//	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{
//		assignsarama.MustStrategy(assign.CooperativeSticky{}),
//	}
//	group, err := sarama.NewConsumerGroup(brokers, "checkout", cfg)
//
// sarama's default protocol version suffices. [MustStrategy] panics when it
// is handed no strategy or a server-side one; [Strategy] returns the error
// instead.
//
// The leader's Plan reads each member's subscription with package
// [github.com/assigncalc/assigncalc/assign/wire], so ownership comes from
// where Kafka's assignor of the same name keeps it, and members write the
// user data Kafka's Java assignors write: a group may mix these members with
// Java consumers, with sarama's own strategies of the same name, and with any
// client that speaks the "consumer" protocol.
//
// # What sarama does not pass
//
// sarama hands Plan the members' metadata by member ID and drops their
// group.instance.id, so static members (KIP-345) are ordered by member ID
// like dynamic ones; Range and RoundRobin then differ from Kafka's order
// for groups with static members. Nor does it pass the replicas' racks, so
// rack-aware assignment (KIP-881) is off.
//
// # State kept by a strategy
//
// For "sticky" and "cooperative-sticky" the strategy remembers the last
// assignment it received and its generation (OnAssignment), and writes them
// in the member's next subscription (SubscriptionUserData), as Java's
// assignor instance does. Give each consumer group its own strategy: call
// Strategy once per sarama.NewConsumerGroup. A "sticky" strategy shared by
// several consumer groups sends the same history for all of them; a leader
// using this package sees it and reports [ErrShared] through [OnError].
//
// # When the leader cannot assign
//
// A strategy that fails, or a subscription or partition list that cannot be
// read, never fails the rebalance and never panics: the leader assigns every
// member nothing, reports why through [OnError], and the group tries again
// at its next rebalance.
package assignsarama

import (
	"errors"
	"fmt"
	"log"
	"maps"
	"slices"
	"sync"

	"github.com/IBM/sarama"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// Errors of [Strategy], and those the leader reports through [OnError].
var (
	// ErrNilStrategy: Strategy was given no strategy.
	ErrNilStrategy = wire.ErrNilStrategy
	// ErrServerAssigned: the strategy is one of the group coordinator's
	// (KIP-848), which a client's leader cannot run: it needs the topics'
	// ids and the members' current targets, which the classic protocol
	// does not carry.
	ErrServerAssigned = wire.ErrServerAssigned
	// ErrShared: two members sent the same sticky history from the same
	// generation, which happens when one strategy serves several consumer
	// groups (the history of whichever synced last). Each member then
	// claims the others' partitions and stickiness is lost.
	ErrShared = fmt.Errorf("%w: is one strategy shared by several consumer groups? Call Strategy once per sarama.NewConsumerGroup", wire.ErrSharedHistory)
)

// An Option configures a strategy built by [Strategy].
type Option func(*strategy)

// OnError sets the function the group leader calls when its strategy
// cannot assign the group, or when it finds the group misusing the
// strategy ([ErrShared]). Without it, the leader writes the error with the
// standard library's log package.
//
// When the strategy fails (or a member's subscription or the topics'
// partitions cannot be read), Plan does not return the error, which fails
// the session and has the application's Consume loop rejoin, but assigns
// every member nothing, reports the error once for that rebalance, and
// lets the group consume nothing until its next rebalance (a member
// joining or leaving, a subscription or partition change), when it tries
// again. f must not block for long: the rebalance waits for it.
func OnError(f func(error)) Option {
	return func(b *strategy) { b.onError = f }
}

// Strategy returns a sarama.BalanceStrategy that assigns partitions with s
// under s's Kafka name (s.Name()). Its Plan decodes the members'
// subscriptions with [wire.GroupFromJoin] and runs s through
// [assign.AssignPacked] (s.Assign's answer, without its map; the plan's
// partition lists are slices of one array); every member appears in the
// plan, with nothing when it gets nothing.
//
// The result also implements:
//
//   - sarama.RebalanceProtocolBalanceStrategy: a cooperative s supports
//     both protocols, as Kafka's CooperativeStickyAssignor does, so that a
//     group can move to it in two rolling restarts; an eager s supports
//     eager only;
//   - for "sticky" and "cooperative-sticky", sarama.OnAssignmentBalanceStrategy
//     and sarama.SubscriptionUserDataBalanceStrategy: the member's user data
//     is the one Kafka's assignor writes (see [wire.NextSubscription]).
//
// AssignmentData writes, for "sticky" only, the StickyAssignor user data of
// the member's new assignment, as sarama's own sticky strategy does: sarama's
// own sticky members echo it in their next subscription and keep their
// partitions under our leader. Java members ignore it.
//
// Strategy refuses a nil s ([ErrNilStrategy]) and a server-side one
// ([ErrServerAssigned]), here rather than at the first rebalance. When s
// fails at run time, see [OnError].
func Strategy(s assign.Strategy, opts ...Option) (sarama.BalanceStrategy, error) {
	if err := wire.CheckLeader(s); err != nil {
		return nil, fmt.Errorf("assignsarama: %w", err)
	}
	base := &strategy{s: s}
	for _, o := range opts {
		o(base)
	}
	switch s.Name() {
	case "sticky", "cooperative-sticky":
		return &stateful{strategy: base, generation: wire.DefaultGeneration}, nil
	}
	return base, nil
}

// MustStrategy is like [Strategy] but panics, with Strategy's error, when
// Strategy refuses s: for one-line use in
// Consumer.Group.Rebalance.GroupStrategies, where s is a constant of the
// program, as regexp.MustCompile is for a constant expression.
func MustStrategy(s assign.Strategy, opts ...Option) sarama.BalanceStrategy {
	b, err := Strategy(s, opts...)
	if err != nil {
		panic(err)
	}
	return b
}

type strategy struct {
	s       assign.Strategy
	onError func(error)
}

// report hands err to the OnError function, or to the log.
func (b *strategy) report(err error) {
	if b.onError != nil {
		b.onError(err)
		return
	}
	log.Print(err)
}

// Name returns the strategy's Kafka name.
func (b *strategy) Name() string { return b.s.Name() }

// SupportedProtocols returns the rebalance protocols the strategy takes
// part in, the preferred first.
func (b *strategy) SupportedProtocols() []sarama.RebalanceProtocol {
	if b.s.Protocol() == assign.Cooperative {
		return []sarama.RebalanceProtocol{sarama.RebalanceProtocolCooperative, sarama.RebalanceProtocolEager}
	}
	return []sarama.RebalanceProtocol{sarama.RebalanceProtocolEager}
}

// ErrPartitionIDs: sarama listed partitions of a topic that are not
// exactly 0..n-1.
var ErrPartitionIDs = errors.New("partition IDs are not 0..n-1")

// Plan assigns the members over topics (each topic's partition IDs). It
// never returns an error: when the group cannot be assigned, it reports
// why (see [OnError]) and assigns every member nothing.
func (b *strategy) Plan(members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32) (sarama.BalanceStrategyPlan, error) {
	plan, err := b.plan(members, topics)
	if err != nil {
		b.report(fmt.Errorf("assignsarama: %s: %w; every member is assigned nothing until the next rebalance", b.s.Name(), err))
		plan = make(sarama.BalanceStrategyPlan, len(members))
		for id := range members {
			plan[id] = map[string][]int32{}
		}
	}
	return plan, nil
}

func (b *strategy) plan(members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32) (sarama.BalanceStrategyPlan, error) {
	counts := make(map[string]int32, len(topics))
	for t, ps := range topics {
		n, err := partitionCount(ps)
		if err != nil {
			return nil, fmt.Errorf("topic %q: %w", t, err)
		}
		counts[t] = n
	}
	join := make([]wire.JoinMember, 0, len(members))
	for _, id := range slices.Sorted(maps.Keys(members)) {
		meta := members[id]
		// sarama has decoded the subscription; write it back as it came
		// (at its own version) so that wire reads ownership where Kafka
		// reads it.
		sub := wire.Subscription{
			Version:         meta.Version,
			Topics:          meta.Topics,
			UserData:        meta.UserData,
			OwnedPartitions: flatten(meta.OwnedPartitions),
			GenerationID:    meta.GenerationID,
			RackID:          meta.RackID,
		}
		if meta.Version < 2 {
			// sarama leaves GenerationID 0 below v2; 0 would be a
			// generation, and written as v2 (wire never drops a field).
			sub.GenerationID = wire.DefaultGeneration
		}
		enc, err := sub.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", id, err)
		}
		join = append(join, wire.JoinMember{MemberID: id, Metadata: enc})
	}
	g, err := wire.GroupFromJoin(b.s.Name(), join, counts, nil)
	if err != nil {
		return nil, err
	}
	if b.s.Name() == "sticky" {
		if err := wire.SharedHistory(g, ErrShared); err != nil {
			b.report(fmt.Errorf("assignsarama: %s: %w", b.s.Name(), err))
		}
	}
	p, err := assign.AssignPacked(b.s, g)
	if err != nil {
		return nil, err
	}
	// Each member's partitions of a topic are a slice of p's one array,
	// capacity clipped: nothing is copied per partition.
	plan := make(sarama.BalanceStrategyPlan, p.Len())
	for i := range p.Len() {
		m := make(map[string][]int32, p.Topics(i))
		for k := range p.Topics(i) {
			topic, parts := p.Topic(i, k)
			m[topic] = parts
		}
		plan[p.MemberID(i)] = m
	}
	return plan, nil
}

// partitionCount returns n when ps holds exactly the IDs 0..n-1.
func partitionCount(ps []int32) (int32, error) {
	n := len(ps)
	if n > assign.MaxPartitions {
		return 0, ErrPartitionIDs
	}
	seen := make([]bool, n)
	for _, p := range ps {
		if p < 0 || int(p) >= n || seen[p] {
			return 0, ErrPartitionIDs
		}
		seen[p] = true
	}
	return int32(n), nil
}

// AssignmentData returns the user data of memberID's assignment: for
// "sticky", the StickyAssignor user data (partitions and generation) that
// sarama's own sticky members echo back; nothing for the others.
func (b *strategy) AssignmentData(memberID string, topics map[string][]int32, generationID int32) ([]byte, error) {
	if b.s.Name() != "sticky" {
		return nil, nil
	}
	return wire.StickyUserData{Version: 1, Previous: flattenMap(topics), Generation: generationID}.MarshalBinary()
}

// stateful is the strategy of "sticky" and "cooperative-sticky", which
// remembers the member's last assignment for its next subscription.
type stateful struct {
	*strategy

	mu         sync.Mutex
	assigned   []assign.TopicPartition
	generation int32
}

// OnAssignment remembers what the member was assigned, and in which
// generation.
func (st *stateful) OnAssignment(assignment *sarama.ConsumerGroupMemberAssignment, generationID int32) {
	var tps []assign.TopicPartition
	if assignment != nil {
		tps = flattenMap(assignment.Topics)
	}
	st.mu.Lock()
	st.assigned, st.generation = tps, generationID
	st.mu.Unlock()
}

// SubscriptionUserData returns the user data Kafka's assignor of this name
// writes in the member's subscription.
func (st *stateful) SubscriptionUserData(topics []string) ([]byte, error) {
	st.mu.Lock()
	assigned, generation := st.assigned, st.generation
	st.mu.Unlock()
	sub, err := wire.NextSubscription(st.s.Name(), topics, assigned, generation, "")
	if err != nil {
		return nil, fmt.Errorf("assignsarama: %s: %w", st.s.Name(), err)
	}
	return sub.UserData, nil
}

// flatten turns sarama's owned partitions into a sorted list.
func flatten(owned []*sarama.OwnedPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, op := range owned {
		if op == nil {
			continue
		}
		for _, p := range op.Partitions {
			out = append(out, assign.TopicPartition{Topic: op.Topic, Partition: p})
		}
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return out
}

// flattenMap turns a topic => partitions map into a sorted list.
func flattenMap(m map[string][]int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, assign.TopicPartition{Topic: t, Partition: p})
		}
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return slices.Compact(out)
}
