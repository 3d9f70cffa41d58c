package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func coordinatorCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "coordinator",
		Usage:     "find the __consumer_offsets partition whose leader coordinates a group",
		UsageText: "assigncalc coordinator [--broker kafka|redpanda] [--partitions N] [--format table|json|jsonl|csv] GROUP_ID ...",
		Description: "Kafka: the broker leading partition Utils.abs(groupId.hashCode()) % N of __consumer_offsets\n" +
			"is the group's coordinator: hashCode is Java's String.hashCode over the id's UTF-16 code\n" +
			"units, Utils.abs maps Integer.MIN_VALUE to 0, and N is the broker setting\n" +
			"offsets.topic.num.partitions (default 50).\n" +
			"Redpanda: the partition is jump_consistent_hash(xxhash64(groupId, seed 0), N), N being the\n" +
			"cluster setting group_topic_partitions (default 16).\n" +
			"kafka-topics.sh --describe --topic __consumer_offsets (rpk topic describe -p) then names the\n" +
			"leader of that partition.\n\n" +
			"Example:\n" +
			"   assigncalc coordinator checkout-service\n" +
			"   assigncalc coordinator checkout-service --broker redpanda --format json",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "broker", Value: "kafka", Usage: "the brokers' `KIND`: kafka, or redpanda, which places coordinators by another hash"},
			&cli.IntFlag{Name: "partitions", DefaultText: "50 for kafka, 16 for redpanda", Usage: "`N` partitions of __consumer_offsets (Kafka's offsets.topic.num.partitions, Redpanda's group_topic_partitions)"},
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

// redpandaCoordinatorOf computes where groupID's coordinator lives in a
// Redpanda cluster.
func redpandaCoordinatorOf(groupID string, partitions int) (groupfile.RedpandaCoordinator, error) {
	if partitions < 1 || partitions > 1<<31-1 {
		return groupfile.RedpandaCoordinator{}, usagef("--partitions %d: want between 1 and 2147483647", partitions)
	}
	return groupfile.RedpandaCoordinatorOf(groupID, int32(partitions))
}

// groupCoordinator is where a previewed group's coordinator lives: by
// Kafka's rule, or by Redpanda's for a group pasted from rpk, with the
// partition rpk showed when it differs.
func groupCoordinator(name string, in groupInput) (groupfile.GroupCoordinator, error) {
	if !in.redpanda {
		co, err := coordinatorOf(name, coordinator.DefaultOffsetsPartitions)
		return groupfile.GroupCoordinator{Broker: "kafka", Partition: co.Partition, Partitions: co.Partitions}, err
	}
	co, err := redpandaCoordinatorOf(name, coordinator.DefaultRedpandaGroupPartitions)
	gc := groupfile.GroupCoordinator{Broker: "redpanda", Partition: co.Partition, Partitions: co.Partitions}
	if in.shownPartition >= 0 && in.shownPartition != co.Partition {
		shown := in.shownPartition
		gc.Shown = &shown
	}
	return gc, err
}

// writeCoordinatorLine says, under the preview's title, which partition's
// leader coordinates the group (groupCoordinator).
func writeCoordinatorLine(w io.Writer, name string, in groupInput) error {
	co, err := groupCoordinator(name, in)
	if err != nil {
		return err
	}
	if co.Broker == "kafka" {
		_, err = fmt.Fprintf(w, "coordinator: partition %d of __consumer_offsets (of %d, the default offsets.topic.num.partitions)\n", co.Partition, co.Partitions)
		return err
	}
	shown := ""
	if co.Shown != nil {
		shown = fmt.Sprintf("; rpk showed partition %d, so the cluster sets another group_topic_partitions", *co.Shown)
	}
	_, err = fmt.Fprintf(w, "coordinator: partition %d of __consumer_offsets (Redpanda: of %d, the default group_topic_partitions%s)\n", co.Partition, co.Partitions, shown)
	return err
}

func findCoordinator(e *env, c *cli.Context) error {
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if !c.Args().Present() {
		return usagef("coordinator: give a group id, e.g. assigncalc coordinator checkout-service")
	}
	partitions := c.Int("partitions")
	var out []any
	var rows, cells [][]string
	var header, cellHeader []string
	var footer string
	switch broker := c.String("broker"); broker {
	case "kafka":
		if !c.IsSet("partitions") {
			partitions = coordinator.DefaultOffsetsPartitions
		}
		for _, id := range c.Args().Slice() {
			r, err := coordinatorOf(id, partitions)
			if err != nil {
				return err
			}
			out = append(out, r)
			rows = append(rows, []string{r.Group, strconv.Itoa(int(r.HashCode)), itoa(int(r.Partition)), itoa(int(r.Partitions))})
			cells = append(cells, []string{r.Group, strconv.Itoa(int(r.HashCode)), itoa(int(r.Partition))})
		}
		header, cellHeader = []string{"group", "hashCode", "partition", "partitions"}, []string{"GROUP", "HASHCODE", "PARTITION"}
		footer = fmt.Sprintf("PARTITION is of __consumer_offsets, with %d partitions; its leader is the coordinator", partitions)
	case "redpanda":
		if !c.IsSet("partitions") {
			partitions = coordinator.DefaultRedpandaGroupPartitions
		}
		for _, id := range c.Args().Slice() {
			r, err := redpandaCoordinatorOf(id, partitions)
			if err != nil {
				return err
			}
			out = append(out, r)
			rows = append(rows, []string{r.Group, r.XXHash64, itoa(int(r.Partition)), itoa(int(r.Partitions))})
			cells = append(cells, []string{r.Group, r.XXHash64, itoa(int(r.Partition))})
		}
		header, cellHeader = []string{"group", "xxhash64", "partition", "partitions"}, []string{"GROUP", "XXHASH64", "PARTITION"}
		footer = fmt.Sprintf("PARTITION is of Redpanda's __consumer_offsets, with %d partitions (group_topic_partitions); its leader is the coordinator", partitions)
	default:
		return usagef("--broker %q: want kafka or redpanda", broker)
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
		return writeCSV(e.stdout, header, rows)
	}
	t := &table{header: cellHeader, aligns: []align{left, right, right}}
	for _, r := range cells {
		t.add(r...)
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "\n%s\n", footer)
	return err
}
