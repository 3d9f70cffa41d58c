package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// maxRounds bounds the rebalances a cooperative step may take; Kafka's
// cooperative-sticky settles in two.
const maxRounds = 5

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
	flag := func(kind, placeholder, usage string) cli.Flag {
		return &cli.GenericFlag{Name: kind, Usage: usage, Value: &changeFlag{kind: kind, changes: &changes}, DefaultText: placeholder}
	}
	flags := append(shapeFlags(),
		flag("leave", "", "member `ID` leaves the group; repeatable, applied in command-line order with the other changes"),
		flag("join", "", "member `ID[=TOPIC,...][@RACK]` joins (default: every topic)"),
		flag("grow", "", "topic `NAME:+N` gains N partitions (NAME:N sets the count; a new name creates the topic)"),
		flag("subscribe", "", "member `ID=TOPIC,...` changes its subscription"),
		flag("restart", "", "member `ID` restarts: a static member (with a group.instance.id) rejoins without a rebalance, a dynamic one leaves and joins again"),
		&cli.StringSliceFlag{Name: "compare", Usage: "simulate strategies `NAME,...` (default: all)"},
		&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
	)
	return &cli.Command{
		Name:      "simulate",
		Usage:     "apply membership and metadata changes in order and show what each strategy moves",
		UsageText: "assigncalc simulate GROUP-FLAGS [--leave ID] [--join ID[=TOPIC,...][@RACK]] [--grow NAME:+N] [--subscribe ID=TOPIC,...] [--restart ID] ...",
		Description: "Starts from the group of the flags (or --in), assigns it with each strategy, then applies the\n" +
			"changes in the order given. Each strategy carries its own previous assignment forward as its\n" +
			"members' owned partitions, as real clients do. Per step and strategy it shows the partitions\n" +
			"that changed owner (MOVED), the members whose assignment changed (AFFECTED), the partitions\n" +
			"members had to give up during the rebalance (REVOKED: all of them for eager strategies, only\n" +
			"those that move for cooperative-sticky), the rebalances until stable (ROUNDS) and the spread.\n\n" +
			"Example:\n" +
			"   assigncalc simulate --members 3 --topics t1:12 --leave c0 --join c9 --grow t1:+4",
		Flags:  flags,
		Action: func(c *cli.Context) error { return simulate(e, c, changes) },
	}
}

// simState is one strategy's view of the group between steps.
type simState struct {
	strategy assign.Strategy
	current  assign.Assignment // the stable assignment after the last step
}

// stepResult is what one step did under one strategy.
type stepResult struct {
	Step     int
	Change   string
	Strategy string
	Moved    int
	Affected int
	Revoked  int
	Rounds   int
	Spread   int
	Members  []string
	Final    assign.Assignment
}

func simulate(e *env, c *cli.Context, changes []change) error {
	if c.Args().Present() {
		return usagef("simulate: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	strategies := assign.Strategies()
	if c.IsSet("compare") {
		if strategies, err = parseStrategies("compare", c.StringSlice("compare")); err != nil {
			return err
		}
	}
	entry, err := groupFromFlags(e, c)
	if err != nil {
		return err
	}
	g := entry.Group
	if err := g.Validate(); err != nil {
		return err
	}
	warned := make(map[[2]string]bool)
	warnUnknownTopics(e, g, warned)
	topics := slices.Sorted(maps.Keys(g.Topics))
	racks := splitRacks(c.String("racks"))
	replicas := max(1, c.Int("replicas"))

	var results []stepResult
	states := make([]*simState, len(strategies))
	generation := int32(1)
	owned, err := assign.Owned(g)
	if err != nil {
		return err
	}
	for i, s := range strategies {
		final, rounds, revoked, err := rebalance(s, g, generation)
		if err != nil {
			return err
		}
		states[i] = &simState{strategy: s, current: final}
		results = append(results, stepResult{
			Step: 0, Change: "start", Strategy: s.Name(), Rounds: rounds, Revoked: revoked,
			Moved: assign.Moved(owned, final), Affected: affected(owned, final, g),
			Spread: assign.Summarize(g, final).Spread, Members: groupfile.MemberIDs(g), Final: final,
		})
	}

	for step, ch := range changes {
		next, rebalances, err := applyChange(g, ch, topics, racks, replicas)
		if err != nil {
			return err
		}
		if err := next.Validate(); err != nil {
			return fmt.Errorf("after %s: %w", ch, err)
		}
		warnUnknownTopics(e, next, warned)
		for _, st := range states {
			r := stepResult{Step: step + 1, Change: ch.String(), Strategy: st.strategy.Name(), Members: groupfile.MemberIDs(next)}
			before := st.current
			cur := before
			for _, gm := range rebalances(next) {
				generation++
				final, rounds, revoked, err := rebalance(st.strategy, withOwned(gm, cur, generation-1), generation)
				if err != nil {
					return fmt.Errorf("after %s: %w", ch, err)
				}
				cur = final
				r.Rounds += rounds
				r.Revoked += revoked
			}
			r.Moved = assign.Moved(before, cur)
			r.Affected = affected(before, cur, next)
			r.Spread = assign.Summarize(next, cur).Spread
			r.Final = cur
			st.current = cur
			results = append(results, r)
		}
		g = next
	}
	return writeSimulation(e, format, entry.Name, results)
}

// rebalance assigns g with s until the group is stable: one round for an
// eager strategy, as many as the cooperative protocol needs otherwise. It
// returns the stable assignment, the number of rebalances, and the
// partitions members revoked on the way: for an eager strategy every
// partition a member owned, for a cooperative one those the plan revokes.
func rebalance(s assign.Strategy, g assign.Group, generation int32) (assign.Assignment, int, int, error) {
	revoked := 0
	if s.Protocol() == assign.Eager {
		for _, m := range g.Members {
			revoked += len(m.Owned)
		}
	}
	for round := 1; round <= maxRounds; round++ {
		o, err := assignChecked(s, g)
		if err != nil {
			return nil, 0, 0, err
		}
		if o.plan == nil {
			return o.assignment, round, revoked, nil
		}
		for _, ps := range o.plan.Revoked {
			revoked += len(ps)
		}
		if pendingCount(o) == 0 {
			return o.assignment, round, revoked, nil
		}
		g = withOwned(g, o.assignment, generation)
		generation++
	}
	return nil, 0, 0, &internalError{fmt.Errorf("%s: not stable after %d rebalances", s.Name(), maxRounds)}
}

// withOwned returns g with every member owning what a gives it, in the
// given generation, as members report it when they rejoin. Members a does
// not know (new ones) own nothing.
func withOwned(g assign.Group, a assign.Assignment, generation int32) assign.Group {
	out := g
	out.Members = slices.Clone(g.Members)
	for i := range out.Members {
		m := &out.Members[i]
		m.Owned, m.Generation = nil, -1
		if ps, ok := a[m.ID]; ok && len(ps) > 0 {
			m.Owned, m.Generation = slices.Clone(ps), generation
		}
	}
	return out
}

// affected counts the members of g whose partitions differ between before
// and after.
func affected(before, after assign.Assignment, g assign.Group) int {
	n := 0
	for _, m := range g.Members {
		if !slices.Equal(before[m.ID], after[m.ID]) {
			n++
		}
	}
	return n
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

// applyChange returns the group after ch and the groups of the rebalances
// it causes, given the group after ch (normally that group alone; none for
// a static member's restart; two for a dynamic member's).
func applyChange(g assign.Group, ch change, topics, racks []string, replicas int) (assign.Group, func(assign.Group) []assign.Group, error) {
	one := func(next assign.Group) []assign.Group { return []assign.Group{next} }
	next := g
	next.Members = slices.Clone(g.Members)
	find := func(id string) (int, error) {
		i := slices.IndexFunc(next.Members, func(m assign.Member) bool { return m.ID == id })
		if i < 0 {
			return -1, usagef("--%s %s: no member %q in the group", ch.kind, ch.arg, id)
		}
		return i, nil
	}
	switch ch.kind {
	case "leave":
		i, err := find(ch.arg)
		if err != nil {
			return g, nil, err
		}
		next.Members = slices.Delete(next.Members, i, i+1)
		return next, one, nil

	case "join":
		all := slices.Sorted(maps.Keys(g.Topics))
		m, err := parseMember(ch.arg, all)
		if err != nil {
			return g, nil, err
		}
		if slices.ContainsFunc(next.Members, func(o assign.Member) bool { return o.ID == m.ID }) {
			return g, nil, usagef("--join %s: member %q is already in the group", ch.arg, m.ID)
		}
		next.Members = append(next.Members, m)
		return next, one, nil

	case "subscribe":
		id, list, ok := strings.Cut(ch.arg, "=")
		if !ok {
			return g, nil, usagef("--subscribe %q: want ID=TOPIC,...", ch.arg)
		}
		i, err := find(id)
		if err != nil {
			return g, nil, err
		}
		var ts []string
		for t := range strings.SplitSeq(list, ",") {
			if t = strings.TrimSpace(t); t != "" {
				ts = append(ts, t)
			}
		}
		next.Members[i].Topics = ts
		return next, one, nil

	case "grow":
		name, count, ok := strings.Cut(ch.arg, ":")
		if !ok || name == "" {
			return g, nil, usagef("--grow %q: want NAME:+N or NAME:N", ch.arg)
		}
		old := g.Topics[name]
		n, err := strconv.ParseInt(strings.TrimPrefix(count, "+"), 10, 32)
		if err != nil || n < 0 {
			return g, nil, usagef("--grow %q: %q is not a whole number of partitions", ch.arg, count)
		}
		target := int32(n)
		if strings.HasPrefix(count, "+") {
			target = old + int32(n)
			if target < old {
				return g, nil, usagef("--grow %q: more partitions than an int32 holds", ch.arg)
			}
		}
		if target < old {
			return g, nil, usagef("--grow %q: topic %q has %d partitions and Kafka cannot remove partitions", ch.arg, name, old)
		}
		next.Topics = maps.Clone(g.Topics)
		next.Topics[name] = target
		if g.PartitionRacks != nil {
			next.PartitionRacks = maps.Clone(g.PartitionRacks)
			if lists, ok := g.PartitionRacks[name]; ok || len(racks) > 0 {
				lists = slices.Clone(lists)
				for p := int(old); p < int(target); p++ {
					var rs []string
					for k := range min(replicas, len(racks)) {
						rs = append(rs, racks[(p+k)%len(racks)])
					}
					lists = append(lists, rs)
				}
				next.PartitionRacks[name] = lists
			}
		}
		return next, one, nil

	case "restart":
		i, err := find(ch.arg)
		if err != nil {
			return g, nil, err
		}
		if next.Members[i].InstanceID != "" {
			// KIP-345: a static member that comes back within its session
			// timeout gets its cached assignment; no rebalance happens.
			return next, func(assign.Group) []assign.Group { return nil }, nil
		}
		without := g
		without.Members = slices.Delete(slices.Clone(g.Members), i, i+1)
		return next, func(n assign.Group) []assign.Group { return []assign.Group{without, n} }, nil
	}
	return g, nil, usagef("unknown change %q", ch.kind)
}

func writeSimulation(e *env, format, name string, results []stepResult) error {
	switch format {
	case formatJSON, formatJSONL:
		rw := &resultWriter{w: e.stdout, format: format}
		for _, r := range results {
			line, err := groupfile.AppendResult(nil, groupfile.Result{Name: name, Strategy: r.Strategy, Members: r.Members, Assignment: r.Final})
			if err != nil {
				return err
			}
			// The step's figures follow the contract's keys.
			tail := fmt.Sprintf(`,"step":%d,"change":%s,"moved":%d,"affected":%d,"revoked":%d,"rounds":%d,"spread":%d}`,
				r.Step, jsonString(r.Change), r.Moved, r.Affected, r.Revoked, r.Rounds, r.Spread)
			if err := rw.writeRaw(append(line[:len(line)-1], tail...)); err != nil {
				return err
			}
		}
		return rw.close()
	case formatCSV:
		var rows [][]string
		for _, r := range results {
			rows = append(rows, []string{itoa(r.Step), r.Change, r.Strategy, itoa(r.Moved), itoa(r.Affected), itoa(r.Revoked), itoa(r.Rounds), itoa(r.Spread)})
		}
		return writeCSV(e.stdout, []string{"step", "change", "strategy", "moved", "affected", "revoked", "rounds", "spread"}, rows)
	}
	t := &table{
		header: []string{"STEP", "CHANGE", "STRATEGY", "MOVED", "AFFECTED", "REVOKED", "ROUNDS", "SPREAD"},
		aligns: []align{right, left, left, right, right, right, right, right},
	}
	for i, r := range results {
		step, ch := itoa(r.Step), r.Change
		if i > 0 && results[i-1].Step == r.Step {
			step, ch = "", ""
		}
		t.add(step, ch, r.Strategy, itoa(r.Moved), itoa(r.Affected), itoa(r.Revoked), itoa(r.Rounds), itoa(r.Spread))
	}
	return t.render(e.stdout)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
