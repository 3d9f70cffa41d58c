package workload

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/IBM/sarama"
	assignkafkago "github.com/assigncalc/assigncalc/adapters/kafkago"
	"github.com/assigncalc/assigncalc/assign"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Implementation names.
const (
	Ours        = "ours"
	FranzGo     = "franz-go"
	Sarama      = "sarama"
	KafkaGo     = "kafka-go"
	KafkaGoOurs = "kafka-go+ours" // ours inside kafka-go, through adapters/kafkago
	WriteOutput = "write-output"  // the floor: writing ours' result into fresh output slices
)

// Strategy names, Kafka's.
const (
	Range             = "range"
	RoundRobin        = "roundrobin"
	Sticky            = "sticky"
	CooperativeSticky = "cooperative-sticky"
)

// StrategyNames lists the strategies in Kafka's order of introduction.
var StrategyNames = []string{Range, RoundRobin, Sticky, CooperativeSticky}

// Impl is one implementation of one strategy.
type Impl struct {
	Strategy string // Kafka's name of the strategy
	Name     string // Ours, FranzGo, Sarama, KafkaGo or WriteOutput

	// Cooperative implementations withhold, in the first round, the
	// partitions that move from one owner to another.
	Cooperative bool

	prepare func(g assign.Group) (*Prepared, error)
}

// Prepared holds an implementation's input for one group, converted
// outside any timing.
type Prepared struct {
	// Run computes one assignment from the prepared input and keeps the
	// result for Result. It is what benchmarks time.
	Run func() error

	// Result converts the last result of Run into an [assign.Assignment]
	// with every member of the group present and every list sorted. Members
	// the implementation invented, duplicates and the like are kept, so
	// that [assign.Verify] sees them.
	Result func() (assign.Assignment, error)
}

// Prepare converts g into the implementation's input.
func (im Impl) Prepare(g assign.Group) (*Prepared, error) { return im.prepare(g) }

// Impls returns every implementation of strategy, ours first. The
// WriteOutput floor is included for Range and RoundRobin when withFloor is
// set.
func Impls(strategy string, withFloor bool) []Impl {
	var out []Impl
	switch strategy {
	case Range:
		out = []Impl{
			ours(assign.Range{}),
			franz(Range, kgo.RangeBalancer()),
			saramaImpl(Range, sarama.NewBalanceStrategyRange),
			kafkaGoImpl(Range, kafkago.RangeGroupBalancer{}),
		}
	case RoundRobin:
		out = []Impl{
			ours(assign.RoundRobin{}),
			franz(RoundRobin, kgo.RoundRobinBalancer()),
			saramaImpl(RoundRobin, sarama.NewBalanceStrategyRoundRobin),
			kafkaGoImpl(RoundRobin, kafkago.RoundRobinGroupBalancer{}),
		}
	case Sticky:
		out = []Impl{
			ours(assign.Sticky{}),
			franz(Sticky, kgo.StickyBalancer()),
			saramaImpl(Sticky, sarama.NewBalanceStrategySticky),
			kafkaGoOurs(assign.Sticky{}),
		}
	case CooperativeSticky:
		out = []Impl{
			ours(assign.CooperativeSticky{}),
			franz(CooperativeSticky, kgo.CooperativeStickyBalancer()),
			saramaImpl(CooperativeSticky, sarama.NewBalanceStrategyCooperativeSticky),
		}
	}
	if withFloor && (strategy == Range || strategy == RoundRobin) {
		out = append(out, writeOutput(out[0]))
	}
	return out
}

func ours(s assign.Strategy) Impl {
	return Impl{
		Strategy:    s.Name(),
		Name:        Ours,
		Cooperative: s.Protocol() == assign.Cooperative,
		prepare: func(g assign.Group) (*Prepared, error) {
			var last assign.Assignment
			return &Prepared{
				Run: func() error {
					a, err := s.Assign(g)
					last = a
					return err
				},
				Result: func() (assign.Assignment, error) { return last, nil },
			}, nil
		},
	}
}

// writeOutput times what any implementation must at least do: allocate
// the result map and one backing array, and write every member's
// partitions into it. The partitions written are those of base's result
// on the same group, kept as dense integers.
func writeOutput(base Impl) Impl {
	return Impl{
		Strategy: base.Strategy,
		Name:     WriteOutput,
		prepare: func(g assign.Group) (*Prepared, error) {
			p, err := base.prepare(g)
			if err != nil {
				return nil, err
			}
			if err := p.Run(); err != nil {
				return nil, err
			}
			a, _ := p.Result()
			topics := slices.Sorted(maps.Keys(g.Topics))
			type part struct{ topic, part int32 }
			ids := make([]string, len(g.Members))
			lists := make([][]part, len(g.Members))
			total := 0
			for j, m := range g.Members {
				ids[j] = m.ID
				for _, tp := range a[m.ID] {
					t, _ := slices.BinarySearch(topics, tp.Topic)
					lists[j] = append(lists[j], part{int32(t), tp.Partition})
				}
				total += len(lists[j])
			}
			var last assign.Assignment
			return &Prepared{
				Run: func() error {
					out := make(assign.Assignment, len(ids))
					backing := make([]assign.TopicPartition, total)
					k := 0
					for j, list := range lists {
						start := k
						for _, tp := range list {
							backing[k] = assign.TopicPartition{Topic: topics[tp.topic], Partition: tp.part}
							k++
						}
						out[ids[j]] = backing[start:k:k]
					}
					last = out
					return nil
				},
				Result: func() (assign.Assignment, error) { return last, nil },
			}, nil
		},
	}
}

// subscribedTopics returns the topics some member subscribes to that exist
// with partitions, in Go string order: what a client's leader asks the
// cluster's metadata for.
func subscribedTopics(g assign.Group) []string {
	seen := make(map[string]bool)
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if g.Topics[t] > 0 {
				seen[t] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// OwnedByTopic groups owned by topic, partitions ascending: the form the
// peers' APIs take a member's owned partitions in.
func OwnedByTopic(owned []assign.TopicPartition) map[string][]int32 {
	out := make(map[string][]int32)
	for _, tp := range owned {
		out[tp.Topic] = append(out[tp.Topic], tp.Partition)
	}
	for _, ps := range out {
		slices.Sort(ps)
	}
	return out
}

// FranzMembers returns g's members as a franz-go leader receives them in
// JoinGroup: each member's metadata is what bal's own JoinGroupMetadata
// writes (with the member's owned partitions unless withOwned is false),
// and the members are sorted as franz-go hands them to balancers, by
// instance ID (members with one first), then member ID.
func FranzMembers(g assign.Group, bal kgo.GroupBalancer, withOwned bool) []kmsg.JoinGroupResponseMember {
	members := make([]kmsg.JoinGroupResponseMember, len(g.Members))
	for j, m := range g.Members {
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = m.ID
		if m.InstanceID != "" {
			jm.InstanceID = kmsg.StringPtr(m.InstanceID)
		}
		topics := slices.Clone(m.Topics)
		slices.Sort(topics)
		var owned map[string][]int32
		if withOwned {
			owned = OwnedByTopic(m.Owned)
		}
		jm.ProtocolMetadata = bal.JoinGroupMetadata(topics, owned, m.Generation)
		members[j] = jm
	}
	slices.SortFunc(members, func(a, b kmsg.JoinGroupResponseMember) int {
		switch {
		case a.InstanceID != nil && b.InstanceID != nil:
			return cmp.Compare(*a.InstanceID, *b.InstanceID)
		case a.InstanceID != nil:
			return -1
		case b.InstanceID != nil:
			return 1
		}
		return cmp.Compare(a.MemberID, b.MemberID)
	})
	return members
}

// franz runs a franz-go GroupBalancer through its public API: the member
// metadata is what the balancer's own JoinGroupMetadata writes for each
// member (a kmsg.ConsumerMemberMetadata, v3, with the sticky user data and,
// for cooperative-sticky, the owned partitions), decoded by MemberBalancer
// before timing; the timed part is Balance, which may be called again on
// the same decoded members (it only reads them).
func franz(strategy string, bal kgo.GroupBalancer) Impl {
	return Impl{
		Strategy:    strategy,
		Name:        FranzGo,
		Cooperative: bal.IsCooperative(),
		prepare: func(g assign.Group) (*Prepared, error) {
			members := FranzMembers(g, bal, true)
			topics := make(map[string]int32)
			for _, t := range subscribedTopics(g) {
				topics[t] = g.Topics[t]
			}
			// MemberBalancer decodes every member's metadata: the leader's
			// side of the JoinGroup response, which our strategies get
			// already decoded as a Group. It stays outside the timed part;
			// the sticky user data is decoded inside Balance.
			mb, _, err := bal.MemberBalancer(members)
			if err != nil {
				return nil, err
			}
			var last kgo.IntoSyncAssignment
			return &Prepared{
				Run: func() error {
					if be, ok := mb.(kgo.GroupMemberBalancerOrError); ok {
						var err error
						last, err = be.BalanceOrError(topics)
						return err
					}
					last = mb.Balance(topics)
					return nil
				},
				Result: func() (assign.Assignment, error) {
					plan, ok := last.(*kgo.BalancePlan)
					if !ok {
						return nil, fmt.Errorf("workload: franz-go returned a %T, not a *kgo.BalancePlan", last)
					}
					return fromPlan(g, plan.AsMemberIDMap()), nil
				},
			}, nil
		},
	}
}

// saramaImpl runs a sarama BalanceStrategy through Plan. Member metadata
// is what sarama's consumer sends: v3 with, for sticky, the user data its
// AssignmentData writes and, for cooperative-sticky, the owned partitions
// and generation.
func saramaImpl(strategy string, newStrategy func() sarama.BalanceStrategy) Impl {
	cooperative := strategy == CooperativeSticky
	return Impl{
		Strategy:    strategy,
		Name:        Sarama,
		Cooperative: cooperative,
		prepare: func(g assign.Group) (*Prepared, error) {
			s := newStrategy()
			members := make(map[string]sarama.ConsumerGroupMemberMetadata, len(g.Members))
			for _, m := range g.Members {
				meta := sarama.ConsumerGroupMemberMetadata{Version: 3, Topics: slices.Clone(m.Topics), GenerationID: m.Generation}
				owned := OwnedByTopic(m.Owned)
				switch strategy {
				case Sticky:
					data, err := s.AssignmentData(m.ID, owned, m.Generation)
					if err != nil {
						return nil, err
					}
					meta.UserData = data
				case CooperativeSticky:
					for _, t := range slices.Sorted(maps.Keys(owned)) {
						meta.OwnedPartitions = append(meta.OwnedPartitions, &sarama.OwnedPartition{Topic: t, Partitions: owned[t]})
					}
				}
				members[m.ID] = meta
			}
			topics := make(map[string][]int32)
			for _, t := range subscribedTopics(g) {
				parts := make([]int32, g.Topics[t])
				for p := range parts {
					parts[p] = int32(p)
				}
				topics[t] = parts
			}
			var last sarama.BalanceStrategyPlan
			return &Prepared{
				Run: func() error {
					plan, err := s.Plan(members, topics)
					last = plan
					return err
				},
				Result: func() (assign.Assignment, error) { return fromPlan(g, last), nil },
			}, nil
		},
	}
}

// kafkaGoImpl runs a kafka-go GroupBalancer through AssignGroups.
func kafkaGoImpl(strategy string, bal kafkago.GroupBalancer) Impl {
	return Impl{
		Strategy: strategy,
		Name:     KafkaGo,
		prepare: func(g assign.Group) (*Prepared, error) {
			members := make([]kafkago.GroupMember, len(g.Members))
			for j, m := range g.Members {
				members[j] = kafkago.GroupMember{ID: m.ID, Topics: slices.Clone(m.Topics)}
			}
			parts := kafkaGoPartitions(g)
			var last kafkago.GroupMemberAssignments
			return &Prepared{
				Run: func() error {
					last = bal.AssignGroups(members, parts)
					return nil
				},
				Result: func() (assign.Assignment, error) { return fromPlan(g, last), nil },
			}, nil
		},
	}
}

// kafkaGoPartitions lists the partitions of g's subscribed topics as
// kafka-go's leader receives them.
func kafkaGoPartitions(g assign.Group) []kafkago.Partition {
	var parts []kafkago.Partition
	for _, t := range subscribedTopics(g) {
		for p := range g.Topics[t] {
			parts = append(parts, kafkago.Partition{Topic: t, ID: int(p)})
		}
	}
	return parts
}

// kafkaGoOurs runs s through adapters/kafkago, as a kafka-go leader would:
// each member's user data is what its own balancer sends after being told
// (GroupBalancer.Assigned) what it owned and in which generation, built
// before timing; the timed part is AssignGroups, which reads the user data
// back, runs s and converts the result to kafka-go's form.
func kafkaGoOurs(s assign.Strategy) Impl {
	return Impl{
		Strategy: s.Name(),
		Name:     KafkaGoOurs,
		prepare: func(g assign.Group) (*Prepared, error) {
			var errs []error
			leader, err := assignkafkago.Balancer(s, assignkafkago.OnError(func(err error) { errs = append(errs, err) }))
			if err != nil {
				return nil, err
			}
			members := make([]kafkago.GroupMember, len(g.Members))
			for j, m := range g.Members {
				b, err := assignkafkago.Balancer(s)
				if err != nil {
					return nil, err
				}
				gen := &kafkago.Generation{ID: m.Generation, Assignments: make(map[string][]kafkago.PartitionAssignment)}
				for t, ps := range OwnedByTopic(m.Owned) {
					for _, p := range ps {
						gen.Assignments[t] = append(gen.Assignments[t], kafkago.PartitionAssignment{ID: int(p)})
					}
				}
				b.Assigned(gen)
				ud, err := b.UserData()
				if err != nil {
					return nil, err
				}
				members[j] = kafkago.GroupMember{ID: m.ID, Topics: slices.Clone(m.Topics), UserData: ud}
			}
			parts := kafkaGoPartitions(g)
			var last kafkago.GroupMemberAssignments
			return &Prepared{
				Run: func() error {
					errs = errs[:0]
					last = leader.AssignGroups(members, parts)
					if len(errs) > 0 {
						return errs[0]
					}
					return nil
				},
				Result: func() (assign.Assignment, error) { return fromPlan(g, last), nil },
			}, nil
		},
	}
}

// fromPlan converts a peer's member => topic => partitions map into an
// Assignment: every member of g present, each list sorted.
func fromPlan[P int | int32](g assign.Group, plan map[string]map[string][]P) assign.Assignment {
	out := make(assign.Assignment, len(g.Members))
	for _, m := range g.Members {
		out[m.ID] = nil
	}
	for id, topics := range plan {
		list := out[id]
		for t, ps := range topics {
			for _, p := range ps {
				list = append(list, assign.TopicPartition{Topic: t, Partition: int32(p)})
			}
		}
		slices.SortFunc(list, assign.TopicPartition.Compare)
		out[id] = list
	}
	return out
}
