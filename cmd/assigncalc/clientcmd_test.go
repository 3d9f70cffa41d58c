package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCheckClientJavaAgreesWithKafka feeds check --client java the answers
// Kafka's own StickyAssignor gave on the 300 javasticky goldens (written by
// the oracle of assign/internal/javasticky, not by this code): OURS must
// read "same" on every group Java assigns, however unbalanced, and "-"
// where Java throws. Without --client, OURS compares with assigncalc's
// sticky, which differs on some of them: the flag changes the comparison.
func TestCheckClientJavaAgreesWithKafka(t *testing.T) {
	data, err := os.ReadFile(javaStickyData + "sticky.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var results bytes.Buffer
	for line := range strings.Lines(string(data)) {
		// The oracle writes no strategy; check matches by name and strategy.
		results.WriteString(strings.Replace(line, "{", `{"strategy":"sticky",`, 1))
	}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	if err := os.WriteFile(path, results.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	verdicts := func(args ...string) []struct{ Name, Ours, Problem string } {
		stdout, stderr, status := runCase(cliCase{args: append([]string{"check", "--in", javaStickyData + "groups.jsonl", "--results", path, "--format", "jsonl"}, args...)})
		if status != exitOK && status != exitFailed {
			t.Fatalf("status %d, stderr %s", status, stderr)
		}
		var out []struct{ Name, Ours, Problem string }
		for line := range strings.Lines(stdout) {
			var v struct{ Name, Ours, Problem string }
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		if len(out) != 300 {
			t.Fatalf("%d verdicts, want 300", len(out))
		}
		return out
	}
	differ := 0
	for _, v := range verdicts() {
		if v.Ours == "differs" {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("assigncalc's sticky equals Java's on every golden: the test cannot tell --client java from the default")
	}
	faulty := 0
	for _, v := range verdicts("--client", "java") {
		if strings.Contains(v.Problem, "assigned to both") || strings.Contains(v.Problem, "repeated") {
			faulty++ // Java lists a partition under two members, or twice under one: still the same
		}
		thrown := strings.Contains(v.Problem, "the result is an error")
		if (thrown && v.Ours != "-") || (!thrown && v.Ours != "same") {
			t.Errorf("%s: OURS %q (problem %q), want Java's own answer to read same", v.Name, v.Ours, v.Problem)
		}
	}
	if faulty == 0 {
		t.Error("no golden where Java gives a partition twice: the test cannot show those read same")
	}
}

func TestSimulateTimelineCheckMigrateClientGolden(t *testing.T) {
	spread := javaGroup(t, "g00020") // Java's sticky leaves a spread of 2
	static := `{"topics": {"t": 2}, "members": [{"id": "a", "instance": "i-a", "topics": ["t"]}, {"id": "b", "topics": ["t"]}]}`
	fleet := `{"topics": {"t": 4}, "members": [` +
		`{"id": "a", "topics": ["t"], "client": "java"},` +
		`{"id": "b", "topics": ["t"], "client": "kafka-go", "instance": "i-b"}]}`
	runGolden(t, []cliCase{
		{name: "client_simulate_java_spread", args: []string{"simulate", "--in", "-", "--client", "java", "--compare", "sticky,cooperative-sticky"}, stdin: spread},
		{name: "client_simulate_java_javadoc", args: []string{"simulate", "--in", "-", "--client", "java", "--compare", "sticky", "--leave", "C2", "--format", "jsonl"}, stdin: javadocExample1},
		{name: "client_simulate_java_throws", args: []string{"simulate", "--in", "-", "--client", "java", "--compare", "sticky"}, stdin: javaGroup(t, "g00005"), status: exitInput},
		{name: "client_simulate_java_invalid", args: []string{"simulate", "--in", "-", "--client", "java", "--compare", "sticky"}, stdin: javaGroup(t, "g00003"), status: exitInput},
		{name: "client_simulate_kafkago_default", args: []string{"simulate", "--members", "3", "--topics", "t:6", "--leave", "c1", "--client", "kafka-go"}},
		{name: "client_simulate_kafkago_sticky", args: []string{"simulate", "--members", "3", "--topics", "t:6", "--leave", "c1", "--client", "kafka-go", "--compare", "sticky"}, status: exitInput},
		{name: "client_simulate_fleet", args: []string{"simulate", "--in", "-", "--leave", "a"}, stdin: fleet, status: exitInput},
		{name: "client_timeline_java", args: []string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--client", "java", "--strategy", "sticky,cooperative-sticky"}},
		{name: "client_timeline_librdkafka_default", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--crash", "c1@1s", "--client", "librdkafka"}},
		{name: "client_timeline_kafkago_static", args: []string{"timeline", "--members", "2", "--topics", "t:2", "--crash", "c1@1s", "--client", "kafka-go", "--static"}, status: exitInput},
		{name: "client_check_kafkago_cooperative", args: []string{"check", "--from-describe", "-", "--strategy", "cooperative-sticky", "--client", "kafka-go"}, stdin: describeTwoMembers, status: exitFailed},
		{name: "client_migrate_java_spread", args: []string{"migrate", "--in", "-", "--from", "sticky", "--client", "java"}, stdin: spread},
		{name: "client_migrate_kafkago_static", args: []string{"migrate", "--in", "-", "--from", "range", "--client", "kafka-go"}, stdin: static, status: exitInput},
	})
}

// A live group of two members, as kafka-consumer-groups.sh --describe
// prints it.
const describeTwoMembers = `GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID
g      t      0          5               5               0    m1           /h1   c1
g      t      1          5               5               0    m2           /h2   c2
`

// TestProgressDuring: while one long computation runs (Java's sticky on
// a large group, a single step), during rewrites the progress line with
// the seconds the step has taken, and end clears it. The work here lasts
// until the line has been rewritten (at most ten seconds), so the test
// does not depend on how fast the computation is; the fake clock
// advances 600ms a read, so the line is due at once, and the ticker
// fires every millisecond.
func TestProgressDuring(t *testing.T) {
	var mu sync.Mutex
	var stderr bytes.Buffer
	written := func() string {
		mu.Lock()
		defer mu.Unlock()
		return stderr.String()
	}
	var clockMu sync.Mutex
	now := time.Unix(0, 0)
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderrTerminal: true, tick: time.Millisecond,
		stderr: writerFunc(func(b []byte) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			return stderr.Write(b)
		}),
		now: func() time.Time {
			clockMu.Lock()
			defer clockMu.Unlock()
			now = now.Add(600 * time.Millisecond)
			return now
		}}
	p := e.startProgress("simulate", 2)
	p.during(0, "start, sticky", func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if strings.Contains(written(), "start, sticky, ") {
				return
			}
		}
	})
	p.end()
	got := written()
	if !strings.Contains(got, "\r\x1b[Kassigncalc: simulate: start, sticky, ") {
		t.Errorf("stderr %q: no progress rewritten during the step", clip(got))
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("stderr %q: the progress line is not cleared at the end", clip(got))
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestEmulationWithProgress: simulate --client java on a group of 800
// members over 800 topics runs its Java steps under the progress
// mechanism (TestProgressDuring holds what it shows) and answers.
func TestEmulationWithProgress(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, stderrTerminal: true, tick: time.Millisecond}
	// 800 members over 800 topics of 3 partitions, three topics each.
	var b strings.Builder
	b.WriteString(`{"topics": {`)
	for i := range 800 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"t` + itoa(i) + `": 3`)
	}
	b.WriteString(`}, "members": [`)
	for i := range 800 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"id": "c` + itoa(i) + `", "topics": ["t` + itoa(i) + `", "t` + itoa(i*7%800) + `", "t` + itoa((i*13+5)%800) + `"]}`)
	}
	b.WriteString("]}")
	e.stdin = strings.NewReader(b.String())
	if status := runEnv(e, []string{"assigncalc", "simulate", "--in", "-", "--compare", "sticky", "--client", "java"}); status != 0 {
		t.Fatalf("exit status %d, stderr %q", status, stderr.String())
	}
	if !strings.Contains(stdout.String(), "sticky (java)") {
		t.Errorf("stdout %q: no sticky (java) column", clip(stdout.String()))
	}
}

// TestCheckClientJavaDoubleAssignment: on golden g00042 Kafka's
// StickyAssignor gives six partitions to two members each and lists t5-21
// twice under member c52 (the oracle printed
// "c52":{"t1":[15,18],"t5":[21,21]}). check --client java used to call a
// result that lists it once "differs", as if Java gave it elsewhere; it
// says what Java does instead: a double assignment, naming the holders of
// the one partition the result holds otherwise.
func TestCheckClientJavaDoubleAssignment(t *testing.T) {
	data, err := os.ReadFile(javaStickyData + "sticky.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var result string
	for line := range strings.Lines(string(data)) {
		if strings.HasPrefix(line, `{"name":"g00042"`) {
			result = line
		}
	}
	const twice = `"c52":{"t1":[15,18],"t5":[21,21]}`
	if !strings.Contains(result, twice) {
		t.Fatalf("golden g00042 no longer holds %s", twice)
	}
	result = strings.Replace(result, twice, `"c52":{"t1":[15,18],"t5":[21]}`, 1)
	result = strings.Replace(result, "{", `{"strategy":"sticky",`, 1)
	dir := t.TempDir()
	for name, body := range map[string]string{"group.json": javaGroup(t, "g00042"), "result.json": result} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, stderr, _ := runCase(cliCase{args: []string{"check", "--in", filepath.Join(dir, "group.json"), "--results", filepath.Join(dir, "result.json"), "--client", "java", "--format", "jsonl"}})
	var v struct {
		Ours        string
		Differences []struct{ Partition, Theirs, Ours string }
	}
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("%v: stdout %q, stderr %q", err, stdout, stderr)
	}
	want := []struct{ Partition, Theirs, Ours string }{{"t5-21", "c52", "c52 and c52"}}
	if v.Ours != "double assignment" || len(v.Differences) != 1 || v.Differences[0] != want[0] {
		t.Errorf("OURS %q, differences %+v; want double assignment, %+v", v.Ours, v.Differences, want)
	}
}

// TestTimelineJSONClient: timeline's machine formats name the client a
// strategy reproduces, as plan's and simulate's results do: "client"
// after the summary, with "approximate": true where the strategy is ours
// standing in for the client's (librdkafka's assignors are not
// reproduced), and neither without --client.
func TestTimelineJSONClient(t *testing.T) {
	for _, c := range []struct {
		args        []string
		client      string
		approximate bool
	}{
		{[]string{"--client", "java", "--strategy", "sticky,range"}, "java", false},
		{[]string{"--client", "librdkafka", "--strategy", "cooperative-sticky"}, "librdkafka", true},
		{[]string{"--strategy", "sticky"}, "", false},
	} {
		args := append([]string{"timeline", "--members", "3", "--topics", "t:6", "--crash", "c1@10s", "--format", "jsonl"}, c.args...)
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != exitOK {
			t.Fatalf("%v: status %d, stderr %s", args, status, stderr)
		}
		lines := 0
		for line := range strings.Lines(stdout) {
			var v struct {
				Strategy    string
				Client      string
				Approximate bool
			}
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatal(err)
			}
			if v.Client != c.client || v.Approximate != c.approximate {
				t.Errorf("%v: %s: client %q, approximate %v; want %q, %v", c.args, v.Strategy, v.Client, v.Approximate, c.client, c.approximate)
			}
			lines++
		}
		if lines == 0 {
			t.Errorf("%v: no timeline written", c.args)
		}
	}
}
