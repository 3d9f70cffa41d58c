package main

import (
	"strings"
	"testing"
)

// The grammars of the CLI fuzz targets, one per command, and their seeds:
// the known offenders among them. See fuzz_grammar_test.go for what every
// run must satisfy.

var (
	strategyValues = []string{"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range", "all", "range,sticky", "bogus", ""}
	formatValues   = []string{"table", "json", "jsonl", "csv", "yaml"}
	fileValues     = []string{"-", inFile, "/nonexistent/assigncalc", "."}
	countValues    = []string{"0", "1", "3", "64", "-1", "1048576", "1048577", "2147483647", "x"}
	durationValues = []string{"0", "1ms", "10s", "45s", "5m", "1000000h", "-1s", "9223372036854775807", "x"}
)

// serverFuzzFlags are the flags of the server-side assignors (KIP-848).
func serverFuzzFlags() []fuzzFlag {
	return []fuzzFlag{
		{name: "protocol", values: []string{"classic", "consumer", "x"}},
		{name: "kafka", values: []string{"4.0", "4.1", "4.0.1", "3.9", "x"}},
		{name: "topic-id", values: []string{"t1=Yp0cT2sWQ7ChA0qyU5Ckdg", "t2=AAAAAAAAAAAAAAAAAAAAAA", "t1=AAAAAAAAAAAAAAAAAAAAAQ", "t1=x", "=Yp0cT2sWQ7ChA0qyU5Ckdg", "t1"}},
	}
}

// shapeFuzzFlags are the group flags of the preview, simulate and timeline.
func shapeFuzzFlags() []fuzzFlag {
	return []fuzzFlag{
		{name: "members", values: countValues, size: sizeMembers},
		{name: "member", values: []string{"c0", "c1=t1@a", "c2#i2=t1,t2@b", "c0#", "=t1", "c3@", ""}, size: sizeMember},
		{name: "topics", values: []string{"t1:7", "t1:3,t2:5", "t:2147483647", "t:0", "t:-1", "t:33554433", "t1", ":3", "\xcb:1"}, size: sizePartitions},
		{name: "replicas", values: []string{"0", "1", "2", "3", "2147483647", "-1"}},
		{name: "racks", values: []string{"a", "a,b", "a,a", "", ",", "a,b,c"}},
		{name: "in", values: fileValues, path: true},
		{name: "from-describe", values: fileValues, path: true},
	}
}

var fuzzPreview = fuzzCommand{
	flags: append(append(shapeFuzzFlags(),
		fuzzFlag{name: "strategy", values: strategyValues},
		fuzzFlag{name: "compare", values: strategyValues},
		fuzzFlag{name: "diff"},
		fuzzFlag{name: "format", values: formatValues},
		fuzzFlag{name: "all"},
	), serverFuzzFlags()...),
}

var fuzzMigrate = fuzzCommand{
	prefix: []string{"migrate"},
	flags: append(append(shapeFuzzFlags(),
		fuzzFlag{name: "from", values: strategyValues},
		fuzzFlag{name: "to", values: strategyValues},
		fuzzFlag{name: "moves"},
		fuzzFlag{name: "all"},
		fuzzFlag{name: "format", values: formatValues},
	), serverFuzzFlags()[1:]...),
}

var fuzzPlan = fuzzCommand{
	prefix: []string{"plan"},
	flags: []fuzzFlag{
		{name: "in", values: fileValues, path: true},
		{name: "strategy", values: strategyValues},
		{name: "format", values: formatValues},
		{name: "kafka", values: []string{"4.0", "4.1", "4.0.1", "3.9", "x"}},
	},
}

var fuzzSimulate = fuzzCommand{
	prefix: []string{"simulate"},
	flags: append(append(shapeFuzzFlags(),
		fuzzFlag{name: "leave", values: []string{"c0", "c1", "i2", "c9", ""}},
		fuzzFlag{name: "join", values: []string{"c9", "c9=t1@a", "c0", "c9#", "c9#i9=t2", ""}, size: sizeMember},
		fuzzFlag{name: "grow", values: []string{"t1:+4", "t1:2", "t1:+2147483647", "t1:2147483647", "t9:3", "t1:-1", "t1:+0"}, size: sizePartitions},
		fuzzFlag{name: "subscribe", values: []string{"c0=t1", "c1=t2,t1", "c0=", "c9=t1"}},
		fuzzFlag{name: "restart", values: []string{"c0", "i2", "c9"}},
		fuzzFlag{name: "keep-member-id"},
		fuzzFlag{name: "moves"},
		fuzzFlag{name: "compare", values: strategyValues},
		fuzzFlag{name: "format", values: formatValues},
	), serverFuzzFlags()...),
}

var fuzzTimeline = fuzzCommand{
	prefix: []string{"timeline"},
	flags: append(append(shapeFuzzFlags(),
		fuzzFlag{name: "strategy", values: strategyValues},
		fuzzFlag{name: "protocol", values: []string{"classic", "consumer", "x"}},
		fuzzFlag{name: "session-timeout", values: durationValues},
		fuzzFlag{name: "heartbeat-interval", values: durationValues},
		fuzzFlag{name: "max-poll-interval", values: durationValues},
		fuzzFlag{name: "max-poll-records", values: countValues},
		fuzzFlag{name: "processing", values: []string{"2ms/record", "0s/record", "1h/record", "1ns/record", "x"}},
		fuzzFlag{name: "metadata-max-age", values: durationValues},
		fuzzFlag{name: "initial-delay", values: durationValues},
		fuzzFlag{name: "consumer-session-timeout", values: durationValues},
		fuzzFlag{name: "consumer-heartbeat-interval", values: durationValues},
		fuzzFlag{name: "static"},
		fuzzFlag{name: "forming"},
		fuzzFlag{name: "crash", size: sizeEvent, values: []string{"c0@10s", "c1@0", "c9@1s", "c0@1000000h", "c0"}},
		fuzzFlag{name: "close", size: sizeEvent, values: []string{"c0@10s", "c1@1m"}},
		fuzzFlag{name: "restart", size: sizeEvent, values: []string{"c0@10s+20s", "c1@1s+1000000h", "c0@10s"}},
		fuzzFlag{name: "stall", size: sizeEvent, values: []string{"c0@10s+5m", "c0@1s+1ms"}},
		fuzzFlag{name: "join", values: []string{"c9@5s", "c9=t1@1s", "c0@1s"}, size: sizeMember},
		fuzzFlag{name: "subscribe", size: sizeEvent, values: []string{"c0=t1@5s", "c1=t2@1s"}},
		fuzzFlag{name: "grow", values: []string{"t1:+4@10s", "t1:9@1s", "t1:+2147483647@1s"}, size: sizePartitions},
		fuzzFlag{name: "until", values: durationValues},
		fuzzFlag{name: "format", values: formatValues},
		fuzzFlag{name: "steps"},
		fuzzFlag{name: "svg", values: []string{outFile}, path: true},
	), serverFuzzFlags()[1:]...),
	// timeline.actionsPerMember actions of about 100 bytes each.
	perActor: 1 << 14 * 128,
}

var fuzzCheck = fuzzCommand{
	prefix: []string{"check"},
	flags: []fuzzFlag{
		{name: "in", values: fileValues, path: true},
		{name: "results", values: fileValues, path: true},
		{name: "from-describe", values: fileValues, path: true},
		{name: "strategy", values: strategyValues},
		{name: "topics", values: []string{"t1:7", "t:2147483647", "t:0"}, size: sizePartitions},
		{name: "member", values: []string{"c0", "c1=t1@a"}, size: sizeMember},
		{name: "format", values: formatValues},
	},
}

var fuzzVote = fuzzCommand{
	prefix: []string{"vote"},
	flags: []fuzzFlag{
		{name: "", values: []string{"c1=cooperative-sticky,range", "c2=range", "c3=", "=range", "c1=x", "c1"}},
		{name: "in", values: fileValues, path: true},
		{name: "coordinator", values: []string{"java", "scala", "x"}},
		{name: "kind", values: []string{"classic", "consumer", "x"}},
		{name: "upgrade", values: []string{"range", "cooperative-sticky", "range,roundrobin", ""}},
		{name: "to", values: []string{"cooperative-sticky,range", "cooperative-sticky", "sticky", "x"}},
		{name: "members", values: countValues, size: sizeMembers},
		{name: "topics", values: []string{"t1:7", "t:2147483647", "t1:3,t2:5"}, size: sizePartitions},
		{name: "allow-custom"},
		{name: "format", values: formatValues},
	},
}

var fuzzDecode = fuzzCommand{
	prefix: []string{"decode"},
	flags: []fuzzFlag{
		{name: "", values: []string{"subscription", "assignment", "sticky", "cooperative", "-", "0000000000010002743100000000", "AAEAAAABAAJ0MQAAAAA="}},
		{name: "encoding", values: []string{"auto", "hex", "base64", "raw", "x"}},
		{name: "format", values: formatValues},
	},
}

var fuzzCoordinator = fuzzCommand{
	prefix: []string{"coordinator"},
	flags: []fuzzFlag{
		{name: "", values: []string{"checkout-service", "", "g"}},
		{name: "partitions", values: countValues},
		{name: "format", values: formatValues},
	},
}

// groupSeeds are group files: ordinary ones and the known offenders.
func groupSeeds() []string {
	deep := strings.Repeat("[", 10000) + strings.Repeat("]", 10000)
	return []string{
		`{"topics": {"t1": 7, "t2": 3}, "members": [{"id": "c0", "topics": ["t1", "t2"], "protocols": ["range"]}, {"id": "c1", "instance": "i1", "rack": "a", "topics": ["t1"], "owned": {"t1": [0, 1]}, "protocols": ["cooperative-sticky", "range"]}]}`,
		// An owned partition at the top of int32: once an 8 GiB allocation.
		`{"topics": {"t": 3}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [2147483647]}, "protocols": ["sticky"]}]}`,
		// A topic of 2147483647 partitions.
		`{"topics": {"t": 2147483647}, "members": [{"id": "a", "topics": ["t"]}]}`,
		`{"topics": {"t": 2147483647, "u": 2}, "members": [{"id": "a", "topics": ["u"]}]}`,
		`{"topics": {"t": 4}, "partitionRacks": {"t": [["a"], ["b"], [], ["a", "b"]]}, "members": [{"id": "a", "rack": "a", "topics": ["t"], "generation": 2147483647}]}`,
		`{"topics": {"t": 4}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [0, 0, 1]}}, {"id": "b", "topics": ["t"], "owned": {"t": [0]}}]}`,
		// Deeply nested JSON.
		`{"topics": {"t": 1}, "members": [], "x": ` + deep + `}`,
		deep,
		// Duplicate keys.
		`{"topics": {"t": 1, "t": 2}, "members": [{"id": "a", "id": "b", "topics": ["t"]}]}`,
		// NaN and Infinity are not JSON; 1e9999 overflows.
		`{"topics": {"t": NaN}, "members": [{"id": "a", "topics": ["t"]}]}`,
		`{"topics": {"t": Infinity}, "members": [{"id": "a", "topics": ["t"]}]}`,
		`{"topics": {"t": 1e9999}, "members": [{"id": "a", "topics": ["t"]}]}`,
		`{"topics": {"t": -0}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [1e2]}}]}`,
		// Invalid UTF-8 in ids.
		"{\"topics\": {\"t\xff\": 2}, \"members\": [{\"id\": \"a\xc3\", \"topics\": [\"t\xff\"]}]}",
		`{"topics": {"t": 1}, "members": [{"id": "\ud800", "topics": ["t"]}]}`,
		"{\"topics\": {\"t\": 2}, \"members\": [{\"id\": \"a\", \"topics\": [\"t\"]}]}\n{\"topics\": {\"t\": 2}, \"members\": [{\"id\": \"b\", \"topics\": [\"t\"]}]}\n",
		"",
	}
}

// describeSeeds are outputs of kafka-consumer-groups.sh --describe.
func describeSeeds() []string {
	return []string{
		"GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID\n" +
			"g      t      0          5               10              5    c0-1         /1.2.3.4  c0\n" +
			"g      t      1          5               10              5    c1-1         /1.2.3.4  c1\n",
		"GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID\n" +
			"g      t      2147483647 5               10              5    c0-1         /1.2.3.4  c0\n",
		"member,topic,partition,lag\nc0,t,0,5\nc1,t,2147483647,1\n",
		"member,topic,partition\nc0,t,-1\nc0,t,0\nc0,t,0\n",
	}
}

// addSeeds adds each command line of lines with each input of inputs.
func addSeeds(f *testing.F, c fuzzCommand, lines [][]string, inputs []string) {
	for _, line := range lines {
		ops, free := c.encode(line...)
		for _, in := range inputs {
			f.Add(ops, free, []byte(in))
		}
	}
}

func FuzzCLIPreview(f *testing.F) {
	addSeeds(f, fuzzPreview, [][]string{
		{"--members", "3", "--topics", "t1:7"},
		{"--member", "c0=t1@a", "--member", "c1=t1@b", "--topics", "t1:3,t2:5", "--replicas", "2", "--racks", "a,b", "--strategy", "all", "--diff"},
		{"--members", "3", "--topics", "t:2147483647"},
		{"--members", "3", "--topics", "t:2147483647", "--racks", "a,b"},
		{"--members", "3", "--topics", "t:33554432,t1:7", "--racks", "a"},
		{"--members", "2147483647", "--topics", "t1:7"},
		{"--members", "3", "--topics", "t1:7", "--replicas", "2147483647", "--racks", "a,b", "--format", "json"},
	}, []string{""})
	addSeeds(f, fuzzPreview, [][]string{{"--in", "-"}, {"--in", "-", "--all", "--format", "csv", "--compare", "all"}}, groupSeeds())
	addSeeds(f, fuzzPreview, [][]string{{"--from-describe", "-", "--topics", "t:3"}, {"--from-describe", "-", "--member", "c0"}}, describeSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzPreview, ops, free, data)
	})
}

func FuzzCLIPlan(f *testing.F) {
	addSeeds(f, fuzzPlan, [][]string{
		{"--in", "-"},
		{"--in", "-", "--strategy", "all", "--format", "table"},
		{"--in", "-", "--strategy", "uniform", "--kafka", "4.0", "--format", "csv"},
	}, groupSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzPlan, ops, free, data)
	})
}

func FuzzCLISimulate(f *testing.F) {
	addSeeds(f, fuzzSimulate, [][]string{
		{"--members", "3", "--topics", "t1:7", "--leave", "c0", "--join", "c9", "--grow", "t1:+4", "--moves"},
		{"--member", "c2#i2=t1,t2@b", "--member", "c1=t1@a", "--topics", "t1:3,t2:5", "--restart", "i2", "--restart", "c1", "--moves"},
		{"--members", "3", "--topics", "t1:7", "--grow", "t1:+2147483647"},
		{"--members", "3", "--topics", "t1:7", "--grow", "t1:2147483647", "--format", "json"},
		{"--members", "3", "--topics", "t1:7", "--racks", "a,b", "--grow", "t1:2147483647"},
		{"--members", "3", "--topics", "t1:7", "--racks", "a,b", "--grow", "t1:+2147483647"},
	}, []string{""})
	addSeeds(f, fuzzSimulate, [][]string{{"--in", "-", "--leave", "a", "--moves"}, {"--in", "-", "--grow", "t:+1", "--format", "jsonl"}}, groupSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzSimulate, ops, free, data)
	})
}

func FuzzCLIMigrate(f *testing.F) {
	addSeeds(f, fuzzMigrate, [][]string{
		{"--members", "3", "--topics", "t1:8", "--from", "roundrobin"},
		{"--members", "3", "--topics", "t1:8,t2:4", "--to", "server-range", "--kafka", "4.0", "--moves", "--format", "json"},
		{"--members", "3", "--topics", "t:2147483647"},
		{"--members", "3", "--topics", "t1:7", "--to", "range"},
		{"--members", "3", "--topics", "t1:7", "--from", "uniform"},
		{"--members", "3", "--topics", "t1:7", "--topic-id", "t1=AAAAAAAAAAAAAAAAAAAAAA"},
	}, []string{""})
	addSeeds(f, fuzzMigrate, [][]string{{"--in", "-"}, {"--in", "-", "--moves", "--all", "--format", "jsonl"}}, groupSeeds())
	addSeeds(f, fuzzMigrate, [][]string{{"--from-describe", "-", "--to", "server-range"}, {"--from-describe", "-", "--moves", "--format", "csv"}}, describeSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzMigrate, ops, free, data)
	})
}

func FuzzCLITimeline(f *testing.F) {
	addSeeds(f, fuzzTimeline, [][]string{
		{"--members", "3", "--topics", "t1:7", "--crash", "c0@10s"},
		{"--members", "3", "--topics", "t1:7", "--static", "--restart", "c0@10s+20s", "--svg", outFile, "--steps"},
		{"--members", "3", "--topics", "t1:7", "--protocol", "consumer", "--join", "c9@5s", "--format", "json"},
		{"--members", "3", "--topics", "t1:7", "--crash", "c0@1000000h"},
		{"--members", "3", "--topics", "t1:7", "--until", "1000000h", "--max-poll-records", "1", "--processing", "1ns/record"},
		{"--members", "3", "--topics", "t1:7", "--grow", "t1:+2147483647@1s"},
		{"--members", "2", "--topics", "t1:7", "--heartbeat-interval", "1ms", "--session-timeout", "1000000h", "--until", "1000000h"},
	}, []string{""})
	addSeeds(f, fuzzTimeline, [][]string{{"--in", "-", "--crash", "a@1s"}}, groupSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzTimeline, ops, free, data)
	})
}

func FuzzCLICheck(f *testing.F) {
	results := `{"name":"","strategy":"range","assignment":{"a":{"t":[0,1,2]}}}` + "\n" +
		`{"name":"","strategy":"sticky","assignment":{"a":{"t":[2147483647]}}}` + "\n"
	var inputs []string
	for _, g := range groupSeeds() {
		inputs = append(inputs, g+"\x00"+results)
	}
	addSeeds(f, fuzzCheck, [][]string{{"--in", "-", "--results", inFile}, {"--in", inFile, "--results", "-", "--format", "json"}}, inputs)
	addSeeds(f, fuzzCheck, [][]string{{"--from-describe", "-", "--topics", "t:3"}, {"--from-describe", "-", "--strategy", "sticky"}}, describeSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzCheck, ops, free, data)
	})
}

func FuzzCLIVote(f *testing.F) {
	addSeeds(f, fuzzVote, [][]string{
		{"c1=cooperative-sticky,range", "c2=range"},
		{"--upgrade", "range", "--to", "cooperative-sticky,range", "--to", "cooperative-sticky", "--members", "3", "--topics", "t1:7"},
		{"--upgrade", "range", "--to", "cooperative-sticky", "--members", "2147483647"},
		{"--kind", "consumer", "c1=x", "--allow-custom"},
	}, []string{""})
	addSeeds(f, fuzzVote, [][]string{{"--in", "-"}, {"--in", "-", "--coordinator", "scala", "--format", "json"}}, groupSeeds())
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzVote, ops, free, data)
	})
}

func FuzzCLIDecode(f *testing.F) {
	addSeeds(f, fuzzDecode, [][]string{
		{"subscription", "0000000000010002743100000000"},
		{"assignment", "AAEAAAABAAJ0MQAAAAA="},
		{"--encoding", "raw", "subscription", "-"},
		{"--encoding", "hex", "--format", "json", "sticky", "-"},
		{"cooperative", "-"},
	}, []string{
		"",
		"\x00\x01\x00\x00\x00\x01\x00\x02t1\x00\x00\x00\x00",
		// A topic count and a string length that claim far more than is there.
		"\x00\x01\x7f\xff\xff\xff\x00\x02t1",
		"\x00\x01\x00\x00\x00\x01\x7f\xfft1",
		"00017fffffff",
		strings.Repeat("ff", 1000),
	})
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzDecode, ops, free, data)
	})
}

func FuzzCLICoordinator(f *testing.F) {
	addSeeds(f, fuzzCoordinator, [][]string{
		{"checkout-service"},
		{"--partitions", "2147483647", "--format", "json", "g"},
		{"--partitions", "0", "g"},
		{"--partitions", "-1", "g"},
		{"\xff\xfe"},
	}, []string{""})
	f.Fuzz(func(t *testing.T, ops []byte, free string, data []byte) {
		runFuzzed(t, fuzzCoordinator, ops, free, data)
	})
}

// TestJSONOfInvalidUTF8Names: a name JSON cannot carry (here a topic named
// by the invalid UTF-8 byte 0xcb, found by FuzzCLIMigrate) is bad input in
// every command that writes JSON, not an internal failure: exit 2 and a
// message quoting the name.
func TestJSONOfInvalidUTF8Names(t *testing.T) {
	for _, args := range [][]string{
		{"--members", "1", "--topics", "\xcb:1", "--format", "json"},
		{"simulate", "--members", "1", "--topics", "\xcb:1", "--leave", "c0", "--format", "json"},
		{"migrate", "--members", "1", "--topics", "\xcb:1", "--format", "json"},
	} {
		var out, errw strings.Builder
		status := run(append([]string{"assigncalc"}, args...), strings.NewReader(""), &out, &errw)
		lines := strings.Split(strings.TrimSpace(errw.String()), "\n")
		last := lines[len(lines)-1]
		if status != 2 || !strings.Contains(last, `not valid UTF-8: "\xcb"`) {
			t.Errorf("%q: status %d, last stderr line %q; want 2 and a message quoting \"\\xcb\"", args, status, last)
		}
	}
}
