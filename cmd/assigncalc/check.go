package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

func checkCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check assignments computed elsewhere against the invariants, and compare them with ours",
		UsageText: "assigncalc check --in GROUPS --results RESULTS | --from-describe FILE|- [--strategy NAME,...|all] [--format table|json|jsonl|csv]",
		Description: "Reads groups (the JSON contract, each with a unique \"name\") and result lines in the output\n" +
			"contract (from assigncalc plan, or from any other implementation), matches them by name, and\n" +
			"checks each assignment with assign.Verify: every partition of a subscribed topic assigned once,\n" +
			"to a subscriber, nothing else. For sticky and cooperative-sticky it also checks balance\n" +
			"(assign.VerifyBalanced); for cooperative-sticky the round must be safe (assign.VerifyCooperative)\n" +
			"and the \"target\", when given, valid and balanced (the choice is assign.Check's). Members that\n" +
			"get nothing may be left out. Every fault is reported (the first ten of an invalid assignment,\n" +
			"then how many more). OURS says whether our strategy of that name gives the same assignment,\n" +
			"and lists where it differs. Exit status 4 if any assignment fails (2 is bad input).\n\n" +
			"--from-describe judges instead what a live group's members own, as listed in the output of\n" +
			"kafka-consumer-groups.sh --describe, as the stable assignment each strategy of --strategy\n" +
			"would have to make.\n\n" +
			"--client NAME: OURS is the strategy as that library's group leader computes it (java's sticky\n" +
			"assignors reproduced exactly, faults included; the other libraries' are ours, marked approximate\n" +
			"on stderr), the group's first member leading (a member's \"client\" in --in overrides NAME). A\n" +
			"result for a strategy the leader's client lacks, or a group whose members need what their client\n" +
			"lacks, fails naming the client. The checks stay assigncalc's: an unbalanced answer Java's leader\n" +
			"does give fails them, and OURS \"same\" then says Java gives it.\n\n" +
			"Example:\n" +
			"   assigncalc check --in testdata/groups.jsonl --results testdata/kafka-java-range-roundrobin.jsonl\n" +
			"   kafka-consumer-groups.sh --describe --group orders | assigncalc check --from-describe - --strategy sticky",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "read the groups from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "results", Usage: "read the results to check from `FILE` (- for stdin)"},
			&cli.StringFlag{Name: "from-describe", Usage: "check instead what a live group's members own, read from `FILE` (- for stdin) as the preview's --from-describe reads it"},
			&cli.StringFlag{Name: "strategy", Value: "all", Usage: "with --from-describe: judge the group's assignment as strategies `NAME,...` (or all) would have to make it"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
			clientFlag("assigncalc"),
		}, describeOverrideFlags()...),
		Action: func(c *cli.Context) error { return check(e, c) },
	}
}

// shownDifferences is how many differences the table lists per result.
const shownDifferences = 5

func check(e *env, c *cli.Context) error {
	if c.Args().Present() {
		return usagef("check: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if c.IsSet("from-describe") {
		return checkDescribed(e, c, format)
	}
	groupsPath, resultsPath := c.String("in"), c.String("results")
	if groupsPath == "" || resultsPath == "" {
		return usagef("check: --in GROUPS and --results RESULTS are both required")
	}
	if groupsPath == "-" && resultsPath == "-" {
		return usagef("check: --in and --results cannot both be stdin")
	}
	src, done, err := openInput(e, groupsPath)
	if err != nil {
		return err
	}
	entries, err := groupfile.ReadAll(src)
	done()
	if err != nil {
		return err
	}
	groups := make(map[string]groupfile.Entry, len(entries))
	for _, en := range entries {
		if _, dup := groups[en.Name]; dup {
			return usagef("--in %s: group name %q appears twice; check matches results to groups by name", groupsPath, en.Name)
		}
		groups[en.Name] = en
	}
	src, done, err = openFlagInput(e, "results", resultsPath)
	if err != nil {
		return err
	}
	results, err := groupfile.ReadResults(src)
	done()
	if err != nil {
		return err
	}

	cc, err := newCheckClients(e, c)
	if err != nil {
		return err
	}
	return checkAll(e, format, groups, results, nil, cc)
}

// checkClients computes OURS as each group's leader's client does.
type checkClients struct {
	e   *env
	def *client.Profile
	// noted holds the client/strategy pairs whose approximation stderr
	// has mentioned.
	noted map[[2]string]bool
}

func newCheckClients(e *env, c *cli.Context) (*checkClients, error) {
	def, err := parseClient(c, "assigncalc")
	if err != nil {
		return nil, err
	}
	return &checkClients{e: e, def: def, noted: make(map[[2]string]bool)}, nil
}

// strategy returns r's strategy as en's leader computes it; nil (and no
// error) for a strategy we do not know, which only assign.Verify judges.
// The error is what the leader's client refuses.
func (cc *checkClients) strategy(en groupfile.Entry, name string) (assign.Strategy, error) {
	if _, err := assign.Lookup(name); err != nil {
		return nil, nil
	}
	leader, err := leaderClient(cc.def, en.Clients)
	if err == nil {
		err = checkFleet(cc.def, en.Group, en.Clients, en.Protocols)
	}
	if err != nil {
		return nil, err
	}
	s, f, err := leader.Strategy(name)
	if err != nil {
		return nil, err
	}
	if k := [2]string{leader.Name, s.Name()}; f == client.Approximate && !cc.noted[k] {
		cc.noted[k] = true
		cc.e.notef("--client %s: OURS for %s is assigncalc's own, not shown to equal %s's (approximate)", leader.Name, s.Name(), leader.Name)
	}
	return s, nil
}

// checkAll judges every result and reports; any failure is exitFailed,
// apart from bad input, so that CI can tell a wrong assignment from a
// wrong command line. owned, when not nil, is what the members own,
// the assignment every result holds (check --from-describe); else each
// verdict's is what its group's members owned before the round judged
// (their "owned" in --in), nil when they owned nothing. The verdicts
// carry it and what was assumed.
func checkAll(e *env, format string, groups map[string]groupfile.Entry, results []groupfile.Result, owned *groupfile.MemberPartitions, cc *checkClients) error {
	var verdicts []groupfile.Verdict
	var ownedOf groupOwned
	bad := 0
	prog := e.startProgress("check", len(results))
	defer prog.end()
	for i, r := range results {
		var v groupfile.Verdict
		prog.during(i+1, r.Name+", "+r.Strategy, func() { v = checkResult(groups, r, cc) })
		v.Owned, v.Assumed = owned, e.assumed
		if owned == nil {
			v.Owned = ownedOf.of(r.Name, groups)
		}
		if !v.Valid {
			bad++
		}
		verdicts = append(verdicts, v)
	}
	prog.end()
	if err := writeChecks(e, format, verdicts, groups); err != nil {
		return err
	}
	if bad > 0 {
		return &statusError{code: exitFailed, msg: fmt.Sprintf("%d of %d assignments fail the checks (exit status %d)", bad, len(verdicts), exitFailed)}
	}
	return nil
}

// groupOwned is what each group's members owned, worked out once per
// group however many results it has.
type groupOwned map[string]*groupfile.MemberPartitions

// of is what group name's members owned, nil when nothing (or no group
// of that name).
func (c *groupOwned) of(name string, groups map[string]groupfile.Entry) *groupfile.MemberPartitions {
	if *c == nil {
		*c = make(groupOwned)
	}
	o, ok := (*c)[name]
	if !ok {
		o = groupfile.OwnedOf(groups[name].Group)
		(*c)[name] = o
	}
	return o
}

// checkDescribed judges what a live group's members own (each one's
// partitions in the --from-describe output) as each strategy's stable
// assignment.
func checkDescribed(e *env, c *cli.Context, format string) error {
	if c.IsSet("in") || c.IsSet("results") {
		return usagef("check: --from-describe replaces --in and --results")
	}
	strategies, err := parseStrategies("strategy", []string{c.String("strategy")})
	if err != nil {
		return err
	}
	in, err := fromDescribe(e, c, c.String("from-describe"))
	if err != nil {
		return err
	}
	cc, err := newCheckClients(e, c)
	if err != nil {
		return err
	}
	g := in.Group
	if err := g.Validate(); err != nil {
		return err
	}
	// What the members list, as they list it: a partition under two
	// members is a fault to show, not a tie to resolve.
	owned := make(assign.Assignment, len(g.Members))
	for _, m := range g.Members {
		owned[m.ID] = slices.SortedFunc(slices.Values(m.Owned), assign.TopicPartition.Compare)
	}
	groups := map[string]groupfile.Entry{in.Name: in.Entry}
	var results []groupfile.Result
	for _, s := range strategies {
		r := groupfile.Result{Name: in.Name, Strategy: s.Name(), Members: groupfile.MemberIDs(g), Assignment: owned}
		if s.Protocol() == assign.Cooperative {
			r.Cooperative = &groupfile.Cooperative{Target: owned} // a stable group is at its target
		}
		results = append(results, r)
	}
	return checkAll(e, format, groups, results, &groupfile.MemberPartitions{Members: groupfile.MemberIDs(g), Assignment: owned}, cc)
}

// checkResult judges one result against its group: the checkers that
// apply to its strategy are the library's choice (assign.Check).
func checkResult(groups map[string]groupfile.Entry, r groupfile.Result, cc *checkClients) groupfile.Verdict {
	v := groupfile.Verdict{Name: r.Name, Strategy: r.Strategy, Ours: "-"}
	fail := func(problems ...string) groupfile.Verdict {
		v.Problems = problems
		v.Problem = strings.Join(problems, "; ")
		return v
	}
	en, ok := groups[r.Name]
	if !ok {
		return fail(fmt.Sprintf("no group named %q in --in", r.Name))
	}
	if r.Err != nil {
		return fail("the result is an error: " + oneLine(r.Err.Error()))
	}
	g := en.Group
	if err := g.Validate(); err != nil {
		return fail(fmt.Sprintf("the group is invalid: %v", err))
	}
	s, lookupErr := assign.Lookup(r.Strategy)
	if lookupErr != nil {
		s = nil // a strategy we do not know: only assign.Verify applies
	}
	// OURS: the strategy as the leader's client computes it.
	theirs, err := cc.strategy(en, r.Strategy)
	if err != nil {
		return fail(oneLine(err.Error()))
	}
	var target assign.Assignment
	if r.Cooperative != nil {
		target = r.Cooperative.Target
	}
	if err := assign.Check(s, g, r.Assignment, target); err != nil {
		if theirs != nil && cc.def != client.Assigncalc {
			// Under a client, whether its leader gives this very answer
			// is worth knowing even when the answer fails.
			v.Ours, v.Differences = oursVersus(theirs, g, r.Assignment)
		}
		var problems []string
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				problems = append(problems, oneLine(e.Error()))
			}
		} else {
			problems = append(problems, oneLine(err.Error()))
		}
		return fail(problems...)
	}
	v.Valid = true
	if theirs != nil {
		v.Ours, v.Differences = oursVersus(theirs, g, r.Assignment)
	}
	return v
}

// oursVersus compares a, a result for g, with what s assigns: "same"
// when every member's list is the same, repeats included; else "differs"
// with the differences, or "double assignment" when s (Java's sticky, say)
// gives a partition to two members, each such partition that their
// result holds otherwise a difference naming all the holders; or "-" when
// s fails on g (Java throwing, say).
func oursVersus(s assign.Strategy, g assign.Group, a assign.Assignment) (string, []groupfile.Difference) {
	var o outcome
	var err error
	if isClientEmulation(s) {
		o, _, err = assignEmulated(s, g)
	} else {
		o, err = assignChecked(s, g)
	}
	if err != nil {
		return "-", nil
	}
	ours, diffs := "same", []groupfile.Difference(nil)
	if sameLists(a, o.assignment) { // Java's faults included: a partition twice reads the same
		return ours, diffs
	}
	doubled := holders(o.assignment)
	for p, ids := range doubled {
		if len(ids) < 2 {
			delete(doubled, p)
		}
	}
	theirs := holders(a)
	for _, d := range assign.Moves(a, o.assignment) {
		if _, ok := doubled[d.Partition]; !ok {
			ours = "differs"
			diffs = append(diffs, groupfile.DifferenceOf(d))
		}
	}
	if len(doubled) > 0 {
		ours = "double assignment"
		for _, p := range slices.SortedFunc(maps.Keys(doubled), assign.TopicPartition.Compare) {
			if slices.Equal(theirs[p], doubled[p]) {
				continue // doubled alike on both sides
			}
			diffs = append(diffs, groupfile.Difference{Partition: p.String(), Theirs: strings.Join(theirs[p], " and "), Ours: strings.Join(doubled[p], " and ")})
		}
	}
	return ours, diffs
}

// sameLists reports whether a and b give every member the same list,
// repeats included; a member missing from one has an empty list there.
func sameLists(a, b assign.Assignment) bool {
	sorted := func(ps []assign.TopicPartition) []assign.TopicPartition {
		return slices.SortedFunc(slices.Values(ps), assign.TopicPartition.Compare)
	}
	for id, ps := range a {
		if !slices.Equal(sorted(ps), sorted(b[id])) {
			return false
		}
	}
	for id, ps := range b {
		if _, ok := a[id]; !ok && len(ps) > 0 {
			return false
		}
	}
	return true
}

// holders lists, per partition, the members a gives it to, sorted.
func holders(a assign.Assignment) map[assign.TopicPartition][]string {
	out := map[assign.TopicPartition][]string{}
	for id, ps := range a {
		for _, p := range ps {
			out[p] = append(out[p], id)
		}
	}
	for _, ids := range out {
		slices.Sort(ids)
	}
	return out
}

// writeChecks writes the verdicts vs on the groups they judge.
func writeChecks(e *env, format string, vs []groupfile.Verdict, groups map[string]groupfile.Entry) error {
	verdict := func(v groupfile.Verdict) string {
		if v.Valid {
			return "valid"
		}
		return "FAILS: " + v.Problem
	}
	switch format {
	case formatJSON:
		if vs == nil {
			vs = []groupfile.Verdict{}
		}
		return writeJSONValue(e, format, vs)
	case formatJSONL:
		for _, v := range vs {
			if err := writeJSONValue(e, format, v); err != nil {
				return err
			}
		}
		return nil
	case formatCSV:
		// A "verdict" row per verdict, in the table's order: GROUP
		// STRATEGY OURS CHECK, then what was assumed, one note a line;
		// before a group's first verdict, the "owned" rows of what its
		// members owned (ownedCSV), in the columns after those.
		header := withOwnedColumns([]string{"group", "strategy", "ours", "differences", "valid", "problem", "assumed"})
		var rows [][]string
		written := make(map[string]bool)
		for _, v := range vs {
			if !written[v.Name] {
				written[v.Name] = true
				rows = ownedCSV(rows, header, v.Name, groups[v.Name].Group, v.Owned)
			}
			rows = append(rows, kindRows(header, "verdict", [][]string{{v.Name, v.Strategy, v.Ours, itoa(len(v.Differences)), fmt.Sprint(v.Valid), v.Problem, strings.Join(v.Assumed, "\n")}})...)
		}
		return writeCSV(e.stdout, header, rows)
	}
	t := &table{header: []string{"GROUP", "STRATEGY", "OURS", "CHECK"}}
	var details []string
	for _, v := range vs {
		ours := v.Ours
		if n := len(v.Differences); n > 0 {
			ours = fmt.Sprintf("%s (%d)", v.Ours, n)
			var parts []string
			for _, d := range v.Differences[:min(n, shownDifferences)] {
				parts = append(parts, fmt.Sprintf("%s theirs %s, ours %s", d.Partition, orNone(d.Theirs), orNone(d.Ours)))
			}
			if n > shownDifferences {
				parts = append(parts, fmt.Sprintf("and %d more", n-shownDifferences))
			}
			details = append(details, fmt.Sprintf("%s %s: %s", v.Name, v.Strategy, strings.Join(parts, "; ")))
		}
		t.add(v.Name, v.Strategy, ours, verdict(v))
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	if len(details) > 0 {
		fmt.Fprintln(e.stdout, "\nwhere ours differs:")
		for _, d := range details {
			fmt.Fprintln(e.stdout, "  "+d)
		}
	}
	return nil
}
