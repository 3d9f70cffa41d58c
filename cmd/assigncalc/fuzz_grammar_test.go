package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// The CLI fuzz targets draw a command line from a small grammar: a fuzzed
// byte string picks, two bytes at a time, a flag of the command and one of
// its canned values (or the next token of a fuzzed string of free values),
// and a fuzzed byte string is the standard input and the --in file. Every
// run must end in status 0, 2 or 3 (never 1, never a panic), print every
// stderr line as one "assigncalc: " line, and allocate no more than a
// budget proportional to the input's bytes and the size of the group it
// describes: never in proportion to a partition number, a declared length
// or a count the input merely claims.

// fuzzFlag is one flag (or a positional argument, name "") of a command's
// grammar and the values the fuzzer picks from.
type fuzzFlag struct {
	name   string
	values []string // nil: a boolean flag
	size   sizeKind // how its value counts towards the described group
	path   bool     // a file name: only the canned values, never a free one
}

// sizeKind says how a flag's value adds to the size of the group the
// command line describes, the base of the allocation budget.
type sizeKind int

const (
	sizeNone       sizeKind = iota
	sizeMembers             // N members (--members N)
	sizeMember              // one member, subscribed to topics listed or all
	sizePartitions          // the integers of the value are partition counts (--topics, --grow)
	sizeEvent               // an event of the timeline
)

// fuzzCommand is a command's grammar.
type fuzzCommand struct {
	prefix []string // the command words before the flags
	flags  []fuzzFlag
	// perActor is the budget of each member and event, beyond the group's
	// size: the timeline simulates each for a bounded number of actions.
	perActor uint64
}

// Placeholders in canned values: the file holding the bytes after the
// first NUL of the fuzzed input, and a file the command may write.
const (
	inFile  = "@in"
	outFile = "@out"
)

// maxOps bounds the flags of one command line.
const maxOps = 24

// args builds the command line that ops and free spell: each pair of ops
// bytes picks a flag and a value; a value index past the canned ones takes
// the next "\n"-separated token of free.
func (c fuzzCommand) args(ops []byte, free string) []string {
	tokens := strings.Split(free, "\n")
	next := 0
	args := append([]string(nil), c.prefix...)
	for i := 0; i+1 < len(ops) && i/2 < maxOps; i += 2 {
		f := c.flags[int(ops[i])%len(c.flags)]
		if f.values == nil {
			args = append(args, "--"+f.name)
			continue
		}
		var v string
		choices := len(f.values) + 1
		if f.path {
			choices--
		}
		if k := int(ops[i+1]) % choices; k < len(f.values) {
			v = f.values[k]
		} else if next < len(tokens) {
			v = tokens[next]
			next++
		}
		if f.name == "" {
			args = append(args, v)
		} else {
			args = append(args, "--"+f.name, v)
		}
	}
	return args
}

// encode spells args (flags and canned or free values of c, without the
// prefix) as the ops and free strings that args rebuilds them from: the
// seeds are written as command lines.
func (c fuzzCommand) encode(args ...string) (ops []byte, free string) {
	var frees []string
	for i := 0; i < len(args); i++ {
		name, positional := strings.TrimPrefix(args[i], "--"), !strings.HasPrefix(args[i], "--")
		if positional {
			name = ""
		}
		fi := -1
		for j, f := range c.flags {
			if f.name == name {
				fi = j
			}
		}
		if fi < 0 {
			panic(fmt.Sprintf("seed %q: no flag %q in the grammar", args, args[i]))
		}
		f := c.flags[fi]
		if f.values == nil {
			ops = append(ops, byte(fi), 0)
			continue
		}
		v := args[i]
		if !positional {
			i++
			v = args[i]
		}
		k := len(f.values)
		for j, cv := range f.values {
			if cv == v {
				k = j
			}
		}
		if k == len(f.values) {
			frees = append(frees, v)
		}
		ops = append(ops, byte(fi), byte(k))
	}
	return ops, strings.Join(frees, "\n")
}

// describedSize is the size of the group that args and the group file in
// describe: partitions, members, topics and subscriptions (members times
// topics for members that subscribe to every topic). Counts beyond what
// the CLI accepts describe nothing: it must refuse them cheaply.
func describedSize(c fuzzCommand, args []string, in [][]byte) (size, actors int64) {
	var members, topics, partitions, events int64
	for i := 0; i+1 < len(args); i++ {
		name := strings.TrimPrefix(args[i], "--")
		for _, f := range c.flags {
			if f.name != name || f.values == nil || f.name == "" {
				continue
			}
			v := args[i+1]
			switch f.size {
			case sizeMembers:
				if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n > 0 && n <= 1<<20 {
					members += n
				}
			case sizeMember:
				members++
				topics += int64(strings.Count(v, ",") + 1)
			case sizePartitions:
				topics += int64(strings.Count(v, ",") + 1)
				partitions += integersIn(v)
			}
			if f.size == sizeEvent || c.perActor > 0 && f.size != sizeNone && f.size != sizeMembers {
				events++
			}
		}
	}
	size = partitions + members + topics + members*max(topics, 1)
	actors = 1 + members + events
	for _, data := range in {
		s, m := groupFileSize(data)
		size += s
		actors += m
	}
	return size, actors
}

// integersIn sums the decimal integers written in s, each at most
// assign.MaxPartitions (a larger one counts nothing).
func integersIn(s string) int64 {
	var sum int64
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil && n <= assign.MaxPartitions {
			sum += n
		}
	}
	return sum
}

// groupFileSize is the size of the groups that data describes, read by
// the group file reader: each readable group's partitions (when Kafka
// would take that many), members, topics and subscriptions.
func groupFileSize(data []byte) (size, members int64) {
	r := groupfile.NewReader(bytes.NewReader(data))
	for n := 0; n <= len(data); n++ {
		e, err := r.Next()
		if err != nil {
			if err == io.EOF {
				break
			}
			continue
		}
		var p int64
		for _, count := range e.Group.Topics {
			p += int64(max(count, 0))
		}
		if p > assign.MaxPartitions {
			p = 0
		}
		size += p + int64(len(e.Group.Members)+len(e.Group.Topics))
		members += int64(len(e.Group.Members))
		for _, m := range e.Group.Members {
			size += int64(len(m.Topics))
		}
	}
	return size, members
}

// The allocation budget of one run: a base, a share per byte of input and
// per unit of described size. budgetPerUnit is generous (the preview runs
// every strategy over the group): what the budget exists to catch is
// allocation in proportion to a number, gigabytes, not a constant factor.
const (
	budgetBase    = 16 << 20
	budgetPerByte = 256
	budgetPerUnit = 16 << 10
)

// maxFuzzSize skips command lines describing groups larger than this: they
// are legitimate, only slow to fuzz.
const maxFuzzSize = 1 << 15

// cliRun is one fuzzed command line and what it did.
type cliRun struct {
	args           []string
	stdout, stderr string
	status         int
	alloc          uint64 // bytes allocated during the run
	budget         uint64
}

// runFuzzed builds the command line of c from ops and free, with data
// before its first NUL on stdin and data after it in the file @in, runs it
// in-process and checks the contract. It skips groups too large to fuzz.
func runFuzzed(t *testing.T, c fuzzCommand, ops []byte, free string, data []byte) cliRun {
	t.Helper()
	args := c.args(ops, free)
	stdin, file, _ := bytes.Cut(data, []byte{0})
	var dir string
	for i, a := range args {
		switch a {
		case inFile, outFile:
			if dir == "" {
				dir = t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "in"), file, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args[i] = filepath.Join(dir, strings.TrimPrefix(a, "@"))
		}
	}
	size, actors := describedSize(c, args, [][]byte{stdin, file})
	if size > maxFuzzSize || actors > maxFuzzSize {
		t.Skipf("the command line describes a group of size %d, too large to fuzz", size)
	}
	return checkRun(t, args, stdin, size, c.perActor*uint64(actors))
}

// checkRun runs args with stdin and checks the contract for a group of
// the given described size, with extra bytes of budget.
func checkRun(t *testing.T, args []string, stdin []byte, size int64, extra uint64) cliRun {
	t.Helper()
	r := cliRun{args: args}
	inBytes := int64(len(stdin))
	for _, a := range args {
		inBytes += int64(len(a))
	}
	if len(args) > 0 {
		for _, a := range args {
			if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
				inBytes += fi.Size()
			}
		}
	}
	r.budget = uint64(budgetBase+budgetPerByte*inBytes+budgetPerUnit*size) + extra

	var out, errw bytes.Buffer
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r.status = runEnv(&env{stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errw}, append([]string{"assigncalc"}, args...))
	runtime.ReadMemStats(&after)
	r.alloc = after.TotalAlloc - before.TotalAlloc
	r.stdout, r.stderr = out.String(), errw.String()

	show := func() string {
		return fmt.Sprintf("assigncalc %s (stdin %d bytes %.200q)", quoteArgs(args), len(stdin), stdin)
	}
	switch r.status {
	case exitOK, exitInput, exitUnsafe, exitFailed:
	default:
		t.Fatalf("%s: exit status %d, stderr:\n%.2000s", show(), r.status, r.stderr)
	}
	if r.status != exitOK && r.stderr == "" {
		t.Fatalf("%s: exit status %d with nothing on stderr", show(), r.status)
	}
	if r.stderr != "" {
		if !strings.HasSuffix(r.stderr, "\n") {
			t.Fatalf("%s: stderr does not end in a newline: %.2000q", show(), r.stderr)
		}
		for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
			if !strings.HasPrefix(line, "assigncalc: ") {
				t.Fatalf("%s: exit status %d; stderr line %.500q is not an \"assigncalc: \" message of one line; stderr:\n%.2000s", show(), r.status, line, r.stderr)
			}
			if len(line) > maxStderrLine {
				t.Fatalf("%s: exit status %d; a stderr line of %d bytes: %.300q...", show(), r.status, len(line), line)
			}
		}
	}
	if r.alloc > r.budget {
		t.Fatalf("%s: allocated %d bytes, over the budget of %d for %d input bytes and a group of size %d (exit %d, stderr %.300q)", show(), r.alloc, r.budget, inBytes, size, r.status, r.stderr)
	}
	return r
}

// maxStderrLine bounds a line on stderr: a message quotes what is wrong,
// not a megabyte of it.
const maxStderrLine = 2048

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
		if len(q[i]) > 100 {
			q[i] = q[i][:100] + fmt.Sprintf("...(%d bytes)", len(a))
		}
	}
	return strings.Join(q, " ")
}
