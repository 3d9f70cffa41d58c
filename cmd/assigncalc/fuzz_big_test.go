package main

import (
	"bytes"
	"strings"
	"testing"
)

// The offenders too large to be fuzz seeds (the engine would mutate and
// copy them at every step), run once each through the same contract.

// hugeLine is a group file of one line of about n bytes: a member id of n
// bytes, or n bytes of a number, of whitespace or of nesting.
func hugeLines(n int) map[string][]byte {
	id := bytes.Repeat([]byte("a"), n)
	return map[string][]byte{
		"member id":  append(append([]byte(`{"topics": {"t": 2}, "members": [{"id": "`), id...), `", "topics": ["t"], "protocols": ["range"]}]}`...),
		"topic name": append(append([]byte(`{"topics": {"`), id...), `": 2}, "members": [{"id": "a", "topics": ["t"]}]}`...),
		"number":     append(append([]byte(`{"topics": {"t": 1`), bytes.Repeat([]byte("0"), n)...), `}, "members": []}`...),
		"whitespace": append(append([]byte(`{"topics": {"t": 2},`), bytes.Repeat([]byte(" "), n)...), `"members": [{"id": "a", "topics": ["t"]}]}`...),
		"nesting":    append(append([]byte(`{"x": `), bytes.Repeat([]byte("["), n)...), bytes.Repeat([]byte("]"), n)...),
		"unclosed":   append([]byte(`{"topics": {"t": 2}, "members": [{"id": "`), id...),
	}
}

// TestHugeInputs runs every command that reads a group file on lines of
// 1 MB, and plan on lines of 100 MB (not with -short): each must answer,
// or refuse with one line, within the budget of its input's bytes.
func TestHugeInputs(t *testing.T) {
	every := [][]string{
		{"--in", "-"},
		{"plan", "--in", "-", "--strategy", "all"},
		{"simulate", "--in", "-", "--leave", "a"},
		{"vote", "--in", "-"},
		{"check", "--in", "-", "--results", "/dev/null"},
		{"timeline", "--in", "-"},
	}
	runs := map[int][][]string{1 << 20: every}
	if !testing.Short() {
		runs[100<<20] = [][]string{{"plan", "--in", "-"}}
	}
	for n, commands := range runs {
		for name, data := range hugeLines(n) {
			for _, args := range commands {
				size, _ := groupFileSize(data)
				r := checkRun(t, args, data, size, 0)
				t.Logf("%d-byte %s, %s: exit %d, %d bytes allocated (%.1f per input byte); %.120s", n, name, strings.Join(args, " "), r.status, r.alloc, float64(r.alloc)/float64(len(data)), r.stderr)
			}
		}
	}
	// A member id of 1 MB on the command line, and a describe output of
	// one 1 MB line.
	id := strings.Repeat("m", 1<<20)
	for _, args := range [][]string{
		{"--member", id, "--topics", "t:3"},
		{"simulate", "--member", "a", "--topics", "t:3", "--join", id},
		{"vote", id + "=range"},
		{"coordinator", id},
		{"--from-describe", "-"},
	} {
		r := checkRun(t, args, []byte("member,topic,partition\n"+id+",t,0\n"), 4, 0)
		t.Logf("a 1 MB id, %.40s: exit %d, %d bytes allocated; %.120s", strings.Join(args, " "), r.status, r.alloc, r.stderr)
	}
}
