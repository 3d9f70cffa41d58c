package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func planCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "plan",
		Usage:     "assign a batch of groups read as JSON: one result per group and strategy",
		UsageText: "assigncalc plan --in FILE|- | --from-describe FILE|- [--strategy NAME,...|all] [--kafka 4.0|4.1|4.2|4.3|4.4] [--format jsonl|json|table|csv]",
		Description: "Reads groups in the JSON contract (one object, or JSON lines of many groups) and prints,\n" +
			"for each group and strategy, {\"name\", \"strategy\", \"assignment\", \"stats\"} or {\"name\", \"strategy\", \"error\"}.\n" +
			"A group with bad content gets an error line and the others still run; malformed JSON stops\n" +
			"the reading. Exit status: 0 if every group was assigned, 2 if any had bad input (after\n" +
			"printing every line), 1 if a strategy failed internally.\n\n" +
			"The KIP-848 server-side assignors uniform and server-range (group.protocol=consumer) read\n" +
			"each member's \"owned\" as its current target and the group's \"topicIds\"; a topic without an\n" +
			"id gets one derived from its name, with a warning, and the answer is then exact only for a\n" +
			"cluster whose topics have those ids.\n\n" +
			"--format csv is the preview's layout, for a spreadsheet to pivot: an \"assignment\" row per\n" +
			"strategy, member and topic, a \"stats\" row per statistic, an \"error\" row per group refused.\n\n" +
			"--from-describe reads one live group instead, with what its members own, from the output of\n" +
			"kafka-consumer-groups.sh --describe as the preview reads it (--topics and --member override the\n" +
			"partition counts and subscriptions describe output lacks; what was assumed goes to stderr).\n\n" +
			"--client NAME computes each strategy as that client library's group leader does: java's sticky\n" +
			"and cooperative-sticky are Kafka's Java assignors reproduced exactly, faults included (the\n" +
			"result's \"faults\" lists what is unbalanced or invalid; an \"error\" names the exception where Java\n" +
			"throws); the other libraries' strategies are ours, marked \"approximate\". A member's \"client\" in\n" +
			"the group file overrides it for that member; the first member, the leader, decides the answer.\n" +
			"A strategy or a static member the client does not support is an error naming the client.\n\n" +
			"Examples:\n" +
			"   assigncalc plan --in groups.jsonl --strategy range,roundrobin --format jsonl\n" +
			"   assigncalc plan --in groups.jsonl --strategy uniform,server-range --kafka 4.0\n" +
			"   assigncalc plan --in groups.jsonl --strategy sticky,cooperative-sticky --client java\n" +
			"   assigncalc plan --in groups.jsonl --protocol share --kafka 4.2\n" +
			"   kafka-consumer-groups.sh --describe --group orders | assigncalc plan --from-describe - --strategy all",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "read groups from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "from-describe", Usage: "assign instead the one group read from `FILE` (- for stdin): a paste of kafka-consumer-groups.sh --describe [--members --verbose] or rpk group describe, or CSV member,topic,partition[,lag]"},
			&cli.StringSliceFlag{Name: "strategy", Usage: "assign with strategy `NAME`: " + strategyChoices() + ", the server-side uniform, server-range, or all; repeatable, comma-separated (default: range; simple, alone, with --protocol share)"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: jsonl, json, table, csv (default: table on a terminal, jsonl otherwise)"},
			&cli.StringFlag{Name: "kafka", Usage: "reproduce the server-side assignors of Kafka `VERSION`: 4.0 to 4.4 (default: 4.4, the newest; 4.0.1 and later patches compute as 4.1 to 4.4 do)"},
			clientFlag("assigncalc"),
			&cli.StringFlag{Name: "protocol", Value: "classic", Usage: "group.protocol `NAME`: classic or consumer assign with --strategy; share (KIP-932, Kafka 4.2 and later) assigns each group as a share group with its assignor simple, adding \"sharing\" to each result"},
		}, describeOverrideFlags()...),
		Action: func(c *cli.Context) error { return plan(e, c) },
	}
}

func strategyChoices() string {
	s := ""
	for i, n := range assign.StrategyNames() {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// openInput opens path, given to --in, "-" meaning stdin.
func openInput(e *env, path string) (io.Reader, func(), error) {
	return openFlagInput(e, "in", path)
}

// openFlagInput opens path, given to --flag, "-" meaning stdin. A path
// that cannot be opened, or is a directory, is bad input.
func openFlagInput(e *env, flag, path string) (io.Reader, func(), error) {
	if path == "-" {
		return e.stdin, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, &usageError{fmt.Errorf("--%s: %w", flag, err)}
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, nil, usagef("--%s %s: is a directory, not a file", flag, path)
	}
	return f, func() { f.Close() }, nil
}

func plan(e *env, c *cli.Context) error {
	if c.Args().Present() {
		return usagef("plan: unexpected argument %q", c.Args().First())
	}
	path, described := c.String("in"), c.String("from-describe")
	switch {
	case path == "" && described == "":
		return usagef("plan: --in FILE|- or --from-describe FILE|- is required")
	case described == "" && (c.IsSet("topics") || c.IsSet("member")):
		return usagef("plan: --topics and --member go with --from-describe; a group file holds its own")
	}
	if shareProtocol(c) {
		return planShare(e, c, path, described)
	}
	if _, err := consumerProtocol(c); err != nil {
		return err
	}
	names := c.StringSlice("strategy")
	if len(names) == 0 {
		names = []string{"range"}
	}
	strategies, err := parseStrategies("strategy", names)
	if err != nil {
		return err
	}
	server, err := withKafkaVersion(strategies, c.String("kafka"))
	if err != nil {
		return err
	}
	defClient, err := parseClient(c, "assigncalc")
	if err != nil {
		return err
	}
	byClient := map[*client.Profile]clientStrategies{}
	strategiesFor := func(p *client.Profile) (clientStrategies, error) {
		if cs, ok := byClient[p]; ok {
			return cs, nil
		}
		ss, fid, err := forClient(e, p, strategies)
		if err != nil {
			return clientStrategies{}, err
		}
		byClient[p] = clientStrategies{ss, fid}
		return byClient[p], nil
	}
	if _, err := strategiesFor(defClient); err != nil {
		return err
	}
	out, next, done, err := openPlan(e, c, path, described)
	if err != nil {
		return err
	}
	defer done()

	prog := e.startProgress("plan", 0) // groups come as a stream
	defer prog.end()
	var t planTally
	for {
		entry, err := next()
		if err == io.EOF {
			break
		}
		t.groups++
		if err != nil {
			if errors.Is(err, groupfile.ErrSyntax) || !isInputError(err) {
				t.stop = err
				break
			}
			t.bad++
			for _, s := range strategies {
				if werr := out.result(t.groups, entry.Group, groupfile.Result{Name: entry.Name, Strategy: s.Name(), Err: err}); werr != nil {
					return werr
				}
			}
			continue
		}
		if server {
			entry.Group = derivedTopicIDs(e, t.groups, entry)
		}
		leader, err := leaderClient(defClient, entry.Clients)
		if err == nil {
			err = checkFleet(defClient, entry.Group, entry.Clients, entry.Protocols)
		}
		var cs clientStrategies
		if err == nil {
			cs, err = strategiesFor(leader)
		}
		if err != nil {
			t.bad++
			for _, s := range strategies {
				if werr := out.result(t.groups, entry.Group, groupfile.Result{Name: entry.Name, Strategy: s.Name(), Err: err}); werr != nil {
					return werr
				}
			}
			continue
		}
		groupBad := false
		for _, s := range cs.strategies {
			prog.step(t.groups, groupLabel(t.groups, entry.Name)+", "+s.Name())
			r := groupfile.Result{Name: entry.Name, Strategy: s.Name(), Members: groupfile.MemberIDs(entry.Group)}
			var o outcome
			var faults []string
			se, err := resolvedFor(s, entry)
			switch {
			case err != nil:
			case isClientEmulation(s):
				o, faults, err = assignEmulated(s, se.Group)
			default:
				o, err = assignChecked(s, se.Group)
			}
			prog.end() // before the result goes to stdout, on the same terminal
			var ie *internalError
			switch {
			case errors.As(err, &ie):
				t.internal++
				r.Err = err
			case err != nil:
				groupBad = true
				r.Err = err
			default:
				r = resultOf(se, o)
				r.Faults = faults
				if leader != client.Assigncalc {
					r.Client = leader.Name
					r.Approximate = cs.fidelity[s.Name()] == client.Approximate
				}
			}
			if werr := out.result(t.groups, se.Group, r); werr != nil {
				return werr
			}
		}
		if groupBad {
			t.bad++
		}
	}
	if err := out.close(); err != nil {
		return err
	}
	return t.status()
}

// resolvedFor returns e with its members' topic patterns resolved where
// s is a coordinator's assignor, which resolves them
// (assign.ResolveTopicRegex), and e as it is otherwise, for s to refuse
// them.
func resolvedFor(s assign.Strategy, e groupfile.Entry) (groupfile.Entry, error) {
	if s.Protocol() != assign.ServerAssigned {
		return e, nil
	}
	g, err := assign.ResolveTopicRegex(e.Group)
	if err != nil {
		return e, err
	}
	e.Group = g
	return e, nil
}

// clientStrategies are plan's strategies as one client computes them.
type clientStrategies struct {
	strategies []assign.Strategy
	fidelity   map[string]client.Fidelity
}

// openPlan is how plan starts under the consumer and share protocols
// alike: --format (jsonl unless stdout is a terminal, where a table), the
// writer for it, and the groups to read (planInput), whose done the
// caller defers.
func openPlan(e *env, c *cli.Context, path, described string) (out *planWriter, next func() (groupfile.Entry, error), done func(), err error) {
	def := formatJSONL
	if e.terminal {
		def = formatTable
	}
	format, err := parseFormat(c.String("format"), def, formatJSONL, formatJSON, formatTable, formatCSV)
	if err != nil {
		return nil, nil, nil, err
	}
	if next, done, err = planInput(e, c, path, described); err != nil {
		return nil, nil, nil, err
	}
	return newPlanWriter(e.stdout, format), next, done, nil
}

// derivedTopicIDs returns the group of entry, the n-th group read, with
// ids derived from the names for the topics it gives none for, which the
// server-side and share assignors need, warning that it did.
func derivedTopicIDs(e *env, n int, entry groupfile.Entry) assign.Group {
	g, derived := entry.Group.WithDerivedTopicIDs()
	if len(derived) > 0 {
		e.warnf("%s: no topic id for %s; using ids derived from the names", groupLabel(n, entry.Name), nameList(derived))
	}
	return g
}

// planInput returns the reader of plan's groups: the group file at path,
// or the one group of the describe output at described.
func planInput(e *env, c *cli.Context, path, described string) (next func() (groupfile.Entry, error), done func(), err error) {
	if described != "" {
		in, err := fromDescribe(e, c, described)
		if err != nil {
			return nil, nil, err
		}
		read := false
		return func() (groupfile.Entry, error) {
			if read {
				return groupfile.Entry{}, io.EOF
			}
			read = true
			// Validated as the coordinator's assignors see it: a classic
			// strategy refuses a member's pattern on its own line.
			g, err := assign.ResolveTopicRegex(in.Group)
			if err != nil {
				return in.Entry, err
			}
			return in.Entry, g.Validate()
		}, func() {}, nil
	}
	src, done, err := openInput(e, path)
	if err != nil {
		return nil, nil, err
	}
	return groupfile.NewReader(src).Next, done, nil
}

// withKafkaVersion sets the Kafka version named by --kafka (version) on
// the server-side strategies, and reports whether there are any.
func withKafkaVersion(strategies []assign.Strategy, version string) (bool, error) {
	var v assign.KafkaVersion // the zero value: the newest Kafka
	if version != "" {
		var err error
		if v, err = assign.ParseKafkaVersion(version); err != nil {
			return false, &usageError{fmt.Errorf("--kafka: %w", err)}
		}
	}
	server := false
	for i, s := range strategies {
		if s, ok := s.(assign.KafkaVersioned); ok {
			strategies[i], server = s.WithKafkaVersion(v), true
		}
	}
	if version != "" && !server {
		return false, usagef("--kafka: applies to the server-side strategies uniform and server-range only")
	}
	return server, nil
}

// nameList quotes up to three names, then counts the rest.
func nameList(names []string) string {
	var b strings.Builder
	for i, n := range names {
		if i == 3 {
			fmt.Fprintf(&b, " and %d more", len(names)-3)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// resultOf is the contract's result line of o, an outcome of e's group.
// Its stats describe this round's assignment.
func resultOf(e groupfile.Entry, o outcome) groupfile.Result {
	r := groupfile.Result{
		Name:       e.Name,
		Strategy:   o.strategy.Name(),
		Members:    groupfile.MemberIDs(e.Group),
		Assignment: o.assignment,
		Stats:      groupfile.StatsOf(assign.Summarize(e.Group, o.assignment)),
	}
	if p := o.plan; p != nil {
		r.Cooperative = &groupfile.Cooperative{Target: p.Target, Revoked: p.Revoked, Pending: p.Pending}
	}
	return r
}

// planWriter writes plan results in one format.
type planWriter struct {
	w      io.Writer
	format string
	json   *resultWriter
	csv    [][]string
}

func newPlanWriter(w io.Writer, format string) *planWriter {
	return &planWriter{w: w, format: format, json: &resultWriter{w: w, format: format}}
}

func groupLabel(n int, name string) string {
	if name == "" {
		return "group #" + strconv.Itoa(n)
	}
	return "group " + strconv.Quote(name)
}

// result writes r, a result for g, the n-th group read.
func (p *planWriter) result(n int, g assign.Group, r groupfile.Result) error {
	switch p.format {
	case formatJSON, formatJSONL:
		return p.json.write(r)
	case formatCSV:
		if r.Err != nil {
			p.csv = append(p.csv, errorCSV(r.Name, r.Strategy, r.Err))
			return nil
		}
		p.csv = assignmentCSV(p.csv, r.Name, r.Strategy, g, r.Assignment)
		return nil
	}
	label := groupLabel(n, r.Name)
	if r.Err != nil {
		_, err := fmt.Fprintf(p.w, "%s, %s: error: %s\n\n", label, r.Strategy, oneLine(r.Err.Error()))
		return err
	}
	st := r.Stats
	strategy := r.Strategy
	switch {
	case r.Approximate:
		strategy += " (" + r.Client + ", approximate)"
	case r.Client != "":
		strategy += " (" + r.Client + ")"
	}
	if _, err := fmt.Fprintf(p.w, "%s, %s: %d partitions over %d members, min %d, max %d, spread %d, stddev %s, idle %d\n",
		label, strategy, st.Partitions, st.Members, st.Min, st.Max, st.Spread, formatStdDev(st.StdDev), st.Idle); err != nil {
		return err
	}
	// The preview's column order: member, rack, count, partitions.
	t := &table{header: []string{"MEMBER", "COUNT", "PARTITIONS"}, aligns: []align{left, right, left}}
	racks := slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.Rack != "" })
	if racks {
		t = &table{header: []string{"MEMBER", "RACK", "COUNT", "PARTITIONS"}, aligns: []align{left, left, right, left}}
	}
	for _, m := range g.Members {
		tps := r.Assignment[m.ID]
		if racks {
			t.add(m.ID, orDash(m.Rack), itoa(len(tps)), compact(tps))
			continue
		}
		t.add(m.ID, itoa(len(tps)), compact(tps))
	}
	if err := t.render(p.w); err != nil {
		return err
	}
	for _, f := range r.Faults {
		if _, err := fmt.Fprintf(p.w, "%s's answer: %s\n", r.Client, oneLine(f)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(p.w, "\n")
	return err
}

func (p *planWriter) close() error {
	switch p.format {
	case formatJSON, formatJSONL:
		return p.json.close()
	case formatCSV:
		return writeCSV(p.w, assignmentCSVHeader, p.csv)
	}
	return nil
}

// planTally counts the groups plan read and how they failed, for its exit
// status: the one rule for plan and plan --protocol share.
type planTally struct {
	groups, bad, internal int
	stop                  error // what ended the input: a syntax error, or a failure reading it
}

// status maps the tally to plan's exit: 2 for input that ended the run, 1
// for results that failed internally, 2 for groups with bad input.
func (t planTally) status() error {
	switch {
	case t.stop != nil:
		return &statusError{code: exitInput, msg: oneLine(t.stop.Error())}
	case t.internal > 0:
		return &statusError{code: exitInternal, msg: fmt.Sprintf("%d results failed internally; see the error lines", t.internal)}
	case t.bad > 0:
		return &statusError{code: exitInput, msg: fmt.Sprintf("%d of %d groups had bad input; see the error lines", t.bad, t.groups)}
	}
	return nil
}
