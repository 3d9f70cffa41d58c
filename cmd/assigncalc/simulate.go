package main

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// The churn model (what each change does, the rebalances it starts, why
// each partition moves) is the library's: churn.Churn. This file turns
// flags into assign.Changes and steps into tables.

// change is one step of a simulation, as given on the command line.
type change struct {
	kind string // leave, join, grow, subscribe, restart
	arg  string
}

func (c change) String() string { return c.kind + " " + c.arg }

// changeFlag records the changes of every change flag in the order given:
// urfave/cli keeps each flag's values apart, but the order matters here.
type changeFlag struct {
	kind    string
	changes *[]change
}

func (f *changeFlag) Set(v string) error {
	*f.changes = append(*f.changes, change{f.kind, v})
	return nil
}

func (f *changeFlag) String() string { return "" }

func simulateCommand(e *env) *cli.Command {
	var changes []change
	flag := func(kind, usage string) cli.Flag {
		return &cli.GenericFlag{Name: kind, Usage: usage, Value: &changeFlag{kind: kind, changes: &changes}}
	}
	flags := append(shapeFlags(),
		flag("leave", "member `ID` (or group.instance.id) leaves the group; repeatable, applied in command-line order with the other changes"),
		flag("join", "member `ID[#INSTANCE][=TOPIC,...][@RACK]` joins; a member that left comes back as it was, but for the parts given (a new one subscribes to every topic; ID# makes it dynamic; =/PATTERN/ or =TOPIC,...,/PATTERN/ subscribes by pattern, --protocol consumer)"),
		flag("grow", "topic `NAME:+N` gains N partitions (NAME:N sets the count; a new name creates the topic)"),
		flag("subscribe", "member `ID=TOPIC,...` changes its subscription (ID=/PATTERN/ or ID=TOPIC,...,/PATTERN/: by pattern, --protocol consumer)"),
		flag("restart", "member `ID` (or group.instance.id) restarts: a static member rejoins without a rebalance; a dynamic one leaves and rejoins with a new member.id (ID-r1)"),
		&cli.BoolFlag{Name: "keep-member-id", Usage: "a restarted dynamic member keeps its member.id (a real consumer gets a new one)"},
		&cli.BoolFlag{Name: "moves", Usage: "list, per step and strategy, each partition that changed owner and why"},
		&cli.StringSliceFlag{Name: "compare", Aliases: []string{"strategy"}, Usage: "simulate strategies `NAME,...` or all (default: all: the classic strategies, and with --protocol consumer uniform and server-range)"},
		&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		clientFlag("assigncalc"),
	)
	flags = append(flags, consumerFlags()...)
	return &cli.Command{
		Name:      "simulate",
		Usage:     "apply membership and metadata changes in order and show what each strategy moves",
		UsageText: "assigncalc simulate GROUP-FLAGS [--leave ID] [--join ID[#INSTANCE][=TOPIC,...][@RACK]] [--grow NAME:+N] [--subscribe ID=TOPIC,...] [--restart ID] [--moves] ...",
		Description: "Starts from the group of the flags (or --in), assigns it with each strategy, then applies the\n" +
			"changes in the order given. Each strategy carries its own previous assignment forward as its\n" +
			"members' owned partitions, as real clients do. Per step and strategy it shows the partitions\n" +
			"that changed owner (MOVED), the members whose assignment changed (AFFECTED), the partitions\n" +
			"members had to give up during the rebalance (REVOKED: all of them for eager strategies, only\n" +
			"those that move for cooperative-sticky), the rebalances until stable (ROUNDS) and the spread,\n" +
			"then what the model assumed. A change nobody's subscription sees starts no rebalance.\n\n" +
			"With --protocol consumer, the server-side assignors uniform and server-range run too: each\n" +
			"change gives one target, which members reach by heartbeats (KIP-848); ROUNDS counts the\n" +
			"heartbeat rounds, REVOKED what members revoke, and the partitions that nobody consumes for\n" +
			"some rounds (revoked by one member, received by another later) are listed under the table.\n" +
			"A member may subscribe by pattern (--member, --join or --subscribe ID=/PATTERN/, \"topicRegex\" in\n" +
			"--in): the pattern is resolved, as the coordinator does, against the topics at each step, so a\n" +
			"--grow that creates a topic it matches assigns that topic; only uniform and server-range run.\n\n" +
			"With --protocol share (KIP-932, Kafka 4.2 and later) the group is a share group and simple its\n" +
			"one assignor: each change gives one target, which every member takes at its next heartbeat,\n" +
			"with no revocation wait (a partition may have several holders); RECEIVED and REVOKED count\n" +
			"partitions per member, MAX SHARING the most members holding one partition.\n\n" +
			"--client NAME plays each strategy as that library's group leader computes it (java's sticky and\n" +
			"cooperative-sticky are Kafka's Java assignors reproduced exactly; the other libraries' are ours,\n" +
			"marked approximate); a member's \"client\" in --in overrides it, the first member leading. The\n" +
			"default list keeps the strategies the client has; one named in --compare that it lacks is an\n" +
			"error naming the client. Where Java's answer moves more or is less balanced than ours from the\n" +
			"same group, a warning says so; an invalid answer, or Java throwing, ends the simulation.\n\n" +
			"Example:\n" +
			"   assigncalc simulate --members 3 --topics t1:12 --leave c0 --join c9 --grow t1:+4\n" +
			"   assigncalc simulate --member c0#i0 --member c1 --topics t:4 --restart i0 --restart c1 --moves\n" +
			"   assigncalc simulate --members 2 --topics t:4 --join c2 --protocol consumer --compare cooperative-sticky,uniform\n" +
			"   assigncalc simulate --topics orders-eu:2 --member c0=/orders-.*/ --grow orders-us:2 --protocol consumer\n" +
			"   assigncalc simulate --members 3 --topics t:2 --join c3 --leave c0 --protocol share",
		Flags:  flags,
		Action: func(c *cli.Context) error { return simulate(e, c, changes) },
	}
}

// simStep is what one step did under one strategy.
type simStep struct {
	step     int
	change   string
	strategy string
	protocol assign.RebalanceProtocol
	churn.Step

	// label is the strategy as the tables show it, with --client's
	// library; client and approximate go to the machine formats.
	label       string
	client      string
	approximate bool
}

func simulate(e *env, c *cli.Context, changes []change) (err error) {
	if c.Args().Present() {
		return usagef("simulate: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if shareProtocol(c) {
		return simulateShare(e, c, changes, format)
	}
	in, err := readGroup(e, c)
	if err != nil {
		return err
	}
	entry := in.Entry
	consumer, err := protocolOf(e, c, in)
	if err != nil {
		return err
	}
	strategies := withServerStrategies(assign.Strategies(), consumer)
	if c.IsSet("compare") {
		if strategies, err = parseStrategies("compare", c.StringSlice("compare")); err != nil {
			return err
		}
		if mentionsAll(c.StringSlice("compare")) {
			strategies = withServerStrategies(strategies, consumer)
		}
	}
	g := entry.Group
	byPattern := hasPatterns(g, changes)
	if byPattern {
		if strategies, err = patternStrategies(c, strategies, consumer); err != nil {
			return err
		}
	}
	if err := validateResolved(g); err != nil {
		return err
	}
	leader, err := groupLeader(c, g, entry.Clients, entry.Protocols)
	if err != nil {
		return err
	}
	if !c.IsSet("compare") {
		strategies = offeredBy(leader, strategies)
	}
	strategies, fidelity, err := forClient(e, leader, strategies)
	if err != nil {
		return err
	}
	if g, err = forServer(e, c, g, strategies, grownTopics(changes)); err != nil {
		return err
	}
	defer recoverSimulate(&err)
	warned := make(map[[2]string]bool)
	warnUnknownTopics(e, g, warned)
	changesOf := newChangeReader(c, in.clientIDs)

	var results []simStep
	prog := e.startProgress("simulate", (len(changes)+1)*len(strategies))
	defer prog.end()
	churns := make([]*churn.Churn, len(strategies))
	vs := versusOurs{e: e, leader: leader}
	for i, s := range strategies {
		var ch *churn.Churn
		var first churn.Step
		prog.during(i+1, "start, "+s.Name(), func() { ch, first, err = churn.NewChurn(s, g) })
		if err != nil {
			if isClientEmulation(s) {
				return emulationError(leader, s, "start", err)
			}
			return strategyError(s, err)
		}
		churns[i] = ch
		if isClientEmulation(s) {
			vs.compare(s, "start", g, nil, first)
		}
		results = append(results, clientStep(leader, fidelity, s, simStep{step: 0, change: "start", Step: first}))
	}
	for n, flagged := range changes {
		ch, err := changesOf.change(churns[0].Group(), flagged)
		if err != nil {
			return err
		}
		for i, cn := range churns {
			s := strategies[i]
			before := cn.Group()
			var step churn.Step
			prog.during((n+1)*len(strategies)+i+1, fmt.Sprintf("step %d (%s), %s", n+1, flagged, s.Name()), func() { step, err = cn.Apply(ch) })
			if err != nil {
				if isClientEmulation(s) {
					return emulationError(leader, s, fmt.Sprintf("step %d (%s)", n+1, flagged), err)
				}
				if isInputError(err) {
					return fmt.Errorf("--%s %s: %w", flagged.kind, flagged.arg, err)
				}
				return strategyError(s, err)
			}
			if isClientEmulation(s) {
				vs.compare(s, fmt.Sprintf("step %d (%s)", n+1, flagged), before, &ch, step)
			}
			results = append(results, clientStep(leader, fidelity, s, simStep{step: n + 1, change: flagged.String(), Step: step}))
		}
		warnUnknownTopics(e, churns[0].Group(), warned)
	}
	prog.end()
	start := simStart{group: g, owned: groupfile.OwnedOf(g), assumed: e.assumed}
	if c.Bool("moves") {
		return writeMoves(e, format, entry.Name, results, start)
	}
	return writeSimulation(e, format, entry.Name, results, start)
}

// grownTopics returns the topics the --grow changes name, which a --grow
// may create: they need topic ids too.
func grownTopics(changes []change) []string {
	var grown []string
	for _, ch := range changes {
		if name, _, ok := strings.Cut(ch.arg, ":"); ch.kind == "grow" && ok {
			grown = append(grown, name)
		}
	}
	return grown
}

// recoverSimulate turns a panic of the simulation, under either
// protocol, into an internal error in *err; deferred.
func recoverSimulate(err *error) {
	if p := recover(); p != nil {
		*err = &internalError{fmt.Errorf("simulate panicked: %v", p)}
	}
}

// changeReader turns change flags into churn changes, for simulate under
// either protocol: with --racks and --replicas for new members and
// topics, --keep-member-id, and the restarts so far for new member.ids.
type changeReader struct {
	racks     []string
	replicas  int
	keepID    bool
	restarts  map[string]int    // member ID => restarts so far
	clientIDs map[string]string // as toChange's
}

func newChangeReader(c *cli.Context, clientIDs map[string]string) *changeReader {
	return &changeReader{racks: splitRacks(c.String("racks")), replicas: max(1, c.Int("replicas")), keepID: c.Bool("keep-member-id"),
		restarts: make(map[string]int), clientIDs: clientIDs}
}

// change is f on g, the group before it.
func (r *changeReader) change(g assign.Group, f change) (churn.Change, error) {
	return toChange(g, f, r.racks, r.replicas, r.keepID, r.restarts, r.clientIDs)
}

// clientStep is st, a step of s, with what --client says of s.
func clientStep(p *client.Profile, fidelity map[string]client.Fidelity, s assign.Strategy, st simStep) simStep {
	st.strategy, st.protocol, st.label = s.Name(), s.Protocol(), clientLabel(p, fidelity, s)
	if f, ok := fidelity[s.Name()]; ok && p != client.Assigncalc {
		st.client, st.approximate = p.Name, f == client.Approximate
	}
	return st
}

// versusOurs says, on stderr, where a client's emulated strategy does
// worse in a step than ours would from the same group: moves more
// partitions, or leaves a wider spread (Java's StickyAssignor can).
type versusOurs struct {
	e      *env
	leader *client.Profile
}

// compare judges theirs, the step s took at where from before (the group
// as the step found it; ch the change, nil for the first rebalance),
// against our strategy of the same name from the same group.
func (v versusOurs) compare(s assign.Strategy, where string, before assign.Group, ch *churn.Change, theirs churn.Step) {
	ours, err := assign.Lookup(s.Name())
	if err != nil {
		return
	}
	oc, mine, err := churn.NewChurn(ours, before)
	if err == nil && ch != nil {
		// before owns the client's last answer: ours starting there
		// keeps it where it is balanced, then takes the same change.
		mine, err = oc.Apply(*ch)
	}
	if err != nil {
		v.e.warnf("%s: %s's %s: assigncalc's %s fails from the same group: %v", where, v.leader.Name, s.Name(), s.Name(), err)
		return
	}
	if a, b := len(theirs.Moves), len(mine.Moves); a > b {
		v.e.warnf("%s: %s's %s moves %d partitions; assigncalc's %s, from the same group, %d", where, v.leader.Name, s.Name(), a, s.Name(), b)
	}
	if a, b := assign.Summarize(theirs.Group, theirs.After).Spread, assign.Summarize(mine.Group, mine.After).Spread; a > b {
		v.e.warnf("%s: %s's %s leaves a spread of %d; assigncalc's %s, %d", where, v.leader.Name, s.Name(), a, s.Name(), b)
	}
}

// strategyError classifies an error of the churn model: bad input stays
// bad input, anything else is a strategy's failure, ours.
func strategyError(s assign.Strategy, err error) error {
	if isInputError(err) {
		return err
	}
	return &internalError{fmt.Errorf("%s: %w", s.Name(), err)}
}

// toChange turns a change flag into an churn.Change on group g, the group
// before it.
func toChange(g assign.Group, f change, racks []string, replicas int, keepID bool, restarts map[string]int, clientIDs map[string]string) (churn.Change, error) {
	switch f.kind {
	case "leave":
		id, err := memberRef(f.kind, f.arg, g.Members, clientIDs)
		return churn.Change{Kind: churn.ChangeLeave, Member: id}, err
	case "join":
		m, given, err := parseMember("join", f.arg, nil)
		if err != nil {
			return churn.Change{}, err
		}
		return churn.Change{Kind: churn.ChangeJoin, Member: m.ID, InstanceID: m.InstanceID, Rack: m.Rack, Topics: m.Topics, TopicRegex: m.TopicRegex, Given: given}, nil
	case "subscribe":
		id, list, ok := strings.Cut(f.arg, "=")
		if !ok || id == "" {
			return churn.Change{}, usagef("--subscribe %q: want ID=TOPIC,... or ID=TOPIC,...,/PATTERN/", f.arg)
		}
		topics, pattern, err := subscriptionOf("subscribe", f.arg, list)
		if err != nil {
			return churn.Change{}, err
		}
		id, err = memberRef(f.kind, id, g.Members, clientIDs)
		return churn.Change{Kind: churn.ChangeSubscribe, Member: id, Topics: topics, TopicRegex: pattern}, err
	case "grow":
		name, count, ok := strings.Cut(f.arg, ":")
		if !ok || name == "" {
			return churn.Change{}, usagef("--grow %q: want NAME:+N or NAME:N", f.arg)
		}
		old := g.Topics[name]
		n, err := parseCount("--grow "+strconv.Quote(f.arg), strings.TrimPrefix(count, "+"))
		if err != nil {
			return churn.Change{}, err
		}
		target := int64(n)
		if strings.HasPrefix(count, "+") {
			target += int64(old)
		}
		if target > 1<<31-1 {
			return churn.Change{}, usagef("--grow %q: %d partitions is too large for a partition count (max 2147483647)", f.arg, target)
		}
		if total := totalPartitions(g.Topics) - int64(old) + target; total > assign.MaxPartitions {
			return churn.Change{}, usagef("--grow %q: the topics would hold %d partitions in all, more than the %d a group may have", f.arg, total, assign.MaxPartitions)
		}
		ch := churn.Change{Kind: churn.ChangeGrow, Topic: name, Partitions: int32(target)}
		if len(racks) > 0 && int32(target) > old {
			ch.Racks = coordinator.ReplicaRacks(old, int32(target), racks, replicas)
		}
		return ch, nil
	case "restart":
		id, err := memberRef(f.kind, f.arg, g.Members, clientIDs)
		if err != nil {
			return churn.Change{}, err
		}
		ch := churn.Change{Kind: churn.ChangeRestart, Member: id}
		if !keepID {
			ch.NewID = churn.RestartedID(g, id, restarts)
		}
		return ch, nil
	}
	return churn.Change{}, usagef("unknown change %q", f.kind)
}

func splitRacks(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for r := range strings.SplitSeq(s, ",") {
		out = append(out, strings.TrimSpace(r))
	}
	return out
}

// simStart is what a simulation started from, for its machine formats:
// the group, what its members owned (nil: nothing) and what the input
// left to assume.
type simStart struct {
	group   assign.Group
	owned   *groupfile.MemberPartitions
	assumed []string
}

// writeCSV writes a simulation's CSV: rows, each of kind, in the
// columns of header, and the columns of "owned" rows after them
// (withOwnedColumns: ROW, then MEMBER, RACK, TOPIC unless header has it,
// COUNT and PARTITIONS); first the "owned" rows of what the members owned
// (ownedCSV), which leave header's other columns empty.
func (s simStart) writeCSV(e *env, header []string, kind string, rows [][]string) error {
	h := withOwnedColumns(slices.Clone(header))
	return writeCSV(e.stdout, h, append(ownedCSV(nil, h, "", s.group, s.owned), kindRows(h, kind, rows)...))
}

// at is what step reports of the start: all of it on step 0, nothing on
// the others.
func (s simStart) at(step int) simStart {
	if step != 0 {
		return simStart{}
	}
	return s
}

func writeSimulation(e *env, format, name string, results []simStep, start simStart) error {
	switch format {
	case formatJSON, formatJSONL:
		return writeSimJSON(e, format, name, results, false, start)
	case formatCSV:
		// After the table's columns: the partitions nobody consumes for
		// some heartbeat rounds (the lines under the table), the step's
		// notes (its "assumed:" lines) and, on step 0, what the input
		// left to assume, each note on a line of its own.
		var steps [][]string
		for _, r := range results {
			steps = append(steps, []string{itoa(r.step), r.change, r.strategy, itoa(len(r.Moves)), itoa(r.Affected()), itoa(r.Revoked), itoa(r.Rounds), itoa(spread(r)),
				itoa(len(r.Stops)), strings.Join(r.Notes, "\n"), strings.Join(start.at(r.step).assumed, "\n")})
		}
		return start.writeCSV(e, []string{"step", "change", "strategy", "moved", "affected", "revoked", "rounds", "spread", "stops", "notes", "assumed"}, "step", steps)
	}
	t := &table{
		header: []string{"STEP", "CHANGE", "STRATEGY", "MOVED", "AFFECTED", "REVOKED", "ROUNDS", "SPREAD"},
		aligns: []align{right, left, left, right, right, right, right, right},
	}
	for i, r := range results {
		step, ch := itoa(r.step), r.change
		if i > 0 && results[i-1].step == r.step {
			step, ch = "", ""
		}
		t.add(step, ch, r.label, itoa(len(r.Moves)), itoa(r.Affected()), itoa(r.Revoked), itoa(r.Rounds), itoa(spread(r)))
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	if err := writeStops(e, results); err != nil {
		return err
	}
	return writeNotes(e, results)
}

// writeStops lists, per step and server-assigned strategy, the partitions
// nobody consumes for some heartbeat rounds, grouped by the rounds of
// their revocation and receipt.
func writeStops(e *env, results []simStep) error {
	server := false
	for _, r := range results {
		server = server || r.protocol == assign.ServerAssigned
	}
	if !server {
		return nil
	}
	fmt.Fprintln(e.stdout, "\nconsumer protocol: ROUNDS are heartbeat rounds until every member holds its target; stopped partitions:")
	any := false
	for _, r := range results {
		stops := slices.Clone(r.Stops)
		slices.SortStableFunc(stops, func(a, b coordinator.Stop) int {
			return cmp.Or(cmp.Compare(a.Revoked, b.Revoked), cmp.Compare(a.Received, b.Received))
		})
		for i := 0; i < len(stops); {
			var tps []assign.TopicPartition
			j := i
			for ; j < len(stops) && stops[j].Revoked == stops[i].Revoked && stops[j].Received == stops[i].Received; j++ {
				tps = append(tps, stops[j].Partition)
			}
			any = true
			if _, err := fmt.Fprintf(e.stdout, "  step %d (%s), %s: %s revoked in round %d, received in round %d\n",
				r.step, r.change, r.strategy, fit(tps, partitionsWide), stops[i].Revoked, stops[i].Received); err != nil {
				return err
			}
			i = j
		}
	}
	if !any {
		_, err := fmt.Fprintln(e.stdout, "  none: every partition that moved was free when its new owner asked")
		return err
	}
	return nil
}

// writeNotes prints what the model assumed, once per step (the notes are
// the same under every strategy).
func writeNotes(e *env, results []simStep) error {
	first := true
	for i, r := range results {
		if i > 0 && results[i-1].step == r.step {
			continue
		}
		for _, n := range r.Notes {
			if first {
				fmt.Fprintln(e.stdout, "\nassumed:")
				first = false
			}
			if _, err := fmt.Fprintf(e.stdout, "  step %d (%s): %s\n", r.step, r.change, n); err != nil {
				return err
			}
		}
	}
	return nil
}

func spread(r simStep) int { return assign.Summarize(r.Group, r.After).Spread }

// writeMoves lists each move of each step and strategy.
func writeMoves(e *env, format, name string, results []simStep, start simStart) error {
	switch format {
	case formatJSON, formatJSONL:
		return writeSimJSON(e, format, name, results, true, start)
	case formatCSV:
		var moves [][]string
		for _, r := range results {
			for _, mv := range r.Moves {
				moves = append(moves, []string{itoa(r.step), r.change, r.strategy, mv.Partition.Topic, itoa(int(mv.Partition.Partition)), mv.From, mv.To, mv.Reason.String(), strconv.FormatBool(mv.Deferred)})
			}
		}
		return start.writeCSV(e, []string{"step", "change", "strategy", "topic", "partition", "from", "to", "reason", "deferred"}, "move", moves)
	}
	t := &table{header: []string{"STEP", "CHANGE", "STRATEGY", "MOVE", "WHY"}, aligns: []align{right}}
	for i, r := range results {
		step, ch := itoa(r.step), r.change
		if i > 0 && results[i-1].step == r.step {
			step, ch = "", ""
		}
		if len(r.Moves) == 0 {
			t.add(step, ch, r.label, "-", "nothing moved")
		}
		for k, mv := range r.Moves {
			why := mv.Reason.String()
			switch st, ok := stopOf(r.Stops, mv.Partition); {
			case ok:
				why += fmt.Sprintf("; revoked in heartbeat round %d, received in round %d", st.Revoked, st.Received)
			case mv.Deferred:
				why += "; revoked now, reassigned next round"
			}
			strategy := r.label
			if k > 0 {
				step, ch, strategy = "", "", ""
			}
			t.add(step, ch, strategy, fmt.Sprintf("%s: %s → %s", mv.Partition, mv.From, mv.To), why)
		}
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	return writeNotes(e, results)
}

// stopOf finds the stop of tp among stops, sorted by partition.
func stopOf(stops []coordinator.Stop, tp assign.TopicPartition) (coordinator.Stop, bool) {
	i, ok := slices.BinarySearchFunc(stops, tp, func(s coordinator.Stop, tp assign.TopicPartition) int { return s.Partition.Compare(tp) })
	if !ok {
		return coordinator.Stop{}, false
	}
	return stops[i], true
}

// writeSimJSON writes a result line per step and strategy (json or
// jsonl), with the step's moves when withMoves; step 0 says what the
// simulation started from.
func writeSimJSON(e *env, format, name string, results []simStep, withMoves bool, start simStart) error {
	return writeStepsJSON(e, format, name, results, start, func(res groupfile.Result, r simStep, from simStart) ([]byte, error) {
		step := groupfile.SimulateStepOf(r.step, r.change, r.Step, withMoves)
		step.Owned, step.Assumed = from.owned, from.assumed
		return groupfile.AppendSimulateStep(nil, res, step)
	})
}

// writeStepsJSON writes a result line per step and strategy (json or
// jsonl), as encode encodes it, for the consumer and share protocols'
// step records alike; from is start on step 0, which says what the
// simulation started from, and empty on the others.
func writeStepsJSON(e *env, format, name string, results []simStep, start simStart, encode func(res groupfile.Result, r simStep, from simStart) ([]byte, error)) error {
	rw := &resultWriter{w: e.stdout, format: format}
	for _, r := range results {
		res := groupfile.Result{Name: name, Strategy: r.strategy, Members: groupfile.MemberIDs(r.Group), Assignment: r.After, Client: r.client, Approximate: r.approximate}
		if err := rw.writeEncoded(encode(res, r, start.at(r.step))); err != nil {
			return err
		}
	}
	return rw.close()
}
