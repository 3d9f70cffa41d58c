package main

import (
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// This file adapts urfave/cli to the conventions of Kafka's tools: flags
// after arguments, and usage errors that say what to do (unknown flags
// with the nearest known one).

// interspersed moves the flags that follow a command's arguments before
// them, keeping their order, as kafka-consumer-groups.sh, rpk and kcat
// accept them: urfave/cli, like Go's flag package, stops reading flags
// at the first argument. A flag's value goes with it unless the flag is
// boolean or written --flag=value; "--" ends the flags, and "-" alone is
// an argument (stdin).
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	cmd := app.Command(args[1])
	if cmd == nil {
		return args
	}
	takesValue := func(name string) bool {
		for _, f := range cmd.Flags {
			if slices.Contains(f.Names(), name) {
				_, boolean := f.(*cli.BoolFlag)
				return !boolean
			}
		}
		return false // unknown: left for urfave/cli to refuse
	}
	var flags, positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			flags = append(flags, "--") // ends the flags where they now end
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasValue && takesValue(name) && i+1 < len(rest) {
				i++
				flags = append(flags, rest[i])
			}
		default:
			positional = append(positional, a)
		}
	}
	return append(append(slices.Clip(args[:2]), flags...), positional...)
}

// onUsageError is every command's OnUsageError: the error becomes bad
// input (exit status 2), and an unknown flag gets the nearest known one.
func onUsageError(c *cli.Context, err error, _ bool) error {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, undefined); ok {
		name = strings.TrimLeft(name, "-")
		msg = "unknown flag --" + name
		if near := nearestFlag(c, name); near != "" {
			msg += ": did you mean --" + near + "?"
		}
		return usagef("%s", msg)
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		return usagef("--%s needs a value", m[1])
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		value, name := m[1]+m[3], m[2]+m[4]
		want := "a whole number"
		if f := lookupFlag(c, name); f != nil {
			switch f.(type) {
			case *cli.BoolFlag:
				want = "true or false"
			case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
				want = "a whole number"
			default:
				want = "a value of its kind"
			}
		}
		return usagef("--%s %q: want %s", name, value, want)
	}
	return &usageError{err}
}

// helpCommand is `help [COMMAND]` (alias h), in place of urfave/cli's,
// which takes a word naming no command, or a flag it does not know, as a
// failure of its own (status 3, or 1 through ours) where it is bad input.
// urfave/cli also gives every command a `help` subcommand of that kind;
// app.go hides them, so that `COMMAND help` is an argument the command
// refuses, and `COMMAND --help` still shows the command's help.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "Shows a list of commands or help for one command",
		ArgsUsage: "[command]",
		Action: func(c *cli.Context) error {
			switch args := c.Args(); args.Len() {
			case 0:
				return cli.ShowAppHelp(c)
			case 1:
				if c.App.Command(args.First()) == nil {
					return usagef("help: no command %q (see assigncalc --help)", args.First())
				}
				return cli.ShowCommandHelp(c, args.First())
			default:
				return usagef("help: want one command, not %q", strings.Join(args.Slice(), " "))
			}
		},
	}
}

// The messages of Go's flag package that onUsageError rewrites.
var (
	needsValue = regexp.MustCompile(`^flag needs an argument: -+(\S+)$`)
	badValue   = regexp.MustCompile(`^invalid value "(.*)" for flag -+(\S+): |^invalid boolean value "(.*)" for -+(\S+): `)
)

// lookupFlag returns the flag of c's command named name, nil if none.
func lookupFlag(c *cli.Context, name string) cli.Flag {
	flags := c.App.Flags
	if c.Command != nil && len(c.Command.Flags) > 0 {
		flags = c.Command.Flags
	}
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

// nearestFlag returns the flag of c's command closest to name by edit
// distance, if close enough to be a typo.
func nearestFlag(c *cli.Context, name string) string {
	var flags []cli.Flag
	if c.Command != nil && len(c.Command.Flags) > 0 {
		flags = c.Command.Flags
	} else if c.App != nil {
		flags = c.App.Flags
	}
	var names []string
	for _, f := range flags {
		names = append(names, f.Names()...)
	}
	return nearest(name, names)
}

// nearest returns the candidate closest to name by edit distance, if
// close enough to be a typo (fewer than len(name)/3+2 edits), else "".
func nearest(name string, candidates []string) string {
	best, bestDist := "", len(name)/3+2
	for _, n := range candidates {
		if d := editDistance(name, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
