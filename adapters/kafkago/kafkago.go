// Package kafkago plugs the eager strategies of package assign (range,
// roundrobin and sticky) into segmentio/kafka-go's consumer groups
// (github.com/segmentio/kafka-go):
//
//	bal, err := kafkago.Balancer(assign.Sticky{})
//	if err != nil { ... }
//	r := kafka.NewReader(kafka.ReaderConfig{
//		Brokers:        []string{"localhost:9092"},
//		GroupID:        "checkout",
//		GroupTopics:    []string{"orders"},
//		GroupBalancers: []kafka.GroupBalancer{bal},
//		Logger:         bal.Logger(nil), // sticky only; see below
//	})
//
// The group leader reads the members' metadata with package
// [github.com/assigncalc/assigncalc/assign/wire], where Kafka's Java
// assignor of the same name reads it, and sticky members send the
// StickyAssignor user data (version 1, with the generation) that Java's
// StickyAssignor and franz-go's sticky balancer send, so that a leader of
// another client reads a kafka-go member's history as its own members'
// (but see Mixed groups). kafka-go has no static membership (KIP-345), so
// its members are ordered by member ID, as Kafka orders dynamic members.
//
// # Eager only
//
// kafka-go revokes every partition before each JoinGroup and sends no owned
// partitions: it cannot take part in a cooperative rebalance (KIP-429).
// [Balancer] refuses cooperative strategies ([ErrCooperative]) rather than
// let such a member break a cooperative group's guarantee, and, like the
// other adapters, a nil strategy ([ErrNilStrategy]) and the group
// coordinator's ([ErrServerAssigned]); [MustBalancer] panics with the same
// errors.
//
// # State kept by a sticky balancer
//
// StickyAssignor has each member send, in its next JoinGroup, what it was
// assigned last and in which generation. kafka-go never tells a balancer
// what its member was assigned: the only place a [kafka.Reader] says so is
// its log. So a sticky balancer learns it from two lines the Reader writes
// to [kafka.ReaderConfig.Logger] — "Joined group … in generation N" and
// "subscribed to topics and partitions: …" — when that logger is
// [GroupBalancer.Logger]. Programs that use [kafka.ConsumerGroup] directly
// call [GroupBalancer.Assigned] with each generation instead. Without
// either, the member sends no history: it still gets a balanced share, but
// its partitions may move at every rebalance; the balancer reports
// [ErrNoLogger] through [OnError] when the member joins a second time
// having heard nothing.
//
// A balancer holds one member's history: give each Reader its own (call
// Balancer once per kafka.NewReader). Readers sharing a sticky balancer
// send the same history; a leader using this package sees it and reports
// [ErrShared].
//
// # Racks
//
// The leader passes the racks of every partition's replicas, from the
// metadata kafka-go hands it, to the strategy, so that Range's rack-aware
// assignment (KIP-881) works when members declare racks. kafka-go has no
// client.rack setting and writes its subscription at version 1, without
// rack_id (a version 3 field), so a kafka-go member cannot declare its rack
// the way Java does. With [Rack], a range or roundrobin member puts its
// rack in its user data instead (which those strategies otherwise leave
// empty), as kafka-go's own RackAffinityGroupBalancer does, and a leader
// using this package reads it there. Java and franz-go leaders do not look
// there, and a sticky member's user data is StickyAssignor's, so [Rack] is
// refused for sticky.
//
// # Mixed groups
//
// A kafka-go leader can lead kafka-go members only: kafka-go reads every
// member's metadata as version 0 and fails the JoinGroup ("unable to read
// metadata for member") when it finds the fields of version 1 or later,
// which Java, franz-go and sarama members always send. The leader then
// leaves and rejoins, and the group goes on under another leader. The
// other way round works where the leader tolerates kafka-go's subscription,
// which declares version 1 but leaves out its owned_partitions: franz-go
// (and this project's adapters/franz and adapters/assignsarama) read it as
// version 0, so kafka-go members using this package share a group with
// franz-go members of the same strategy. Java's consumer, as reported in kafka-go
// issue 762, fails to read it (BufferUnderflowException); we have not run
// a Java leader to check.
//
// # When the leader cannot assign
//
// kafka-go's AssignGroups cannot return an error. When the strategy refuses
// the group, or the metadata does not list a topic's partitions as 0..n-1
// ([ErrPartitionIDs]), the leader assigns nothing to every member, each
// listed with an empty assignment, and reports why through [OnError], once
// for that generation (AssignGroups runs once per generation). The
// group then consumes nothing until its next rebalance (a member joining or
// leaving, or a partition change with WatchPartitionChanges); an alert on
// OnError is what tells an operator. The alternatives are worse: a panic
// kills the Reader's process; falling back to another strategy hides the
// failure and cannot help with metadata that is wrong; and returning nil
// leaves every member's SyncGroup answer as empty bytes, which kafka-go
// happens to read as no partitions but which is not a
// ConsumerProtocolAssignment.
package kafkago

import (
	"errors"
	"fmt"
	"log"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/segmentio/kafka-go"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// Errors of [Balancer] and of the leader's AssignGroups.
var (
	// ErrCooperative: kafka-go speaks the eager protocol only.
	ErrCooperative = errors.New("kafka-go rebalances eagerly: it revokes every partition before it rejoins and sends no owned partitions, so it cannot take part in a cooperative rebalance (KIP-429)")
	// ErrRackSticky: a sticky member's user data has no room for a rack.
	ErrRackSticky = errors.New("a sticky member's user data is StickyAssignor's and kafka-go's subscription has no rack_id, so a kafka-go sticky member cannot declare a rack")
	// ErrPartitionIDs: the metadata does not list a topic's partitions as
	// exactly 0..n-1.
	ErrPartitionIDs = errors.New("partition IDs are not 0..n-1")
	// ErrNilStrategy: Balancer was given no strategy.
	ErrNilStrategy = wire.ErrNilStrategy
	// ErrServerAssigned: the strategy is one of the group coordinator's
	// (KIP-848), which a client's leader cannot run: it needs the topics'
	// ids and the members' current targets, which the classic protocol
	// does not carry.
	ErrServerAssigned = wire.ErrServerAssigned
	// ErrShared: two members sent the same sticky history from the same
	// generation, which happens when one balancer serves several Readers
	// (the history of whichever learnt last). Each member then claims the
	// others' partitions and stickiness is lost.
	ErrShared = fmt.Errorf("%w: is one balancer shared by several Readers? Call Balancer once per kafka.NewReader", wire.ErrSharedHistory)
	// ErrNoLogger: a sticky balancer is joining again without having
	// learnt what its member was assigned, because the Reader's Logger is
	// not [GroupBalancer.Logger] (nor is [GroupBalancer.Assigned] called).
	// The member sends no history and its partitions may move at every
	// rebalance.
	ErrNoLogger = errors.New("the sticky balancer has not learnt its member's assignment: set kafka.ReaderConfig.Logger to the balancer's Logger (or call Assigned with each generation)")
)

// maxRack bounds the rack a range or roundrobin member's user data may
// carry; longer user data is not a rack.
const maxRack = 255

// An Option configures a [GroupBalancer].
type Option func(*GroupBalancer)

// OnError sets the function the leader calls when it cannot assign the
// group and assigns nothing to every member instead, once for that
// generation (see the package documentation), and the function that hears
// of misuse that loses stickiness: a balancer shared by several Readers
// ([ErrShared], reported by the leader at each rebalance that shows it)
// and a sticky balancer that never learns its assignment ([ErrNoLogger],
// reported once, by the member, when it joins a second time). Without it,
// the errors are written with the standard library's log package. f must
// not block for long: the JoinGroup round waits for it.
func OnError(f func(error)) Option {
	return func(b *GroupBalancer) { b.onError = f }
}

// Rack declares the member's client.rack for range and roundrobin, in the
// member's user data (see the package documentation). An empty rack
// declares none.
func Rack(rack string) Option {
	return func(b *GroupBalancer) { b.rack = rack }
}

// GroupBalancer is a kafka.GroupBalancer that assigns with an
// [assign.Strategy]. Build it with [Balancer].
type GroupBalancer struct {
	s       assign.Strategy
	name    string // s.Name()
	rack    string
	onError func(error)

	mu      sync.Mutex
	joined  int32                   // generation of the member's latest JoinGroup, from the Reader's log
	last    []assign.TopicPartition // what the group assigned the member last, sorted
	lastGen int32                   // the generation of last
	heard   bool                    // a line of the Reader's log, or a call of Assigned, has come
	joins   int                     // UserData calls: the member's JoinGroups
}

// Balancer returns a kafka.GroupBalancer that assigns partitions with s
// under s's Kafka name (s.Name()):
//
//   - UserData returns, for "sticky", the StickyAssignor user data of the
//     member's previous assignment and generation (see
//     [wire.NextSubscription]; nothing before its first assignment), and,
//     for range and roundrobin with [Rack], the member's rack;
//   - AssignGroups, run by the leader, reads the members with
//     [wire.GroupFromJoin], adds the replicas' racks, runs s (through
//     [assign.AssignPacked], s.Assign's answer without its map) and returns
//     an entry for every member, empty when it gets nothing.
//
// Balancer refuses a nil s ([ErrNilStrategy]), a server-side s
// ([ErrServerAssigned]), a cooperative s ([ErrCooperative]), and [Rack]
// with "sticky" ([ErrRackSticky]). It returns the concrete type so that the
// caller can reach [GroupBalancer.Logger]; use one balancer per Reader.
func Balancer(s assign.Strategy, opts ...Option) (*GroupBalancer, error) {
	if err := wire.CheckLeader(s); err != nil {
		return nil, fmt.Errorf("kafkago: %w", err)
	}
	b := &GroupBalancer{s: s, name: s.Name(), joined: wire.DefaultGeneration, lastGen: wire.DefaultGeneration}
	for _, o := range opts {
		o(b)
	}
	if s.Protocol() == assign.Cooperative {
		return nil, fmt.Errorf("kafkago: %s: %w", b.name, ErrCooperative)
	}
	if b.rack != "" && b.name == "sticky" {
		return nil, fmt.Errorf("kafkago: %s: %w", b.name, ErrRackSticky)
	}
	return b, nil
}

// MustBalancer is like [Balancer] but panics, with Balancer's error, when
// Balancer refuses s or opts, as regexp.MustCompile does for a constant
// expression.
func MustBalancer(s assign.Strategy, opts ...Option) *GroupBalancer {
	b, err := Balancer(s, opts...)
	if err != nil {
		panic(err)
	}
	return b
}

// report hands err to the OnError function, or to the log.
func (b *GroupBalancer) report(err error) {
	if b.onError != nil {
		b.onError(err)
		return
	}
	log.Print(err)
}

// ProtocolName returns the strategy's Kafka name.
func (b *GroupBalancer) ProtocolName() string { return b.name }

// UserData returns the user data of the member's next JoinGroup.
func (b *GroupBalancer) UserData() ([]byte, error) {
	if b.name != "sticky" {
		if b.rack != "" {
			return []byte(b.rack), nil
		}
		return nil, nil
	}
	b.mu.Lock()
	owned, gen := b.last, b.lastGen
	b.joins++
	deaf := b.joins == 2 && !b.heard
	b.mu.Unlock()
	if deaf {
		// By its second JoinGroup a Reader has logged its first; a
		// balancer that heard nothing is not the Reader's Logger.
		b.report(fmt.Errorf("kafkago: %s: %w", b.name, ErrNoLogger))
	}
	sub, err := wire.NextSubscription(b.name, nil, owned, gen, "")
	if err != nil {
		// Only a topic name longer than 32767 bytes gets here, which no
		// broker accepts; join without history rather than not at all.
		return nil, nil
	}
	return sub.UserData, nil
}

// AssignGroups assigns the members over partitions, the metadata of the
// topics they subscribe to. It never fails: see the package documentation.
func (b *GroupBalancer) AssignGroups(members []kafka.GroupMember, partitions []kafka.Partition) kafka.GroupMemberAssignments {
	out, err := b.assign(members, partitions)
	if err == nil {
		return out
	}
	out = make(kafka.GroupMemberAssignments, len(members))
	for _, m := range members {
		out[m.ID] = map[string][]int{}
	}
	b.report(fmt.Errorf("%w; every member of the group is assigned nothing until the next rebalance", err))
	return out
}

func (b *GroupBalancer) assign(members []kafka.GroupMember, partitions []kafka.Partition) (kafka.GroupMemberAssignments, error) {
	counts, err := partitionCounts(partitions)
	if err != nil {
		return nil, fmt.Errorf("kafkago: %s: %w", b.name, err)
	}
	join := make([]wire.JoinMember, 0, len(members))
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		// A broken broker may list a member twice; keep the first
		// listing, as kafka-go's own balancers do, rather than stall.
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		// kafka-go has decoded the subscription as version 0: write it
		// back, with the rack where wire reads it, so that ownership is
		// read where Kafka's assignor of this name reads it.
		sub := wire.Subscription{Version: wire.AutoVersion, Topics: m.Topics, GenerationID: wire.DefaultGeneration}
		switch b.name {
		case "range", "roundrobin":
			if rack, ok := rackOf(m.UserData); ok {
				sub.RackID = &rack
			}
		default:
			sub.UserData = m.UserData
		}
		meta, err := sub.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("kafkago: %s: member %q: %w", b.name, m.ID, err)
		}
		join = append(join, wire.JoinMember{MemberID: m.ID, Metadata: meta})
	}
	g, err := wire.GroupFromJoin(b.name, join, counts, nil)
	if err != nil {
		return nil, fmt.Errorf("kafkago: %s: %w", b.name, err)
	}
	if b.name == "sticky" {
		if err := wire.SharedHistory(g, ErrShared); err != nil {
			b.report(fmt.Errorf("kafkago: %s: %w", b.name, err))
		}
	}
	if slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.Rack != "" }) {
		g.PartitionRacks = replicaRacks(partitions, counts)
	}
	p, err := assign.AssignPacked(b.s, g)
	if err != nil {
		return nil, fmt.Errorf("kafkago: %s: %w", b.name, err)
	}
	return into(p), nil
}

// into converts p, s.Assign's answer in packed form, into kafka-go's
// form, with one backing array for every member's partitions (kafka-go
// wants int, not int32, so they are copied once).
func into(p *assign.Packed) kafka.GroupMemberAssignments {
	total := 0
	for i := range p.Len() {
		for k := range p.Topics(i) {
			_, parts := p.Topic(i, k)
			total += len(parts)
		}
	}
	backing := make([]int, 0, total)
	out := make(kafka.GroupMemberAssignments, p.Len())
	for i := range p.Len() {
		topics := make(map[string][]int, p.Topics(i))
		for k := range p.Topics(i) {
			topic, parts := p.Topic(i, k)
			start := len(backing)
			for _, q := range parts {
				backing = append(backing, int(q))
			}
			topics[topic] = backing[start:len(backing):len(backing)]
		}
		out[p.MemberID(i)] = topics
	}
	return out
}

// rackOf reads a range or roundrobin member's user data as its rack: UTF-8
// text of at most maxRack bytes. Anything else (null, empty, binary) is no
// rack.
func rackOf(ud []byte) (string, bool) {
	if len(ud) == 0 || len(ud) > maxRack || !utf8.Valid(ud) {
		return "", false
	}
	return string(ud), true
}

// partitionCounts returns the partition count of every topic in
// partitions, which must list each topic's partitions as exactly 0..n-1.
// kafka-go lists a topic's partitions together, so a topic's count is
// looked up once per run, not once per partition.
func partitionCounts(partitions []kafka.Partition) (map[string]int32, error) {
	counts := make(map[string]int32)
	for i := 0; i < len(partitions); {
		t, j := partitions[i].Topic, i+1
		for j < len(partitions) && partitions[j].Topic == t {
			j++
		}
		counts[t] += int32(min(j-i, assign.MaxPartitions+1))
		i = j
	}
	seen := make(map[string][]bool, len(counts))
	for t, n := range counts {
		if n > assign.MaxPartitions {
			return nil, fmt.Errorf("topic %q: %w", t, ErrPartitionIDs)
		}
		seen[t] = make([]bool, n)
	}
	var s []bool
	for i := range partitions {
		p := &partitions[i]
		if i == 0 || p.Topic != partitions[i-1].Topic {
			s = seen[p.Topic]
		}
		if p.ID < 0 || p.ID >= len(s) || s[p.ID] {
			return nil, fmt.Errorf("topic %q: partition %d of %d listed: %w", p.Topic, p.ID, len(s), ErrPartitionIDs)
		}
		s[p.ID] = true
	}
	return counts, nil
}

// replicaRacks returns the racks of each partition's replicas (each rack
// once, in replica order) for partitions, already checked by
// partitionCounts, or nil when no replica has a rack.
func replicaRacks(partitions []kafka.Partition, counts map[string]int32) map[string][][]string {
	if !slices.ContainsFunc(partitions, func(p kafka.Partition) bool {
		return slices.ContainsFunc(p.Replicas, func(b kafka.Broker) bool { return b.Rack != "" })
	}) {
		return nil
	}
	racks := make(map[string][][]string, len(counts))
	for t, n := range counts {
		racks[t] = make([][]string, n)
	}
	for _, p := range partitions {
		r := []string{}
		for _, br := range p.Replicas {
			if br.Rack != "" && !slices.Contains(r, br.Rack) {
				r = append(r, br.Rack)
			}
		}
		racks[p.Topic][p.ID] = r
	}
	return racks
}

// The lines of kafka-go's consumer group and Reader that say what the group
// assigned a member (kafka-go v0.4.51: consumergroup.go nextGeneration and
// reader.go subscribe).
const (
	joinedLine     = "Joined group %s as member %s in generation %d"
	subscribedLine = "subscribed to topics and partitions: %+v"
)

// Logger returns a logger for [kafka.ReaderConfig.Logger] that passes every
// line on to next (when next is not nil) and, on the way, learns from the
// Reader's log what the group assigned the member and in which generation,
// for the member's next JoinGroup (see the package documentation). It
// keeps nothing but that. A Reader without an ErrorLogger sends its errors
// to its Logger too: with a nil next they are dropped, as they are without
// a Logger.
func (b *GroupBalancer) Logger(next kafka.Logger) kafka.Logger {
	return kafka.LoggerFunc(func(msg string, args ...any) {
		b.observe(msg, args)
		if next != nil {
			next.Printf(msg, args...)
		}
	})
}

// observe reads one log line. The consumer group logs joinedLine before its
// SyncGroup and the Reader logs subscribedLine once it has the generation,
// so the assignment is paired with the generation it came in. (Should a
// generation end before the Reader subscribes to it, the next JoinGroup
// may go out with the history of the one before: stickiness is lost for
// that round, not safety, since eager members own nothing while they join.)
func (b *GroupBalancer) observe(msg string, args []any) {
	b.mu.Lock()
	b.heard = true
	b.mu.Unlock()
	switch msg {
	case joinedLine:
		if len(args) == 3 {
			if gen, ok := args[2].(int32); ok {
				b.mu.Lock()
				b.joined = gen
				b.mu.Unlock()
			}
		}
	case subscribedLine:
		if len(args) == 1 {
			if tps, ok := subscribed(args[0]); ok {
				b.mu.Lock()
				b.last, b.lastGen = tps, b.joined
				b.mu.Unlock()
			}
		}
	}
}

// subscribed reads the argument of the Reader's subscribedLine: a map whose
// keys are structs with a string field topic and an integer field
// partition. It reports false for anything else, so that a kafka-go that
// logs differently costs stickiness, not correctness.
func subscribed(arg any) ([]assign.TopicPartition, bool) {
	v := reflect.ValueOf(arg)
	if v.Kind() != reflect.Map || v.Type().Key().Kind() != reflect.Struct {
		return nil, false
	}
	kt := v.Type().Key()
	tf, ok1 := kt.FieldByName("topic")
	pf, ok2 := kt.FieldByName("partition")
	if !ok1 || !ok2 || tf.Type.Kind() != reflect.String || !pf.Type.ConvertibleTo(reflect.TypeFor[int64]()) {
		return nil, false
	}
	tps := make([]assign.TopicPartition, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		k := it.Key()
		p := k.FieldByIndex(pf.Index).Int()
		if p < 0 || p > 1<<31-1 {
			return nil, false
		}
		tps = append(tps, assign.TopicPartition{Topic: k.FieldByIndex(tf.Index).String(), Partition: int32(p)})
	}
	slices.SortFunc(tps, assign.TopicPartition.Compare)
	return tps, true
}

// Assigned tells the balancer what the group assigned its member in gen,
// for programs that run a [kafka.ConsumerGroup] themselves: call it with
// every generation [kafka.ConsumerGroup.Next] returns. Readers need not: see
// [GroupBalancer.Logger].
func (b *GroupBalancer) Assigned(gen *kafka.Generation) {
	if gen == nil {
		return
	}
	var tps []assign.TopicPartition
	for t, ps := range gen.Assignments {
		for _, p := range ps {
			tps = append(tps, assign.TopicPartition{Topic: t, Partition: int32(p.ID)})
		}
	}
	slices.SortFunc(tps, assign.TopicPartition.Compare)
	b.mu.Lock()
	b.last, b.lastGen, b.joined = slices.Compact(tps), gen.ID, gen.ID
	b.heard = true
	b.mu.Unlock()
}
