package main

import (
	"strings"
	"testing"
)

// TestUsageMessages: item 13 of issue 16, bad input of every kind. Each
// case exits 2 with one line on stderr saying what to do.
func TestUsageMessages(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string // a substring of stderr
	}{
		{[]string{"vote", "c1=range", "--format", "json"}, "flags must come before arguments: move --format before c1=range"},
		{[]string{"decode", "subscription", subV0, "--format=json"}, "flags must come before arguments: move --format before subscription"},
		{[]string{"coordinator", "g", "--partitions", "3"}, "flags must come before arguments: move --partitions before g"},
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
		// urfave/cli refuses these with its own status 3; found by FuzzCLIDecode.
		{[]string{"help", "nope"}, `help: no command "nope" (see assigncalc --help)`},
		{[]string{"h", "nope"}, `help: no command "nope"`},
		{[]string{"decode", "h", "subscription"}, `help: no command "subscription"`},
		{[]string{"timeline", "help", "x'y"}, `help: no command "x'y"`},
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

// TestHelpCommand: `help simulate` shows simulate's help, like
// `simulate --help`.
func TestHelpCommand(t *testing.T) {
	viaCommand, _, status := runCase(cliCase{args: []string{"help", "simulate"}})
	viaFlag, _, _ := runCase(cliCase{args: []string{"simulate", "--help"}})
	if status != 0 || viaCommand != viaFlag || !strings.Contains(viaCommand, "--restart") {
		t.Errorf("help simulate: exit %d, output:\n%s\nwant simulate --help's:\n%s", status, viaCommand, viaFlag)
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
