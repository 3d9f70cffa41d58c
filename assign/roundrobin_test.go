package assign_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// The cases of Kafka's RoundRobinAssignorTest, rewritten as data. Each
// expected value is worked out by hand by dealing the partitions (topics in
// Java string order, then partition order) to the members in member order
// (static first by group.instance.id, then member ID), skipping members not
// subscribed to the partition's topic, the pointer moving one past each
// member served.
func TestRoundRobin(t *testing.T) {
	runStrategyCases(t, assign.RoundRobin{}, []strategyCase{{
		name: "no members",
		g:    assign.Group{Topics: map[string]int32{"t": 3}},
		want: rngWant(),
	}, {
		name: "one consumer, no topics",
		g:    assign.Group{Topics: map[string]int32{}, Members: []assign.Member{rngMember("c")}},
		want: rngWant("c", ""),
	}, {
		name: "topic missing from metadata is skipped",
		g:    assign.Group{Topics: map[string]int32{}, Members: []assign.Member{rngMember("c", "t1")}},
		want: rngWant("c", ""),
	}, {
		name: "only subscribed topics are assigned",
		g:    assign.Group{Topics: map[string]int32{"t1": 3, "other": 3}, Members: []assign.Member{rngMember("c", "t1")}},
		want: rngWant("c", "t1-0, t1-1, t1-2"),
	}, {
		name: "one consumer, two topics",
		g:    assign.Group{Topics: map[string]int32{"t1": 1, "t2": 2}, Members: []assign.Member{rngMember("c", "t1", "t2")}},
		want: rngWant("c", "t1-0, t2-0, t2-1"),
	}, {
		name: "more members than partitions",
		g: assign.Group{Topics: map[string]int32{"t1": 1}, Members: []assign.Member{
			rngMember("c2", "t1"), rngMember("c1", "t1")}},
		want: rngWant("c1", "t1-0", "c2", ""),
	}, {
		// t0-0 C0, t0-1 C1, t0-2 C0, t1-0 C1, t1-1 C0, t1-2 C1.
		name: "two consumers, two topics of three partitions",
		g: assign.Group{Topics: map[string]int32{"t0": 3, "t1": 3}, Members: []assign.Member{
			rngMember("C1", "t0", "t1"), rngMember("C0", "t0", "t1")}},
		want: rngWant("C0", "t0-0, t0-2, t1-1", "C1", "t0-1, t1-0, t1-2"),
	}, {
		// t1-0 c1, t1-1 c2, t1-2 c3; t2-0: c1 skipped, c2; t2-1: c3 and c1
		// skipped, c2 again.
		name: "multiple consumers, mixed topics",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 2}, Members: []assign.Member{
			rngMember("c1", "t1"), rngMember("c2", "t1", "t2"), rngMember("c3", "t1")}},
		want: rngWant("c1", "t1-0", "c2", "t1-1, t2-0, t2-1", "c3", "t1-2"),
	}, {
		// Kafka's javadoc: t0-0 C0; t1-0: C1; t1-1: C2; t2-0..2: C0 and C1
		// skipped each time, all to C2. (Had the pointer stayed on the member
		// served, C1 would have got t1-1.)
		name: "heterogeneous subscriptions",
		g: assign.Group{Topics: map[string]int32{"t0": 1, "t1": 2, "t2": 3}, Members: []assign.Member{
			rngMember("C0", "t0"), rngMember("C1", "t0", "t1"), rngMember("C2", "t0", "t1", "t2")}},
		want: rngWant("C0", "t0-0", "C1", "t1-0", "C2", "t1-1, t2-0, t2-1, t2-2"),
	}, {
		// t1-0 c0, t1-1 c1, t1-2 c2, pointer back to c0; t2-0: c0 skipped, c1;
		// t2-1 c2; t2-2: c0 skipped, c1. t3: only c2.
		name: "heterogeneous subscriptions, pointer carried across topics",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 3, "t3": 3}, Members: []assign.Member{
			rngMember("c0", "t1"), rngMember("c1", "t1", "t2"), rngMember("c2", "t1", "t2", "t3")}},
		want: rngWant("c0", "t1-0", "c1", "t1-1, t2-0, t2-2", "c2", "t1-2, t2-1, t3-0, t3-1, t3-2"),
	}, {
		// Order: consumer-b (instance1), consumer-a (instance2): b gets t1-0,
		// t1-2, t2-1.
		name: "two static members ordered by instance ID",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 3}, Members: []assign.Member{
			rngStatic("consumer-a", "instance2", "t1", "t2"), rngStatic("consumer-b", "instance1", "t1", "t2")}},
		want: rngWant("consumer-b", "t1-0, t1-2, t2-1", "consumer-a", "t1-1, t2-0, t2-2"),
	}, {
		// Order: static consumer-b first, then dynamic consumer-a.
		name: "static member before dynamic member",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 3}, Members: []assign.Member{
			rngMember("consumer-a", "t1", "t2"), rngStatic("consumer-b", "instance1", "t1", "t2")}},
		want: rngWant("consumer-b", "t1-0, t1-2, t2-1", "consumer-a", "t1-1, t2-0, t2-2"),
	}, {
		// Java sorts U+10400 (0xD801 0xDC00) before U+FF21.
		name: "member IDs in Java's UTF-16 order",
		g: assign.Group{Topics: map[string]int32{"t": 3}, Members: []assign.Member{
			rngMember("\uff21", "t"), rngMember("\U00010400", "t")}},
		want: rngWant("\U00010400", "t-0, t-2", "\uff21", "t-1"),
	}, {
		// Topics in Java order too: "\U00010400" (1 partition) comes before
		// "\uff21" (2 partitions), so c0 gets 𐐀-0 and Ａ-1, c1 gets Ａ-0. In
		// Go's order c0 would get Ａ-0 and 𐐀-0.
		name: "topics in Java's UTF-16 order",
		g: assign.Group{Topics: map[string]int32{"\uff21": 2, "\U00010400": 1}, Members: []assign.Member{
			rngMember("c0", "\uff21", "\U00010400"), rngMember("c1", "\uff21", "\U00010400")}},
		want: rngWant("c0", "\U00010400-0, \uff21-1", "c1", "\uff21-0"),
	}, {
		// Racks play no part in RoundRobin: Range would give c0 2 and 3 here.
		name: "racks are ignored",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("b,b,a,a")},
			Members:        []assign.Member{rngRacked("c0", "a", "t"), rngRacked("c1", "b", "t")}},
		want: rngWant("c0", "t-0, t-2", "c1", "t-1, t-3"),
	}, {
		name: "a member with an empty subscription gets nothing and is skipped",
		g: assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{
			rngMember("a"), rngMember("b", "t"), rngMember("c", "t")}},
		want: rngWant("a", "", "b", "t-0, t-2", "c", "t-1, t-3"),
	}})
}

func TestRoundRobinInvalidGroup(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": -1}, Members: []assign.Member{rngMember("c", "t")}}
	_, err := assign.RoundRobin{}.Assign(g)
	var ie *assign.InputError
	if !errors.As(err, &ie) || !errors.Is(err, assign.ErrNegativePartitions) || ie.Topic != "t" {
		t.Errorf("RoundRobin.Assign(negative partition count) = %v, want an *InputError for topic \"t\" wrapping ErrNegativePartitions", err)
	}
}

func TestRoundRobinProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		a, err := assign.RoundRobin{}.Assign(g)
		if err != nil {
			t.Fatalf("RoundRobin.Assign: %v", err)
		}
		if err := assign.Verify(g, a); err != nil {
			t.Fatal(err)
		}
		if s := perTopicSpread(g, a); s != "" {
			t.Fatal(s)
		}
		shuffled := assigntest.Shuffled(g).Draw(t, "shuffled")
		b, err := assign.RoundRobin{}.Assign(shuffled)
		if err != nil {
			t.Fatalf("RoundRobin.Assign(shuffled): %v", err)
		}
		if diff := cmp.Diff(a, b, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("RoundRobin(shuffled g) mismatch (-RoundRobin(g) +RoundRobin(shuffled)):\n%s", diff)
		}
	})
}

func TestRoundRobinIdenticalSubscriptionsBalanced(t *testing.T) {
	shape := assigntest.Small
	shape.Identical = true
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(shape).Draw(t, "group")
		a, err := assign.RoundRobin{}.Assign(g)
		if err != nil {
			t.Fatalf("RoundRobin.Assign: %v", err)
		}
		lo, hi := -1, -1
		for _, m := range g.Members {
			n := len(a[m.ID])
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		if hi-lo > 1 {
			t.Fatalf("identical subscriptions, totals between %d and %d: %v", lo, hi, a)
		}
	})
}

// roundRobinReference deals partitions literally as Kafka's javadoc says,
// stepping a pointer one member at a time, for differential testing of the
// indexed RoundRobin. Like rangeReference it orders names as Java does.
func roundRobinReference(g assign.Group) assign.Assignment {
	members := slices.Clone(g.Members)
	slices.SortFunc(members, javaMemberOrder)
	out := make(assign.Assignment)
	for _, m := range members {
		out[m.ID] = nil
	}
	pointer := 0
	for _, topic := range slices.SortedFunc(maps.Keys(g.Topics), javaOrder) {
		if !slices.ContainsFunc(members, func(m assign.Member) bool { return slices.Contains(m.Topics, topic) }) {
			continue
		}
		for p := range g.Topics[topic] {
			for !slices.Contains(members[pointer].Topics, topic) {
				pointer = (pointer + 1) % len(members)
			}
			id := members[pointer].ID
			out[id] = append(out[id], assign.TopicPartition{Topic: topic, Partition: p})
			pointer = (pointer + 1) % len(members)
		}
	}
	for id := range out {
		slices.SortFunc(out[id], assign.TopicPartition.Compare)
	}
	return out
}

func TestRoundRobinMatchesReference(t *testing.T) {
	shapes := map[string]assigntest.Shape{
		"ascii":          {MaxMembers: 7, MaxTopics: 5, MaxPartitions: 9, Static: true},
		"odd":            {MaxMembers: 7, MaxTopics: 5, MaxPartitions: 9, Static: true, Racks: true, Odd: true},
		"identical, odd": {MaxMembers: 9, MaxTopics: 5, MaxPartitions: 12, Static: true, Identical: true, Odd: true},
	}
	for _, name := range slices.Sorted(maps.Keys(shapes)) {
		t.Run(name, rapid.MakeCheck(func(t *rapid.T) {
			g := assigntest.GroupOf(shapes[name]).Draw(t, "group")
			got, err := assign.RoundRobin{}.Assign(g)
			if err != nil {
				t.Fatalf("RoundRobin.Assign: %v", err)
			}
			if diff := cmp.Diff(roundRobinReference(g), got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("RoundRobin(g) mismatch (-reference +got):\n%s", diff)
			}
		}))
	}
}
