package main

import (
	"bytes"
	"encoding/json"

	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func groupCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "group",
		Usage:     "print the group read from a paste, a group file or flags, in the JSON contract",
		UsageText: "assigncalc group --from-describe FILE|- [--group NAME] | --in FILE|- | --members N --topics T:N [--format jsonl|json]",
		Description: "Prints the group the other commands would read, owned partitions and generations\n" +
			"included, so that it can be saved, edited and replayed with --in. What a paste does not\n" +
			"show (subscriptions, partition counts) is assumed as the other commands assume it, and\n" +
			"said on stderr.\n\n" +
			"Example:\n" +
			"   kafka-consumer-groups.sh --describe --group orders | assigncalc group --from-describe - > orders.json\n" +
			"   assigncalc --in orders.json",
		Flags: append(shapeFlags(),
			&cli.StringFlag{Name: "format", Usage: "print the group as `FORMAT`: jsonl (one line) or json (indented) (default: jsonl)"},
		),
		Action: func(c *cli.Context) error { return printGroup(e, c) },
	}
}

func printGroup(e *env, c *cli.Context) error {
	format, err := parseFormat(c.String("format"), formatJSONL, formatJSONL, formatJSON)
	if err != nil {
		return err
	}
	if c.Args().Present() {
		return usagef("group takes no arguments: %q", c.Args().First())
	}
	in, err := groupFromFlags(e, c)
	if err != nil {
		return err
	}
	line, err := groupfile.AppendGroup(nil, in)
	if err != nil {
		return err
	}
	if format == formatJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, line, "", "  "); err != nil {
			return err
		}
		line = buf.Bytes()
	}
	_, err = e.stdout.Write(append(line, '\n'))
	return err
}
