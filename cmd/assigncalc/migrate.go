package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// The migration itself (the target, the handovers, the heartbeat rounds)
// is the library's: coordinator.PreviewMigration. This file chooses the
// classic assignment it starts from and lays the answer out.

func migrateCommand(e *env) *cli.Command {
	flags := append(shapeFlags(),
		&cli.StringFlag{Name: "from", Usage: "the classic group's strategy `NAME` (range, roundrobin, sticky, cooperative-sticky): what it assigns is what the members hold (default: what they own in --in or --from-describe, else range, Kafka's default)"},
		&cli.StringFlag{Name: "to", Value: "uniform", Usage: "the server-side assignor `NAME` (group.remote.assignor): uniform, Kafka's default, or server-range"},
		&cli.BoolFlag{Name: "moves", Usage: "list each partition that changes owner and the heartbeat rounds it waits"},
		&cli.BoolFlag{Name: "all", Usage: "list every member, even for large groups"},
		&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		clientFlag("assigncalc"),
	)
	return &cli.Command{
		Name:      "migrate",
		Usage:     "preview what switching a classic group to group.protocol=consumer (KIP-848) moves",
		UsageText: "assigncalc migrate GROUP-FLAGS [--from STRATEGY] [--to uniform|server-range] [--kafka 4.0|4.1|4.2|4.3|4.4] [--topic-id NAME=ID ...] [--moves] ...",
		Description: "Kafka converts a classic group to the consumer protocol by taking what each member holds as\n" +
			"its current target; the group coordinator's assignor (--to) then computes the first target,\n" +
			"which members reach by heartbeats: each revokes what the target takes away, and receives a\n" +
			"partition once its previous owner has released it. Shown: the partitions that change owner,\n" +
			"per member what it revokes and receives, and per heartbeat round (members heartbeating in\n" +
			"the order listed) how many members are stable, must revoke (UNREVOKED), or wait for\n" +
			"partitions others hold (UNRELEASED), and how many partitions nobody consumes (IDLE).\n\n" +
			"--client NAME computes --from as that library's group leader does (java's sticky assignors\n" +
			"exactly; the other libraries' are ours, marked approximate), the first member leading (a\n" +
			"member's \"client\" in --in overrides NAME); a strategy or static membership the client lacks is\n" +
			"an error naming it. Where Java's classic answer is invalid, unbalanced or moves more than ours, a\n" +
			"warning says so.\n\n" +
			"Example:\n" +
			"   assigncalc migrate --members 3 --topics t1:8 --from roundrobin\n" +
			"   kafka-consumer-groups.sh --describe --group orders --members --verbose | assigncalc migrate --from-describe - --to server-range",
		Flags:  append(flags, serverFlags()...),
		Action: func(c *cli.Context) error { return migrate(e, c) },
	}
}

func migrate(e *env, c *cli.Context) error {
	if c.Args().Present() {
		return usagef("migrate: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	to, err := oneStrategy("to", c.String("to"))
	if err != nil {
		return err
	}
	if to.Protocol() != assign.ServerAssigned {
		return usagef("--to %s: want a server-side assignor: uniform or server-range", to.Name())
	}
	var classic assign.Strategy
	if name := c.String("from"); name != "" {
		if classic, err = oneStrategy("from", name); err != nil {
			return err
		}
		if classic.Protocol() == assign.ServerAssigned {
			return usagef("--from %s: want a classic strategy: %s", classic.Name(), strategyChoices())
		}
	}
	in, err := readGroup(e, c)
	if err != nil {
		return err
	}
	entry, g := in.Entry, in.Group
	if in.assignor != "" { // already on the consumer protocol: what --to would change
		if classic != nil {
			return usagef("--from %s: the paste shows a group on the consumer protocol, not a classic one", classic.Name())
		}
		if !c.IsSet("to") {
			if to, err = assign.Lookup(in.assignor); err != nil {
				return err
			}
		}
		e.notef("the paste shows a group on the consumer protocol (KIP-848) with assignor %s: shown is what %s's next target moves from the members' targets", in.assignor, to.Name())
	}
	if err := g.Validate(); err != nil {
		return err
	}
	leader, err := groupLeader(c, g, entry.Clients, entry.Protocols)
	if err != nil {
		return err
	}
	warnUnknownTopics(e, g, nil)
	strategies := []assign.Strategy{to}
	if g, err = forServer(e, c, g, strategies, nil); err != nil {
		return err
	}
	to = strategies[0]

	from, fromLabel := "owned", ""
	owns := slices.ContainsFunc(g.Members, func(m assign.Member) bool { return len(m.Owned) > 0 })
	if classic == nil && !owns {
		classic = assign.Range{}
		e.notef("the members own nothing: the classic group is taken to use range, Kafka's default (--from names another)")
	}
	if classic != nil {
		cs, fid, err := forClient(e, leader, []assign.Strategy{classic})
		if err != nil {
			return err
		}
		classic = cs[0]
		prog := e.startProgress("migrate", 1)
		var first churn.Step
		prog.during(1, "from "+classic.Name(), func() {
			if isClientEmulation(classic) {
				// The warnings where the client's answer is worse than ours.
				_, err = previewEmulated(e, leader, classic, g)
			}
			if err == nil {
				_, first, err = churn.NewChurn(classic, g)
			}
		})
		prog.end()
		if err != nil && isClientEmulation(classic) {
			return emulationError(leader, classic, "--from", err)
		}
		if err != nil {
			return strategyError(classic, err)
		}
		g, from, fromLabel = first.Group, classic.Name(), clientLabel(leader, fid, classic)
	}
	m, err := coordinator.PreviewMigration(g, to)
	if err != nil {
		return strategyError(to, err)
	}
	if err := assign.Check(to, g, m.Target, nil); err != nil {
		return &internalError{fmt.Errorf("%s: %w", to.Name(), err)}
	}
	mv := migrationView{entry: entry, group: g, from: from, fromLabel: fromLabel, to: to, m: m, assignor: in.assignor}
	switch format {
	case formatJSON, formatJSONL:
		return mv.writeJSON(e, format)
	case formatCSV:
		return mv.writeCSV(e)
	}
	return mv.writeTable(e, c.Bool("moves"), c.Bool("all"))
}

// oneStrategy looks up the one strategy a flag names.
func oneStrategy(flag, name string) (assign.Strategy, error) {
	list, err := parseStrategies(flag, []string{name})
	if err != nil {
		return nil, err
	}
	if len(list) != 1 {
		return nil, usagef("--%s %q: want one strategy", flag, name)
	}
	return list[0], nil
}

// kafkaOf is the Kafka version a server-side strategy reproduces.
func kafkaOf(s assign.Strategy) assign.KafkaVersion {
	if v, ok := s.(assign.KafkaVersioned); ok {
		return v.KafkaVersion()
	}
	return assign.Kafka44
}

// migrationView is a migration with what its layout needs.
type migrationView struct {
	entry groupfile.Entry
	group assign.Group // members owning their classic assignment
	from  string       // the classic strategy, or "owned"

	// fromLabel is the classic strategy as the table names it, with
	// --client's library ("sticky (java)"); "" for from itself.
	fromLabel string
	to        assign.Strategy
	m         coordinator.Migration

	// assignor is the broker's assignor of a group already on the
	// consumer protocol, "" for a classic group.
	assignor string
}

// perMember groups the handovers by the member that revokes and by the
// member that receives.
func (v migrationView) perMember() (revokes, receives map[string][]assign.TopicPartition) {
	revokes, receives = make(map[string][]assign.TopicPartition), make(map[string][]assign.TopicPartition)
	for _, h := range v.m.Moves {
		if h.From != "" {
			revokes[h.From] = append(revokes[h.From], h.Partition)
		}
		if h.To != "" {
			receives[h.To] = append(receives[h.To], h.Partition)
		}
	}
	return revokes, receives
}

func (v migrationView) headline() string {
	total := 0
	for _, ps := range v.m.Target {
		total += len(ps)
	}
	from := v.from + " (classic)"
	if l, ok := strings.CutSuffix(v.fromLabel, ")"); ok {
		from = l + ", classic)" // "sticky (java, classic)"
	}
	switch {
	case v.assignor != "":
		from = "what the members own (consumer protocol, " + v.assignor + ")"
	case v.from == "owned":
		from = "what the members own (classic)"
	}
	rounds := "heartbeat rounds"
	if len(v.m.Rounds) == 1 {
		rounds = "heartbeat round"
	}
	return fmt.Sprintf("from %s to %s (consumer protocol, Kafka %s): %d of %d partitions change owner, %d of them after a revocation; %d %s",
		from, v.to.Name(), kafkaOf(v.to), len(v.m.Moves), total, len(v.m.Stops), len(v.m.Rounds), rounds)
}

func (v migrationView) writeTable(e *env, moves, all bool) error {
	w := e.stdout
	title := groupSummary(v.group)
	if v.entry.Name != "" {
		title = v.entry.Name + ": " + title
	}
	fmt.Fprintf(w, "%s\n%s\n\n", title, v.headline())

	revokes, receives := v.perMember()
	held := "CLASSIC"
	if v.assignor != "" {
		held = "OWNED" // the members' targets, on the consumer protocol already
	}
	mt := &table{header: []string{"MEMBER", held, "TARGET", "REVOKES", "RECEIVES"}, aligns: []align{left, right, right}}
	shown := 0
	for _, mem := range v.group.Members {
		id := mem.ID
		changes := len(revokes[id]) > 0 || len(receives[id]) > 0
		if !all && len(v.group.Members) > summaryAbove && (!changes || shown == 2*summaryRows) {
			continue
		}
		shown++
		mt.add(id, itoa(len(mem.Owned)), itoa(len(v.m.Target[id])), orDash(fit(revokes[id], partitionsWide/2)), orDash(fit(receives[id], partitionsWide/2)))
	}
	if err := mt.render(w); err != nil {
		return err
	}
	if shown < len(v.group.Members) {
		fmt.Fprintf(w, "%d members, %d shown (members whose partitions change, at most %d); --all lists every member\n", len(v.group.Members), shown, 2*summaryRows)
	}

	rt := &table{header: []string{"ROUND", "STABLE", "UNREVOKED", "UNRELEASED", "IDLE"}, aligns: []align{right, right, right, right, right}}
	total := 0
	for _, ps := range v.m.Target {
		total += len(ps)
	}
	for i, r := range v.m.Rounds {
		n := r.States()
		rt.add(itoa(i+1), itoa(n[coordinator.Stable]), itoa(n[coordinator.UnrevokedPartitions]), itoa(n[coordinator.UnreleasedPartitions]), itoa(total-r.Assigned()))
	}
	fmt.Fprintln(w)
	if err := rt.render(w); err != nil {
		return err
	}
	if !moves {
		return nil
	}
	fmt.Fprintln(w)
	ht := &table{header: []string{"PARTITION", "FROM", "TO", "IDLE"}}
	for _, h := range v.m.Moves {
		idle := "-"
		if st, ok := stopOf(v.m.Stops, h.Partition); ok {
			idle = fmt.Sprintf("rounds %d-%d", st.Revoked, st.Received-1)
			if st.Rounds() == 1 {
				idle = fmt.Sprintf("round %d", st.Revoked)
			}
		}
		ht.add(h.Partition.String(), orNone(h.From), orNone(h.To), idle)
	}
	if len(v.m.Moves) == 0 {
		ht.add("-", "", "", "nothing moves")
	}
	return ht.render(w)
}

// writeJSON writes the migration as one result line (json or jsonl).
func (v migrationView) writeJSON(e *env, format string) error {
	r := groupfile.Result{Name: v.entry.Name, Strategy: v.to.Name(), Members: groupfile.MemberIDs(v.group), Assignment: v.m.Target}
	mig := groupfile.MigrationOf(v.from, kafkaOf(v.to), v.m)
	mig.Owned, mig.Assumed = groupfile.OwnedOf(v.group), e.assumed
	line, err := groupfile.AppendMigration(nil, r, mig)
	if err != nil {
		return err
	}
	rw := &resultWriter{w: e.stdout, format: format}
	if err := rw.writeRaw(line); err != nil {
		return err
	}
	return rw.close()
}

// migrationCSVHeader is migrate's CSV: its tables as rows told apart by
// ROW, each filling its own columns:
//
//   - "summary": the headline, a row per STATISTIC (from, to, kafka,
//     moved, partitions, revocations, rounds) with its VALUE;
//   - "member": per member, the partitions it holds (HELD, OWNED; the
//     table's CLASSIC or OWNED), its TARGET count, what it REVOKES and
//     RECEIVES;
//   - "round": per heartbeat round, the members STABLE, UNREVOKED and
//     UNRELEASED, and the partitions IDLE;
//   - "move": per partition that changes owner, FROM and TO, and the
//     heartbeat rounds it is REVOKED in and RECEIVED in when it waits;
//   - "assumed": what the input left to assume, in VALUE.
var migrationCSVHeader = []string{"row", "member", "held", "target", "owned", "revokes", "receives", "round", "stable", "unrevoked", "unreleased", "idle",
	"partition", "from", "to", "revoked", "received", "statistic", "value"}

func (v migrationView) writeCSV(e *env) error {
	cells := func(kind string, at map[int]string) []string {
		row := make([]string, len(migrationCSVHeader))
		row[0] = kind
		for i, s := range at {
			row[i] = s
		}
		return row
	}
	total := 0
	for _, ps := range v.m.Target {
		total += len(ps)
	}
	var rows [][]string
	for _, kv := range [][2]string{{"from", v.from}, {"to", v.to.Name()}, {"kafka", kafkaOf(v.to).String()}, {"moved", itoa(len(v.m.Moves))},
		{"partitions", itoa(total)}, {"revocations", itoa(len(v.m.Stops))}, {"rounds", itoa(len(v.m.Rounds))}} {
		rows = append(rows, cells("summary", map[int]string{17: kv[0], 18: kv[1]}))
	}
	revokes, receives := v.perMember()
	for _, mem := range v.group.Members {
		held := slices.SortedFunc(slices.Values(mem.Owned), assign.TopicPartition.Compare)
		rows = append(rows, cells("member", map[int]string{1: mem.ID, 2: itoa(len(mem.Owned)), 3: itoa(len(v.m.Target[mem.ID])),
			4: compact(held), 5: compact(revokes[mem.ID]), 6: compact(receives[mem.ID])}))
	}
	for i, r := range v.m.Rounds {
		n := r.States()
		rows = append(rows, cells("round", map[int]string{7: itoa(i + 1), 8: itoa(n[coordinator.Stable]), 9: itoa(n[coordinator.UnrevokedPartitions]),
			10: itoa(n[coordinator.UnreleasedPartitions]), 11: itoa(total - r.Assigned())}))
	}
	for _, h := range v.m.Moves {
		at := map[int]string{12: h.Partition.String(), 13: h.From, 14: h.To}
		if st, ok := stopOf(v.m.Stops, h.Partition); ok {
			at[15], at[16] = itoa(st.Revoked), itoa(st.Received)
		}
		rows = append(rows, cells("move", at))
	}
	for _, a := range e.assumed {
		rows = append(rows, cells("assumed", map[int]string{18: a}))
	}
	return writeCSV(e.stdout, migrationCSVHeader, rows)
}
