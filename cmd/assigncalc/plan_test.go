package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// planLine is one result line, with the members of the assignment in the
// order the object lists them.
type planLine struct {
	Name       string
	Strategy   string
	Members    []string
	Assignment map[string]map[string][]int32
	Error      string
}

// parsePlanLines reads JSON lines of results with encoding/json, an
// independent reader, keeping the order of the assignment's keys.
func parsePlanLines(t *testing.T, data []byte) []planLine {
	t.Helper()
	var out []planLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct {
			Name       string
			Strategy   string
			Assignment json.RawMessage
			Error      string
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		p := planLine{Name: l.Name, Strategy: l.Strategy, Error: l.Error}
		if l.Assignment != nil {
			if err := json.Unmarshal(l.Assignment, &p.Assignment); err != nil {
				t.Fatalf("assignment %s: %v", l.Assignment, err)
			}
			dec := json.NewDecoder(bytes.NewReader(l.Assignment))
			depth := 0
			for {
				tok, err := dec.Token()
				if err != nil {
					break
				}
				switch tok {
				case json.Delim('{'), json.Delim('['):
					depth++
				case json.Delim('}'), json.Delim(']'):
					depth--
				default:
					if s, ok := tok.(string); ok && depth == 1 {
						p.Members = append(p.Members, s)
					}
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// TestPlanAgreesWithKafka runs the batch mode on the shared example groups
// and compares every assignment with the one Apache Kafka's Java client
// computed for the same group (testdata/kafka-java-range-roundrobin.jsonl,
// produced outside this repository): same members in the same order, same
// partitions.
func TestPlanAgreesWithKafka(t *testing.T) {
	want, err := os.ReadFile("../../testdata/kafka-java-range-roundrobin.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, strategies := range [][]string{{"range,roundrobin"}, {"range", "--strategy", "roundrobin"}} {
		args := []string{"plan", "--in", "../../testdata/groups.jsonl", "--format", "jsonl", "--strategy"}
		args = append(args, strategies...)
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 || stderr != "" {
			t.Fatalf("assigncalc %s: exit status %d, stderr %q", strings.Join(args, " "), status, stderr)
		}
		if diff := cmp.Diff(parsePlanLines(t, want), parsePlanLines(t, []byte(stdout))); diff != "" {
			t.Errorf("assigncalc %s mismatch with Kafka's Java client (-want +got):\n%s", strings.Join(args, " "), diff)
		}
	}
}

// A batch mixing good groups, groups Kafka would refuse and groups with
// bad JSON content: every group gets its lines, the bad ones an error, and
// the exit status says bad input.
const mixedBatch = `{"name": "good", "topics": {"t": 3}, "members": [{"id": "b", "topics": ["t"]}, {"id": "a", "topics": ["t"]}]}
{"name": "duplicate-member", "topics": {"t": 3}, "members": [{"id": "a", "topics": ["t"]}, {"id": "a", "topics": ["t"]}]}
{"name": "negative-count", "topics": {"t": -3}, "members": [{"id": "a", "topics": ["t"]}]}
{"name": "not-an-int", "topics": {"t": 2.5}, "members": [{"id": "a", "topics": ["t"]}]}
{"name": "unknown-field", "topics": {"t": 1}, "members": [{"id": "a", "topics": ["t"], "rak": "x"}]}
{"name": "good-too", "topics": {"t": 1, "u": 2}, "members": [{"id": "a", "topics": ["t", "u", "nope"]}, {"id": "z", "topics": []}]}
`

func TestPlanGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "plan_kafka_examples_table", args: []string{"plan", "--in", "../../testdata/groups.jsonl", "--strategy", "range,roundrobin", "--format", "table"}},
		{name: "plan_kafka_examples_csv", args: []string{"plan", "--in", "../../testdata/groups.jsonl", "--strategy", "range", "--format", "csv"}},
		{name: "plan_mixed_jsonl", args: []string{"plan", "--in", "-", "--strategy", "range,roundrobin"}, stdin: mixedBatch, status: 2},
		{name: "plan_mixed_json", args: []string{"plan", "--in", "-", "--format", "json"}, stdin: mixedBatch, status: 2},
		{name: "plan_mixed_table", args: []string{"plan", "--in", "-", "--format", "table"}, stdin: mixedBatch, status: 2},
		{name: "plan_all_strategies_one_member", args: []string{"plan", "--in", "-", "--strategy", "all"},
			stdin: `{"name": "solo", "topics": {"t": 3}, "members": [{"id": "only", "topics": ["t"]}]}`},
		{name: "plan_java_class_name", args: []string{"plan", "--in", "-", "--strategy", "org.apache.kafka.clients.consumer.RoundRobinAssignor"},
			stdin: `{"topics": {"t": 3}, "members": [{"id": "x", "topics": ["t"]}, {"id": "y", "topics": ["t"]}]}`},
		{name: "plan_empty_input", args: []string{"plan", "--in", "-", "--format", "json"}, stdin: "\n"},
		{name: "plan_malformed_json", args: []string{"plan", "--in", "-"}, stdin: "{\"name\": \"first\", \"topics\": {\"t\": 1}, \"members\": []}\n{\"name\": \"second\",\n  \"topics\": {\"t\": 1} \"members\": []}\n", status: 2},
		{name: "plan_unknown_strategy", args: []string{"plan", "--in", "-", "--strategy", "range,fastest"}, status: 2},
		{name: "plan_unknown_format", args: []string{"plan", "--in", "-", "--format", "yaml"}, status: 2},
		{name: "plan_missing_in", args: []string{"plan"}, status: 2},
		{name: "plan_missing_file", args: []string{"plan", "--in", "testdata/does-not-exist.jsonl"}, status: 2},
		{name: "plan_unknown_flag", args: []string{"plan", "--inn", "x"}, status: 2},
		// Kafka 4.0.0 moves partition 3 of this balanced group to A; 4.1
		// keeps it (KAFKA-18688). TestPlanKafkaVersions checks the answers.
		{name: "plan_uniform_kafka40", args: []string{"plan", "--in", "testdata/plan_kip848_balanced.jsonl", "--strategy", "uniform", "--kafka", "4.0", "--format", "table"}},
		{name: "plan_uniform_kafka41", args: []string{"plan", "--in", "testdata/plan_kip848_balanced.jsonl", "--strategy", "uniform,server-range", "--kafka", "4.1", "--format", "jsonl"}},
		{name: "plan_uniform_derived_ids", args: []string{"plan", "--in", "-", "--strategy", "uniform"},
			stdin: `{"name": "no-ids", "topics": {"t0": 3, "t1": 3}, "members": [{"id": "C0", "topics": ["t0", "t1"]}, {"id": "C1", "topics": ["t0", "t1"]}]}`},
		{name: "plan_kafka_unknown_version", args: []string{"plan", "--in", "-", "--strategy", "uniform", "--kafka", "3.9"}, status: 2},
		{name: "plan_kafka_client_strategy", args: []string{"plan", "--in", "-", "--strategy", "range", "--kafka", "4.1"}, status: 2},
		{name: "plan_from_describe_table", args: []string{"plan", "--from-describe", describeData + "offsets_4x.txt", "--strategy", "range,sticky", "--format", "table"}},
		{name: "plan_from_describe_csv_override", args: []string{"plan", "--from-describe", "-", "--topics", "orders:4", "--member", "c1=orders@rack-b", "--strategy", "cooperative-sticky"},
			stdin: "member,topic,partition,lag\nc0,orders,0,5\nc0,orders,1,7\nc0,orders,2,0\nc1,orders,3,0\n"},
		{name: "plan_from_describe_refused", args: []string{"plan", "--from-describe", describeData + "members_38.txt"}, status: 2},
		{name: "plan_from_describe_with_in", args: []string{"plan", "--from-describe", "-", "--in", "x"}, status: 2},
		{name: "plan_topics_without_describe", args: []string{"plan", "--in", "-", "--topics", "t:3"}, status: 2},
	})
}

// TestPlanFromDescribe checks plan --from-describe against answers worked
// by hand. offsets_4x.txt lists orders 0-2 and payments 0-1 (counts 3 and
// 2 assumed), c1 owning orders-0 and -1, c2 orders-2 and payments-0, c3
// nothing, every member subscribed to both. Range splits each topic over
// c1 < c2 < c3 in order: orders 0 | 1 | 2, payments 0 | 1. Sticky keeps
// every claim (2, 2, 1 is balanced) and gives payments-1 to c3.
func TestPlanFromDescribe(t *testing.T) {
	const c1, c2, c3 = "consumer-orders-1-5f0c6a1e-2b7d-4a0e-9d3c-1f2e3d4c5b6a", "consumer-orders-2-0a1b2c3d-4e5f-4061-8a9b-cdef01234567", "consumer-orders-3-99999999-8888-4777-8666-555544443333"
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--from-describe", describeData + "offsets_4x.txt", "--strategy", "range,sticky", "--format", "jsonl"}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	got := parsePlanLines(t, []byte(stdout))
	want := []planLine{
		{Name: "orders-app", Strategy: "range", Members: []string{c1, c2, c3}, Assignment: map[string]map[string][]int32{
			c1: {"orders": {0}, "payments": {0}}, c2: {"orders": {1}, "payments": {1}}, c3: {"orders": {2}}}},
		{Name: "orders-app", Strategy: "sticky", Members: []string{c1, c2, c3}, Assignment: map[string]map[string][]int32{
			c1: {"orders": {0, 1}}, c2: {"orders": {2}, "payments": {0}}, c3: {"payments": {1}}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan --from-describe mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "orders:3, payments:2") {
		t.Errorf("stderr %q does not say which partition counts were assumed", stderr)
	}
}

// TestPlanKafkaVersions checks, independently of the goldens, the answers
// worked by hand (and printed by Kafka's own assignors, see
// assign/testdata/kip848) for the balanced group of
// plan_kip848_balanced.jsonl: four partitions of t over A, B, C, iterated
// in that order (hash buckets 1, 2, 3), holding 0 | 1 | 2,3. The quota is
// 1 with one +1. Kafka 4.0.0 gives the +1 to A, the first member: A keeps
// 0 and waits for one more, C keeps 2 (HashSet order) and releases 3,
// which goes to A. Kafka 4.1 lets A and B give the +1 back, as members
// remain that can take it, and C keeps both.
func TestPlanKafkaVersions(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    map[string]map[string][]int32
	}{
		{"4.0", map[string]map[string][]int32{"A": {"t": {0, 3}}, "B": {"t": {1}}, "C": {"t": {2}}}},
		{"4.1", map[string]map[string][]int32{"A": {"t": {0}}, "B": {"t": {1}}, "C": {"t": {2, 3}}}},
	} {
		stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", "testdata/plan_kip848_balanced.jsonl", "--strategy", "uniform", "--kafka", tc.version, "--format", "jsonl"}})
		if status != 0 {
			t.Fatalf("--kafka %s: status %d: %s", tc.version, status, stderr)
		}
		got := parsePlanLines(t, []byte(stdout))
		if len(got) != 1 {
			t.Fatalf("--kafka %s: %d lines", tc.version, len(got))
		}
		if diff := cmp.Diff(tc.want, got[0].Assignment); diff != "" {
			t.Errorf("--kafka %s mismatch (-want +got):\n%s", tc.version, diff)
		}
	}
}

// TestPlanMixedBatch checks, independently of the golden files, what the
// mixed batch must give: the good groups assigned as worked out by hand
// (Range on t with members a, b: a gets 0-1, b gets 2), one error line per
// bad group, in input order.
func TestPlanMixedBatch(t *testing.T) {
	stdout, _, status := runCase(cliCase{args: []string{"plan", "--in", "-", "--format", "jsonl"}, stdin: mixedBatch})
	if status != exitInput {
		t.Errorf("exit status %d, want %d", status, exitInput)
	}
	got := parsePlanLines(t, []byte(stdout))
	var summary []string
	for _, l := range got {
		switch {
		case l.Error != "":
			summary = append(summary, l.Name+": error")
		default:
			summary = append(summary, fmt.Sprintf("%s: %v %v", l.Name, l.Members, l.Assignment))
		}
	}
	want := []string{
		"good: [b a] map[a:map[t:[0 1]] b:map[t:[2]]]",
		"duplicate-member: error",
		"negative-count: error",
		"not-an-int: error",
		"unknown-field: error",
		"good-too: [a z] map[a:map[t:[0] u:[0 1]] z:map[]]",
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("plan on the mixed batch mismatch (-want +got):\n%s", diff)
	}
	for _, l := range got {
		if l.Name == "not-an-int" && !strings.Contains(l.Error, "line 4, column 40") {
			t.Errorf("error for not-an-int %q does not give line 4, column 40", l.Error)
		}
	}
}

// TestPlanAllStrategiesOnExamples runs every strategy on every example
// group. plan checks each result with assign.Verify (and a cooperative
// round with assign.VerifyCooperative) and exits 1 if one fails, so this
// test fails if any strategy gives an invalid answer on them.
func TestPlanAllStrategiesOnExamples(t *testing.T) {
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", "../../testdata/groups.jsonl", "--strategy", "all", "--format", "jsonl"}})
	if status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr)
	}
	lines := parsePlanLines(t, []byte(stdout))
	if want := 16 * len(assign.Strategies()); len(lines) != want {
		t.Errorf("%d result lines, want %d", len(lines), want)
	}
	for _, l := range lines {
		if l.Error != "" {
			t.Errorf("%s, %s: error %s", l.Name, l.Strategy, l.Error)
		}
	}
}
