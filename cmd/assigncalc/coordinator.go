package main

import (
	"fmt"
	"strconv"

	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func coordinatorCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "coordinator",
		Usage:     "find the __consumer_offsets partition whose leader coordinates a group",
		UsageText: "assigncalc coordinator [--partitions N] [--format table|json|jsonl|csv] GROUP_ID ...",
		Description: "The broker leading partition Utils.abs(groupId.hashCode()) % N of __consumer_offsets is the\n" +
			"group's coordinator: hashCode is Java's String.hashCode over the id's UTF-16 code units,\n" +
			"Utils.abs maps Integer.MIN_VALUE to 0, and N is the broker setting\n" +
			"offsets.topic.num.partitions (default 50). kafka-topics.sh --describe --topic __consumer_offsets\n" +
			"then names the leader of that partition.\n\n" +
			"Example:\n" +
			"   assigncalc coordinator checkout-service\n" +
			"   assigncalc coordinator --partitions 12 --format json checkout-service",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "partitions", Value: coordinator.DefaultOffsetsPartitions, Usage: "`N` partitions of __consumer_offsets (offsets.topic.num.partitions)"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		},
		Action: func(c *cli.Context) error { return findCoordinator(e, c) },
	}
}

// coordinatorOf computes where groupID's coordinator lives.
func coordinatorOf(groupID string, partitions int) (groupfile.Coordinator, error) {
	if partitions < 1 || partitions > 1<<31-1 {
		return groupfile.Coordinator{}, usagef("--partitions %d: want between 1 and 2147483647", partitions)
	}
	return groupfile.CoordinatorOf(groupID, int32(partitions))
}

func findCoordinator(e *env, c *cli.Context) error {
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if !c.Args().Present() {
		return usagef("coordinator: give a group id, e.g. assigncalc coordinator checkout-service")
	}
	var out []groupfile.Coordinator
	for _, id := range c.Args().Slice() {
		r, err := coordinatorOf(id, c.Int("partitions"))
		if err != nil {
			return err
		}
		out = append(out, r)
	}
	switch format {
	case formatJSON:
		if len(out) == 1 {
			return writeJSONValue(e, format, out[0])
		}
		return writeJSONValue(e, format, out)
	case formatJSONL:
		for _, r := range out {
			if err := writeJSONValue(e, format, r); err != nil {
				return err
			}
		}
		return nil
	case formatCSV:
		var rows [][]string
		for _, r := range out {
			rows = append(rows, []string{r.Group, strconv.Itoa(int(r.HashCode)), itoa(int(r.Partition)), itoa(int(r.Partitions))})
		}
		return writeCSV(e.stdout, []string{"group", "hashCode", "partition", "partitions"}, rows)
	}
	t := &table{header: []string{"GROUP", "HASHCODE", "PARTITION"}, aligns: []align{left, right, right}}
	for _, r := range out {
		t.add(r.Group, strconv.Itoa(int(r.HashCode)), itoa(int(r.Partition)))
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "\nPARTITION is of __consumer_offsets, with %d partitions; its leader is the coordinator\n", out[0].Partitions)
	return err
}
