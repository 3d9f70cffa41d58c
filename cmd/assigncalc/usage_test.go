package main

import (
	"bytes"
	"github.com/assigncalc/assigncalc/assign"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestUsageMessages: item 13 of issue 16, bad input of every kind. Each
// case exits 2 with one line on stderr saying what to do.
func TestUsageMessages(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string // a substring of stderr
	}{
		{[]string{"--memebrs", "3", "--topics", "t:1"}, "unknown flag --memebrs: did you mean --members?"},
		{[]string{"simulate", "--members", "2", "--topics", "t:1", "--leav", "c0"}, "did you mean --leave?"},
		{[]string{"--xyzzy"}, "unknown flag --xyzzy"},
		{[]string{"--members", "2", "--topics", "t1:99999999999"}, `--topics "t1:99999999999": 99999999999 is too large for a partition count (max 2147483647)`},
		{[]string{"--members", "2", "--topics", "t1:2147483648"}, "too large for a partition count"},
		{[]string{"--in", dir}, "is a directory"},
		{[]string{"check", "--in", dir, "--results", "-"}, "is a directory"},
		{[]string{"plan", "--in", dir}, "--in " + dir + ": is a directory, not a file"},
		{[]string{"check", "--in", "-", "--results", dir}, "--results " + dir + ": is a directory, not a file"},
		{[]string{"--from-describe", dir}, "--from-describe " + dir + ": is a directory, not a file"},
		{[]string{"vote", "--upgrade", "range", "--to", "rnage"}, `--to: unknown strategy "rnage" (did you mean range?)`},
		{[]string{"vote", "c1=range", "c2=cooperative-stiky"}, `member "c2": unknown strategy "cooperative-stiky" (did you mean cooperative-sticky?)`},
		{[]string{"decode", "subscription", "zzzz"}, `"zzzz" is not hex; read as base64 it gives 3 bytes`},
		{[]string{"simulate", "--members", "2", "--topics", "t:2", "--leave"}, "--leave needs a value"},
		{[]string{"--members", "x", "--topics", "t:2"}, `--members "x": want a whole number`},
		{[]string{"--members", "2", "--topics", "t:2", "--all=maybe"}, `--all "maybe": want true or false`},
		{[]string{"coordinator", "--partitions", "-x", "g"}, `--partitions "-x": want a whole number`},
		{[]string{"--members", "2", "--topics", "t:2", "--strategy", "rnage"}, `--strategy: unknown strategy "rnage" (did you mean range?)`},
		{[]string{"plan", "--in", "-", "--strategy", "range,stiky"}, `(did you mean sticky?)`},
		{[]string{"--members", "2", "--topics", "t:1,,u:2"}, `--topics "t:1,,u:2": empty item`},
		// urfave/cli's help commands took these as failures of their own
		// (exit 1); FuzzCLIDecode and FuzzCLICoordinator found the last two.
		{[]string{"help", "nope"}, `help: no command "nope" (see assigncalc --help)`},
		{[]string{"h", "x'y"}, `help: no command "x'y"`},
		{[]string{"help", "plan", "simulate"}, `help: want one command, not "plan simulate"`},
		{[]string{"help", "--partitions", "3"}, "unknown flag --partitions"},
		{[]string{"decode", "h", "subscription"}, `decode: unknown message kind "h"`},
		{[]string{"coordinator", "h", "--partitions", "x"}, `--partitions "x": want a whole number`},
		{[]string{"timeline", "help"}, `timeline: unexpected argument "help"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, stderr, status := runCase(cliCase{args: tt.args})
			if status != exitInput {
				t.Errorf("exit status %d, want %d", status, exitInput)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q: want one line containing %q", stderr, tt.want)
			}
		})
	}
}

// TestHelpCommand: `help simulate` and `h simulate` show simulate's help,
// like `simulate --help`; `help`, `h`, `--help` and `-h` the app's.
func TestHelpCommand(t *testing.T) {
	viaFlag, _, _ := runCase(cliCase{args: []string{"simulate", "--help"}})
	for _, help := range []string{"help", "h"} {
		viaCommand, _, status := runCase(cliCase{args: []string{help, "simulate"}})
		if status != 0 || viaCommand != viaFlag || !strings.Contains(viaCommand, "--restart") {
			t.Errorf("%s simulate: exit %d, output:\n%s\nwant simulate --help's:\n%s", help, status, viaCommand, viaFlag)
		}
	}
	app, _, _ := runCase(cliCase{args: []string{"--help"}})
	if !strings.Contains(app, "COMMANDS:") || !strings.Contains(app, "--members") {
		t.Fatalf("--help: output lists no commands or flags:\n%s", app)
	}
	for _, args := range [][]string{{"help"}, {"h"}, {"-h"}} {
		if out, _, status := runCase(cliCase{args: args}); status != 0 || out != app {
			t.Errorf("%v: exit %d, output differs from --help's:\n%s", args, status, out)
		}
	}
}

// TestCustomStrategiesNeedOptIn: a name we do not know is a typo unless
// --allow-custom says it is a custom assignor.
func TestCustomStrategiesNeedOptIn(t *testing.T) {
	if _, _, status := runCase(cliCase{args: []string{"vote", "c1=mine", "c2=mine,range"}}); status != exitInput {
		t.Errorf("vote with a custom name: exit %d, want %d", status, exitInput)
	}
	stdout, stderr, status := runCase(cliCase{args: []string{"vote", "--allow-custom", "--format", "jsonl", "c1=mine", "c2=mine,range"}})
	if status != 0 || !strings.Contains(stdout, `"winner":"mine"`) {
		t.Errorf("vote --allow-custom: exit %d, stderr %q, stdout %s", status, stderr, stdout)
	}
}

// TestCommandHelpWords: after every command, the words help and h are
// arguments of that command, never urfave/cli's help subcommand, which
// took what followed as an internal failure (exit 1). Most commands
// refuse the word (exit 2, one line); coordinator takes the words as
// group.ids.
func TestCommandHelpWords(t *testing.T) {
	for _, c := range newApp(&env{}).Commands {
		if c.Name == "help" {
			continue
		}
		for _, args := range [][]string{{c.Name, "help"}, {c.Name, "h", "nope"}, {c.Name, "help", "--bogus"}} {
			_, stderr, status := runCase(cliCase{args: args})
			switch {
			case status == exitInput && strings.Count(stderr, "\n") == 1:
			case status == exitOK && c.Name == "coordinator" && args[len(args)-1] != "--bogus":
			default:
				t.Errorf("%q: exit %d, stderr %q; want 2 and one line", args, status, stderr)
			}
		}
	}
}

// TestFlagsAfterArguments: item 6 of issue 28. Flags after a command's
// arguments mean what they mean before them, as kafka-consumer-groups.sh,
// rpk and kcat accept them: the output is the same byte for byte.
func TestFlagsAfterArguments(t *testing.T) {
	tests := []struct{ before, after []string }{
		{[]string{"coordinator", "--partitions", "50", "--format", "json", "my-group"}, []string{"coordinator", "my-group", "--partitions", "50", "--format", "json"}},
		{[]string{"coordinator", "--partitions=7", "a", "b"}, []string{"coordinator", "a", "--partitions=7", "b"}},
		{[]string{"decode", "--format", "json", "subscription", subV0}, []string{"decode", "subscription", subV0, "--format", "json"}},
		{[]string{"vote", "--format", "json", "c1=range", "c2=range,roundrobin"}, []string{"vote", "c1=range", "--format", "json", "c2=range,roundrobin"}},
		{[]string{"simulate", "--members", "3", "--topics", "t:6", "--moves", "--leave", "c1"}, []string{"simulate", "--moves", "--members", "3", "--leave", "c1", "--topics", "t:6"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.after, " "), func(t *testing.T) {
			want, wantErr, wantStatus := runCase(cliCase{args: tt.before})
			got, gotErr, status := runCase(cliCase{args: tt.after})
			if wantStatus != 0 || status != 0 || got != want || gotErr != wantErr {
				t.Errorf("flags after arguments: status %d, stdout\n%s\nstderr %q;\nflags before: status %d, stdout\n%s\nstderr %q", status, got, gotErr, wantStatus, want, wantErr)
			}
		})
	}
	// After "--" everything is an argument: three group ids.
	out, _, status := runCase(cliCase{args: []string{"coordinator", "--format", "csv", "g", "--", "--partitions", "3"}})
	if status != 0 || strings.Count(out, "\n") != 4 || !strings.Contains(out, "\n--partitions,") {
		t.Errorf("coordinator g -- --partitions 3: status %d, output\n%s\nwant a header and three groups", status, out)
	}
}

// TestHelpListsEveryStrategy: item 6 of issue 28. A help that lists
// strategies lists all of them, the server-side ones included (plan's
// left out uniform and server-range).
func TestHelpListsEveryStrategy(t *testing.T) {
	var names []string
	for _, s := range append(assign.Strategies(), assign.ServerStrategies()...) {
		names = append(names, s.Name())
	}
	for _, args := range [][]string{{"--help"}, {"plan", "--help"}} {
		stdout, _, _ := runCase(cliCase{args: args})
		for _, n := range names {
			if !strings.Contains(stdout, n) {
				t.Errorf("assigncalc %s does not list %s", strings.Join(args, " "), n)
			}
		}
	}
}

// TestHelpFitsWidth runs every command's help, as --help and as help
// COMMAND, and checks that no line is wider than 100 columns (issue 28),
// that folding lost no word, and that an example folded over lines still
// reads as one shell command (each continued line ends in " \").
func TestHelpFitsWidth(t *testing.T) {
	app := newApp(&env{})
	runs := [][]string{{"--help"}, {"help"}}
	for _, c := range app.Commands {
		runs = append(runs, []string{c.Name, "--help"}, []string{"help", c.Name})
	}
	for _, args := range runs {
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 || stderr != "" {
			t.Fatalf("assigncalc %s: exit status %d, stderr %q", strings.Join(args, " "), status, stderr)
		}
		lines := strings.Split(stdout, "\n")
		for i, l := range lines {
			if n := utf8.RuneCountInString(l); n > 100 {
				t.Errorf("assigncalc %s: line %d is %d columns wide:\n%s", strings.Join(args, " "), i+1, n, l)
			}
			if strings.HasSuffix(l, " \\") && (i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "          ")) {
				t.Errorf("assigncalc %s: line %d is continued by a line that is not indented under it:\n%s", strings.Join(args, " "), i+1, l)
			}
		}
	}
	// Folding keeps every word, in order.
	long := "   --from-describe FILE" + strings.Repeat(" ", 60) + strings.Repeat("word ", 40) + "end"
	folded := foldHelpLine(long)
	if got, want := strings.Fields(folded), strings.Fields(long); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("folding changed the words:\n%s", folded)
	}
	for l := range strings.Lines(folded) {
		if utf8.RuneCountInString(strings.TrimSuffix(l, "\n")) > 100 {
			t.Errorf("folded line too wide: %q", l)
		}
	}
}

// TestProgress: work that runs longer than a second shows on a terminal's
// stderr which strategy it is at and how far it has gone, on a line it
// then clears; on a stderr that is not a terminal, or for work that ends
// sooner, nothing is written. A fake clock that advances 600ms each time
// it is read makes the work long.
func TestProgress(t *testing.T) {
	slowClock := func() func() time.Time {
		now := time.Unix(0, 0)
		return func() time.Time {
			now = now.Add(600 * time.Millisecond)
			return now
		}
	}
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string // on stderr, in order
		terminal bool
		slow     bool
	}{
		{"preview", []string{"--members", "3", "--topics", "t:6", "--strategy", "all"}, []string{"preview: sticky (3/4)", "preview: cooperative-sticky (4/4)"}, true, true},
		{"simulate", []string{"simulate", "--members", "3", "--topics", "t:6", "--leave", "c0", "--compare", "range,sticky"}, []string{"simulate: start, sticky (2/4)", "simulate: step 1 (leave c0), sticky (4/4)"}, true, true},
		{"plan", []string{"plan", "--in", "../../testdata/groups.jsonl", "--strategy", "range"}, []string{"plan: group"}, true, true},
		{"timeline", []string{"timeline", "--members", "2", "--topics", "t:2", "--crash", "c1@1s"}, []string{"timeline: cooperative-sticky (2/2)"}, true, true},
		{"not a terminal", []string{"--members", "3", "--topics", "t:6", "--strategy", "all"}, nil, false, true},
		{"quick", []string{"--members", "3", "--topics", "t:6", "--strategy", "all"}, nil, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, stderrTerminal: tc.terminal}
			if tc.slow {
				e.now = slowClock()
			} else {
				fixed := time.Unix(0, 0)
				e.now = func() time.Time { return fixed }
			}
			if status := runEnv(e, append([]string{"assigncalc"}, tc.args...)); status != 0 {
				t.Fatalf("exit status %d, stderr %q", status, stderr.String())
			}
			got := stderr.String()
			if tc.want == nil {
				if got != "" {
					t.Errorf("stderr %q, want nothing", got)
				}
				return
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, "\r\x1b[Kassigncalc: "+w)
				if i < 0 {
					t.Fatalf("stderr %q: no progress %q (in order)", got, w)
				}
				rest = rest[i:]
			}
			if !strings.HasSuffix(got, "\r\x1b[K") {
				t.Errorf("stderr %q: the progress line is not cleared at the end", got)
			}
			if strings.Contains(stdout.String(), "\x1b") {
				t.Errorf("progress reached stdout: %q", stdout.String())
			}
		})
	}
}
