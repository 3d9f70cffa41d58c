package assignsarama_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/assigncalc/assigncalc/adapters/assignsarama"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// Expected plans come from the worked examples of Kafka's javadoc, from
// sarama's own strategies (an implementation independent of ours), or from
// package assign run on a group the test builds itself from what each
// member sent; what is compared is then the adapter's plumbing.

// partitions lists 0..n-1, as sarama's client.Partitions does.
func partitions(n int32) []int32 {
	ps := make([]int32, n)
	for i := range ps {
		ps[i] = int32(i)
	}
	return ps
}

func TestPlanKafkaExamples(t *testing.T) {
	meta := sarama.ConsumerGroupMemberMetadata{Version: 3, Topics: []string{"t0", "t1"}, GenerationID: -1}
	members := map[string]sarama.ConsumerGroupMemberMetadata{"C0": meta, "C1": meta}
	topics := map[string][]int32{"t0": partitions(3), "t1": partitions(3)}
	for _, c := range []struct {
		s    assign.Strategy
		want sarama.BalanceStrategyPlan
	}{
		{assign.Range{}, sarama.BalanceStrategyPlan{
			"C0": {"t0": {0, 1}, "t1": {0, 1}},
			"C1": {"t0": {2}, "t1": {2}},
		}},
		{assign.RoundRobin{}, sarama.BalanceStrategyPlan{
			"C0": {"t0": {0, 2}, "t1": {1}},
			"C1": {"t0": {1}, "t1": {0, 2}},
		}},
	} {
		t.Run(c.s.Name(), func(t *testing.T) {
			got, err := assignsarama.MustStrategy(c.s).Plan(members, topics)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("%s plan mismatch (-want +got):\n%s", c.s.Name(), d)
			}
		})
	}
}

// Every member appears in the plan, so that sarama asks AssignmentData
// for each of them, even those that get nothing.
func TestPlanListsIdleMembers(t *testing.T) {
	meta := sarama.ConsumerGroupMemberMetadata{Version: 0, Topics: []string{"t"}}
	members := map[string]sarama.ConsumerGroupMemberMetadata{"C0": meta, "C1": meta}
	got, err := assignsarama.MustStrategy(assign.Range{}).Plan(members, map[string][]int32{"t": partitions(1)})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	want := sarama.BalanceStrategyPlan{"C0": {"t": {0}}, "C1": {}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("plan mismatch (-want +got):\n%s", d)
	}
}

// A leader running our sticky reads the user data sarama's own sticky
// members carry (sarama's AssignmentData, echoed back), and a leader running
// our cooperative-sticky reads the owned partitions and generation sarama
// members send; the plan is what assign computes for that group.
func TestPlanReadsSaramaOwnership(t *testing.T) {
	topics := map[string][]int32{"t0": partitions(3), "t1": partitions(3)}
	counts := map[string]int32{"t0": 3, "t1": 3}
	owned := map[string]map[string][]int32{
		"C0": {"t0": {0, 1, 2}},
		"C1": {"t1": {0, 1, 2}},
		"C2": nil,
	}
	ownedList := func(m map[string][]int32) []assign.TopicPartition {
		var out []assign.TopicPartition
		for _, t := range slices.Sorted(maps.Keys(m)) {
			for _, p := range m[t] {
				out = append(out, assign.TopicPartition{Topic: t, Partition: p})
			}
		}
		return out
	}

	t.Run("sticky", func(t *testing.T) {
		members := make(map[string]sarama.ConsumerGroupMemberMetadata)
		var g assign.Group
		g.Topics = counts
		for _, id := range []string{"C0", "C1", "C2"} {
			meta := sarama.ConsumerGroupMemberMetadata{Version: 1, Topics: []string{"t0", "t1"}}
			m := assign.Member{ID: id, Topics: meta.Topics, Generation: -1}
			if owned[id] != nil {
				ud, err := sarama.NewBalanceStrategySticky().AssignmentData(id, owned[id], 4)
				if err != nil {
					t.Fatal(err)
				}
				meta.UserData = ud
				m.Owned, m.Generation = ownedList(owned[id]), 4
			}
			members[id] = meta
			g.Members = append(g.Members, m)
		}
		checkPlan(t, assign.Sticky{}, members, topics, g)
	})

	t.Run("cooperative-sticky", func(t *testing.T) {
		members := make(map[string]sarama.ConsumerGroupMemberMetadata)
		var g assign.Group
		g.Topics = counts
		for _, id := range []string{"C0", "C1", "C2"} {
			meta := sarama.ConsumerGroupMemberMetadata{Version: 2, Topics: []string{"t0", "t1"}, GenerationID: -1}
			m := assign.Member{ID: id, Topics: meta.Topics, Generation: -1}
			if owned[id] != nil {
				for _, t := range slices.Sorted(maps.Keys(owned[id])) {
					meta.OwnedPartitions = append(meta.OwnedPartitions, &sarama.OwnedPartition{Topic: t, Partitions: owned[id][t]})
				}
				meta.GenerationID = 4
				m.Owned, m.Generation = ownedList(owned[id]), 4
			}
			members[id] = meta
			g.Members = append(g.Members, m)
		}
		plan := checkPlan(t, assign.CooperativeSticky{}, members, topics, g)
		// KIP-429: C2 gets nothing until C0 and C1 have revoked.
		if len(plan["C2"]) != 0 {
			t.Errorf("C2 got %v in the first round, want nothing", plan["C2"])
		}
	})
}

// checkPlan checks that Plan(members, topics) is s.Assign(g), where g is
// the group the test built for what the members sent.
func checkPlan(t *testing.T, s assign.Strategy, members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32, g assign.Group) sarama.BalanceStrategyPlan {
	t.Helper()
	want, err := s.Assign(g)
	if err != nil {
		t.Fatalf("%s.Assign: %v", s.Name(), err)
	}
	plan, err := assignsarama.MustStrategy(s).Plan(members, topics)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	got := make(assign.Assignment)
	for id, byTopic := range plan {
		got[id] = nil
		for topic, ps := range byTopic {
			for _, p := range ps {
				got[id] = append(got[id], assign.TopicPartition{Topic: topic, Partition: p})
			}
		}
		slices.SortFunc(got[id], assign.TopicPartition.Compare)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("Plan mismatch with %s(g) (-want +got):\n%s", s.Name(), d)
	}
	return plan
}

// rebalance runs one round of a group of sarama members, each with its own
// strategy value: every member sends its subscription (with the user data
// its strategy writes), the leader (the first member) plans, and each
// member is told its assignment and the generation.
func rebalance(t *testing.T, strategies map[string]sarama.BalanceStrategy, owned map[string]map[string][]int32, topics map[string][]int32, generation int32) sarama.BalanceStrategyPlan {
	t.Helper()
	members := make(map[string]sarama.ConsumerGroupMemberMetadata)
	var leader sarama.BalanceStrategy
	for _, id := range slices.Sorted(maps.Keys(strategies)) {
		s := strategies[id]
		if leader == nil {
			leader = s
		}
		ud, err := s.(sarama.SubscriptionUserDataBalanceStrategy).SubscriptionUserData(slices.Sorted(maps.Keys(topics)))
		if err != nil {
			t.Fatalf("SubscriptionUserData(%s): %v", id, err)
		}
		meta := sarama.ConsumerGroupMemberMetadata{Version: 2, Topics: slices.Sorted(maps.Keys(topics)), UserData: ud, GenerationID: -1}
		if owned[id] != nil {
			meta.GenerationID = generation - 1
			for _, t := range slices.Sorted(maps.Keys(owned[id])) {
				meta.OwnedPartitions = append(meta.OwnedPartitions, &sarama.OwnedPartition{Topic: t, Partitions: owned[id][t]})
			}
		}
		members[id] = meta
	}
	plan, err := leader.Plan(members, topics)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	for id, s := range strategies {
		s.(sarama.OnAssignmentBalanceStrategy).OnAssignment(&sarama.ConsumerGroupMemberAssignment{Topics: plan[id]}, generation)
	}
	return plan
}

// Eager sticky members keep what they had through the user data their own
// strategy writes (sarama's Consumer.Group.Member.UserData is not needed):
// when C2 joins C0 and C1, C0 and C1 only give partitions up.
func TestStickyMembersKeepTheirPartitions(t *testing.T) {
	topics := map[string][]int32{"t0": partitions(4), "t1": partitions(2)}
	strategies := map[string]sarama.BalanceStrategy{
		"C0": assignsarama.MustStrategy(assign.Sticky{}),
		"C1": assignsarama.MustStrategy(assign.Sticky{}),
	}
	first := rebalance(t, strategies, nil, topics, 1) // eager: nobody owns anything at a join
	strategies["C2"] = assignsarama.MustStrategy(assign.Sticky{})
	second := rebalance(t, strategies, nil, topics, 2)
	for _, id := range []string{"C0", "C1"} {
		for topic, ps := range second[id] {
			for _, p := range ps {
				if !slices.Contains(first[id][topic], p) {
					t.Errorf("%s got %s-%d, which it did not have; first %v, second %v", id, topic, p, first, second)
				}
			}
		}
	}
	for id, byTopic := range second {
		n := 0
		for _, ps := range byTopic {
			n += len(ps)
		}
		if n != 2 {
			t.Errorf("%s has %d partitions, want 2 (6 over 3 members): %v", id, n, second)
		}
	}
}

// The user data our members write is what Kafka's assignors write:
// StickyAssignor's (the same bytes as sarama's own sticky strategy for one
// topic) and CooperativeStickyAssignor's bare generation.
func TestSubscriptionUserData(t *testing.T) {
	sticky := assignsarama.MustStrategy(assign.Sticky{})
	before, err := sticky.(sarama.SubscriptionUserDataBalanceStrategy).SubscriptionUserData([]string{"t"})
	if err != nil || before != nil {
		t.Errorf("sticky before any assignment: %v, %v; want null user data", before, err)
	}
	sticky.(sarama.OnAssignmentBalanceStrategy).OnAssignment(&sarama.ConsumerGroupMemberAssignment{Topics: map[string][]int32{"t": {3, 1}}}, 9)
	got, err := sticky.(sarama.SubscriptionUserDataBalanceStrategy).SubscriptionUserData([]string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := sarama.NewBalanceStrategySticky().AssignmentData("C0", map[string][]int32{"t": {1, 3}}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sticky user data mismatch (-sarama +ours):\n%s", d)
	}

	coop := assignsarama.MustStrategy(assign.CooperativeSticky{})
	coop.(sarama.OnAssignmentBalanceStrategy).OnAssignment(&sarama.ConsumerGroupMemberAssignment{Topics: map[string][]int32{"t": {0}}}, 9)
	got, err = coop.(sarama.SubscriptionUserDataBalanceStrategy).SubscriptionUserData([]string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]byte{0, 0, 0, 9}, got); d != "" {
		t.Errorf("cooperative-sticky user data mismatch (-want +got):\n%s", d)
	}

	if _, ok := assignsarama.MustStrategy(assign.Range{}).(sarama.SubscriptionUserDataBalanceStrategy); ok {
		t.Errorf("range overrides sarama's static user data; it writes none of its own")
	}
}

// AssignmentData carries the new assignment for "sticky" only, in the
// bytes sarama's own sticky strategy writes.
func TestAssignmentData(t *testing.T) {
	topics := map[string][]int32{"t": {0, 2}}
	got, err := assignsarama.MustStrategy(assign.Sticky{}).AssignmentData("C0", topics, 5)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sarama.NewBalanceStrategySticky().AssignmentData("C0", topics, 5)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sticky AssignmentData mismatch (-sarama +ours):\n%s", d)
	}
	d, err := wire.DecodeStickyUserData(got)
	if err != nil || d.Generation != 5 || len(d.Previous) != 2 {
		t.Errorf("DecodeStickyUserData(ours) = %+v, %v", d, err)
	}
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.CooperativeSticky{}} {
		if got, err := assignsarama.MustStrategy(s).AssignmentData("C0", topics, 5); got != nil || err != nil {
			t.Errorf("%s AssignmentData = %v, %v; want nothing", s.Name(), got, err)
		}
	}
}

func TestSupportedProtocols(t *testing.T) {
	for _, c := range []struct {
		s    assign.Strategy
		want []sarama.RebalanceProtocol
	}{
		{assign.Range{}, []sarama.RebalanceProtocol{sarama.RebalanceProtocolEager}},
		{assign.Sticky{}, []sarama.RebalanceProtocol{sarama.RebalanceProtocolEager}},
		{assign.CooperativeSticky{}, []sarama.RebalanceProtocol{sarama.RebalanceProtocolCooperative, sarama.RebalanceProtocolEager}},
	} {
		s := assignsarama.MustStrategy(c.s)
		if s.Name() != c.s.Name() {
			t.Errorf("Name() = %q, want %q", s.Name(), c.s.Name())
		}
		got := s.(sarama.RebalanceProtocolBalanceStrategy).SupportedProtocols()
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s SupportedProtocols mismatch (-want +got):\n%s", c.s.Name(), d)
		}
	}
}

// Input Plan cannot assign fails the round, not the rebalance: every
// member is assigned nothing and the error is reported once.
func TestPlanRefusesBadInput(t *testing.T) {
	meta := sarama.ConsumerGroupMemberMetadata{Version: 0, Topics: []string{"t"}}
	members := map[string]sarama.ConsumerGroupMemberMetadata{"C0": meta, "C1": meta}
	for _, c := range []struct {
		name    string
		members map[string]sarama.ConsumerGroupMemberMetadata
		ps      []int32
		want    error
	}{
		{"gap", members, []int32{0, 2}, assignsarama.ErrPartitionIDs},
		{"repeated", members, []int32{0, 0}, assignsarama.ErrPartitionIDs},
		{"negative", members, []int32{-1}, assignsarama.ErrPartitionIDs},
		{"too large", members, []int32{1}, assignsarama.ErrPartitionIDs},
		{"negative version", map[string]sarama.ConsumerGroupMemberMetadata{"C0": meta, "C1": {Version: -2, Topics: []string{"t"}}}, []int32{0}, wire.ErrUnsupportedVersion},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reports []error
			s := assignsarama.MustStrategy(assign.Range{}, assignsarama.OnError(func(err error) { reports = append(reports, err) }))
			got, err := s.Plan(c.members, map[string][]int32{"t": c.ps})
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if d := cmp.Diff(sarama.BalanceStrategyPlan{"C0": {}, "C1": {}}, got); d != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", d)
			}
			if len(reports) != 1 || !errors.Is(reports[0], c.want) {
				t.Errorf("reports %v, want one %v", reports, c.want)
			}
		})
	}
}

// A nil strategy, a nil pointer and the group coordinator's strategies are
// refused when the strategy is built, not at the first rebalance.
func TestStrategyRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		s    assign.Strategy
		want error
	}{
		{"nil", nil, assignsarama.ErrNilStrategy},
		{"nil pointer", (*assign.Range)(nil), assignsarama.ErrNilStrategy},
		{"uniform", assign.Uniform{}, assignsarama.ErrServerAssigned},
		{"server-range", assign.ServerRange{}, assignsarama.ErrServerAssigned},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := assignsarama.Strategy(c.s)
			if !errors.Is(err, c.want) || s != nil {
				t.Errorf("Strategy: %v, %v; want nil, %v", s, err, c.want)
			}
			defer func() {
				r := recover()
				if perr, ok := r.(error); !ok || !errors.Is(perr, c.want) {
					t.Errorf("MustStrategy panicked with %v, want %v", r, c.want)
				}
			}()
			assignsarama.MustStrategy(c.s)
		})
	}
}

// One sticky strategy shared by two consumer groups' members sends the
// same history for both: the leader reports it, once, and still assigns.
// Identical claims without a generation (user data version 0) may be
// honest history of different generations and are not reported; nor are
// claims that differ.
func TestPlanReportsSharedStrategy(t *testing.T) {
	sticky := func(gen int32, ps ...int32) sarama.ConsumerGroupMemberMetadata {
		ud := wire.StickyUserData{Version: 1, Generation: gen}
		if gen < 0 {
			ud.Version = 0
		}
		for _, p := range ps {
			ud.Previous = append(ud.Previous, assign.TopicPartition{Topic: "t", Partition: p})
		}
		b, err := ud.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		return sarama.ConsumerGroupMemberMetadata{Version: 1, Topics: []string{"t"}, UserData: b}
	}
	for _, c := range []struct {
		name   string
		c0, c1 sarama.ConsumerGroupMemberMetadata
		shared bool
	}{
		{"same history", sticky(3, 0, 1), sticky(3, 0, 1), true},
		{"different partitions", sticky(3, 0, 1), sticky(3, 2, 3), false},
		{"different generations", sticky(3, 0, 1), sticky(2, 0, 1), false},
		{"no generation", sticky(-1, 0, 1), sticky(-1, 0, 1), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var reports []error
			s := assignsarama.MustStrategy(assign.Sticky{}, assignsarama.OnError(func(err error) { reports = append(reports, err) }))
			got, err := s.Plan(map[string]sarama.ConsumerGroupMemberMetadata{"C0": c.c0, "C1": c.c1}, map[string][]int32{"t": partitions(4)})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(got["C0"]["t"]) + len(got["C1"]["t"]); n != 4 {
				t.Errorf("assigned %d partitions, want 4: %v", n, got)
			}
			if c.shared && (len(reports) != 1 || !errors.Is(reports[0], assignsarama.ErrShared)) || !c.shared && len(reports) != 0 {
				t.Errorf("reports %v, want ErrShared: %v", reports, c.shared)
			}
		})
	}
}
