package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// Large groups are summarised in the per-member table unless --all.
const (
	summaryAbove   = 40 // members beyond which the table is summarised
	summaryRows    = 10 // members shown at the top and at the bottom
	partitionsWide = 60 // runes of the partitions column unless --all
)

func previewFlags() []cli.Flag {
	return append(append(shapeFlags(),
		&cli.StringFlag{Name: "strategy", Value: "range", Usage: "detail strategy `NAME` member by member: " + strategyChoices() + ", or the server-side uniform, server-range (simple, alone, with --protocol share); a list NAME,... (or all) compares those and details the first"},
		&cli.StringSliceFlag{Name: "compare", Usage: "compare strategies `NAME,...` (default: all)"},
		&cli.BoolFlag{Name: "diff", Usage: "list the partitions the first two compared strategies give to different members"},
		&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
		&cli.BoolFlag{Name: "all", Usage: "list every member and every partition, even for large groups"},
		clientFlag("assigncalc"),
	), consumerFlags()...)
}

// groupTitle is the line a table opens with: the group's summary, after
// its name when it has one.
func groupTitle(name string, g assign.Group) string {
	if name == "" {
		return groupSummary(g)
	}
	return name + ": " + groupSummary(g)
}

// preview compares every strategy on one group, then details one.
func preview(e *env, c *cli.Context) error {
	if c.Args().Present() {
		return usagef("unknown command %q (see assigncalc --help)", c.Args().First())
	}
	if c.NumFlags() == 0 {
		return cli.ShowAppHelp(c)
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	if shareProtocol(c) {
		return previewShare(e, c, format)
	}
	listed, err := parseStrategies("strategy", []string{c.String("strategy")})
	if err != nil {
		return err
	}
	if len(listed) == 0 {
		return usagef("--strategy: want a strategy: %s", strategyChoices())
	}
	detail := listed[0]
	in, err := readGroup(e, c)
	if err != nil {
		return err
	}
	entry, g := in.Entry, in.Group
	// Members subscribed by pattern: only the coordinator's assignors
	// resolve one; the others refuse the group (Validate says why).
	byPattern := slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.TopicRegex != "" })
	if byPattern && !c.IsSet("strategy") {
		detail = assign.Uniform{} // the consumer protocol's default assignor
	}
	if byPattern && detail.Protocol() == assign.ServerAssigned {
		if g, err = assign.ResolveTopicRegex(g); err != nil {
			return err
		}
	}
	if err := g.Validate(); err != nil {
		return err
	}
	warnUnknownTopics(e, g, nil)

	consumer, err := protocolOf(e, c, in)
	if err != nil {
		return err
	}
	if byPattern && !consumer {
		if c.IsSet("protocol") {
			return usagef("--protocol %s: a member subscribes by pattern, which only the consumer protocol's coordinator resolves", c.String("protocol"))
		}
		consumer = true
	}
	if consumer && in.assignor != "" && !c.IsSet("strategy") {
		if detail, err = assign.Lookup(in.assignor); err != nil {
			return err
		}
		listed = []assign.Strategy{detail}
	}
	var outcomes []outcome
	strategies := withServerStrategies(assign.Strategies(), consumer)
	if len(listed) > 1 {
		strategies = listed
	}
	if mentionsAll([]string{c.String("strategy")}) {
		strategies = withServerStrategies(listed, consumer)
	}
	if c.IsSet("compare") {
		if strategies, err = parseStrategies("compare", c.StringSlice("compare")); err != nil {
			return err
		}
		if mentionsAll(c.StringSlice("compare")) {
			strategies = withServerStrategies(strategies, consumer)
		}
	}
	if !slices.ContainsFunc(strategies, func(s assign.Strategy) bool { return s.Name() == detail.Name() }) {
		strategies = append(strategies, detail)
	}
	if byPattern { // the group is resolved for the coordinator's assignors only
		strategies = slices.DeleteFunc(strategies, func(s assign.Strategy) bool { return s.Protocol() != assign.ServerAssigned })
	}
	if g, err = forServer(e, c, g, strategies, nil); err != nil {
		return err
	}
	entry.Group = g
	prof, err := parseClient(c, "assigncalc")
	if err != nil {
		return err
	}
	if err := checkFleet(prof, g, nil, nil); err != nil {
		return err
	}
	if strategies, _, err = forClient(e, prof, strategies); err != nil {
		return err
	}
	prog := e.startProgress("preview", len(strategies))
	for i, s := range strategies {
		prog.step(i+1, s.Name())
		var o outcome
		if isClientEmulation(s) {
			o, err = previewEmulated(e, prof, s, g)
		} else {
			o, err = assignChecked(s, g)
		}
		if err != nil {
			prog.end()
			return err
		}
		outcomes = append(outcomes, o)
	}
	prog.end()

	// With previous ownership, show how many partitions change owner.
	var owned assign.Assignment
	if slices.ContainsFunc(g.Members, func(m assign.Member) bool { return len(m.Owned) > 0 }) {
		if owned, err = assign.Owned(g); err != nil {
			return err
		}
	}
	racks := len(g.PartitionRacks) > 0 && slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.Rack != "" })
	// Beside a server-side strategy, how evenly each topic is spread and
	// how many moves balance needs (uniform balances counts, not topics).
	server := slices.ContainsFunc(outcomes, func(o outcome) bool { return o.strategy.Protocol() == assign.ServerAssigned })
	bound := -1
	if server && owned != nil {
		if bound, err = moveBound(g, outcomes); err != nil {
			return err
		}
	}
	fig := previewFigures{in: in, group: g, owned: owned, racks: racks, server: server, bound: bound, assumed: e.assumed}

	switch format {
	case formatJSON, formatJSONL:
		rw := &resultWriter{w: e.stdout, format: format}
		for _, o := range outcomes {
			p, err := fig.of(o)
			if err != nil {
				return err
			}
			if err := rw.writeEncoded(groupfile.AppendPreview(nil, resultOf(entry, o), p)); err != nil {
				return err
			}
		}
		return rw.close()
	case formatCSV:
		rows, err := fig.csv(entry.Name, outcomes)
		if err != nil {
			return err
		}
		return writeCSV(e.stdout, assignmentCSVHeader, rows)
	}

	w := e.stdout
	fmt.Fprintf(w, "%s\n", groupTitle(entry.Name, g))
	if entry.Name != "" {
		if err := writeCoordinatorLine(w, entry.Name, in); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	cmpTable := &table{
		header: []string{"STRATEGY", "MIN", "MAX", "SPREAD", "STDDEV", "IDLE"},
		aligns: []align{left, right, right, right, right, right, right, right},
	}
	if owned != nil {
		cmpTable.header = append(cmpTable.header, "MOVED")
	}
	if racks {
		cmpTable.header = append(cmpTable.header, "CROSS-RACK")
		for _, r := range assign.RacksWithoutReplicas(g) {
			e.warnf("no replica is on rack %q: its members read every partition from another rack", r)
		}
	}
	if server {
		cmpTable.header = append(cmpTable.header, "UNSPREAD")
	}
	var chosen outcome
	var notes []string
	for _, o := range outcomes {
		st := assign.Summarize(g, o.target())
		row := []string{o.strategy.Name(), itoa(st.Min), itoa(st.Max), itoa(st.Spread), formatStdDev(st.StdDev), itoa(st.Idle)}
		if owned != nil {
			row = append(row, itoa(assign.Moved(owned, o.target())))
		}
		if server {
			row = append(row, itoa(len(assign.UnspreadTopics(g, o.target()))))
		}
		if racks {
			total := 0
			for _, n := range assign.CrossRack(g, o.target()) {
				total += n
			}
			row = append(row, itoa(total))
		}
		cmpTable.add(row...)
		if o.strategy.Name() == detail.Name() {
			chosen = o
		}
		if n := pendingCount(o); n > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d partitions are revoked this round and assigned in a second rebalance; the figures are for the target", o.strategy.Name(), n))
		}
	}
	if err := cmpTable.render(w); err != nil {
		return err
	}
	if server {
		if err := qualityNotes(w, owned, bound, outcomes); err != nil {
			return err
		}
	}
	if c.Bool("diff") {
		if err := writeDiff(w, outcomes); err != nil {
			return err
		}
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "\n%s:\n", chosen.strategy.Name())
	target := chosen.target()
	return memberTable(w, g, chosen, assign.Summarize(g, target), memberView{lag: in.lag, rack: slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.Rack != "" }), racks: racks, all: c.Bool("all"), colour: e.colour})
}

// pendingCount is the number of partitions a cooperative outcome withholds
// this round.
func pendingCount(o outcome) int {
	if o.plan == nil {
		return 0
	}
	n := 0
	for _, ps := range o.plan.Pending {
		n += len(ps)
	}
	return n
}

// memberTable writes member, count, partitions and a bar per member. Large
// groups show the most and the least loaded members unless all.
//
// For a cooperative outcome that withholds partitions this round, two more
// columns show what each member revokes now and receives in the follow-up
// rebalance; PARTITIONS and COUNT show the target. With lag known (from
// --from-describe), LAG and MAX LAG sum and top the lag of each member's
// partitions, so that a member holding the hot partitions stands out.
//
// RACK shows each member's rack when some member has one (as plan's table
// does); in a rack-aware preview CROSS-RACK counts its partitions with no
// replica there ([assign.CrossRack]).
func memberTable(w io.Writer, g assign.Group, o outcome, st assign.Stats, v memberView) error {
	a := o.target()
	lag, all, colour := v.lag, v.all, v.colour
	// One column order for every member table: who, how many, the
	// figures about them, which ones (Kafka's MEMBER #PARTITIONS
	// ASSIGNMENT), then the bar.
	t := &table{}
	col := func(name string, al align) {
		t.header = append(t.header, name)
		t.aligns = append(t.aligns, al)
	}
	col("MEMBER", left)
	if v.rack {
		col("RACK", left)
	}
	col("COUNT", right)
	var cross map[string]int
	if v.racks {
		cross = assign.CrossRack(g, a)
		col("CROSS-RACK", right)
	}
	if lag != nil {
		col("LAG", right)
		col("MAX LAG", right)
	}
	col("PARTITIONS", left)
	coop := pendingCount(o) > 0
	if coop {
		col("REVOKED NOW", left)
		col("THEN RECEIVES", left)
	}
	col("", left)
	mean := 0.0
	if st.Members > 0 {
		mean = float64(st.Partitions) / float64(st.Members)
	}
	row := func(i int) {
		id := g.Members[i].ID
		n := len(a[id])
		row := []string{id}
		if v.rack {
			row = append(row, orDash(g.Members[i].Rack))
		}
		row = append(row, itoa(n))
		if v.racks {
			row = append(row, itoa(cross[id]))
		}
		if lag != nil {
			sum, top, known := lagOf(a[id], lag)
			if known {
				row = append(row, strconv.FormatInt(sum, 10), strconv.FormatInt(top, 10))
			} else {
				row = append(row, "-", "-")
			}
		}
		parts := compact(a[id])
		if !all {
			parts = fit(a[id], partitionsWide)
		}
		row = append(row, parts)
		if coop {
			revoked, pending := compact(o.plan.Revoked[id]), compact(o.plan.Pending[id])
			if !all {
				revoked, pending = fit(o.plan.Revoked[id], partitionsWide/2), fit(o.plan.Pending[id], partitionsWide/2)
			}
			row = append(row, revoked, pending)
		}
		t.add(append(row, bar(n, st.Max, mean, colour))...)
	}
	if all || len(g.Members) <= summaryAbove {
		for i := range g.Members {
			row(i)
		}
		return t.render(w)
	}
	// Most loaded first; ties in the group's order.
	order := make([]int, len(g.Members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(len(a[g.Members[y].ID]), len(a[g.Members[x].ID]))
	})
	for _, i := range order[:summaryRows] {
		row(i)
	}
	gap := make([]string, len(t.header))
	gap[0] = fmt.Sprintf("… %d more", len(order)-2*summaryRows)
	t.add(gap...)
	for _, i := range order[len(order)-summaryRows:] {
		row(i)
	}
	if err := t.render(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d members, most loaded and least loaded shown; --all lists every member\n", len(g.Members))
	return err
}

// lagOf sums and tops the known lag of tps; known is false when no
// partition of tps has one.
func lagOf(tps []assign.TopicPartition, lag map[assign.TopicPartition]int64) (sum, top int64, known bool) {
	for _, tp := range tps {
		if l, ok := lag[tp]; ok {
			sum += l
			top = max(top, l)
			known = true
		}
	}
	return sum, top, known
}

// writeDiff lists the partitions whose owner differs between the targets
// of the first two outcomes.
func writeDiff(w io.Writer, outcomes []outcome) error {
	if len(outcomes) < 2 {
		return usagef("--diff needs two strategies to compare (--compare A,B)")
	}
	a, b := outcomes[0], outcomes[1]
	diffs := assign.Moves(a.target(), b.target())
	fmt.Fprintf(w, "\n%s and %s give %d partitions to different members\n", a.strategy.Name(), b.strategy.Name(), len(diffs))
	if len(diffs) == 0 {
		return nil
	}
	t := &table{header: []string{"PARTITION", strings.ToUpper(a.strategy.Name()), strings.ToUpper(b.strategy.Name())}}
	for _, d := range diffs {
		t.add(d.Partition.String(), orNone(d.From), orNone(d.To))
	}
	return t.render(w)
}

// memberView says what the member table shows besides partitions.
type memberView struct {
	lag         map[assign.TopicPartition]int64 // nil: no LAG columns
	rack        bool                            // RACK column: some member has a rack
	racks       bool                            // CROSS-RACK column: rack-aware, replicas' racks known
	all, colour bool
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// moveBound is the fewest moves an assignment as balanced as the best of
// the outcomes' targets needs ([assign.MoveBound]).
func moveBound(g assign.Group, outcomes []outcome) (int, error) {
	var witnesses []assign.Assignment
	for _, o := range outcomes {
		witnesses = append(witnesses, o.target())
	}
	return assign.MoveBound(g, witnesses...)
}

// qualityNotes explains UNSPREAD and, with previous owners, sets MOVED
// beside bound, the fewest moves an assignment as balanced as the best
// compared one needs.
func qualityNotes(w io.Writer, owned assign.Assignment, bound int, outcomes []outcome) error {
	fmt.Fprintln(w, "UNSPREAD: topics two of whose subscribers hold numbers of its partitions differing by more than one")
	if owned == nil {
		return nil
	}
	var over []string
	for _, o := range outcomes {
		if n := assign.Moved(owned, o.target()); n > bound {
			over = append(over, fmt.Sprintf("%s %d", o.strategy.Name(), n-bound))
		}
	}
	line := fmt.Sprintf("MOVED: at least %d for an assignment as balanced as the best above", bound)
	if len(over) > 0 {
		line += "; beyond it: " + strings.Join(over, ", ")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
