package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the output of the code")

// cliCase is one run of the command line, in-process through run.
type cliCase struct {
	name   string   // golden files testdata/<name>.stdout and .stderr
	args   []string // without the program name
	stdin  string
	status int
}

// runCase runs c and returns its stdout, stderr and exit status.
func runCase(c cliCase) (stdout, stderr string, status int) {
	var out, errw bytes.Buffer
	status = run(append([]string{"assigncalc"}, c.args...), strings.NewReader(c.stdin), &out, &errw)
	return out.String(), errw.String(), status
}

// checkGolden compares got with testdata/<name>, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (run go test -update to accept)\n--- want:\n%s\n--- got:\n%s", path, want, got)
	}
}

// runGolden runs every case, checking the exit status and both streams
// against their golden files.
func runGolden(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, status := runCase(c)
			if status != c.status {
				t.Errorf("assigncalc %s: exit status %d, want %d; stderr:\n%s", strings.Join(c.args, " "), status, c.status, stderr)
			}
			checkGolden(t, c.name+".stdout", stdout)
			checkGolden(t, c.name+".stderr", stderr)
		})
	}
}

// TestHelpHasExamples checks that the help of the preview and of every
// command shows an example, and exits 0.
func TestHelpHasExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"plan", "--help"}, {"simulate", "--help"}, {"vote", "--help"}, {"decode", "--help"}, {"check", "--help"}, {"coordinator", "--help"}} {
		stdout, _, status := runCase(cliCase{args: args})
		if status != 0 {
			t.Errorf("assigncalc %s: exit status %d", strings.Join(args, " "), status)
		}
		if !strings.Contains(stdout, "Example") || !strings.Contains(stdout, "   assigncalc ") {
			t.Errorf("assigncalc %s shows no example:\n%s", strings.Join(args, " "), stdout)
		}
	}
}

// TestClip: a message longer than maxMessage keeps its head and tail,
// whole runes, and says how much it left out.
func TestClip(t *testing.T) {
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	long := "groupfile: line 1: duplicate key \"" + strings.Repeat("é", 5000) + "\" at members[0]"
	got := clip(long)
	if len(got) > 1100 || !strings.HasPrefix(got, "groupfile: line 1: duplicate key") || !strings.HasSuffix(got, "\" at members[0]") || !utf8.ValidString(got) {
		t.Errorf("clip(%d bytes) = %d bytes %q", len(long), len(got), got)
	}
	if !strings.Contains(got, "bytes)…") {
		t.Errorf("clip(%d bytes) = %q: does not say what it left out", len(long), got)
	}
}
