package javasticky

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/oracle"
)

// kafka15106Group is the scenario of Kafka's
// testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout (added with
// KAFKA-15106, whose isBalanced fix it guards): consumers subscribe to the
// first half of the topics (every fourth) or the second half, get what
// Kafka 3.5.0's StickyAssignor gives them, and assign again at generation
// 1 with consumer 0 having lost its previous assignment. Kafka's test has
// 100 topics of 200 partitions and 500 consumers, on which Kafka 3.5.0 runs
// for minutes.
func kafka15106Group(t testing.TB, topicCount, partitions, consumers int) assign.Group {
	g := assign.Group{Topics: map[string]int32{}}
	var topics []string
	for i := range topicCount {
		n := fmt.Sprintf("topic%03d", i)
		topics = append(topics, n)
		g.Topics[n] = int32(partitions)
	}
	for i := range consumers {
		m := assign.Member{ID: fmt.Sprintf("consumer%03d", i), Generation: -1}
		if i%4 == 0 {
			m.Topics = topics[:topicCount/2]
		} else {
			m.Topics = topics[topicCount/2:]
		}
		g.Members = append(g.Members, m)
	}
	a, err := Assign(g, false, Kafka35)
	if err != nil {
		t.Fatal(err)
	}
	g = assign.Carry(g, a, 1)
	g.Members[0].Owned, g.Members[0].Generation = nil, -1
	return g
}

var kafka15106Sizes = [][3]int{{20, 40, 100}, {40, 100, 200}}

// TestKafka15106 checks Kafka 3.5.0's answers on the scenario at two
// smaller sizes (testdata/kafka-15106.STRATEGY.3.5.jsonl, printed by the
// 3.5.0 oracle), and that the emulation answers at Kafka's own size, on
// which Kafka 3.5.0 gave no answer within 150 s: the emulation reaches
// the same decisions without recomputing isBalanced from scratch after
// every try. With JAVASTICKY_ORACLE (built at 3.5.0) and JAVASTICKY_WRITE
// it rewrites the answers.
func TestKafka15106(t *testing.T) {
	var groups []assign.Group
	var lines bytes.Buffer
	for _, sz := range kafka15106Sizes {
		g := kafka15106Group(t, sz[0], sz[1], sz[2])
		groups = append(groups, g)
		lines.WriteString(groupJSON(fmt.Sprintf("%dx%dx%d", sz[0], sz[1], sz[2]), g) + "\n")
	}
	for _, st := range strategies {
		file := filepath.Join("testdata", "kafka-15106."+st.name+".3.5.jsonl")
		if dir := os.Getenv("JAVASTICKY_ORACLE"); dir != "" && os.Getenv("JAVASTICKY_WRITE") != "" {
			if err := os.WriteFile(file, runOracleRaw(t, dir, st.name, lines.Bytes()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want := oracle.Read[answer](t, file)
		if len(want) != len(groups) {
			t.Fatalf("%s: %d answers for %d groups", file, len(want), len(groups))
		}
		for i, g := range groups {
			checkAt(t, st.name, g, st.cooperative, Kafka35, want[i])
		}
	}
	if testing.Short() {
		return
	}
	full := kafka15106Group(t, 100, 200, 500)
	for _, st := range strategies {
		if _, err := Assign(full, st.cooperative, Kafka35); err != nil {
			t.Errorf("%s at Kafka's size: %v", st.name, err)
		}
	}
}
