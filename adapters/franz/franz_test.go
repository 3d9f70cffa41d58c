package franz_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assigncalc/assigncalc/adapters/franz"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// The expected bytes and assignments in this file come from franz-go's own
// balancers and kmsg codecs (an implementation independent of ours), from
// Kafka's schema written out by hand, or from the worked examples of
// Kafka's documentation.

func TestProtocolNameAndCooperative(t *testing.T) {
	for _, s := range assign.Strategies() {
		b := franz.MustBalancer(s)
		if b.ProtocolName() != s.Name() {
			t.Errorf("Balancer(%s).ProtocolName() = %q", s.Name(), b.ProtocolName())
		}
		want := s.Name() == "cooperative-sticky"
		if b.IsCooperative() != want {
			t.Errorf("Balancer(%s).IsCooperative() = %v, want %v", s.Name(), b.IsCooperative(), want)
		}
	}
}

// For the eager strategies, kgo writes the subscription Java writes: the
// bytes must be the same as those of kgo's balancer of the same name.
func TestJoinGroupMetadataMatchesKgo(t *testing.T) {
	topics := []string{"orders", "payments"}
	current := map[string][]int32{"payments": {1}, "orders": {0, 2}}
	for _, c := range []struct {
		s    assign.Strategy
		kgo  kgo.GroupBalancer
		curr map[string][]int32
	}{
		{assign.Range{}, kgo.RangeBalancer(), nil},
		{assign.RoundRobin{}, kgo.RoundRobinBalancer(), nil},
		// kgo's eager sticky writes user data even before the first
		// assignment; Java (and we) write none then. Compare once there
		// is an assignment.
		{assign.Sticky{}, kgo.StickyBalancer(), current},
	} {
		t.Run(c.s.Name(), func(t *testing.T) {
			want := c.kgo.JoinGroupMetadata(topics, c.curr, 7)
			got := franz.MustBalancer(c.s).JoinGroupMetadata(topics, c.curr, 7)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("JoinGroupMetadata mismatch (-kgo +ours):\n%s", d)
			}
		})
	}
}

// Cooperative-sticky: Kafka's ConsumerProtocolSubscription v3, with
// CooperativeStickyAssignor's user data (the generation as a bare int32),
// written out by hand from the schema.
func TestJoinGroupMetadataCooperativeSticky(t *testing.T) {
	want := []byte{
		0, 3, // version
		0, 0, 0, 1, 0, 1, 'a', // topics ["a"]
		0, 0, 0, 4, 0, 0, 0, 5, // user_data: generation 5
		0, 0, 0, 1, 0, 1, 'a', 0, 0, 0, 1, 0, 0, 0, 1, // owned_partitions a[1]
		0, 0, 0, 5, // generation_id
		0xff, 0xff, // rack_id null
	}
	got := franz.MustBalancer(assign.CooperativeSticky{}).JoinGroupMetadata([]string{"a"}, map[string][]int32{"a": {1}}, 5)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("JoinGroupMetadata mismatch (-want +got):\n%s", d)
	}
}

// kgo forgets an eager member's assignment when it revokes it before
// rejoining, and passes no current assignment; the sticky balancer must
// still send what it was assigned last, as Java's StickyAssignor does.
func TestStickyRemembersWhatKgoForgets(t *testing.T) {
	b := franz.MustBalancer(assign.Sticky{})
	first := decodeMeta(t, b.JoinGroupMetadata([]string{"a", "b"}, nil, -1))
	if first.UserData != nil {
		t.Errorf("first JoinGroup: user data %v, want null", first.UserData)
	}

	sync := kmsg.ConsumerMemberAssignment{Topics: []kmsg.ConsumerMemberAssignmentTopic{
		{Topic: "a", Partitions: []int32{2, 0}},
		{Topic: "b", Partitions: []int32{1}},
	}}
	got, err := b.ParseSyncAssignment(sync.AppendTo(nil))
	if err != nil {
		t.Fatalf("ParseSyncAssignment: %v", err)
	}
	if d := cmp.Diff(map[string][]int32{"a": {2, 0}, "b": {1}}, got); d != "" {
		t.Errorf("ParseSyncAssignment mismatch (-want +got):\n%s", d)
	}

	next := decodeMeta(t, b.JoinGroupMetadata([]string{"a", "b"}, nil, 4))
	var ud kmsg.StickyMemberMetadata
	if err := ud.ReadFrom(next.UserData); err != nil {
		t.Fatalf("sticky user data: %v", err)
	}
	want := kmsg.StickyMemberMetadata{
		CurrentAssignment: []kmsg.StickyMemberMetadataCurrentAssignment{
			{Topic: "a", Partitions: []int32{0, 2}},
			{Topic: "b", Partitions: []int32{1}},
		},
		Generation: 4,
	}
	if d := cmp.Diff(want, ud); d != "" {
		t.Errorf("sticky user data mismatch (-want +got):\n%s", d)
	}
	if len(next.OwnedPartitions) != 0 {
		t.Errorf("eager sticky sent owned partitions %v; an eager member owns nothing when it rejoins", next.OwnedPartitions)
	}
}

func decodeMeta(t *testing.T, b []byte) kmsg.ConsumerMemberMetadata {
	t.Helper()
	var m kmsg.ConsumerMemberMetadata
	if err := m.ReadFrom(b); err != nil {
		t.Fatalf("kmsg.ConsumerMemberMetadata.ReadFrom: %v", err)
	}
	return m
}

// lead runs the leader's side as kgo does: MemberBalancer, then
// BalanceOrError, and decodes the SyncGroup assignments with kgo.
func lead(t *testing.T, b kgo.GroupBalancer, members []kmsg.JoinGroupResponseMember, counts map[string]int32, info *kgo.BalanceInfo) map[string]map[string][]int32 {
	t.Helper()
	mb, topics, err := b.MemberBalancer(members)
	if err != nil {
		t.Fatalf("MemberBalancer: %v", err)
	}
	wantTopics := make(map[string]struct{})
	for t := range counts {
		wantTopics[t] = struct{}{}
	}
	if d := cmp.Diff(wantTopics, topics); d != "" {
		t.Errorf("MemberBalancer topics mismatch (-want +got):\n%s", d)
	}
	if info != nil {
		mb.(kgo.GroupMemberBalancerInfo).SetBalanceInfo(*info)
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(counts)
	if err != nil {
		t.Fatalf("BalanceOrError: %v", err)
	}
	out := make(map[string]map[string][]int32)
	for _, sa := range into.IntoSyncAssignment() {
		a, err := kgo.ParseConsumerSyncAssignment(sa.MemberAssignment)
		if err != nil {
			t.Fatalf("member %s: %v", sa.MemberID, err)
		}
		out[sa.MemberID] = a
	}
	return out
}

func member(id string, meta []byte) kmsg.JoinGroupResponseMember {
	return kmsg.JoinGroupResponseMember{MemberID: id, ProtocolMetadata: meta}
}

// The worked example of Kafka's RangeAssignor and RoundRobinAssignor
// javadoc: C0 and C1 both subscribe to t0 and t1, three partitions each.
// Subscriptions are written by kgo's own balancers.
func TestLeaderKafkaExamples(t *testing.T) {
	topics := []string{"t0", "t1"}
	counts := map[string]int32{"t0": 3, "t1": 3}
	for _, c := range []struct {
		s    assign.Strategy
		meta []byte
		want map[string]map[string][]int32
	}{
		{assign.Range{}, kgo.RangeBalancer().JoinGroupMetadata(topics, nil, -1), map[string]map[string][]int32{
			"C0": {"t0": {0, 1}, "t1": {0, 1}},
			"C1": {"t0": {2}, "t1": {2}},
		}},
		{assign.RoundRobin{}, kgo.RoundRobinBalancer().JoinGroupMetadata(topics, nil, -1), map[string]map[string][]int32{
			"C0": {"t0": {0, 2}, "t1": {1}},
			"C1": {"t0": {1}, "t1": {0, 2}},
		}},
	} {
		t.Run(c.s.Name(), func(t *testing.T) {
			got := lead(t, franz.MustBalancer(c.s), []kmsg.JoinGroupResponseMember{member("C0", c.meta), member("C1", c.meta)}, counts, nil)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("%s mismatch (-want +got):\n%s", c.s.Name(), d)
			}
		})
	}
}

// A leader using our cooperative-sticky reads the ownership kgo's own
// cooperative-sticky members send: C0 owns t0 and C1 owns t1 (generation
// 3) when C2 joins. Each must keep two of its partitions, and C2 gets
// nothing until the others have revoked what it will get.
func TestLeaderReadsKgoCooperativeOwnership(t *testing.T) {
	topics := []string{"t0", "t1"}
	coop := kgo.CooperativeStickyBalancer()
	members := []kmsg.JoinGroupResponseMember{
		member("C0", coop.JoinGroupMetadata(topics, map[string][]int32{"t0": {0, 1, 2}}, 3)),
		member("C1", coop.JoinGroupMetadata(topics, map[string][]int32{"t1": {0, 1, 2}}, 3)),
		member("C2", coop.JoinGroupMetadata(topics, nil, -1)),
	}
	got := lead(t, franz.MustBalancer(assign.CooperativeSticky{}), members, map[string]int32{"t0": 3, "t1": 3}, nil)
	if n := len(got["C0"]["t0"]); n != 2 || len(got["C0"]) != 1 {
		t.Errorf("C0 got %v, want two partitions of t0", got["C0"])
	}
	if n := len(got["C1"]["t1"]); n != 2 || len(got["C1"]) != 1 {
		t.Errorf("C1 got %v, want two partitions of t1", got["C1"])
	}
	if len(got["C2"]) != 0 {
		t.Errorf("C2 got %v in the first round, want nothing", got["C2"])
	}
}

// KIP-881: members declare racks (kgo injects them into the subscription),
// the brokers have racks, and the leader hands Range the racks of each
// partition's replicas. Partition 0 lives on rack b and partition 1 on rack
// a, so C0 (rack a) gets partition 1 and C1 (rack b) partition 0, the
// reverse of the rackless ranges.
func TestLeaderPassesReplicaRacks(t *testing.T) {
	metaOn := func(rack string) []byte {
		m := decodeMeta(t, franz.MustBalancer(assign.Range{}).JoinGroupMetadata([]string{"t"}, nil, -1))
		m.Rack = &rack
		return m.AppendTo(nil)
	}
	members := []kmsg.JoinGroupResponseMember{member("C0", metaOn("a")), member("C1", metaOn("b"))}
	counts := map[string]int32{"t": 2}
	rackA, rackB := "a", "b"
	info := &kgo.BalanceInfo{
		Topics: func() map[string]kgo.TopicMetadata {
			return map[string]kgo.TopicMetadata{"t": {Topic: "t", Partitions: []kgo.PartitionMetadata{
				{Topic: "t", Partition: 0, Replicas: []int32{2}},
				{Topic: "t", Partition: 1, Replicas: []int32{1}},
			}}}
		},
		Brokers: func() map[int32]kgo.BrokerMetadata {
			return map[int32]kgo.BrokerMetadata{1: {NodeID: 1, Rack: &rackA}, 2: {NodeID: 2, Rack: &rackB}}
		},
	}
	want := map[string]map[string][]int32{"C0": {"t": {1}}, "C1": {"t": {0}}}
	got := lead(t, franz.MustBalancer(assign.Range{}), members, counts, info)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("racked Range mismatch (-want +got):\n%s", d)
	}

	// Metadata that does not list the topic's partitions exactly (here
	// stale: one partition) is not used: plain ranges.
	stale := *info
	stale.Topics = func() map[string]kgo.TopicMetadata {
		return map[string]kgo.TopicMetadata{"t": {Topic: "t", Partitions: []kgo.PartitionMetadata{
			{Topic: "t", Partition: 1, Replicas: []int32{1}},
		}}}
	}
	want = map[string]map[string][]int32{"C0": {"t": {0}}, "C1": {"t": {1}}}
	got = lead(t, franz.MustBalancer(assign.Range{}), members, counts, &stale)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Range with stale metadata mismatch (-want +got):\n%s", d)
	}
}

// Metadata that cannot be read fails the round, not the JoinGroup (kgo
// would retry that for ever): every member is assigned nothing, and the
// error, naming the member, is reported once.
func TestLeaderRefusesBadMetadata(t *testing.T) {
	good := kgo.RangeBalancer().JoinGroupMetadata([]string{"t"}, nil, -1)
	for name, bad := range map[string][]byte{
		"empty":              {},
		"truncated":          good[:len(good)-3],
		"negative count":     {0, 0, 0xff, 0xff, 0xff, 0xfe},
		"huge topic count":   {0, 0, 0x7f, 0xff, 0xff, 0xff},
		"negative version":   {0xff, 0xff, 0, 0, 0, 0},
		"v1 cut in a string": {0, 1, 0, 0, 0, 1, 0, 5, 'a'},
	} {
		t.Run(name, func(t *testing.T) {
			var reports []error
			b := franz.MustBalancer(assign.Range{}, franz.OnError(func(err error) { reports = append(reports, err) }))
			got := lead(t, b, []kmsg.JoinGroupResponseMember{member("C0", good), member("C1", bad)}, nil, nil)
			if d := cmp.Diff(map[string]map[string][]int32{"C0": {}, "C1": {}}, got); d != "" {
				t.Errorf("assignments mismatch (-want +got):\n%s", d)
			}
			var me *wire.MemberError
			if len(reports) != 1 || !errors.As(reports[0], &me) || me.MemberID != "C1" {
				t.Fatalf("reports %v, want one *wire.MemberError for C1", reports)
			}
		})
	}
}

// Some clients declared subscription version 1 without writing its owned
// partitions (franz-go #493); kgo and sarama read such metadata as version
// 0, and so do we.
func TestLeaderReadsShortV1AsV0(t *testing.T) {
	v0 := kmsg.ConsumerMemberMetadata{Version: 0, Topics: []string{"t"}}
	short := v0.AppendTo(nil)
	short[1] = 1
	got := lead(t, franz.MustBalancer(assign.Range{}), []kmsg.JoinGroupResponseMember{member("C0", short)}, map[string]int32{"t": 2}, nil)
	if d := cmp.Diff(map[string]map[string][]int32{"C0": {"t": {0, 1}}}, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// A broker that lists a member twice: the first listing counts, as in kgo.
func TestLeaderKeepsFirstOfDuplicateMember(t *testing.T) {
	meta := kgo.RangeBalancer().JoinGroupMetadata([]string{"t"}, nil, -1)
	members := []kmsg.JoinGroupResponseMember{member("C0", meta), member("C0", meta), member("C1", meta)}
	got := lead(t, franz.MustBalancer(assign.Range{}), members, map[string]int32{"t": 4}, nil)
	want := map[string]map[string][]int32{"C0": {"t": {0, 1}}, "C1": {"t": {2, 3}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

// A group the strategy refuses (two members claiming one
// group.instance.id) is assigned nothing, every member listed, and the
// strategy's error is reported once, with the generation kgo gave.
func TestLeaderReportsStrategyErrors(t *testing.T) {
	meta := kgo.RangeBalancer().JoinGroupMetadata([]string{"t"}, nil, -1)
	inst := "i"
	members := []kmsg.JoinGroupResponseMember{
		{MemberID: "C0", InstanceID: &inst, ProtocolMetadata: meta},
		{MemberID: "C1", InstanceID: &inst, ProtocolMetadata: meta},
	}
	var reports []error
	b := franz.MustBalancer(assign.Range{}, franz.OnError(func(err error) { reports = append(reports, err) }))
	got := lead(t, b, members, map[string]int32{"t": 1}, &kgo.BalanceInfo{Group: "g", Generation: 7})
	if d := cmp.Diff(map[string]map[string][]int32{"C0": {}, "C1": {}}, got); d != "" {
		t.Errorf("assignments mismatch (-want +got):\n%s", d)
	}
	if len(reports) != 1 || !errors.Is(reports[0], assign.ErrDuplicateInstanceID) || !strings.Contains(reports[0].Error(), "generation 7") {
		t.Errorf("reports %v, want one ErrDuplicateInstanceID naming generation 7", reports)
	}
}

// A nil strategy, a nil pointer and the group coordinator's strategies are
// refused when the balancer is built, not at the first JoinGroup (where
// kgo crashed on the nil and looped for ever on the server-side ones).
func TestBalancerRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		s    assign.Strategy
		want error
	}{
		{"nil", nil, franz.ErrNilStrategy},
		{"nil pointer", (*assign.Sticky)(nil), franz.ErrNilStrategy},
		{"uniform", assign.Uniform{}, franz.ErrServerAssigned},
		{"server-range", assign.ServerRange{}, franz.ErrServerAssigned},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := franz.Balancer(c.s)
			if !errors.Is(err, c.want) || b != nil {
				t.Errorf("Balancer: %v, %v; want nil, %v", b, err, c.want)
			}
			defer func() {
				r := recover()
				if perr, ok := r.(error); !ok || !errors.Is(perr, c.want) {
					t.Errorf("MustBalancer panicked with %v, want %v", r, c.want)
				}
			}()
			franz.MustBalancer(c.s)
		})
	}
	if _, err := franz.Balancer(assign.Sticky{}); err != nil {
		t.Errorf("Balancer(Sticky): %v", err)
	}
}

// One sticky balancer shared by two clients sends the same history for
// both, whichever synced last: the leader reports it, once, and still
// assigns. Identical claims without a generation (StickyAssignor's user
// data version 0) may be honest history of different generations and are
// not reported; nor are claims that differ.
func TestLeaderReportsSharedBalancer(t *testing.T) {
	sticky := func(gen int32, ps ...int32) []byte {
		ud := kmsg.StickyMemberMetadata{CurrentAssignment: []kmsg.StickyMemberMetadataCurrentAssignment{{Topic: "t", Partitions: ps}}, Generation: gen}
		return (&kmsg.ConsumerMemberMetadata{Topics: []string{"t"}, UserData: ud.AppendTo(nil)}).AppendTo(nil)
	}
	for _, c := range []struct {
		name   string
		c0, c1 []byte
		shared bool
	}{
		{"same history", sticky(3, 0, 1), sticky(3, 0, 1), true},
		{"different partitions", sticky(3, 0, 1), sticky(3, 2, 3), false},
		{"different generations", sticky(3, 0, 1), sticky(2, 0, 1), false},
		{"no generation", sticky(-1, 0, 1), sticky(-1, 0, 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reports []error
			b := franz.MustBalancer(assign.Sticky{}, franz.OnError(func(err error) { reports = append(reports, err) }))
			got := lead(t, b, []kmsg.JoinGroupResponseMember{member("C0", c.c0), member("C1", c.c1)}, map[string]int32{"t": 4}, nil)
			if n := len(got["C0"]["t"]) + len(got["C1"]["t"]); n != 4 {
				t.Errorf("assigned %d partitions, want 4: %v", n, got)
			}
			if c.shared && (len(reports) != 1 || !errors.Is(reports[0], franz.ErrShared)) || !c.shared && len(reports) != 0 {
				t.Errorf("reports %v, want ErrShared: %v", reports, c.shared)
			}
		})
	}
}

func TestParseSyncAssignmentRefusesGarbage(t *testing.T) {
	_, err := franz.MustBalancer(assign.Range{}).ParseSyncAssignment([]byte{0, 0, 0, 0, 0, 9})
	var de *wire.DecodeError
	if !errors.As(err, &de) {
		t.Errorf("ParseSyncAssignment: %v, want a *wire.DecodeError", err)
	}
}

// custom is a cooperative strategy under a name Kafka does not know.
type custom struct{ assign.CooperativeSticky }

func (custom) Name() string { return "custom-cooperative" }

// A cooperative strategy of another name reads ownership from the
// subscription's owned partitions (see wire.GroupFromJoin), so its members
// must send them, as Java's ConsumerCoordinator does for every cooperative
// assignor.
func TestCustomCooperativeSendsOwnedPartitions(t *testing.T) {
	b := franz.MustBalancer(custom{})
	if !b.IsCooperative() || b.ProtocolName() != "custom-cooperative" {
		t.Fatalf("Balancer(custom): %q, cooperative %v", b.ProtocolName(), b.IsCooperative())
	}
	meta := decodeMeta(t, b.JoinGroupMetadata([]string{"a"}, map[string][]int32{"a": {2, 0}}, 6))
	want := []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "a", Partitions: []int32{0, 2}}}
	if d := cmp.Diff(want, meta.OwnedPartitions); d != "" || meta.Generation != 6 {
		t.Errorf("owned partitions mismatch (-want +got):\n%s\ngeneration %d, want 6", d, meta.Generation)
	}
	got := lead(t, b, []kmsg.JoinGroupResponseMember{
		member("C0", b.JoinGroupMetadata([]string{"a"}, map[string][]int32{"a": {0, 1, 2}}, 6)),
	}, map[string]int32{"a": 3}, nil)
	if d := cmp.Diff(map[string]map[string][]int32{"C0": {"a": {0, 1, 2}}}, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}
