package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// Share groups (KIP-932, --protocol share) in the preview, plan, simulate
// and timeline: one strategy, the group coordinator's simple assignor, of
// Kafka 4.2 or later; one partition may go to several members.

// shareProtocol reports whether --protocol asks for a share group.
func shareProtocol(c *cli.Context) bool {
	return strings.TrimSpace(c.String("protocol")) == "share"
}

// shareStrategy checks the strategy flags named (each repeatable,
// comma-separated) under --protocol share: only simple, the one assignor
// a share group has (group.share.assignors), is allowed, and it is the
// default.
func shareStrategy(c *cli.Context, flags ...string) (assign.Strategy, error) {
	for _, f := range flags {
		if !c.IsSet(f) {
			continue
		}
		values := c.StringSlice(f) // a repeatable flag's values, or
		if len(values) == 0 {      // a string flag's one value
			values = []string{c.String(f)}
		}
		for _, v := range values {
			for name := range strings.SplitSeq(v, ",") {
				if name = strings.TrimSpace(name); name != "simple" {
					return nil, usagef("--%s %q: --protocol share has one assignor: want simple", f, name)
				}
			}
		}
	}
	return assign.Simple{}, nil
}

// shareKafka reads --kafka for a share group: 4.2 or later. Kafka 4.2 made
// share groups production-ready; 4.0 shipped them as early access and 4.1
// as a preview (the upgrade notes of 4.1 and 4.2, KIP-932's early access
// release notes), with protocols and records since changed. Their simple
// assignor is not the one [assign.Simple] reproduces either: the 4.0 and
// 4.1 branches stop before KAFKA-19362 and KAFKA-19363 (4690527fab,
// 860853dba2), which finalized the homogeneous and heterogeneous builders
// on the way to 4.2.
func shareKafka(c *cli.Context) (assign.KafkaVersion, error) {
	text := c.String("kafka")
	if text == "" {
		return assign.Kafka44, nil
	}
	v, err := assign.ParseKafkaVersion(text)
	if err != nil {
		return v, &usageError{fmt.Errorf("--kafka: %w", err)}
	}
	if v == assign.Kafka40 || v == assign.Kafka41 {
		return v, usagef("--kafka %s: share groups are production-ready from Kafka 4.2 (4.0 had them as early access, 4.1 as a preview, with an assignor not reproduced here): want 4.2, 4.3 or 4.4", strings.TrimSpace(text))
	}
	return v, nil
}

// shareFlags reads what every command's --protocol share path reads
// first: the strategy flags named (shareStrategy), --kafka (shareKafka),
// and refused, flags that have no meaning for it (refuseUnder), in that
// order.
func shareFlags(c *cli.Context, strategyFlags []string, refused ...string) (assign.Strategy, assign.KafkaVersion, error) {
	s, err := shareStrategy(c, strategyFlags...)
	if err != nil {
		return nil, 0, err
	}
	v, err := shareKafka(c)
	if err != nil {
		return nil, v, err
	}
	return s, v, refuseUnder(c, refused...)
}

// refuseUnder refuses flags set on the command line that have no meaning
// for a share group.
func refuseUnder(c *cli.Context, flags ...string) error {
	for _, f := range flags {
		if c.IsSet(f) {
			return usagef("--%s: does not apply to --protocol share", f)
		}
	}
	return nil
}

// shareIDs gives g the topic ids simple needs: those of --topic-id, and
// ids derived from the names for the rest of g's topics and also's, with
// a warning.
func shareIDs(e *env, c *cli.Context, g assign.Group, also []string) (assign.Group, error) {
	return withTopicIDs(e, c, g, also)
}

// previewShare is the preview of a share group: simple's answer, each
// member's partitions and how many members share each partition.
func previewShare(e *env, c *cli.Context, format string) error {
	s, v, err := shareFlags(c, []string{"strategy", "compare"}, "client", "diff")
	if err != nil {
		return err
	}
	in, err := readGroup(e, c)
	if err != nil {
		return err
	}
	entry, g := in.Entry, in.Group
	if err := g.Validate(); err != nil {
		return err
	}
	warnUnknownTopics(e, g, nil)
	if g, err = shareIDs(e, c, g, nil); err != nil {
		return err
	}
	entry.Group = g
	o, err := assignChecked(s, g)
	if err != nil {
		return err
	}
	sh := groupfile.ShareOf(g, o.assignment, v.String())
	switch format {
	case formatJSON, formatJSONL:
		rw := &resultWriter{w: e.stdout, format: format}
		if err := rw.writeEncoded(groupfile.AppendShare(nil, resultOf(entry, o), sh)); err != nil {
			return err
		}
		return rw.close()
	case formatCSV:
		rows := assignmentCSV(nil, entry.Name, s.Name(), g, o.assignment)
		return writeCSV(e.stdout, assignmentCSVHeader, shareCSV(rows, entry.Name, s.Name(), sh))
	}
	w := e.stdout
	fmt.Fprintf(w, "%s; share group, simple assignor of Kafka %s\n\n", groupTitle(entry.Name, g), v)
	st := assign.Summarize(g, o.assignment)
	t := &table{
		header: []string{"STRATEGY", "MIN", "MAX", "SPREAD", "STDDEV", "IDLE", "MAX SHARING"},
		aligns: []align{left, right, right, right, right, right, right},
	}
	row := []string{s.Name(), itoa(st.Min), itoa(st.Max), itoa(st.Spread), formatStdDev(st.StdDev), itoa(st.Idle), itoa(sh.MaxSharing)}
	if sh.Owned != nil {
		// Against the members' current targets: what each receives and
		// stops, a partition counted once per member.
		received, stopped := 0, 0
		for _, m := range g.Members {
			received += len(minusTPs(o.assignment[m.ID], m.Owned))
			stopped += len(minusTPs(m.Owned, o.assignment[m.ID]))
		}
		t.header = append(t.header, "RECEIVED", "REVOKED")
		t.aligns = append(t.aligns, right, right)
		row = append(row, itoa(received), itoa(stopped))
	}
	t.add(row...)
	if err := t.render(w); err != nil {
		return err
	}
	if sh.Owned != nil {
		fmt.Fprintln(w, "RECEIVED, REVOKED: against the members' current targets (\"owned\"), a partition counted once per member; a share member takes its new target at its next heartbeat")
	}
	fmt.Fprintf(w, "\n%s:\n", s.Name())
	view := memberView{rack: slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.Rack != "" }), all: c.Bool("all"), colour: e.colour}
	if err := memberTable(w, g, o, st, view); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return sharingTable(w, sh, c.Bool("all"))
}

// sharingTable writes how many members share each partition: a row per
// number of members, with the partitions that many hold.
func sharingTable(w io.Writer, sh groupfile.Share, all bool) error {
	t := &table{header: []string{"SHARED BY", "PARTITIONS"}, aligns: []align{right, left}}
	counts, parts := sh.SharedBy()
	for i, n := range counts {
		text := compact(parts[i])
		if !all {
			text = fit(parts[i], partitionsWide)
		}
		t.add(itoa(n), text)
	}
	return t.render(w)
}

// shareCSV appends to rows the "sharing" rows of sh, one per partition,
// in the layout of [assignmentCSVHeader]: the partition's topic in TOPIC,
// its number in PARTITIONS, how many members hold it in COUNT and which,
// space-separated, in VALUE; then a "stats" row whose STATISTIC is
// maxSharing.
func shareCSV(rows [][]string, group, strategy string, sh groupfile.Share) [][]string {
	for _, p := range sh.Sharing {
		rows = append(rows, []string{"sharing", group, strategy, "", "", p.Topic, itoa(p.Count), strconv.Itoa(int(p.Partition)), "", strings.Join(p.Members, " ")})
	}
	return append(rows, []string{"stats", group, strategy, "", "", "", "", "", "maxSharing", itoa(sh.MaxSharing)})
}

// minusTPs returns the partitions of a missing from b, in a's order, in
// time linear in both.
func minusTPs(a, b []assign.TopicPartition) []assign.TopicPartition {
	in := make(map[assign.TopicPartition]bool, len(b))
	for _, tp := range b {
		in[tp] = true
	}
	var out []assign.TopicPartition
	for _, tp := range a {
		if !in[tp] {
			out = append(out, tp)
		}
	}
	return out
}
