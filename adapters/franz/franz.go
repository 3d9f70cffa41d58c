// Package franz plugs the strategies of package assign into franz-go's
// consumer (github.com/twmb/franz-go/pkg/kgo):
//
//	cl, err := kgo.NewClient(
//		kgo.SeedBrokers("localhost:9092"),
//		kgo.ConsumerGroup("checkout"),
//		kgo.ConsumeTopics("orders"),
//		kgo.Balancers(franz.MustBalancer(assign.CooperativeSticky{})),
//	)
//
// [MustBalancer] panics when it is handed no strategy or a server-side one;
// [Balancer] returns the error instead.
//
// The group metadata is encoded and decoded by package
// [github.com/assigncalc/assigncalc/assign/wire], byte for byte as Kafka's
// Java consumer writes it, so members using this adapter share a group with
// Java consumers, with franz-go's own balancers of the same name and with
// any other client that speaks the "consumer" protocol.
//
// # State kept by a balancer
//
// Kafka's eager StickyAssignor has each member send, in its next JoinGroup,
// what it was assigned last and in which generation. franz-go forgets an
// eager member's assignment when it revokes it before rejoining, so the
// balancer for "sticky" remembers the last assignment it parsed, as the Java
// assignor instance does. Give each client its own balancer: call Balancer
// once per kgo.NewClient. A balancer shared by several clients sends the
// same history for all of them; a leader using this package sees it and
// reports [ErrShared] through [OnError].
//
// # When the leader cannot assign
//
// A strategy that fails, or a member's subscription that cannot be read,
// never fails the JoinGroup (kgo would retry it for ever) and never panics:
// the leader assigns every member nothing, reports why through [OnError],
// and the group tries again at its next rebalance.
package franz

import (
	"fmt"
	"log"
	"slices"
	"strings"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// Errors of [Balancer], and those the leader reports through [OnError].
var (
	// ErrNilStrategy: Balancer was given no strategy.
	ErrNilStrategy = wire.ErrNilStrategy
	// ErrServerAssigned: the strategy is one of the group coordinator's
	// (KIP-848), which a client's leader cannot run: it needs the topics'
	// ids and the members' current targets, which the classic protocol
	// does not carry. kgo.ServerSideBalancer lets the broker assign.
	ErrServerAssigned = wire.ErrServerAssigned
	// ErrShared: two members sent the same sticky history from the same
	// generation, which happens when one balancer serves several clients
	// (the history of whichever client synced last). Each member then
	// claims the others' partitions and stickiness is lost.
	ErrShared = fmt.Errorf("%w: is one balancer shared by several clients? Call Balancer once per kgo.NewClient", wire.ErrSharedHistory)
)

// An Option configures a balancer built by [Balancer].
type Option func(*balancer)

// OnError sets the function the group leader calls when its strategy
// cannot assign the group, or when it finds the group misusing the
// balancer ([ErrShared]). Without it, the leader writes the error with the
// standard library's log package.
//
// When the strategy fails (or a member's subscription cannot be read), the
// leader does not fail the JoinGroup, which kgo would retry for ever, but
// assigns every member nothing, reports the error once for that
// generation, and lets the group consume nothing until its next rebalance
// (a member joining or leaving, a subscription or partition change), when
// it tries again. f must not block for long: the rebalance waits for it.
func OnError(f func(error)) Option {
	return func(b *balancer) { b.onError = f }
}

// Balancer returns a kgo.GroupBalancer that assigns partitions with s
// under s's Kafka name (s.Name()):
//
//   - JoinGroupMetadata writes the subscription a Java consumer writes for
//     that strategy (see [wire.NextSubscription]): owned partitions and their
//     generation for a cooperative strategy, the previous assignment and
//     generation in the user data for "sticky", the generation in the user
//     data for "cooperative-sticky";
//   - MemberBalancer reads the members' subscriptions where Kafka's assignor
//     of that name reads ownership (see [wire.GroupFromJoin]), runs s (through
//     [assign.AssignPacked]: s.Assign's answer, without its map)
//     once the leader knows the partition counts, and encodes one SyncGroup
//     assignment per member, every member included;
//   - ParseSyncAssignment decodes the leader's assignment for this member;
//   - IsCooperative reports whether s.Protocol() is [assign.Cooperative], so
//     that the client revokes only what moves and rejoins for a second round.
//
// When members declare a rack (kgo.Rack) and the brokers theirs, the leader
// hands s the racks of every partition's replicas, so that rack-aware
// strategies work as in Kafka (KIP-881) without kgo.BalanceRacks.
//
// Balancer refuses a nil s ([ErrNilStrategy]) and a server-side one
// ([ErrServerAssigned]), here rather than at the first JoinGroup, where kgo
// would crash or retry for ever. When s fails at run time, see [OnError].
//
// The result keeps state for "sticky" (see the package documentation): use
// one balancer per client.
func Balancer(s assign.Strategy, opts ...Option) (kgo.GroupBalancer, error) {
	if err := wire.CheckLeader(s); err != nil {
		return nil, fmt.Errorf("franz: %w", err)
	}
	b := &balancer{s: s}
	for _, o := range opts {
		o(b)
	}
	return b, nil
}

// MustBalancer is like [Balancer] but panics, with Balancer's error, when
// Balancer refuses s: for one-line use in kgo.Balancers, where s is a
// constant of the program, as regexp.MustCompile is for a constant
// expression.
//
//	kgo.Balancers(franz.MustBalancer(assign.CooperativeSticky{}))
func MustBalancer(s assign.Strategy, opts ...Option) kgo.GroupBalancer {
	b, err := Balancer(s, opts...)
	if err != nil {
		panic(err)
	}
	return b
}

type balancer struct {
	s       assign.Strategy
	onError func(error)

	mu   sync.Mutex
	last []assign.TopicPartition // "sticky" only: the partitions of the last SyncGroup, sorted
}

// report hands err to the OnError function, or to the log.
func (b *balancer) report(err error) {
	if b.onError != nil {
		b.onError(err)
		return
	}
	log.Print(err)
}

// ProtocolName returns the strategy's Kafka name.
func (b *balancer) ProtocolName() string { return b.s.Name() }

// IsCooperative reports whether the strategy rebalances cooperatively.
func (b *balancer) IsCooperative() bool { return b.s.Protocol() == assign.Cooperative }

// JoinGroupMetadata returns the member's subscription for the next JoinGroup:
// the topics it wants, and what it owns now (currentAssignment) from
// generation generation.
func (b *balancer) JoinGroupMetadata(topics []string, currentAssignment map[string][]int32, generation int32) []byte {
	owned := flatten(currentAssignment)
	name := b.s.Name()
	if name == "sticky" && len(owned) == 0 {
		// An eager kgo member has forgotten what it revoked; we have not.
		b.mu.Lock()
		owned = b.last
		b.mu.Unlock()
	}
	sub, err := wire.NextSubscription(name, topics, owned, generation, "")
	if err == nil {
		if b.IsCooperative() && sub.OwnedPartitions == nil {
			// NextSubscription knows Kafka's own strategies; any other
			// cooperative strategy reads ownership from owned_partitions
			// too (see GroupFromJoin), and a cooperative member keeps
			// what it owns across the rebalance.
			sub.OwnedPartitions = owned
		}
		var meta []byte
		if meta, err = sub.MarshalBinary(); err == nil {
			return meta
		}
	}
	// Only a topic name longer than 32767 bytes gets here, which no broker
	// accepts. Send the subscription without history, or nothing.
	meta, _ := wire.Subscription{Version: wire.MaxSubscriptionVersion, Topics: topics, GenerationID: generation}.MarshalBinary()
	return meta
}

// ParseSyncAssignment decodes the assignment the leader sent this member.
func (b *balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	a, err := wire.DecodeAssignment(assignment)
	if err != nil {
		return nil, fmt.Errorf("franz: %s sync assignment: %w", b.s.Name(), err)
	}
	if b.s.Name() == "sticky" {
		last := slices.Clone(a.Partitions)
		slices.SortFunc(last, assign.TopicPartition.Compare)
		last = slices.Compact(last)
		b.mu.Lock()
		b.last = last
		b.mu.Unlock()
	}
	out := make(map[string][]int32)
	for _, tp := range a.Partitions {
		out[tp.Topic] = append(out[tp.Topic], tp.Partition)
	}
	return out, nil
}

// MemberBalancer decodes the members' subscriptions and returns the
// balancer the leader runs once it knows the partition counts of the topics
// returned.
func (b *balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	join := make([]wire.JoinMember, 0, len(members))
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		// A broken broker may list a member twice; kgo's own balancers
		// keep the first listing, and so do we rather than stall the
		// group on an error.
		if seen[m.MemberID] {
			continue
		}
		seen[m.MemberID] = true
		jm := wire.JoinMember{MemberID: m.MemberID, Metadata: readable(m.ProtocolMetadata)}
		if m.InstanceID != nil {
			jm.InstanceID = *m.InstanceID
		}
		join = append(join, jm)
	}
	g, err := wire.GroupFromJoin(b.s.Name(), join, nil, nil)
	if err != nil {
		// Failing here would fail the JoinGroup, which kgo retries for
		// ever; the round assigns nothing instead (see OnError).
		ids := make([]string, len(join))
		for i, jm := range join {
			ids[i] = jm.MemberID
		}
		return &memberBalancer{b: b, ids: ids, err: err}, map[string]struct{}{}, nil
	}
	topics := make(map[string]struct{})
	for _, m := range g.Members {
		for _, t := range m.Topics {
			topics[t] = struct{}{}
		}
	}
	mb := &memberBalancer{b: b, g: g}
	if b.s.Name() == "sticky" {
		mb.shared = wire.SharedHistory(g, ErrShared)
	}
	return mb, topics, nil
}

// readable works around clients that declare subscription version 1 but
// leave out its owned partitions (franz-go issue 493): such metadata is read
// as version 0, as kgo and sarama read it.
func readable(meta []byte) []byte {
	if len(meta) < 2 || meta[0] != 0 || meta[1] != 1 {
		return meta
	}
	if _, err := wire.DecodeSubscription(meta); err == nil {
		return meta
	}
	v0 := slices.Clone(meta)
	v0[1] = 0
	if _, err := wire.DecodeSubscription(v0); err != nil {
		return meta // report the error of the version the member declared
	}
	return v0
}

// flatten turns kgo's topic => partitions map into a sorted list.
func flatten(m map[string][]int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, assign.TopicPartition{Topic: t, Partition: p})
		}
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return slices.Compact(out)
}

// memberBalancer is the leader's side of one rebalance.
type memberBalancer struct {
	b    *balancer
	g    assign.Group // Topics and PartitionRacks are filled in by BalanceOrError
	info kgo.BalanceInfo

	ids    []string // when err is set: the members, as listed
	err    error    // why the members' subscriptions could not be read
	shared error    // ErrShared, when found
}

// SetBalanceInfo implements kgo.GroupMemberBalancerInfo: the client hands
// the leader the cluster metadata, from which the replicas' racks come,
// and the generation, which the reports name.
func (m *memberBalancer) SetBalanceInfo(info kgo.BalanceInfo) { m.info = info }

// Balance implements kgo.GroupMemberBalancer. kgo calls BalanceOrError
// instead.
func (m *memberBalancer) Balance(topics map[string]int32) kgo.IntoSyncAssignment {
	into, _ := m.BalanceOrError(topics)
	return into
}

// BalanceOrError assigns the group over topics (partition counts) and
// encodes the SyncGroup assignments. It never returns an error: when the
// strategy fails, it reports why (see [OnError]) and assigns every member
// nothing.
func (m *memberBalancer) BalanceOrError(topics map[string]int32) (kgo.IntoSyncAssignment, error) {
	if m.shared != nil {
		m.b.report(m.errorf(m.shared))
	}
	if m.err != nil {
		m.b.report(m.errorf(fmt.Errorf("%w; every member is assigned nothing until the next rebalance", m.err)))
		return emptyAssignments(m.ids), nil
	}
	into, err := m.balance(topics)
	if err != nil {
		m.b.report(m.errorf(fmt.Errorf("%w; every member is assigned nothing until the next rebalance", err)))
		ids := make([]string, len(m.g.Members))
		for i, mb := range m.g.Members {
			ids[i] = mb.ID
		}
		return emptyAssignments(ids), nil
	}
	return into, nil
}

// errorf prefixes err with the package, the group's generation and the
// strategy.
func (m *memberBalancer) errorf(err error) error {
	return fmt.Errorf("franz: group %q generation %d: %s: %w", m.info.Group, m.info.Generation, m.b.s.Name(), err)
}

func (m *memberBalancer) balance(topics map[string]int32) (kgo.IntoSyncAssignment, error) {
	g := m.g
	g.Topics = topics
	g.PartitionRacks = m.partitionRacks(topics)
	p, err := assign.AssignPacked(m.b.s, g)
	if err != nil {
		return nil, err
	}
	enc, err := wire.SyncGroupPacked(p, wire.MaxAssignmentVersion)
	if err != nil {
		return nil, err
	}
	out := make(syncAssignments, len(enc))
	for i, b := range enc {
		out[i] = kmsg.SyncGroupRequestGroupAssignment{MemberID: p.MemberID(i), MemberAssignment: b}
	}
	slices.SortFunc(out, func(x, y kmsg.SyncGroupRequestGroupAssignment) int {
		return strings.Compare(x.MemberID, y.MemberID)
	})
	return out, nil
}

// emptyAssignments assigns each of ids nothing, in a valid
// ConsumerProtocolAssignment, sorted by member.
func emptyAssignments(ids []string) syncAssignments {
	empty, _ := wire.Assignment{Version: wire.MaxAssignmentVersion}.MarshalBinary() // cannot fail: no partitions
	out := make(syncAssignments, len(ids))
	for i, id := range ids {
		out[i] = kmsg.SyncGroupRequestGroupAssignment{MemberID: id, MemberAssignment: empty}
	}
	slices.SortFunc(out, func(x, y kmsg.SyncGroupRequestGroupAssignment) int {
		return strings.Compare(x.MemberID, y.MemberID)
	})
	return out
}

// partitionRacks returns the racks of the replicas of every partition of
// topics, from the metadata kgo gave the leader, or nil when no member
// declares a rack or no broker has one. A topic whose metadata does not list
// exactly its partitions 0..n-1 is left out (its partitions then match no
// rack), since the metadata may be older or newer than the counts.
func (m *memberBalancer) partitionRacks(topics map[string]int32) map[string][][]string {
	if m.info.Topics == nil || m.info.Brokers == nil || !slices.ContainsFunc(m.g.Members, func(mb assign.Member) bool { return mb.Rack != "" }) {
		return nil
	}
	return replicaRacks(topics, m.info.Topics(), m.info.Brokers())
}

// replicaRacks maps each partition of topics to the racks of its replicas'
// brokers, each rack once, in replica order.
func replicaRacks(topics map[string]int32, md map[string]kgo.TopicMetadata, brokers map[int32]kgo.BrokerMetadata) map[string][][]string {
	out := make(map[string][][]string)
	anyRack := false
topics:
	for t, n := range topics {
		tm, ok := md[t]
		if !ok || n <= 0 || len(tm.Partitions) != int(n) {
			continue
		}
		racks := make([][]string, n)
		seen := make([]bool, n)
		for _, p := range tm.Partitions {
			if p.Partition < 0 || p.Partition >= n || seen[p.Partition] {
				continue topics
			}
			seen[p.Partition] = true
			var rs []string
			for _, r := range p.Replicas {
				if b, ok := brokers[r]; ok && b.Rack != nil && *b.Rack != "" && !slices.Contains(rs, *b.Rack) {
					rs = append(rs, *b.Rack)
				}
			}
			if rs == nil {
				rs = []string{}
			}
			anyRack = anyRack || len(rs) > 0
			racks[p.Partition] = rs
		}
		out[t] = racks
	}
	if !anyRack {
		return nil
	}
	return out
}

// syncAssignments is the leader's SyncGroup assignments, sorted by member.
type syncAssignments []kmsg.SyncGroupRequestGroupAssignment

// IntoSyncAssignment implements kgo.IntoSyncAssignment.
func (s syncAssignments) IntoSyncAssignment() []kmsg.SyncGroupRequestGroupAssignment { return s }
