package assign_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// rngList parses a partition list written as Kafka's tests write them,
// "t1-0, t1-3, t2-0", into a sorted list; "" is the empty list.
func rngList(s string) []assign.TopicPartition {
	if s == "" {
		return nil
	}
	var out []assign.TopicPartition
	for _, item := range strings.Split(s, ", ") {
		dash := strings.LastIndexByte(item, '-')
		p, err := strconv.Atoi(item[dash+1:])
		if err != nil {
			panic(fmt.Sprintf("bad partition %q", item))
		}
		out = append(out, assign.TopicPartition{item[:dash], int32(p)})
	}
	slices.SortFunc(out, assign.TopicPartition.Compare)
	return out
}

// rngWant builds an Assignment from member => partition list pairs.
func rngWant(pairs ...string) assign.Assignment {
	a := make(assign.Assignment, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		a[pairs[i]] = rngList(pairs[i+1])
	}
	return a
}

func rngMember(id string, topics ...string) assign.Member {
	return assign.Member{ID: id, Topics: topics, Generation: -1}
}

func rngRacked(id, rack string, topics ...string) assign.Member {
	return assign.Member{ID: id, Rack: rack, Topics: topics, Generation: -1}
}

func rngStatic(id, instance string, topics ...string) assign.Member {
	return assign.Member{ID: id, InstanceID: instance, Topics: topics, Generation: -1}
}

// rngRacks writes one topic's replica racks compactly: "a|b,a" is partition
// 0 on rack a and b, partition 1 on rack a; "-" is a partition whose replica
// racks are unknown.
func rngRacks(s string) [][]string {
	var out [][]string
	for _, p := range strings.Split(s, ",") {
		if p == "-" {
			out = append(out, []string{})
			continue
		}
		out = append(out, strings.Split(p, "|"))
	}
	return out
}

type strategyCase struct {
	name string
	g    assign.Group
	want assign.Assignment
}

func runStrategyCases(t *testing.T, s assign.Strategy, cases []strategyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Assign(tc.g)
			if err != nil {
				t.Fatalf("%T.Assign: %v", s, err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%T(g) mismatch (-want +got):\n%s", s, diff)
			}
			if err := assign.Verify(tc.g, got); err != nil {
				t.Error(err)
			}
		})
	}
}

// The cases of Kafka's RangeAssignorTest, rewritten as data. Each expected
// value is worked out by hand from Kafka's rules: per topic, subscribers in
// member order (static members first by group.instance.id, then member ID,
// Java string order), n/c partitions each, the first n%c one more; with
// racks, the two passes described on [Range].
func TestRange(t *testing.T) {
	runStrategyCases(t, assign.Range{}, []strategyCase{{
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
		name: "topic with zero partitions is skipped",
		g:    assign.Group{Topics: map[string]int32{"t0": 0, "t1": 2}, Members: []assign.Member{rngMember("c", "t0", "t1")}},
		want: rngWant("c", "t1-0, t1-1"),
	}, {
		// "other" exists but nobody subscribes to it: nobody gets it.
		name: "only subscribed topics are assigned",
		g:    assign.Group{Topics: map[string]int32{"t1": 3, "other": 3}, Members: []assign.Member{rngMember("c", "t1")}},
		want: rngWant("c", "t1-0, t1-1, t1-2"),
	}, {
		name: "one consumer, two topics",
		g:    assign.Group{Topics: map[string]int32{"t1": 1, "t2": 2}, Members: []assign.Member{rngMember("c", "t1", "t2")}},
		want: rngWant("c", "t1-0, t2-0, t2-1"),
	}, {
		// 1 partition, 2 subscribers: 1/2 = 0 each, 1%2 = 1 extra for c1.
		name: "more members than partitions",
		g:    assign.Group{Topics: map[string]int32{"t1": 1}, Members: []assign.Member{rngMember("c2", "t1"), rngMember("c1", "t1")}},
		want: rngWant("c1", "t1-0", "c2", ""),
	}, {
		name: "two consumers, one topic, two partitions",
		g:    assign.Group{Topics: map[string]int32{"t1": 2}, Members: []assign.Member{rngMember("c1", "t1"), rngMember("c2", "t1")}},
		want: rngWant("c1", "t1-0", "c2", "t1-1"),
	}, {
		// Kafka's javadoc example: 3 partitions, 2 subscribers: C0 gets 2.
		name: "two consumers, two topics of three partitions",
		g: assign.Group{Topics: map[string]int32{"t0": 3, "t1": 3}, Members: []assign.Member{
			rngMember("C1", "t0", "t1"), rngMember("C0", "t0", "t1")}},
		want: rngWant("C0", "t0-0, t0-1, t1-0, t1-1", "C1", "t0-2, t1-2"),
	}, {
		// t1 has subscribers c1, c2, c3 (one each); t2 only c2 (both).
		name: "multiple consumers, mixed topics",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 2}, Members: []assign.Member{
			rngMember("c1", "t1"), rngMember("c2", "t1", "t2"), rngMember("c3", "t1")}},
		want: rngWant("c1", "t1-0", "c2", "t1-1, t2-0, t2-1", "c3", "t1-2"),
	}, {
		// Instance IDs decide: consumer-b (instance1) before consumer-a (instance2).
		name: "two static members ordered by instance ID, not member ID",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 3}, Members: []assign.Member{
			rngStatic("consumer-a", "instance2", "t1", "t2"), rngStatic("consumer-b", "instance1", "t1", "t2")}},
		want: rngWant("consumer-b", "t1-0, t1-1, t2-0, t2-1", "consumer-a", "t1-2, t2-2"),
	}, {
		// The static member sorts first although its member ID sorts last.
		name: "static member before dynamic member",
		g: assign.Group{Topics: map[string]int32{"t1": 3, "t2": 3}, Members: []assign.Member{
			rngMember("consumer-a", "t1", "t2"), rngStatic("consumer-b", "instance1", "t1", "t2")}},
		want: rngWant("consumer-b", "t1-0, t1-1, t2-0, t2-1", "consumer-a", "t1-2, t2-2"),
	}, {
		// Kafka's testStaticMemberRangeAssignmentPersistent: instances 1-3 and
		// dynamic consumer4; t1 has 5 partitions (2,1,1,1), t2 has 4 (1 each).
		name: "three static members and one dynamic",
		g: assign.Group{Topics: map[string]int32{"topic1": 5, "topic2": 4}, Members: []assign.Member{
			rngMember("consumer4", "topic1", "topic2"),
			rngStatic("consumer3", "instance3", "topic1", "topic2"),
			rngStatic("consumer1", "instance1", "topic1", "topic2"),
			rngStatic("consumer2", "instance2", "topic1", "topic2")}},
		want: rngWant(
			"consumer1", "topic1-0, topic1-1, topic2-0",
			"consumer2", "topic1-2, topic2-1",
			"consumer3", "topic1-3, topic2-2",
			"consumer4", "topic1-4, topic2-3"),
	}, {
		// U+10400 is a surrogate pair in UTF-16 (0xD801 0xDC00), which Java
		// sorts before U+FF21; Go's byte order (F0... vs EF...) says the
		// opposite. Java's order gives the first range to U+10400.
		name: "member IDs in Java's UTF-16 order",
		g: assign.Group{Topics: map[string]int32{"t": 3}, Members: []assign.Member{
			rngMember("\uff21", "t"), rngMember("\U00010400", "t")}},
		want: rngWant("\U00010400", "t-0, t-1", "\uff21", "t-2"),
	}, {
		name: "instance IDs in Java's UTF-16 order",
		g: assign.Group{Topics: map[string]int32{"t": 3}, Members: []assign.Member{
			rngStatic("a", "\uff21", "t"), rngStatic("b", "\U00010400", "t")}},
		want: rngWant("b", "t-0, t-1", "a", "t-2"),
	}, {
		// Same rule for topic names: nothing here depends on topic order,
		// but both must be assigned.
		name: "a member subscribing to a topic twice counts once",
		g: assign.Group{Topics: map[string]int32{"t": 4}, Members: []assign.Member{
			rngMember("c0", "t", "t"), rngMember("c1", "t")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, t-3"),
	}, {
		// c0 on t only, c1 on t and u, c2 on u only: t gives 2 and 1, u 2 and 1.
		name: "heterogeneous subscriptions",
		g: assign.Group{Topics: map[string]int32{"t": 3, "u": 3}, Members: []assign.Member{
			rngMember("c0", "t"), rngMember("c1", "t", "u"), rngMember("c2", "u")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, u-0, u-1", "c2", "u-2"),
	}})
}

// Rack-aware cases, each worked out by hand from Kafka's rules.
func TestRangeRacks(t *testing.T) {
	runStrategyCases(t, assign.Range{}, []strategyCase{{
		// Member racks x, y hold no replica: disjoint, so plain ranges.
		name: "member racks and replica racks do not overlap",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("b,b,a,a")},
			Members:        []assign.Member{rngRacked("c0", "x", "t"), rngRacked("c1", "y", "t")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, t-3"),
	}, {
		// Replica racks known but no member has a rack: plain ranges.
		name: "no member has a rack",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("b,b,a,a")},
			Members:        []assign.Member{rngMember("c0", "t"), rngMember("c1", "t")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, t-3"),
	}, {
		// Member racks known but replica racks unknown: plain ranges.
		name: "replica racks unknown",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			Members: []assign.Member{rngRacked("c0", "b", "t"), rngRacked("c1", "a", "t")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, t-3"),
	}, {
		// c0 on rack a takes the two partitions on a (2, 3); c1 on b takes 0, 1.
		name: "racks aligned",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("b,b,a,a")},
			Members:        []assign.Member{rngRacked("c0", "a", "t"), rngRacked("c1", "b", "t")}},
		want: rngWant("c0", "t-2, t-3", "c1", "t-0, t-1"),
	}, {
		// Every partition has replicas on every rack that has any (a and b),
		// so rack-aware assignment is not used at all. Had it been, c0 (rack
		// x, matching nothing) would have got 2, 3 after c1 took 0, 1.
		name: "all replicas on all racks: rack awareness not activated",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("a|b,a|b,a|b,a|b")},
			Members:        []assign.Member{rngRacked("c0", "x", "t"), rngRacked("c1", "a", "t")}},
		want: rngWant("c0", "t-0, t-1", "c1", "t-2, t-3"),
	}, {
		// 4 partitions, 3 members: quota 1, one extra. c0 (rack b) takes the
		// b partitions 1, 3 (the extra); c1 (no rack) matches anything and
		// takes the lowest left, 0; c2 (rack a) takes 2.
		name: "a member without a rack takes the lowest partitions left",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("a,b,a,b")},
			Members:        []assign.Member{rngRacked("c0", "b", "t"), rngMember("c1", "t"), rngRacked("c2", "a", "t")}},
		want: rngWant("c0", "t-1, t-3", "c1", "t-0", "c2", "t-2"),
	}, {
		// The rackless member comes first and takes 0, 1 (its quota plus the
		// extra), both on rack a. b (rack a) finds nothing on a; c (rack b)
		// takes 2. Then ranges: b takes the lowest left, 3, on the wrong rack.
		name: "a rackless member first takes partitions racked members wanted",
		g: assign.Group{Topics: map[string]int32{"t": 4},
			PartitionRacks: map[string][][]string{"t": rngRacks("a,a,b,b")},
			Members:        []assign.Member{rngMember("a", "t"), rngRacked("b", "a", "t"), rngRacked("c", "b", "t")}},
		want: rngWant("a", "t-0, t-1", "b", "t-3", "c", "t-2"),
	}, {
		// An empty rack name in a replica list means "unknown" (Java's null
		// Node.rack), not a rack called "": both partitions are then on {a}
		// only, rack awareness is not needed, and ranges are plain. (Were ""
		// a rack, partition 1 would lack it, c1 on a would take t-0 first and
		// c0 on x would be left t-1.)
		name: "empty replica rack name means unknown",
		g: assign.Group{Topics: map[string]int32{"t": 2},
			PartitionRacks: map[string][][]string{"t": {{"a", ""}, {"a"}}},
			Members:        []assign.Member{rngRacked("c0", "x", "t"), rngRacked("c1", "a", "t")}},
		want: rngWant("c0", "t-0", "c1", "t-1"),
	}, {
		// Partition 0's racks are unknown: it matches no rack, and rack
		// awareness is needed (0 has fewer racks than the topic's a, b).
		// Quota 1, one extra. c0 (b) takes 2; c1 (a) takes 1; ranges: c0
		// may still take the extra and gets 0.
		name: "partition without replica racks",
		g: assign.Group{Topics: map[string]int32{"t": 3},
			PartitionRacks: map[string][][]string{"t": rngRacks("-,a,b")},
			Members:        []assign.Member{rngRacked("c0", "b", "t"), rngRacked("c1", "a", "t")}},
		want: rngWant("c0", "t-0, t-2", "c1", "t-1"),
	}, {
		// A and B have the same subscribers and 2 partitions: co-partitioned.
		// Alone they would not need racks (all replicas on b), but C needs
		// them, which turns rack awareness on for everyone. For A and B
		// together: partition 0 is on b in both, so m1 takes A-0 and B-0 and
		// is full; partition 1 is on b only and m0 is on a: left for the
		// ranges, which give it to m0. C (3 partitions, quota 1, one extra):
		// m0 on a takes 0 and 2, m1 on b takes 1.
		name: "co-partitioned topics follow racks when another topic needs them",
		g: assign.Group{Topics: map[string]int32{"A": 2, "B": 2, "C": 3},
			PartitionRacks: map[string][][]string{"A": rngRacks("b,b"), "B": rngRacks("b,b"), "C": rngRacks("a,b,a")},
			Members:        []assign.Member{rngRacked("m0", "a", "A", "B", "C"), rngRacked("m1", "b", "A", "B", "C")}},
		want: rngWant("m0", "A-1, B-1, C-0, C-2", "m1", "A-0, B-0, C-1"),
	}, {
		// Same without C: no topic needs racks, plain ranges.
		name: "co-partitioned topics alone need no racks",
		g: assign.Group{Topics: map[string]int32{"A": 2, "B": 2},
			PartitionRacks: map[string][][]string{"A": rngRacks("b,b"), "B": rngRacks("b,b")},
			Members:        []assign.Member{rngRacked("m0", "a", "A", "B"), rngRacked("m1", "b", "A", "B")}},
		want: rngWant("m0", "A-0, B-0", "m1", "A-1, B-1"),
	}, {
		// A and B co-partitioned, racks disagree: partition 0 is on a in A
		// but on b in B, so no member matches it in both; partition 1 is on
		// b in both: m1 takes it. Ranges then give 0 to m0. Co-partitioning
		// wins: m0 gets A-0 and B-0 although B-0 is not on its rack.
		name: "co-partitioning wins over rack alignment",
		g: assign.Group{Topics: map[string]int32{"A": 2, "B": 2},
			PartitionRacks: map[string][][]string{"A": rngRacks("a,b"), "B": rngRacks("b,b")},
			Members:        []assign.Member{rngRacked("m0", "a", "A", "B"), rngRacked("m1", "b", "A", "B")}},
		want: rngWant("m0", "A-0, B-0", "m1", "A-1, B-1"),
	}, {
		// A on racks a, b and B on racks b, a, but m2 subscribes to B only:
		// the subscribers differ, so A and B are not co-partitioned and each
		// is matched alone. A (quota 1): m0 on a takes A-0, m1 on b takes
		// B (quota 0, two extras): m0 on a takes B-1, m1 on b takes
		// B-0, and m2 gets nothing. Had they been co-partitioned, no member
		// would match partition 0 (a in A, b in B) in both.
		name: "topics with different subscribers are matched alone",
		g: assign.Group{Topics: map[string]int32{"A": 2, "B": 2},
			PartitionRacks: map[string][][]string{"A": rngRacks("a,b"), "B": rngRacks("b,a")},
			Members: []assign.Member{rngRacked("m0", "a", "A", "B"), rngRacked("m1", "b", "A", "B"),
				rngMember("m2", "B")}},
		want: rngWant("m0", "A-0, B-1", "m1", "A-1, B-0", "m2", ""),
	}, {
		// B alone on rack b only: every partition on every rack holding one,
		// so B needs no racks, and nothing else turns them on: plain ranges
		// (quota 0, two extras: m0 and m1 one each, m2 none).
		name: "a topic alone with all replicas on one rack gets plain ranges",
		g: assign.Group{Topics: map[string]int32{"B": 2},
			PartitionRacks: map[string][][]string{"B": rngRacks("b,b")},
			Members: []assign.Member{rngRacked("m0", "a", "B"), rngRacked("m1", "b", "B"),
				rngMember("m2", "B")}},
		want: rngWant("m0", "B-0", "m1", "B-1", "m2", ""),
	}})
}

// kafkaRackCase is a case of Kafka's RangeAssignorTest rack tests, with
// replica racks laid out as Kafka's AbstractPartitionAssignorTest does:
// brokers 0..len(brokerRacks)-1 with those racks ("" for none), topics in
// the order given, and replica j of partition i of the topic whose
// partitions start at global index next on broker (i + j + next) mod
// brokers. Members are consumer0, consumer1, ... The expected assignments
// are those Kafka's test asserts.
type kafkaRackCase struct {
	name           string
	topics         []string
	counts         []int32
	rf             int
	brokerRacks    []string
	consumerRacks  []string
	consumerTopics [][]string
	want           []string
}

func (c kafkaRackCase) group() assign.Group {
	g := assign.Group{Topics: map[string]int32{}, PartitionRacks: map[string][][]string{}}
	next := 0
	for k, topic := range c.topics {
		n := int(c.counts[k])
		g.Topics[topic] = c.counts[k]
		lists := make([][]string, n)
		for i := range n {
			for j := range c.rf {
				rack := c.brokerRacks[(i+j+next)%len(c.brokerRacks)]
				if rack != "" && !slices.Contains(lists[i], rack) {
					lists[i] = append(lists[i], rack)
				}
			}
		}
		g.PartitionRacks[topic] = lists
		next += n
	}
	for i, rack := range c.consumerRacks {
		g.Members = append(g.Members, rngRacked(fmt.Sprintf("consumer%d", i), rack, c.consumerTopics[i]...))
	}
	return g
}

func racksN(n int) []string { return []string{"a", "b", "c", "d", "e", "f"}[:n] }

// TestRangeKafkaRackCases replays the rack-aware cases of Kafka's
// RangeAssignorTest that do not depend on its test-only switch forcing rack
// awareness on.
func TestRangeKafkaRackCases(t *testing.T) {
	t123 := []string{"t1", "t2", "t3"}
	all3 := [][]string{t123, t123, t123}
	nonEqual := [][]string{t123, t123, {"t1", "t3"}}
	none3 := []string{"", "", ""}
	cases := []kafkaRackCase{
		// testRackAwareAssignmentWithUniformSubscription
		{"uniform/no broker racks", t123, []int32{6, 7, 2}, 3, none3, racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/no consumer racks", t123, []int32{6, 7, 2}, 3, racksN(3), none3, all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/all replicas everywhere", t123, []int32{6, 7, 2}, 3, racksN(3), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/four broker racks, rf 4", t123, []int32{6, 7, 2}, 4, racksN(4), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/consumer racks match none", t123, []int32{6, 7, 2}, 3, racksN(3), []string{"d", "e", "f"}, all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/rf 1", t123, []int32{6, 7, 2}, 1, racksN(3), racksN(3), all3,
			[]string{"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"}},
		{"uniform/rf 2", t123, []int32{6, 7, 2}, 2, racksN(3), racksN(3), all3,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"}},
		{"uniform/consumer on a rack without partitions", t123, []int32{6, 7, 2}, 3, racksN(2), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}},

		// testRackAwareAssignmentWithNonEqualSubscription
		{"non-equal/no broker racks", t123, []int32{6, 7, 2}, 3, none3, racksN(3), nonEqual,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}},
		{"non-equal/one consumer without rack", t123, []int32{6, 7, 2}, 3, racksN(3), []string{"", "e", "f"}, nonEqual,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}},
		{"non-equal/rf 1", t123, []int32{6, 7, 2}, 1, racksN(3), racksN(3), nonEqual,
			[]string{"t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"}},
		{"non-equal/rf 2", t123, []int32{6, 7, 2}, 2, racksN(3), racksN(3), nonEqual,
			[]string{"t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"}},
		{"non-equal/consumer on a rack without partitions", t123, []int32{6, 7, 2}, 3, racksN(2), racksN(3), nonEqual,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}},

		// testRackAwareAssignmentWithUniformPartitions: co-partitioning wins.
		{"uniform partitions/rf 1", t123, []int32{5, 5, 5}, 1, racksN(3), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}},
		{"uniform partitions/rf 2", t123, []int32{5, 5, 5}, 2, racksN(3), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}},
		{"uniform partitions/rf 3, two racks", t123, []int32{5, 5, 5}, 3, racksN(2), racksN(3), all3,
			[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}},

		// testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription
		{"uniform partitions non-equal/rf 1", t123, []int32{5, 5, 5}, 1, racksN(3), racksN(3), nonEqual,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"}},
		{"uniform partitions non-equal/rf 2", t123, []int32{5, 5, 5}, 2, racksN(3), racksN(3), nonEqual,
			[]string{"t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"}},
		{"uniform partitions non-equal/rf 3, two racks", t123, []int32{5, 5, 5}, 3, racksN(2), racksN(3), nonEqual,
			[]string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"}},
	}

	// testRackAwareAssignmentWithCoPartitioning
	t1234 := []string{"t1", "t2", "t3", "t4"}
	split := [][]string{{"t1", "t2"}, {"t1", "t2"}, {"t3", "t4"}, {"t3", "t4"}}
	everyone := [][]string{t1234, t1234, t1234, t1234}
	abba := []string{"a", "b", "b", "a"}
	counts := []int32{6, 6, 2, 2}
	cases = append(cases,
		kafkaRackCase{"co-partitioning/split/rf 3", t1234, counts, 3, racksN(2), abba, split,
			[]string{"t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"}},
		kafkaRackCase{"co-partitioning/split/rf 2", t1234, counts, 2, racksN(2), abba, split,
			[]string{"t1-0, t1-1, t1-2, t2-0, t2-1, t2-2", "t1-3, t1-4, t1-5, t2-3, t2-4, t2-5", "t3-0, t4-0", "t3-1, t4-1"}},
		kafkaRackCase{"co-partitioning/split/rf 1", t1234, counts, 1, racksN(2), abba, split,
			[]string{"t1-0, t1-2, t1-4, t2-0, t2-2, t2-4", "t1-1, t1-3, t1-5, t2-1, t2-3, t2-5", "t3-1, t4-1", "t3-0, t4-0"}},
		kafkaRackCase{"co-partitioning/everyone/rf 3", t1234, counts, 3, racksN(2), abba, everyone,
			[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"}},
		kafkaRackCase{"co-partitioning/everyone/rf 2", t1234, counts, 2, racksN(2), abba, everyone,
			[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0", "t1-2, t1-3, t2-2, t2-3, t3-1, t4-1", "t1-4, t2-4", "t1-5, t2-5"}},
		kafkaRackCase{"co-partitioning/everyone/rf 1", t1234, counts, 1, racksN(2), abba, everyone,
			[]string{"t1-0, t1-2, t2-0, t2-2, t3-0, t4-0", "t1-1, t1-3, t2-1, t2-3, t3-1, t4-1", "t1-5, t2-5", "t1-4, t2-4"}},
		kafkaRackCase{"co-partitioning/everyone/rf 1, three racks", t1234, counts, 1, racksN(3), abba, everyone,
			[]string{"t1-0, t1-3, t2-0, t2-3, t3-0, t4-0", "t1-1, t1-4, t2-1, t2-4, t3-1, t4-1", "t1-2, t2-2", "t1-5, t2-5"}},
	)

	// testCoPartitionedAssignmentWithSameSubscription, the case without the
	// test-only switch: no broker racks.
	t1to9 := []string{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9"}
	cases = append(cases, kafkaRackCase{"co-partitioned same subscription/no broker racks",
		[]string{"t1", "t2", "t3", "t4", "t5", "t6"}, []int32{6, 6, 2, 2, 4, 4}, 3, none3, racksN(3),
		[][]string{t1to9, t1to9, t1to9},
		[]string{"t1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1",
			"t1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2", "t1-4, t1-5, t2-4, t2-5, t5-3, t6-3"}})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.group()
			want := make(assign.Assignment)
			for i, list := range c.want {
				want[fmt.Sprintf("consumer%d", i)] = rngList(list)
			}
			got, err := assign.Range{}.Assign(g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Range(g) mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRangeInvalidGroup(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 1}, Members: []assign.Member{rngMember("c", "t"), rngMember("c", "t")}}
	_, err := assign.Range{}.Assign(g)
	var ie *assign.InputError
	if !errors.As(err, &ie) || !errors.Is(err, assign.ErrDuplicateMemberID) || ie.Member != "c" || ie.Index != 1 {
		t.Errorf("Range.Assign(duplicate member IDs) = %v, want an *assign.InputError for member \"c\" (at index 1) wrapping assign.ErrDuplicateMemberID", err)
	}
}

// perTopicSpread returns, for the first topic whose partition counts among
// its subscribers differ by more than one, a description; "" if none.
func perTopicSpread(g assign.Group, a assign.Assignment) string {
	counts := make(map[string]map[string]int) // topic => subscriber => count
	for _, m := range g.Members {
		for _, topic := range m.Topics {
			if g.Topics[topic] > 0 {
				if counts[topic] == nil {
					counts[topic] = make(map[string]int)
				}
				counts[topic][m.ID] = 0
			}
		}
	}
	for id, list := range a {
		for _, tp := range list {
			counts[tp.Topic][id]++
		}
	}
	for _, topic := range slices.Sorted(maps.Keys(counts)) {
		lo, hi := int(^uint(0)>>1), -1
		for _, n := range counts[topic] {
			lo, hi = min(lo, n), max(hi, n)
		}
		if hi-lo > 1 {
			return fmt.Sprintf("topic %q: subscribers get between %d and %d partitions: %v", topic, lo, hi, counts[topic])
		}
	}
	return ""
}

func TestRangeProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		a, err := assign.Range{}.Assign(g)
		if err != nil {
			t.Fatalf("Range.Assign: %v", err)
		}
		if err := assign.Verify(g, a); err != nil {
			t.Fatal(err)
		}
		if s := perTopicSpread(g, a); s != "" {
			t.Fatal(s)
		}
		shuffled := assigntest.Shuffled(g).Draw(t, "shuffled")
		b, err := assign.Range{}.Assign(shuffled)
		if err != nil {
			t.Fatalf("Range.Assign(shuffled): %v", err)
		}
		if diff := cmp.Diff(a, b, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Range(shuffled g) mismatch (-Range(g) +Range(shuffled)):\n%s", diff)
		}
	})
}

// uniformGroup has members consumer-00000, ... all subscribed to topics
// topic-00000, ... of 100 partitions each, partitions in total. With racks
// > 0, members are spread over racks rack-0, ... in turn and each partition
// has two replicas on consecutive racks, so rack-aware assignment is used
// and every topic of the group is co-partitioned with the others.
func uniformGroup(members, partitions, racks int) assign.Group {
	g := assign.Group{Topics: make(map[string]int32)}
	var topics []string
	for i := range partitions / 100 {
		name := fmt.Sprintf("topic-%05d", i)
		topics = append(topics, name)
		g.Topics[name] = 100
		if racks > 0 {
			if g.PartitionRacks == nil {
				g.PartitionRacks = make(map[string][][]string)
			}
			lists := make([][]string, 100)
			for p := range lists {
				lists[p] = []string{fmt.Sprintf("rack-%d", (i+p)%racks), fmt.Sprintf("rack-%d", (i+p+1)%racks)}
			}
			g.PartitionRacks[name] = lists
		}
	}
	for i := range members {
		m := assign.Member{ID: fmt.Sprintf("consumer-%05d", i), Topics: topics, Generation: -1}
		if racks > 0 {
			m.Rack = fmt.Sprintf("rack-%d", i%racks)
		}
		g.Members = append(g.Members, m)
	}
	return g
}

var benchSizes = []struct{ members, partitions int }{
	{10, 1000},
	{100, 10000},
	{1000, 100000},
}

func benchmarkStrategy(b *testing.B, s assign.Strategy, racks int) {
	for _, size := range benchSizes {
		name := fmt.Sprintf("members=%d/partitions=%d", size.members, size.partitions)
		if racks > 0 {
			name = fmt.Sprintf("racks=%d/%s", racks, name)
		}
		b.Run(name, func(b *testing.B) {
			g := uniformGroup(size.members, size.partitions, racks)
			b.ReportAllocs()
			bytes := assign.CountPartitionBytes(b, g)
			for b.Loop() {
				if _, err := s.Assign(g); err != nil {
					b.Fatal(err)
				}
			}
			bytes.Report()
		})
	}
}

func BenchmarkRange(b *testing.B) {
	benchmarkStrategy(b, assign.Range{}, 0)
	benchmarkStrategy(b, assign.Range{}, 3)
}

func BenchmarkRoundRobin(b *testing.B) { benchmarkStrategy(b, assign.RoundRobin{}, 0) }
