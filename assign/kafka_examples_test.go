package assign

import (
	"bufio"
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The groups of the repository's testdata/groups.jsonl were assigned by Apache Kafka's
// Java client; its answers are in kafka-java-range-roundrobin.jsonl, one line
// per group and strategy. Range and RoundRobin must give the same answers.

// exampleGroup mirrors the JSON contract of DESIGN.md, as far as Range and
// RoundRobin read it. It is test-only: the real reader lives elsewhere.
type exampleGroup struct {
	Name           string                `json:"name"`
	Topics         map[string]int32      `json:"topics"`
	PartitionRacks map[string][][]string `json:"partitionRacks"`
	Members        []struct {
		ID         string             `json:"id"`
		Instance   string             `json:"instance"`
		Rack       string             `json:"rack"`
		Topics     []string           `json:"topics"`
		Owned      map[string][]int32 `json:"owned"`
		Generation *int32             `json:"generation"`
	} `json:"members"`
}

func (e exampleGroup) group() Group {
	g := Group{Topics: e.Topics, PartitionRacks: e.PartitionRacks}
	for _, m := range e.Members {
		member := Member{ID: m.ID, InstanceID: m.Instance, Rack: m.Rack, Topics: m.Topics, Generation: -1}
		if m.Generation != nil {
			member.Generation = *m.Generation
		}
		for _, topic := range slices.Sorted(maps.Keys(m.Owned)) {
			for _, p := range m.Owned[topic] {
				member.Owned = append(member.Owned, TopicPartition{topic, p})
			}
		}
		g.Members = append(g.Members, member)
	}
	return g
}

// exampleAnswer is one output line: member => topic => partitions.
type exampleAnswer struct {
	Name       string                        `json:"name"`
	Strategy   string                        `json:"strategy"`
	Assignment map[string]map[string][]int32 `json:"assignment"`
}

func (a exampleAnswer) assignment() Assignment {
	out := make(Assignment, len(a.Assignment))
	for member, topics := range a.Assignment {
		var list []TopicPartition
		for _, topic := range slices.Sorted(maps.Keys(topics)) {
			for _, p := range topics[topic] {
				list = append(list, TopicPartition{topic, p})
			}
		}
		slices.SortFunc(list, TopicPartition.Compare)
		out[member] = list
	}
	return out
}

func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRangeRoundRobinKafkaExamples(t *testing.T) {
	groups := readJSONLines[exampleGroup](t, "../testdata/groups.jsonl")
	answers := readJSONLines[exampleAnswer](t, "../testdata/kafka-java-range-roundrobin.jsonl")
	strategies := []Strategy{Range{}, RoundRobin{}}
	if len(groups) == 0 || len(answers) != len(strategies)*len(groups) {
		t.Fatalf("%d groups and %d answers: want %d answers per group", len(groups), len(answers), len(strategies))
	}
	for i, eg := range groups {
		for j, s := range strategies {
			answer := answers[i*len(strategies)+j]
			if answer.Name != eg.Name || answer.Strategy != s.Name() {
				t.Fatalf("answer line %d is for %s/%s, want %s/%s",
					i*len(strategies)+j+1, answer.Name, answer.Strategy, eg.Name, s.Name())
			}
			t.Run(eg.Name+"/"+s.Name(), func(t *testing.T) {
				g := eg.group()
				got, err := s.Assign(g)
				if err != nil {
					t.Fatalf("%T.Assign: %v", s, err)
				}
				if diff := cmp.Diff(answer.assignment(), got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%T(g) mismatch (-want +got):\n%s", s, diff)
				}
				if err := Verify(g, got); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
