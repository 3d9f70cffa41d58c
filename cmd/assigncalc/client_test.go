package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const javaStickyData = "../../assign/internal/javasticky/testdata/"

// TestPlanClientJavaEqualsKafka runs plan --client java over the 300 groups
// of the javasticky goldens and compares every line with what Kafka's own
// StickyAssignor and CooperativeStickyAssignor answered (written by the
// oracle of assign/internal/javasticky, not by this code): the same
// partitions per member, a partition Java gives twice listed twice, and
// an error naming Java's exception where Java throws (9 groups for sticky,
// 10 for cooperative-sticky).
func TestPlanClientJavaEqualsKafka(t *testing.T) {
	planEqualsKafka(t, "java", javaStickyData+"groups.jsonl", func(strategy string) string {
		return javaStickyData + strategy + ".jsonl"
	})
}

// TestPlanClientJavaReleases runs plan --client java@RELEASE over the 300
// random groups of the javasticky version goldens and over Kafka's own
// test scenarios, and compares every line with what Kafka's classes of
// that release answered (the oracle built from the tag's sources:
// versions/STRATEGY.VERSION.jsonl and kafka-tests.STRATEGY.VERSION.jsonl
// under the javasticky testdata). The releases of one version answer
// alike; 3.5.0's and 3.6.0's answers differ from 3.8's (TestVersionGoldens
// in javasticky shows it, and the scenario testTopicBalanceAfterReassignment
// shows it here).
func TestPlanClientJavaReleases(t *testing.T) {
	for _, c := range []struct{ client, version string }{
		{"java@3.5.0", "3.5"}, {"java@3.5.1", "3.5"},
		{"java@3.5.2", "3.6"}, {"java@3.6", "3.6"}, {"java@3.7.0", "3.6"},
		{"java@3.7.1", "3.8"}, {"java@4.0.0", "3.8"},
	} {
		t.Run(c.client, func(t *testing.T) {
			planEqualsKafka(t, c.client, javaStickyData+"versions/groups.jsonl", func(strategy string) string {
				return javaStickyData + "versions/" + strategy + "." + c.version + ".jsonl"
			})
			planEqualsKafka(t, c.client, javaStickyData+"kafka-tests.jsonl", func(strategy string) string {
				if c.version == "3.8" {
					return javaStickyData + "kafka-tests." + strategy + ".jsonl"
				}
				return javaStickyData + "kafka-tests." + strategy + "." + c.version + ".jsonl"
			})
		})
	}
}

// planEqualsKafka runs plan --client client over the groups of file and
// compares every line with Kafka's answers in answers(strategy).
func planEqualsKafka(t *testing.T, client, groups string, answers func(strategy string) string) {
	t.Helper()
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", groups,
		"--strategy", "sticky,cooperative-sticky", "--client", client, "--format", "jsonl"}})
	if status != exitOK && status != exitInput {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	got := parsePlanLines(t, []byte(stdout))
	for k, name := range []string{"sticky", "cooperative-sticky"} {
		want := readJavaAnswers(t, answers(name))
		if len(got) != 2*len(want) {
			t.Fatalf("%d plan lines for %d answers of %s", len(got), len(want), name)
		}
		for i, w := range want {
			g := got[2*i+k]
			if g.Name != w.Name || g.Strategy != name {
				t.Fatalf("line %d: %s %s, want %s %s", 2*i+k, g.Name, g.Strategy, w.Name, name)
			}
			if w.Error != "" {
				// The exception's class; a NullPointerException's message is
				// the JDK's own ("helpful NPE"), which we word differently.
				exception, _, _ := strings.Cut(w.Error, ":")
				if !strings.Contains(g.Error, "throws "+exception+":") {
					t.Errorf("%s %s: error %q, want Java's %q", name, w.Name, g.Error, w.Error)
				}
				continue
			}
			if g.Error != "" {
				t.Errorf("%s %s: error %q, want Java's assignment", name, w.Name, g.Error)
				continue
			}
			for id, topics := range w.Assignment {
				for topic, parts := range topics {
					if !slices.Equal(g.Assignment[id][topic], parts) {
						t.Errorf("%s %s: %s %s = %v, want Java's %v", name, w.Name, id, topic, g.Assignment[id][topic], parts)
					}
				}
			}
			for id, topics := range g.Assignment {
				for topic, parts := range topics {
					if len(parts) > 0 && len(w.Assignment[id][topic]) == 0 {
						t.Errorf("%s %s: %s gets %s %v, which Java does not give it", name, w.Name, id, topic, parts)
					}
				}
			}
		}
	}
}

type javaAnswer struct {
	Name       string
	Assignment map[string]map[string][]int32
	Error      string
}

func readJavaAnswers(t *testing.T, path string) []javaAnswer {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []javaAnswer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var a javaAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no answers", path)
	}
	return out
}

// The javadoc's example 1 as the code answers it, C1 having left: C0 and
// C2 keep what they had and share C1's partitions. The groups below are
// given as a Java leader would see them after the first round.
const javadocExample1 = `{"name": "javadoc-1", "topics": {"t0": 2, "t1": 2, "t2": 2, "t3": 2}, "members": [` +
	`{"id": "C0", "topics": ["t0", "t1", "t2", "t3"], "owned": {"t0": [0], "t1": [1], "t3": [0]}, "generation": 1},` +
	`{"id": "C2", "topics": ["t0", "t1", "t2", "t3"], "owned": {"t1": [0], "t2": [1], "t3": [1]}, "generation": 1}]}`

// javaGroup returns the line of the javasticky goldens' groups.jsonl
// holding group name.
func javaGroup(t *testing.T, name string) string {
	data, err := os.ReadFile(javaStickyData + "groups.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.HasPrefix(line, `{"name":"`+name+`"`) {
			return line
		}
	}
	t.Fatalf("no group %s", name)
	return ""
}

func TestClientGolden(t *testing.T) {
	static := `{"name": "static", "topics": {"t": 2}, "members": [{"id": "a", "instance": "i-a", "topics": ["t"]}, {"id": "b", "topics": ["t"]}]}`
	mixed := `{"name": "fleet", "topics": {"t": 4}, "members": [` +
		`{"id": "a", "topics": ["t"], "client": "java", "protocols": ["cooperative-sticky", "range"]},` +
		`{"id": "b", "topics": ["t"], "client": "librdkafka", "protocols": ["cooperative-sticky", "range"]}]}`
	runGolden(t, []cliCase{
		{name: "client_plan_java_table", args: []string{"plan", "--in", "-", "--strategy", "sticky,range", "--client", "java", "--format", "table"}, stdin: javadocExample1},
		{name: "client_plan_java_throws", args: []string{"plan", "--in", "-", "--strategy", "sticky", "--client", "java", "--format", "jsonl"}, stdin: javaGroup(t, "g00005"), status: exitInput},
		{name: "client_plan_approximate", args: []string{"plan", "--in", "-", "--strategy", "range", "--client", "sarama"}, stdin: javadocExample1},
		{name: "client_plan_kafkago_cooperative", args: []string{"plan", "--in", "-", "--strategy", "cooperative-sticky", "--client", "kafka-go"}, stdin: javadocExample1, status: exitInput},
		{name: "client_plan_kafkago_static", args: []string{"plan", "--in", "-", "--strategy", "range", "--client", "kafka-go"}, stdin: static, status: exitInput},
		{name: "client_plan_mixed_fleet", args: []string{"plan", "--in", "-", "--strategy", "range"}, stdin: mixed, status: exitInput},
		{name: "client_plan_unknown", args: []string{"plan", "--in", "-", "--client", "kafka-python"}, status: exitInput},
	})
}

func TestVoteClientGolden(t *testing.T) {
	fleet := `{"topics": {"t": 2}, "members": [` +
		`{"id": "a", "topics": ["t"], "protocols": ["cooperative-sticky", "range"]},` +
		`{"id": "b", "topics": ["t"], "protocols": ["range"], "client": "kafka-go"},` +
		`{"id": "c", "topics": ["t"], "protocols": ["cooperative-sticky", "range"], "client": "librdkafka"}]}`
	runGolden(t, []cliCase{
		{name: "client_vote_librdkafka_upgrade", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky", "--client", "librdkafka"}, status: exitUnsafe},
		{name: "client_vote_librdkafka_upgrade_json", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--client", "librdkafka", "--format", "jsonl"}, status: exitUnsafe},
		{name: "client_vote_librdkafka_one_step", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--client", "librdkafka"}, status: exitUnsafe},
		{name: "client_vote_kafkago_cooperative", args: []string{"vote", "--upgrade", "range", "--to", "cooperative-sticky", "--client", "kafka-go"}, status: exitInput},
		{name: "client_vote_kafkago_members", args: []string{"vote", "c1=cooperative-sticky", "c2=range", "--client", "kafka-go"}, status: exitInput},
		{name: "client_vote_fleet", args: []string{"vote", "--in", "-"}, stdin: fleet, status: exitInput},
	})
}

// --client java, vote's default, keeps vote's answers as they were before
// --client existed.
func TestVoteClientJavaUnchanged(t *testing.T) {
	for _, args := range [][]string{
		{"vote", "--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky"},
		{"vote", "--upgrade", "range", "--to", "cooperative-sticky"},
		{"vote", "c1=cooperative-sticky,range", "c2=range"},
	} {
		out, errOut, status := runCase(cliCase{args: args})
		jout, jerr, jstatus := runCase(cliCase{args: append(slices.Clone(args), "--client", "java")})
		if out != jout || errOut != jerr || status != jstatus {
			t.Errorf("%v: --client java changes the answer:\n%s%s(%d)\nvs\n%s%s(%d)", args, out, errOut, status, jout, jerr, jstatus)
		}
	}
}

// The preview with --client java shows Java's answer and, beside it, where
// it is worse than ours: g00003 of the javasticky goldens, where Java
// hands back a claim of a partition the topic no longer has; g00005,
// where Java throws.
func TestPreviewClientGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "client_preview_java_invalid", args: []string{"--in", "-", "--client", "java", "--strategy", "sticky", "--compare", "sticky,range"}, stdin: javaGroup(t, "g00003")},
		{name: "client_preview_java_throws", args: []string{"--in", "-", "--client", "java", "--strategy", "sticky"}, stdin: javaGroup(t, "g00005"), status: exitInput},
		{name: "client_preview_java_javadoc", args: []string{"--in", "-", "--client", "java", "--strategy", "sticky", "--compare", "sticky"}, stdin: javadocExample1},
		{name: "client_preview_librdkafka_sticky", args: []string{"--in", "-", "--client", "librdkafka", "--strategy", "sticky"}, stdin: javadocExample1, status: exitInput},
	})
}

// TestPlanMemberClientRelease: a member's "client" in a group file takes
// a release as --client does; the leader (the first member) runs Kafka
// 3.6.0, whose StickyAssignor gives the owner of both topics all of
// topic1 and the newcomer all of topic2 (what Kafka's 3.6.0 classes
// answered for testTopicBalanceAfterReassignment, in the javasticky
// testdata), though --client says java, which splits each topic.
func TestPlanMemberClientRelease(t *testing.T) {
	data, err := os.ReadFile("testdata/java_releases.json")
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Replace(string(data), `{"id": "consumer1",`, `{"id": "consumer1", "client": "java@3.6.0",`, 1)
	if in == string(data) {
		t.Fatal("testdata/java_releases.json: no member consumer1")
	}
	stdout, stderr, status := runCase(cliCase{args: []string{"plan", "--in", "-", "--strategy", "sticky", "--client", "java", "--format", "jsonl"}, stdin: in})
	if status != exitOK {
		t.Fatalf("status %d, stderr %s", status, stderr)
	}
	want := readJavaAnswers(t, javaStickyData+"kafka-tests.sticky.3.6.jsonl")
	w := want[len(want)-1]
	if w.Name != "AbstractStickyAssignorTest.testTopicBalanceAfterReassignment/consumer2 joins" {
		t.Fatalf("last Kafka 3.6 answer is %s", w.Name)
	}
	got := parsePlanLines(t, []byte(stdout))
	if len(got) != 1 {
		t.Fatalf("%d lines", len(got))
	}
	for id, topics := range w.Assignment {
		for topic, parts := range topics {
			if !slices.Equal(got[0].Assignment[id][topic], parts) {
				t.Errorf("%s %s = %v, want Kafka 3.6.0's %v", id, topic, got[0].Assignment[id][topic], parts)
			}
		}
	}
}
