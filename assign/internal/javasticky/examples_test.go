package javasticky

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/oracle"
	"github.com/google/go-cmp/cmp"
)

func tps(topic string, ps ...int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, p := range ps {
		out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}

func cat(lists ...[]assign.TopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// TestKafkaExamples holds Kafka's documented examples as its code answers
// them (checked with the oracle of testdata/oracle), and stories where
// Java's answer is not what a reader of its docs expects.
func TestKafkaExamples(t *testing.T) {
	all4 := []string{"t0", "t1", "t2", "t3"}
	for _, c := range []struct {
		name        string
		cooperative bool
		g           assign.Group
		want        assign.Assignment
		wantErr     string // Java's exception
	}{{
		// StickyAssignor's javadoc, example 1: C0, C1, C2 on t0..t3 of
		// two partitions each; C1 leaves. The javadoc says C0 [t0p0,
		// t1p1, t3p0, t2p0], C2 [t1p0, t2p1, t0p1, t3p1]; the code
		// (Kafka 3.8 to 4.x) keeps both survivors' partitions and deals
		// C1's t0-1 and t2-0 round robin: the javadoc is stale.
		name: "javadoc example 1, C1 leaves",
		g: assign.Group{
			Topics: map[string]int32{"t0": 2, "t1": 2, "t2": 2, "t3": 2},
			Members: []assign.Member{
				{ID: "C0", Topics: all4, Owned: cat(tps("t0", 0), tps("t1", 1), tps("t3", 0)), Generation: 1},
				{ID: "C2", Topics: all4, Owned: cat(tps("t1", 0), tps("t2", 1)), Generation: 1},
			},
		},
		want: assign.Assignment{
			"C0": cat(tps("t0", 0, 1), tps("t1", 1), tps("t3", 0)),
			"C2": cat(tps("t1", 0), tps("t2", 0, 1), tps("t3", 1)),
		},
	}, {
		// StickyAssignor's javadoc, example 2, fresh: C0 on t0, C1 on t0
		// and t1, C2 on t0, t1 and t2, of 1, 2 and 3 partitions.
		name: "javadoc example 2, fresh",
		g: assign.Group{
			Topics: map[string]int32{"t0": 1, "t1": 2, "t2": 3},
			Members: []assign.Member{
				{ID: "C0", Topics: []string{"t0"}, Generation: -1},
				{ID: "C1", Topics: []string{"t0", "t1"}, Generation: -1},
				{ID: "C2", Topics: []string{"t0", "t1", "t2"}, Generation: -1},
			},
		},
		want: assign.Assignment{"C0": tps("t0", 0), "C1": tps("t1", 0, 1), "C2": tps("t2", 0, 1, 2)},
	}, {
		// Example 2 continued: C0 leaves; C1 takes t0-0 and nothing else
		// moves, as the javadoc says.
		name: "javadoc example 2, C0 leaves",
		g: assign.Group{
			Topics: map[string]int32{"t0": 1, "t1": 2, "t2": 3},
			Members: []assign.Member{
				{ID: "C1", Topics: []string{"t0", "t1"}, Owned: tps("t1", 0, 1), Generation: 1},
				{ID: "C2", Topics: []string{"t0", "t1", "t2"}, Owned: tps("t2", 0, 1, 2), Generation: 1},
			},
		},
		want: assign.Assignment{"C1": cat(tps("t0", 0), tps("t1", 0, 1)), "C2": tps("t2", 0, 1, 2)},
	}, {
		// The public report: one cooperative-sticky member owns
		// both topics of four partitions, a second joins. Java keeps
		// partitions 0 and 1 of each topic on the first member and
		// withholds the rest this round (they must be revoked first);
		// librdkafka instead hands the newcomer all of the second topic.
		name:        "cooperative, a second member joins",
		cooperative: true,
		g: assign.Group{
			Topics: map[string]int32{"first.topic": 4, "second.topic": 4},
			Members: []assign.Member{
				{ID: "A", Topics: []string{"first.topic", "second.topic"}, Owned: cat(tps("first.topic", 0, 1, 2, 3), tps("second.topic", 0, 1, 2, 3)), Generation: 1},
				{ID: "B", Topics: []string{"first.topic", "second.topic"}, Generation: -1},
			},
		},
		want: assign.Assignment{"A": cat(tps("first.topic", 0, 1), tps("second.topic", 0, 1)), "B": nil},
	}, {
		// The same join with eager sticky: the newcomer gets partitions 2
		// and 3 of each topic at once.
		name: "eager, a second member joins",
		g: assign.Group{
			Topics: map[string]int32{"first.topic": 4, "second.topic": 4},
			Members: []assign.Member{
				{ID: "A", Topics: []string{"first.topic", "second.topic"}, Owned: cat(tps("first.topic", 0, 1, 2, 3), tps("second.topic", 0, 1, 2, 3)), Generation: 1},
				{ID: "B", Topics: []string{"first.topic", "second.topic"}, Generation: -1},
			},
		},
		want: assign.Assignment{"A": cat(tps("first.topic", 0, 1), tps("second.topic", 0, 1)), "B": cat(tps("first.topic", 2, 3), tps("second.topic", 2, 3))},
	}, {
		// A claim of a partition the topic no longer has: Java keeps it
		// in the claimant's quota, and its scan for unassigned partitions
		// stops matching there, so C0 is handed t0-3, which does not
		// exist, and C1 gets the two that do.
		name: "a claim of a deleted partition is handed back",
		g: assign.Group{
			Topics: map[string]int32{"t0": 3},
			Members: []assign.Member{
				{ID: "C0", Topics: []string{"t0"}, Owned: tps("t0", 0, 3), Generation: 1},
				{ID: "C1", Topics: []string{"t0"}, Generation: -1},
			},
		},
		want: assign.Assignment{"C0": tps("t0", 0, 3), "C1": tps("t0", 1, 2)},
	}, {
		// The same with one member: its quota is full with the claim of
		// t0-2, t0-1 is left over, and Java throws.
		name: "a claim of a deleted partition makes Java throw",
		g: assign.Group{
			Topics:  map[string]int32{"t0": 2},
			Members: []assign.Member{{ID: "C0", Topics: []string{"t0"}, Owned: tps("t0", 0, 2), Generation: 1}},
		},
		wantErr: "IllegalStateException",
	}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Assign(c.g, c.cooperative, Kafka38)
			if c.wantErr != "" {
				var je *JavaError
				if !errors.As(err, &je) || je.Exception != c.wantErr {
					t.Fatalf("Assign: %v, %v; want Java's %s", got, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Assign mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInvalidGroup checks that a group no Kafka client can send is refused
// as package assign refuses it, before any emulation.
func TestInvalidGroup(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 1}, Members: []assign.Member{{ID: "a"}, {ID: "a"}}}
	_, err := Assign(g, false, Kafka38)
	if !errors.Is(err, assign.ErrDuplicateMemberID) {
		t.Fatalf("Assign: %v, want ErrDuplicateMemberID", err)
	}
	if _, err := Assign(assign.Group{}, false, Version(9)); err == nil {
		t.Fatal("Assign with an unknown version: no error")
	}
}

// TestKafkaTests holds the scenarios of Kafka's own tests
// (AbstractStickyAssignorTest, StickyAssignorTest,
// CooperativeStickyAssignorTest, without racks) and KIP-429's cooperative
// examples, rewritten as groups in testdata/kafka-tests.jsonl, each named
// after its source. The expected answers, kafka-tests.STRATEGY.jsonl, are
// what Kafka's classes answered through the oracle (testdata/README.md),
// not what Kafka's tests assert: those call assignPartitions, which for
// cooperative-sticky is the answer before CooperativeStickyAssignor
// withholds the partitions still owned by another member, so where a
// Kafka test gives a newcomer a partition (testUniformSubscription-
// TransferOwnershipListIsRight, KIP-429's first round) the cooperative
// answer here leaves it out.
func TestKafkaTests(t *testing.T) {
	groups := readGroups(t, filepath.Join("testdata", "kafka-tests.jsonl"))
	for _, st := range strategies {
		want := oracle.Read[answer](t, filepath.Join("testdata", "kafka-tests."+st.name+".jsonl"))
		if len(want) != len(groups) {
			t.Fatalf("%s: %d answers for %d groups", st.name, len(want), len(groups))
		}
		for i, g := range groups {
			t.Run(st.name+"/"+want[i].Name, func(t *testing.T) {
				check(t, st.name, g, st.cooperative, want[i])
			})
		}
	}
}
