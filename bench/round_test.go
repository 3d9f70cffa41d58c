package bench

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
	"github.com/assigncalc/assigncalc/bench/workload"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// BenchmarkRound times a group leader's whole round, bytes in to bytes
// out: every member's JoinGroup metadata and the topic metadata in, one
// SyncGroup assignment per member out. Implementations:
//
//   - ours-round: [wire.Lead] (GroupFromJoin, AssignPacked,
//     SyncGroupPacked) on the subscriptions a Java consumer writes
//     ([wire.NextSubscription]);
//   - ours-assign: Assign alone on the decoded group, the floor the round
//     is measured against;
//   - franz-go-round: franz-go's MemberBalancer, BalanceOrError and
//     IntoSyncAssignment on the metadata its JoinGroupMetadata writes;
//   - sarama-round: what sarama's consumer group leader does: decode the
//     JoinGroup members (JoinGroupResponse.GetMembers), Plan, then for
//     each member its AssignmentData and the encoding of its assignment
//     (SyncGroupRequest.AddGroupAssignmentMember), on the metadata sarama's
//     consumer sends.
//
// Every strategy runs on every shape of bench/README, fresh and churned
// (eager members own nothing when they rejoin, so for range and
// roundrobin the churned groups differ only in their members):
//
//	go test -run '^$' -bench 'Round/' -benchtime 3x
//	go test -run '^$' -bench 'Round/.*/shape=uniform-(1000x100000|2000x1000000)' -big -benchtime 1x
//
// Beside ns/op, B/op and allocs/op: cpu-ns/op, the process's CPU time
// per round (see cpuTime), for machines shared with other work.
func BenchmarkRound(b *testing.B) {
	skips := workload.ParseSkips(*skip)
	for _, spec := range workload.Specs() {
		if !spec.Big() || *big {
			shapesOf(b, spec)
		}
	}
	impls := []struct {
		name    string
		peer    string // the name of the implementation in workload.SlowPeers
		prepare func(strategy string, g assign.Group) (func() error, error)
	}{
		{"ours-round", workload.Ours, oursRound},
		{"ours-assign", workload.Ours, oursAssign},
		{"franz-go-round", workload.FranzGo, franzRound},
		{"sarama-round", workload.Sarama, saramaRound},
	}
	for _, strategy := range workload.StrategyNames {
		b.Run("strategy="+strategy, func(b *testing.B) {
			for _, im := range impls {
				b.Run("impl="+im.name, func(b *testing.B) {
					for _, spec := range workload.Specs() {
						if spec.Big() && !*big {
							continue
						}
						for _, sh := range shapesOf(b, spec) {
							b.Run("shape="+sh.Name(), func(b *testing.B) {
								if skips.Skip(im.peer, strategy, spec) {
									b.Skipf("%s %s is too slow at this size; run with -skip= to wait for it", im.peer, strategy)
								}
								run, err := im.prepare(strategy, sh.Group)
								if err != nil {
									b.Fatal(err)
								}
								if spec.Big() {
									if err := run(); err != nil { // one untimed run, as BenchmarkAssign does
										b.Fatal(err)
									}
								}
								runtime.GC()
								b.ReportAllocs()
								bytes := benchmem.Start(b, spec.Partitions())
								before := cpuTime()
								for b.Loop() {
									if err := run(); err != nil {
										b.Fatal(err)
									}
								}
								b.ReportMetric(float64(cpuTime()-before)/float64(b.N), "cpu-ns/op")
								bytes.Report()
							})
						}
					}
				})
			}
		})
	}
}

// cpuTime is the process's CPU time in nanoseconds (see
// benchmem.ProcessCPU).
func cpuTime() int64 { return int64(benchmem.ProcessCPU()) }

// strategyOf returns our strategy of Kafka's name.
func strategyOf(name string) assign.Strategy {
	s, err := assign.Lookup(name)
	if err != nil {
		panic(err)
	}
	return s
}

// leaderTopics returns the leader's topic metadata: the partition count of
// every topic some member subscribes to, in a map of its own (the leader
// reads it from a Metadata response, not from its members).
func leaderTopics(g assign.Group) map[string]int32 {
	out := make(map[string]int32)
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if n, ok := g.Topics[t]; ok {
				out[string([]byte(t))] = n
			}
		}
	}
	return out
}

// javaJoin returns the JoinGroup members a leader receives from Java
// consumers of strategy: each subscription as [wire.NextSubscription]
// writes it for the member's topics, Owned and generation.
func javaJoin(strategy string, g assign.Group) ([]wire.JoinMember, error) {
	members := make([]wire.JoinMember, len(g.Members))
	for i, m := range g.Members {
		owned := m.Owned
		if strategy == workload.Range || strategy == workload.RoundRobin {
			owned = nil // eager members revoke everything before they rejoin
		}
		s, err := wire.NextSubscription(strategy, m.Topics, owned, m.Generation, m.Rack)
		if err != nil {
			return nil, err
		}
		b, err := s.MarshalBinary()
		if err != nil {
			return nil, err
		}
		members[i] = wire.JoinMember{MemberID: m.ID, InstanceID: m.InstanceID, Metadata: b}
	}
	return members, nil
}

func oursRound(strategy string, g assign.Group) (func() error, error) {
	s := strategyOf(strategy)
	members, err := javaJoin(strategy, g)
	if err != nil {
		return nil, err
	}
	topics := leaderTopics(g)
	// Check once, untimed, that the bytes are the right answer.
	out, err := wire.Lead(s, members, topics, nil)
	if err != nil {
		return nil, err
	}
	decoded, err := wire.GroupFromJoin(strategy, members, topics, nil)
	if err != nil {
		return nil, err
	}
	a := make(assign.Assignment, len(out))
	for id, bs := range out {
		da, err := wire.DecodeAssignment(bs)
		if err != nil {
			return nil, err
		}
		a[id] = da.Partitions
	}
	if s.Protocol() == assign.Cooperative {
		err = assign.VerifyCooperative(decoded, a)
	} else {
		err = assign.Verify(decoded, a)
	}
	if err != nil {
		return nil, fmt.Errorf("ours-round: %w", err)
	}
	return func() error {
		_, err := wire.Lead(s, members, topics, nil)
		return err
	}, nil
}

func oursAssign(strategy string, g assign.Group) (func() error, error) {
	s := strategyOf(strategy)
	members, err := javaJoin(strategy, g)
	if err != nil {
		return nil, err
	}
	decoded, err := wire.GroupFromJoin(strategy, members, leaderTopics(g), nil)
	if err != nil {
		return nil, err
	}
	return func() error {
		_, err := s.Assign(decoded)
		return err
	}, nil
}

func franzBalancer(strategy string) kgo.GroupBalancer {
	switch strategy {
	case workload.Range:
		return kgo.RangeBalancer()
	case workload.RoundRobin:
		return kgo.RoundRobinBalancer()
	case workload.Sticky:
		return kgo.StickyBalancer()
	}
	return kgo.CooperativeStickyBalancer()
}

func franzRound(strategy string, g assign.Group) (func() error, error) {
	bal := franzBalancer(strategy)
	// Range and roundrobin members own nothing the eager balancers read.
	members := workload.FranzMembers(g, bal, strategy != workload.Range && strategy != workload.RoundRobin)
	topics := leaderTopics(g)
	return func() error {
		mb, _, err := bal.MemberBalancer(members)
		if err != nil {
			return err
		}
		be, ok := mb.(kgo.GroupMemberBalancerOrError)
		if !ok {
			return fmt.Errorf("franz-go: %T has no BalanceOrError", mb)
		}
		into, err := be.BalanceOrError(topics)
		if err != nil {
			return err
		}
		_ = into.IntoSyncAssignment()
		return nil
	}, nil
}

func saramaStrategy(strategy string) sarama.BalanceStrategy {
	switch strategy {
	case workload.Range:
		return sarama.NewBalanceStrategyRange()
	case workload.RoundRobin:
		return sarama.NewBalanceStrategyRoundRobin()
	case workload.Sticky:
		return sarama.NewBalanceStrategySticky()
	}
	return sarama.NewBalanceStrategyCooperativeSticky()
}

func saramaRound(strategy string, g assign.Group) (func() error, error) {
	s := saramaStrategy(strategy)
	join := &sarama.JoinGroupResponse{}
	for _, m := range g.Members {
		meta := &sarama.ConsumerGroupMemberMetadata{Version: 3, Topics: slices.Clone(m.Topics), GenerationID: m.Generation}
		owned := workload.OwnedByTopic(m.Owned)
		switch strategy {
		case workload.Sticky:
			data, err := s.AssignmentData(m.ID, owned, m.Generation)
			if err != nil {
				return nil, err
			}
			meta.UserData = data
		case workload.CooperativeSticky:
			for _, t := range slices.Sorted(maps.Keys(owned)) {
				meta.OwnedPartitions = append(meta.OwnedPartitions, &sarama.OwnedPartition{Topic: t, Partitions: owned[t]})
			}
		}
		var req sarama.JoinGroupRequest
		if err := req.AddGroupProtocolMetadata(strategy, meta); err != nil {
			return nil, err
		}
		join.Members = append(join.Members, sarama.GroupMember{MemberId: m.ID, Metadata: req.OrderedGroupProtocols[0].Metadata})
	}
	topics := make(map[string][]int32)
	for t, n := range leaderTopics(g) {
		parts := make([]int32, n)
		for p := range parts {
			parts[p] = int32(p)
		}
		topics[t] = parts
	}
	return func() error {
		members, err := join.GetMembers()
		if err != nil {
			return err
		}
		plan, err := s.Plan(members, topics)
		if err != nil {
			return err
		}
		var req sarama.SyncGroupRequest
		for id, assigned := range plan {
			data, err := s.AssignmentData(id, assigned, 2)
			if err != nil {
				return err
			}
			if err := req.AddGroupAssignmentMember(id, &sarama.ConsumerGroupMemberAssignment{Topics: assigned, UserData: data}); err != nil {
				return err
			}
			delete(members, id)
		}
		for id := range members {
			if err := req.AddGroupAssignmentMember(id, &sarama.ConsumerGroupMemberAssignment{}); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
