package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-isatty"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/assigncalc/assigncalc/internal/describe"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// Exit statuses.
const (
	exitOK       = 0
	exitInternal = 1 // a bug: a strategy failed or returned an invalid assignment
	exitInput    = 2 // bad flags, bad JSON, or a group Kafka would refuse
	exitUnsafe   = 3 // vote --upgrade: a step refuses a member or falls back to eager
	exitFailed   = 4 // check: an assignment is invalid, unbalanced or unsafe
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); the
// module version from the build info is used otherwise.
var version = ""

// env is what a command may touch: its streams and what is known about the
// terminal. Tests build it directly to choose colour.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	terminal       bool // stdout is a terminal
	colour         bool // terminal and NO_COLOR unset
	stderrTerminal bool // stderr is a terminal: progress may be shown there

	// now is the clock progress reads; nil for the time of day (tests
	// set it to make work look long).
	now func() time.Time

	// tick is how often progress is rewritten during one long
	// computation; 0 for progressTick (tests shorten it).
	tick time.Duration

	// assumed holds what notef printed, for the machine formats' "assumed"
	// (what was assumed is a figure, not only a message).
	assumed []string
}

// warnf prints a warning on one line of stderr.
func (e *env) warnf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "assigncalc: warning: %s\n", clip(oneLine(fmt.Sprintf(format, args...))))
}

// notef prints, on one line of stderr, something the command assumed.
func (e *env) notef(format string, args ...any) {
	note := clip(oneLine(fmt.Sprintf(format, args...)))
	e.assumed = append(e.assumed, note)
	fmt.Fprintf(e.stderr, "assigncalc: assumed: %s\n", note)
}

// run runs the command line args (args[0] is the program name) and returns
// the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, terminal: isTerminal(stdout), stderrTerminal: isTerminal(stderr)}
	e.colour = wantColour(e.terminal, os.LookupEnv)
	return runEnv(e, args)
}

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and `assigncalc plan ... > /dev/null` must
// take the format a file gets, not render a table (isatty asks the
// terminal driver).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// wantColour reports whether to colour the output: only on a terminal, and
// never when NO_COLOR is set to a non-empty value (https://no-color.org)
// or TERM is dumb (a terminal that cannot show escape sequences).
func wantColour(terminal bool, lookupEnv func(string) (string, bool)) bool {
	if v, _ := lookupEnv("NO_COLOR"); v != "" {
		return false
	}
	if v, _ := lookupEnv("TERM"); v == "dumb" {
		return false
	}
	return terminal
}

// runEnv runs args in e and maps the outcome to an exit status, the one
// place where errors become statuses and messages.
func runEnv(e *env, args []string) int {
	app := newApp(e)
	help := &helpWriter{w: e.stdout}
	app.Writer = help
	err := app.Run(interspersed(app, args))
	if ferr := help.flush(); err == nil {
		err = ferr
	}
	if err == nil {
		return exitOK
	}
	var st *statusError
	if errors.As(err, &st) {
		if st.msg != "" {
			fmt.Fprintf(e.stderr, "assigncalc: %s\n", clip(oneLine(st.msg)))
		}
		return st.code
	}
	fmt.Fprintf(e.stderr, "assigncalc: %s\n", clip(oneLine(err.Error())))
	return statusOf(err)
}

// statusOf maps an error to an exit status: bad input is the user's to
// fix (2), anything else is ours (1).
func statusOf(err error) int {
	var st *statusError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &st):
		return st.code
	case isInputError(err):
		return exitInput
	}
	return exitInternal
}

// statusError ends a command with a given status after it has printed its
// output; msg, when set, goes to stderr.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

// usageError is bad input on the command line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// isInputError reports whether err is the user's fault rather than ours.
func isInputError(err error) bool {
	var (
		ue *usageError
		ie *assign.InputError
		ge *groupfile.Error
		de *describe.Error
		ce *client.UnsupportedError
		je *client.JavaError
	)
	return errors.As(err, &ue) || errors.As(err, &ie) || errors.As(err, &ge) || errors.As(err, &de) ||
		errors.As(err, &ce) || errors.As(err, &je) || // Java's leader would fail on the group
		errors.Is(err, assign.ErrUnknownStrategy) ||
		errors.Is(err, groupfile.ErrInvalidUTF8) || // a name JSON output cannot carry
		errors.Is(err, syscall.EISDIR) // --in DIR: opened, then unreadable
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// maxMessage bounds a message on stderr, in bytes: it names what is wrong
// and where, and quotes the input it blames, not a megabyte of it.
const maxMessage = 1000

// clip shortens a message longer than maxMessage to its head and tail,
// which say what is wrong and where, around a note of what was left out.
func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	head, tail := maxMessage*2/3, maxMessage/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail > 0 && !utf8.RuneStart(s[len(s)-tail]) {
		tail--
	}
	return fmt.Sprintf("%s…(%d bytes)…%s", s[:head], len(s)-head-tail, s[len(s)-tail:])
}

func moduleVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "assigncalc",
		Usage:   "compute Kafka consumer-group partition assignments",
		Version: moduleVersion(),
		Description: "With no command, previews the skew of every strategy for a group described by flags\n" +
			"or by --in, then details one strategy member by member.\n\n" +
			"Example:\n" +
			"   assigncalc --members 3 --topics t1:7\n" +
			"   assigncalc --member c0=t1,t2@a --member c1=t1@b --topics t1:6,t2:3 --replicas 2 --racks a,b --strategy range",
		UsageText:                 "assigncalc [options]  |  assigncalc COMMAND [options] [arguments...]",
		HideHelpCommand:           true, // helpCommand replaces it
		Reader:                    e.stdin,
		Writer:                    e.stdout,
		ErrWriter:                 e.stderr,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              onUsageError,
		DisableSliceFlagSeparator: true,
		Flags:                     append(previewFlags(), cli.HelpFlag), // urfave/cli adds it only when no command is named help
		Action:                    func(c *cli.Context) error { return preview(e, c) },
		Commands: []*cli.Command{
			planCommand(e),
			simulateCommand(e),
			migrateCommand(e),
			timelineCommand(e),
			voteCommand(e),
			decodeCommand(e),
			checkCommand(e),
			coordinatorCommand(e),
			groupCommand(e),
			helpCommand(),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
		c.HideHelpCommand = true // --help stays; COMMAND help is an argument
	}
	return app
}
