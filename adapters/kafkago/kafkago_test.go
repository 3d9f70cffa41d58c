package kafkago

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/segmentio/kafka-go"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// topicPartition has the shape of the key of the map kafka-go's Reader logs
// in subscribedLine (reader.go, type topicPartition).
type topicPartition struct {
	topic     string
	partition int32
}

// tps builds a sorted partition list from "topic", partition, ... pairs.
func tps(pairs ...any) []assign.TopicPartition {
	var out []assign.TopicPartition
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, assign.TopicPartition{Topic: pairs[i].(string), Partition: int32(pairs[i+1].(int))})
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return out
}

// fromKafkaGo turns AssignGroups' answer into an assign.Assignment.
func fromKafkaGo(a kafka.GroupMemberAssignments) assign.Assignment {
	out := make(assign.Assignment, len(a))
	for id, topics := range a {
		var l []assign.TopicPartition
		for t, ps := range topics {
			for _, p := range ps {
				l = append(l, assign.TopicPartition{Topic: t, Partition: int32(p)})
			}
		}
		slices.SortFunc(l, assign.TopicPartition.Compare)
		out[id] = l
	}
	return out
}

// partitionsOf lists the metadata of topics (name => count), with the
// replicas of partition p of a topic on brokers p%len(racks) and
// (p+1)%len(racks), in racks racks[...], when racks is not empty.
func partitionsOf(topics map[string]int, racks []string) []kafka.Partition {
	var out []kafka.Partition
	for _, t := range []string{"t0", "t1", "t2"} {
		for p := range topics[t] {
			kp := kafka.Partition{Topic: t, ID: p}
			for i := range min(2, len(racks)) {
				id := (p + i) % len(racks)
				kp.Replicas = append(kp.Replicas, kafka.Broker{ID: id, Rack: racks[id]})
			}
			out = append(out, kp)
		}
	}
	return out
}

func stickyUserData(t *testing.T, owned []assign.TopicPartition, gen int32) []byte {
	t.Helper()
	b, err := wire.StickyUserData{Version: 1, Previous: owned, Generation: gen}.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAssignGroupsIsAssign checks the leader's side: for the members and
// metadata kafka-go hands AssignGroups, the answer is what the strategy
// computes for the same group written out by hand, every member included.
func TestAssignGroupsIsAssign(t *testing.T) {
	counts := map[string]int{"t0": 5, "t1": 3, "t2": 2}
	topics32 := map[string]int32{"t0": 5, "t1": 3, "t2": 2}
	// The sticky history: c1 and c2 owned parts of t0 and t1 in generation
	// 4; c0 is new; c3 claims t0-0 from generation 3, which c1's newer
	// claim beats.
	c1Owned := tps("t0", 0, "t0", 1, "t0", 2, "t1", 0)
	c2Owned := tps("t0", 3, "t0", 4, "t1", 1, "t1", 2)
	c3Owned := tps("t0", 0)
	tests := []struct {
		s       assign.Strategy
		members []kafka.GroupMember
		want    assign.Group
	}{{
		s: assign.Range{},
		members: []kafka.GroupMember{
			{ID: "c2", Topics: []string{"t0", "t1"}},
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}},
			{ID: "c1", Topics: []string{"t1", "t0"}},
		},
		want: assign.Group{Topics: topics32, Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}, Generation: -1},
			{ID: "c1", Topics: []string{"t0", "t1"}, Generation: -1},
			{ID: "c2", Topics: []string{"t0", "t1"}, Generation: -1},
		}},
	}, {
		s: assign.RoundRobin{},
		members: []kafka.GroupMember{
			{ID: "c1", Topics: []string{"t0", "t2"}},
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}},
		},
		want: assign.Group{Topics: topics32, Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}, Generation: -1},
			{ID: "c1", Topics: []string{"t0", "t2"}, Generation: -1},
		}},
	}, {
		s: assign.Sticky{},
		members: []kafka.GroupMember{
			{ID: "c3", Topics: []string{"t0", "t1", "t2"}, UserData: stickyUserData(t, c3Owned, 3)},
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}},
			{ID: "c2", Topics: []string{"t0", "t1", "t2"}, UserData: stickyUserData(t, c2Owned, 4)},
			{ID: "c1", Topics: []string{"t0", "t1", "t2"}, UserData: stickyUserData(t, c1Owned, 4)},
		},
		want: assign.Group{Topics: topics32, Members: []assign.Member{
			{ID: "c0", Topics: []string{"t0", "t1", "t2"}, Generation: -1},
			{ID: "c1", Topics: []string{"t0", "t1", "t2"}, Owned: c1Owned, Generation: 4},
			{ID: "c2", Topics: []string{"t0", "t1", "t2"}, Owned: c2Owned, Generation: 4},
			{ID: "c3", Topics: []string{"t0", "t1", "t2"}, Owned: c3Owned, Generation: 3},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.s.Name(), func(t *testing.T) {
			want, err := tt.s.Assign(tt.want)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Balancer(tt.s, OnError(func(err error) { t.Errorf("OnError(%v)", err) }))
			if err != nil {
				t.Fatal(err)
			}
			// Interleave the topics' partitions: kafka-go lists them
			// topic by topic, but nothing promises it.
			parts := partitionsOf(counts, nil)
			slices.SortStableFunc(parts, func(x, y kafka.Partition) int { return x.ID - y.ID })
			got := fromKafkaGo(b.AssignGroups(tt.members, parts))
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("AssignGroups mismatch (-want +got):\n%s", d)
			}
			if err := assign.Verify(tt.want, got); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestStickyKeepsOwnedPartitions checks, without the strategy's help, that
// a sticky leader keeps every member's partitions when nothing changes:
// members report their previous assignments through the balancer's user
// data, learnt from the lines a Reader logs, and the leader hands each the
// same back.
func TestStickyKeepsOwnedPartitions(t *testing.T) {
	owned := map[string][]assign.TopicPartition{
		"a": tps("t0", 0, "t0", 3, "t1", 2),
		"b": tps("t0", 1, "t0", 4, "t1", 0),
		"c": tps("t0", 2, "t1", 1),
	}
	var members []kafka.GroupMember
	for _, id := range []string{"a", "b", "c"} {
		b, err := Balancer(assign.Sticky{})
		if err != nil {
			t.Fatal(err)
		}
		logged := map[topicPartition]int64{}
		for _, tp := range owned[id] {
			logged[topicPartition{tp.Topic, tp.Partition}] = -2
		}
		log := b.Logger(nil)
		log.Printf(joinedLine, "g", id, int32(7))
		log.Printf(subscribedLine, logged)
		ud, err := b.UserData()
		if err != nil {
			t.Fatal(err)
		}
		d, err := wire.DecodeStickyUserData(ud)
		if err != nil {
			t.Fatalf("%s: user data %x: %v", id, ud, err)
		}
		if d.Generation != 7 || !slices.Equal(d.Previous, owned[id]) {
			t.Errorf("%s: user data says %v in generation %d; want %v in 7", id, d.Previous, d.Generation, owned[id])
		}
		members = append(members, kafka.GroupMember{ID: id, Topics: []string{"t0", "t1"}, UserData: ud})
	}
	leader, err := Balancer(assign.Sticky{})
	if err != nil {
		t.Fatal(err)
	}
	got := fromKafkaGo(leader.AssignGroups(members, partitionsOf(map[string]int{"t0": 5, "t1": 3}, nil)))
	if d := cmp.Diff(assign.Assignment(owned), got); d != "" {
		t.Errorf("a group that did not change moved partitions (-owned +got):\n%s", d)
	}
}

// TestUserData checks what a member sends: nothing before its first
// assignment, then its last assignment and generation, whether learnt from
// the Reader's log or from a kafka.Generation; and nothing for range and
// roundrobin unless a rack is set.
func TestUserData(t *testing.T) {
	b, err := Balancer(assign.Sticky{})
	if err != nil {
		t.Fatal(err)
	}
	if ud, err := b.UserData(); ud != nil || err != nil {
		t.Errorf("first UserData() = %x, %v; want nil, nil", ud, err)
	}
	var lines []string
	log := b.Logger(kafka.LoggerFunc(func(f string, args ...any) { lines = append(lines, fmt.Sprintf(f, args...)) }))
	log.Printf(joinedLine, "g", "m", int32(3))
	log.Printf(subscribedLine, map[topicPartition]int64{{"t1", 2}: 10, {"t0", 5}: -2})
	log.Printf("unrelated %d", 1)
	if len(lines) != 3 {
		t.Errorf("the next logger got %d lines, want 3: %q", len(lines), lines)
	}
	want := wire.StickyUserData{Version: 1, Previous: tps("t0", 5, "t1", 2), Generation: 3}
	checkUserData(t, "after the Reader's log", b, want)

	// An empty assignment in generation 4 is history too.
	log.Printf(joinedLine, "g", "m", int32(4))
	log.Printf(subscribedLine, map[topicPartition]int64{})
	checkUserData(t, "after an empty assignment", b, wire.StickyUserData{Version: 1, Generation: 4})

	// A line of another shape is ignored.
	log.Printf(joinedLine, "g", "m", int32(5))
	log.Printf(subscribedLine, map[string]int64{"t0": 1})
	checkUserData(t, "after a line of another shape", b, wire.StickyUserData{Version: 1, Generation: 4})

	b.Assigned(&kafka.Generation{ID: 9, Assignments: map[string][]kafka.PartitionAssignment{"t2": {{ID: 1}, {ID: 0}}}})
	checkUserData(t, "after Assigned", b, wire.StickyUserData{Version: 1, Previous: tps("t2", 0, "t2", 1), Generation: 9})

	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}} {
		b, err := Balancer(s)
		if err != nil {
			t.Fatal(err)
		}
		if ud, err := b.UserData(); ud != nil || err != nil {
			t.Errorf("%s: UserData() = %x, %v; want nil, nil", s.Name(), ud, err)
		}
		b, err = Balancer(s, Rack("eu-1a"))
		if err != nil {
			t.Fatal(err)
		}
		if ud, err := b.UserData(); string(ud) != "eu-1a" || err != nil {
			t.Errorf("%s with Rack: UserData() = %q, %v; want \"eu-1a\", nil", s.Name(), ud, err)
		}
	}
}

func checkUserData(t *testing.T, what string, b *GroupBalancer, want wire.StickyUserData) {
	t.Helper()
	ud, err := b.UserData()
	if err != nil {
		t.Fatalf("%s: UserData: %v", what, err)
	}
	got, err := wire.DecodeStickyUserData(ud)
	if err != nil {
		t.Fatalf("%s: user data %x: %v", what, ud, err)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%s: user data mismatch (-want +got):\n%s", what, d)
	}
}

func TestBalancerRefuses(t *testing.T) {
	tests := []struct {
		name string
		s    assign.Strategy
		opts []Option
		want error
	}{
		{"cooperative-sticky", assign.CooperativeSticky{}, nil, ErrCooperative},
		{"sticky with a rack", assign.Sticky{}, []Option{Rack("a")}, ErrRackSticky},
		{"nil", nil, nil, ErrNilStrategy},
		{"nil pointer", (*assign.Sticky)(nil), nil, ErrNilStrategy},
		{"uniform", assign.Uniform{}, nil, ErrServerAssigned},
		{"server-range", assign.ServerRange{}, nil, ErrServerAssigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Balancer(tt.s, tt.opts...)
			if !errors.Is(err, tt.want) || b != nil {
				t.Errorf("Balancer = %v, %v; want nil, %v", b, err, tt.want)
			}
			defer func() {
				r := recover()
				if perr, ok := r.(error); !ok || !errors.Is(perr, tt.want) {
					t.Errorf("MustBalancer panicked with %v, want %v", r, tt.want)
				}
			}()
			MustBalancer(tt.s, tt.opts...)
		})
	}
}

// failing is a strategy that refuses every group. It embeds the interface,
// not assign.Range: a struct embedding Range would carry Range's
// unexported fast path, which assign.AssignPacked runs instead of
// failing's Assign.
type failing struct{ assign.Strategy }

var errRefused = errors.New("refused")

func (failing) Assign(assign.Group) (assign.Assignment, error) { return nil, errRefused }

// TestAssignGroupsFailure checks what a leader does when it cannot assign:
// every member, listed twice or not, gets an empty assignment (which
// kafka-go encodes as a valid, empty ConsumerProtocolAssignment), and
// OnError hears why, once.
func TestAssignGroupsFailure(t *testing.T) {
	members := []kafka.GroupMember{
		{ID: "b", Topics: []string{"t0"}},
		{ID: "a", Topics: []string{"t0", "t1"}},
		{ID: "b", Topics: []string{"t0"}},
	}
	gap := partitionsOf(map[string]int{"t0": 4, "t1": 2}, nil)
	gap = slices.DeleteFunc(gap, func(p kafka.Partition) bool { return p.Topic == "t0" && p.ID == 2 })
	tests := []struct {
		name       string
		s          assign.Strategy
		partitions []kafka.Partition
		want       error
	}{
		{"the metadata skips t0-2", assign.Range{}, gap, ErrPartitionIDs},
		{"the metadata lists t1-1 twice", assign.Range{}, append(partitionsOf(map[string]int{"t0": 4, "t1": 2}, nil), kafka.Partition{Topic: "t1", ID: 1}), ErrPartitionIDs},
		{"the strategy refuses", failing{assign.Range{}}, partitionsOf(map[string]int{"t0": 4, "t1": 2}, nil), errRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var errs []error
			b, err := Balancer(tt.s, OnError(func(err error) { errs = append(errs, err) }))
			if err != nil {
				t.Fatal(err)
			}
			got := b.AssignGroups(members, tt.partitions)
			want := kafka.GroupMemberAssignments{"a": {}, "b": {}}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("AssignGroups mismatch (-want +got):\n%s", d)
			}
			if len(errs) != 1 || !errors.Is(errs[0], tt.want) {
				t.Errorf("OnError got %v; want one error wrapping %v", errs, tt.want)
			}
		})
	}
}

// TestRacks checks that range members that declare racks (Rack) get the
// partitions with a replica in their rack (KIP-881), as assign.Range
// computes from the racks the brokers report, and that without member
// racks the leader ignores the brokers' racks.
func TestRacks(t *testing.T) {
	counts := map[string]int{"t0": 6}
	racks := []string{"r0", "r1", "r2"}
	parts := partitionsOf(counts, racks)
	// Replicas of t0-p are on brokers p%3 and (p+1)%3.
	partitionRacks := map[string][][]string{"t0": make([][]string, 6)}
	for p := range 6 {
		partitionRacks["t0"][p] = []string{racks[p%3], racks[(p+1)%3]}
	}
	memberRack := map[string]string{"a": "r2", "b": "r0", "c": ""}
	var members []kafka.GroupMember
	g := assign.Group{Topics: map[string]int32{"t0": 6}, PartitionRacks: partitionRacks}
	for _, id := range []string{"a", "b", "c"} {
		b, err := Balancer(assign.Range{}, Rack(memberRack[id]))
		if err != nil {
			t.Fatal(err)
		}
		ud, _ := b.UserData()
		members = append(members, kafka.GroupMember{ID: id, Topics: []string{"t0"}, UserData: ud})
		g.Members = append(g.Members, assign.Member{ID: id, Rack: memberRack[id], Topics: []string{"t0"}, Generation: -1})
	}
	want, err := assign.Range{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	leader, _ := Balancer(assign.Range{})
	got := fromKafkaGo(leader.AssignGroups(members, parts))
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("AssignGroups mismatch (-want +got):\n%s", d)
	}
	// Independently of the strategy: a (r2) and b (r0) get only partitions
	// with a replica in their rack, which here they can.
	for _, id := range []string{"a", "b"} {
		for _, tp := range got[id] {
			if !slices.Contains(partitionRacks["t0"][tp.Partition], memberRack[id]) {
				t.Errorf("%s in rack %s got %s, with replicas in %v", id, memberRack[id], tp, partitionRacks["t0"][tp.Partition])
			}
		}
	}

	// Without member racks, the answer is the rack-less one.
	plain := slices.Clone(members)
	for i := range plain {
		plain[i].UserData = nil
	}
	g.PartitionRacks = nil
	for i := range g.Members {
		g.Members[i].Rack = ""
	}
	want, err = assign.Range{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	got = fromKafkaGo(leader.AssignGroups(plain, parts))
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("without racks: AssignGroups mismatch (-want +got):\n%s", d)
	}
}

func TestRackOf(t *testing.T) {
	long := make([]byte, maxRack+1)
	for i := range long {
		long[i] = 'a'
	}
	for _, tt := range []struct {
		ud   []byte
		want string
		ok   bool
	}{
		{nil, "", false},
		{[]byte{}, "", false},
		{[]byte("eu-west-1a"), "eu-west-1a", true},
		{[]byte{0xff, 0xfe}, "", false},
		{long, "", false},
	} {
		if got, ok := rackOf(tt.ud); got != tt.want || ok != tt.ok {
			t.Errorf("rackOf(%q) = %q, %v; want %q, %v", tt.ud, got, ok, tt.want, tt.ok)
		}
	}
}

// One sticky balancer shared by two Readers sends the same history for
// both: the leader reports it, once, and still assigns. Identical claims
// without a generation (user data version 0) may be honest history of
// different generations and are not reported; nor are claims that differ.
func TestAssignGroupsReportsSharedBalancer(t *testing.T) {
	v0 := func(ps ...int) []byte {
		var owned []assign.TopicPartition
		for _, p := range ps {
			owned = append(owned, assign.TopicPartition{Topic: "t0", Partition: int32(p)})
		}
		b, err := wire.StickyUserData{Previous: owned, Generation: wire.DefaultGeneration}.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	same := stickyUserData(t, tps("t0", 0, "t0", 1), 3)
	for _, c := range []struct {
		name   string
		c0, c1 []byte
		shared bool
	}{
		{"same history", same, same, true},
		{"different partitions", same, stickyUserData(t, tps("t0", 2, "t0", 3), 3), false},
		{"different generations", same, stickyUserData(t, tps("t0", 0, "t0", 1), 2), false},
		{"no generation", v0(0, 1), v0(0, 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs []error
			b := MustBalancer(assign.Sticky{}, OnError(func(err error) { errs = append(errs, err) }))
			members := []kafka.GroupMember{{ID: "C0", Topics: []string{"t0"}, UserData: c.c0}, {ID: "C1", Topics: []string{"t0"}, UserData: c.c1}}
			got := b.AssignGroups(members, partitionsOf(map[string]int{"t0": 4}, nil))
			if n := len(got["C0"]["t0"]) + len(got["C1"]["t0"]); n != 4 {
				t.Errorf("assigned %d partitions, want 4: %v", n, got)
			}
			if c.shared && (len(errs) != 1 || !errors.Is(errs[0], ErrShared)) || !c.shared && len(errs) != 0 {
				t.Errorf("OnError got %v, want ErrShared: %v", errs, c.shared)
			}
		})
	}
}

// A sticky balancer whose Reader does not log through it (nor calls
// Assigned) reports ErrNoLogger once, at its member's second JoinGroup;
// one that hears a line of the Reader's log, or Assigned, does not.
func TestUserDataReportsMissingLogger(t *testing.T) {
	for _, c := range []struct {
		name string
		hear func(*GroupBalancer)
		want int
	}{
		{"deaf", func(*GroupBalancer) {}, 1},
		{"logger", func(b *GroupBalancer) { b.Logger(nil).Printf("entering loop for consumer group, %v\n", "g") }, 0},
		{"assigned", func(b *GroupBalancer) { b.Assigned(&kafka.Generation{ID: 1}) }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var errs []error
			b := MustBalancer(assign.Sticky{}, OnError(func(err error) { errs = append(errs, err) }))
			c.hear(b)
			for range 4 {
				if _, err := b.UserData(); err != nil {
					t.Fatal(err)
				}
			}
			if len(errs) != c.want || c.want > 0 && !errors.Is(errs[0], ErrNoLogger) {
				t.Errorf("OnError got %v, want %d ErrNoLogger", errs, c.want)
			}
		})
	}
	var errs []error
	b := MustBalancer(assign.Range{}, OnError(func(err error) { errs = append(errs, err) }))
	for range 4 {
		b.UserData()
	}
	if len(errs) != 0 {
		t.Errorf("range: OnError got %v; only sticky keeps history", errs)
	}
}
