package main

import (
	"encoding/json"
	"errors"
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

func voteCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "vote",
		Usage:     "show the group coordinator's choice of strategy among what the members offer",
		UsageText: "assigncalc vote [options] ID=STRATEGY,... ...\n   assigncalc vote --in FILE|-\n   assigncalc vote --upgrade STRATEGY,... --to STRATEGY,... [--to ...] [--members N]",
		Description: "Each member lists its partition.assignment.strategy, most preferred first. The coordinator\n" +
			"keeps the strategies every member supports (the candidates), each member votes for the first\n" +
			"candidate of its own list, and the most votes win; ties go to the strategy the coordinator's\n" +
			"hash map iterates first. A member sharing no strategy with the group is refused\n" +
			"(INCONSISTENT_GROUP_PROTOCOL). REBALANCE is the protocol each member's own list gives it:\n" +
			"cooperative only if every strategy it lists supports it.\n\n" +
			"With --upgrade, every member starts with the first configuration and restarts, one at a\n" +
			"time, with each --to in turn: Kafka's two-step upgrade to cooperative-sticky is\n" +
			"--upgrade range --to cooperative-sticky,range --to cooperative-sticky. With --topics, MOVED\n" +
			"counts the partitions that change owner at a step where the winning strategy changes. An\n" +
			"unsafe upgrade (a step refuses a member or falls back to eager) exits with status 3.\n\n" +
			"--client names the library the members run (default java). A strategy it does not have is an\n" +
			"error naming it; with --upgrade, a configuration it refuses when the consumer starts (librdkafka:\n" +
			"eager and cooperative strategies in one list) makes every step restarting with it unsafe. In\n" +
			"--in, a member's \"client\" overrides --client for that member.\n\n" +
			"Examples:\n" +
			"   assigncalc vote c1=cooperative-sticky,range c2=range\n" +
			"   assigncalc vote --upgrade range --to cooperative-sticky,range --to cooperative-sticky --members 3\n" +
			"   assigncalc vote --upgrade range --to cooperative-sticky,range --to cooperative-sticky --client librdkafka",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "read the members and their \"protocols\" from `FILE` in the JSON contract (- for stdin)"},
			&cli.StringFlag{Name: "coordinator", Value: "java", Usage: "replay the `COORDINATOR`'s tie-break: java (Kafka 4) or scala (before)"},
			&cli.StringFlag{Name: "kind", Value: "classic", Usage: "the group's `KIND`: classic, or consumer (KIP-848, with classic members)"},
			&cli.StringFlag{Name: "upgrade", Usage: "simulate a rolling upgrade starting from strategies `LIST`"},
			&cli.StringSliceFlag{Name: "to", Usage: "restart every member with strategies `LIST`; repeatable, one phase each"},
			&cli.IntFlag{Name: "members", Value: 3, Usage: "`N` members c0..cN-1 for --upgrade"},
			&cli.StringSliceFlag{Name: "topics", Usage: "for --upgrade: topics `NAME:COUNT,...` the members c0..cN-1 subscribe to, to count the partitions that move when the strategy switches"},
			&cli.BoolFlag{Name: "allow-custom", Usage: "accept strategy names this tool does not know (custom assignors); without it an unknown name is an error"},
			&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl, csv (default: table)"},
			clientFlag("java"),
		},
		Action: func(c *cli.Context) error { return vote(e, c) },
	}
}

func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

func vote(e *env, c *cli.Context) error {
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL, formatCSV)
	if err != nil {
		return err
	}
	coord, err := coordinator.ParseCoordinator(c.String("coordinator"))
	if err != nil {
		return &usageError{fmt.Errorf("--coordinator: %w", err)}
	}
	var kind coordinator.GroupKind
	switch c.String("kind") {
	case "classic":
		kind = coordinator.ClassicGroup
	case "consumer":
		kind = coordinator.ConsumerGroup
	default:
		return usagef("--kind: unknown group kind %q: want classic or consumer", c.String("kind"))
	}
	prof, err := parseClient(c, "java")
	if err != nil {
		return err
	}
	if c.IsSet("upgrade") {
		return upgrade(e, c, coord, format, prof)
	}
	if c.IsSet("to") {
		return usagef("--to needs --upgrade")
	}

	var members []coordinator.VoteMember
	var clients []string
	if path := c.String("in"); path != "" {
		if c.Args().Present() {
			return usagef("--in cannot be combined with members on the command line")
		}
		src, done, err := openInput(e, path)
		if err != nil {
			return err
		}
		defer done()
		entry, err := readOne(src, path)
		if err != nil {
			return err
		}
		clients = entry.Clients
		any := false
		for i, m := range entry.Group.Members {
			members = append(members, coordinator.VoteMember{ID: m.ID, Protocols: entry.Protocols[i]})
			any = any || entry.Protocols[i] != nil
		}
		if !any {
			return usagef("--in %s: no member lists \"protocols\"", path)
		}
	} else {
		for _, arg := range c.Args().Slice() {
			id, list, ok := strings.Cut(arg, "=")
			if !ok || id == "" {
				return usagef("member %q: want ID=STRATEGY,... (e.g. c1=cooperative-sticky,range)", arg)
			}
			members = append(members, coordinator.VoteMember{ID: id, Protocols: splitList(list)})
		}

		if len(members) == 0 {
			return usagef("vote: give members as ID=STRATEGY,... arguments, --in FILE, or --upgrade")
		}
	}
	for i, m := range members {
		if err := knownStrategies(c, fmt.Sprintf("member %q", m.ID), m.Protocols); err != nil {
			return err
		}
		p := prof
		if i < len(clients) && clients[i] != "" {
			if p, err = parseClientName(clients[i]); err != nil {
				return &usageError{fmt.Errorf("member %q: %w", m.ID, err)}
			}
		}
		if err := p.CheckStrategies(m.Protocols); err != nil {
			return &usageError{fmt.Errorf("member %q: %w", m.ID, err)}
		}
	}
	r, err := coordinator.Vote(members, coord, kind)
	if err != nil {
		return err
	}
	return writeVote(e, format, members, r)
}

func writeVote(e *env, format string, members []coordinator.VoteMember, r coordinator.VoteResult) error {
	refused := make(map[string]string)
	for _, pe := range r.Refused {
		msg := pe.Err.Error()
		switch {
		case errors.Is(pe.Err, coordinator.ErrNoCommonProtocol):
			msg = "no strategy in common with the members ahead of it"
		}
		refused[pe.Member] = msg
	}
	ballot := make(map[string]string)
	for _, b := range r.Ballots {
		ballot[b.Member] = b.Strategy
	}

	switch format {
	case formatJSON, formatJSONL:
		return writeJSONValue(e, format, groupfile.VoteOf(members, r))
	case formatCSV:
		var rows [][]string
		for _, m := range members {
			rows = append(rows, []string{m.ID, strings.Join(m.Protocols, ","), ballot[m.ID], groupfile.RebalanceOf(m.Protocols), refused[m.ID]})
		}
		return writeCSV(e.stdout, []string{"member", "protocols", "ballot", "rebalance", "refused"}, rows)
	}

	w := e.stdout
	t := &table{header: []string{"MEMBER", "PROTOCOLS", "BALLOT", "REBALANCE", "REFUSED"}}
	eager := 0
	for _, m := range members {
		b := ballot[m.ID]
		if _, out := refused[m.ID]; out {
			b = "-"
		} else if groupfile.RebalanceOf(m.Protocols) == "eager" {
			eager++
		}
		t.add(m.ID, strings.Join(m.Protocols, ","), b, groupfile.RebalanceOf(m.Protocols), refused[m.ID])
	}
	if err := t.render(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tally := &table{header: []string{"STRATEGY", "VOTES"}, aligns: []align{left, right}}
	for _, tl := range r.Tally {
		tally.add(tl.Strategy, itoa(tl.Votes))
	}
	if len(r.Tally) > 0 {
		if err := tally.render(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "candidates: %s\n", orNone(strings.Join(r.Candidates, ", ")))
	winner := orNone(r.Winner)
	if r.Kind == coordinator.ConsumerGroup {
		winner = "none: in a consumer group each member uses its own ballot"
	}
	fmt.Fprintf(w, "winner: %s (%s coordinator, %s group)\n", winner, r.Coordinator, r.Kind)
	if r.OrderDependent {
		fmt.Fprintln(w, "note: strategies tie and the order in which the broker iterates its members decides")
	}
	switch {
	case len(r.Ballots) == 0:
	case eager == 0:
		fmt.Fprintln(w, "rebalance: cooperative (every accepted member rebalances cooperatively)")
	default:
		fmt.Fprintf(w, "rebalance: eager (%d of %d accepted members revoke everything at each rebalance)\n", eager, len(r.Ballots))
	}
	if len(r.Refused) > 0 {
		fmt.Fprintf(w, "refused: %d of %d members (INCONSISTENT_GROUP_PROTOCOL)\n", len(r.Refused), len(members))
	}
	return nil
}

func upgrade(e *env, c *cli.Context, coord coordinator.Coordinator, format string, prof *client.Profile) error {
	if c.Args().Present() || c.IsSet("in") {
		return usagef("--upgrade builds its own members (--members N); it takes no members or --in")
	}
	start := splitList(c.String("upgrade"))
	if len(start) == 0 {
		return usagef("--upgrade: want a list of strategies, e.g. range")
	}
	if err := knownStrategies(c, "--upgrade", start); err != nil {
		return err
	}
	if err := prof.CheckStrategies(start); err != nil {
		// The fleet cannot be running with a list its client refuses.
		return &usageError{fmt.Errorf("--upgrade: %w", err)}
	}
	var phases [][]string
	startup := map[int]string{} // phase -> why the client refuses it at startup
	for k, to := range c.StringSlice("to") {
		phase := splitList(to)
		if err := knownStrategies(c, "--to", phase); err != nil {
			return err
		}
		if err := prof.CheckStrategies(phase); errors.Is(err, client.ErrMixedProtocols) {
			startup[k] = err.Error()
		} else if err != nil {
			return &usageError{fmt.Errorf("--to: %w", err)}
		}
		phases = append(phases, phase)
	}
	if len(phases) == 0 {
		return usagef("--upgrade needs at least one --to STRATEGY,...")
	}
	n := c.Int("members")
	if n < 1 || n > 1000 {
		return usagef("--members %d: want between 1 and 1000", n)
	}
	topics, err := upgradeTopics(c.StringSlice("topics"))
	if err != nil {
		return err
	}
	ro := coordinator.Rollout{Phases: phases, Coordinator: coord}
	for i := range n {
		ro.Members = append(ro.Members, coordinator.VoteMember{ID: "c" + strconv.Itoa(i), Protocols: start})
	}
	steps, err := churn.Rollout(ro, topics)
	if err != nil {
		if isInputError(err) {
			return err
		}
		return &internalError{err}
	}
	out := groupfile.UpgradeSteps(start, phases, steps)
	for i := range out {
		// A member whose client refuses its new configuration does not
		// start: the step is unsafe whatever the vote would say.
		if why, ok := startup[out[i].Phase]; ok && out[i].Phase >= 0 {
			out[i].StartupRefused, out[i].Safe = why, false
		}
	}
	unsafe := 0
	for _, s := range out {
		if !s.Safe {
			unsafe++
		}
	}
	if err := writeUpgrade(e, format, out, topics != nil); err != nil {
		return err
	}
	if unsafe > 0 {
		msg := fmt.Sprintf("unsafe upgrade: %d of %d steps refuse a member or fall back to eager (exit status %d)", unsafe, len(out), exitUnsafe)
		for _, s := range out {
			if s.StartupRefused != "" {
				msg = fmt.Sprintf("unsafe upgrade: %d of %d steps are unsafe (exit status %d); %s", unsafe, len(out), exitUnsafe, s.StartupRefused)
				break
			}
		}
		return &statusError{code: exitUnsafe, msg: msg}
	}
	return nil
}

// writeUpgrade writes the steps of an upgrade, with the MOVED column when
// withMoves.
func writeUpgrade(e *env, format string, out []groupfile.UpgradeStep, withMoves bool) error {
	moved := func(s groupfile.UpgradeStep) string {
		if s.Moved == nil {
			return ""
		}
		return itoa(*s.Moved)
	}
	switch format {
	case formatJSON:
		return writeJSONValue(e, format, out)
	case formatJSONL:
		for _, s := range out {
			if err := writeJSONValue(e, format, s); err != nil {
				return err
			}
		}
		return nil
	case formatCSV:
		header := []string{"step", "restarted", "config", "winner", "refused", "eager", "accepted", "safe"}
		if withMoves {
			header = append(header, "moved")
		}
		var rows [][]string
		for _, s := range out {
			r := []string{itoa(s.Step), s.Restarted, strings.Join(s.Config, ","), s.Winner, strings.Join(s.Refused, " "),
				itoa(s.Eager), itoa(s.Accepted), strconv.FormatBool(s.Safe)}
			if withMoves {
				r = append(r, moved(s))
			}
			rows = append(rows, r)
		}
		return writeCSV(e.stdout, header, rows)
	}
	t := &table{
		header: []string{"STEP", "RESTARTED", "WITH", "WINNER", "REFUSED", "EAGER", "SAFE"},
		aligns: []align{right, left, left, left, left, right, left, right},
	}
	if withMoves {
		t.header = append(t.header, "MOVED")
	}
	for _, s := range out {
		safe := "yes"
		switch {
		case s.StartupRefused != "":
			safe = "no: refused at startup"
		case len(s.Refused) > 0:
			safe = "no: members refused"
		case s.FellBack:
			safe = "no: back to eager"
		}
		restarted := s.Restarted
		if restarted == "" {
			restarted = "-"
		}
		row := []string{itoa(s.Step), restarted, strings.Join(s.Config, ","), orNone(s.Winner), strings.Join(s.Refused, " "),
			fmt.Sprintf("%d/%d", s.Eager, s.Accepted), safe}
		if withMoves {
			row = append(row, moved(s))
		}
		t.add(row...)
	}
	if err := t.render(e.stdout); err != nil {
		return err
	}
	last := out[len(out)-1]
	state := "eager"
	if last.Eager == 0 && last.Accepted > 0 {
		state = "cooperative"
	}
	_, err := fmt.Fprintf(e.stdout, "\nafter the upgrade: %s, strategy %s; EAGER counts accepted members that still revoke everything\n", state, orNone(last.Winner))
	return err
}

// upgradeTopics reads vote's --topics, nil when not given.
func upgradeTopics(specs []string) (map[string]int32, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	topics := make(map[string]int32)
	for _, spec := range specs {
		for item := range strings.SplitSeq(spec, ",") {
			name, count, err := parseTopic(spec, item)
			if err != nil {
				return nil, err
			}
			topics[name] = count
		}
	}
	return topics, nil
}

// knownStrategies refuses strategy names this tool does not know, unless
// --allow-custom: a typo would otherwise pass for a custom assignor.
func knownStrategies(c *cli.Context, where string, names []string) error {
	if c.Bool("allow-custom") {
		return nil
	}
	known := assign.StrategyNames()
	for _, n := range names {
		if slices.Contains(known, n) {
			continue
		}
		hint := ""
		if best := nearest(n, known); best != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", best)
		}
		return usagef("%s: unknown strategy %q%s: want one of %s, or --allow-custom for a custom assignor", where, n, hint, strings.Join(known, ", "))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// writeJSONValue writes v indented (json) or on one line (jsonl).
func writeJSONValue(e *env, format string, v any) error {
	enc := json.NewEncoder(e.stdout)
	if format == formatJSON {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}
