package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/assigncalc/assigncalc/timeline"
	"github.com/urfave/cli/v2"
)

// The timeline command: flags to a timeline.Scenario per strategy, then
// tables, JSON or a picture. Everything about time lives in package
// timeline.

func timelineCommand(e *env) *cli.Command {
	var events []change
	event := func(kind, placeholder, usage string) cli.Flag {
		return &cli.GenericFlag{Name: kind, Usage: usage, Value: &changeFlag{kind: kind, changes: &events}, DefaultText: placeholder}
	}
	flags := append(shapeFlags(),
		&cli.StringSliceFlag{Name: "strategy", Usage: "compare strategies `NAME,...` side by side (default: range,cooperative-sticky; with --protocol consumer: uniform; under it uniform and server-range are the coordinator's assignors, a classic strategy stands in for one)"},
		&cli.StringFlag{Name: "protocol", Value: "classic", Usage: "group.protocol `NAME`: classic, consumer (KIP-848), or share (KIP-932, Kafka 4.2 and later: members take their whole target at their next heartbeat, no revocation wait; heartbeats and sessions per --consumer-heartbeat-interval and --consumer-session-timeout, whose defaults the group.share settings share)"},
		&cli.StringFlag{Name: "session-timeout", Value: "45s", Usage: "session.timeout.ms as a `DURATION` (classic)"},
		&cli.StringFlag{Name: "heartbeat-interval", Value: "3s", Usage: "heartbeat.interval.ms as a `DURATION` (classic)"},
		&cli.StringFlag{Name: "max-poll-interval", Value: "5m", Usage: "max.poll.interval.ms as a `DURATION`, also the rebalance timeout"},
		&cli.IntFlag{Name: "max-poll-records", Value: 500, Usage: "max.poll.records: `N` records per poll"},
		&cli.StringFlag{Name: "processing", Value: "2ms/record", Usage: "processing time `DURATION/record` (every poll returns a full batch)"},
		&cli.StringFlag{Name: "metadata-max-age", Value: "5m", Usage: "metadata.max.age.ms as a `DURATION`: how soon the leader sees new partitions (classic)"},
		&cli.StringFlag{Name: "initial-delay", Value: "3s", Usage: "the broker's group.initial.rebalance.delay.ms as a `DURATION` (classic, empty groups)"},
		&cli.StringFlag{Name: "consumer-session-timeout", Value: "45s", Usage: "the broker's group.consumer.session.timeout.ms as a `DURATION` (consumer protocol)"},
		&cli.StringFlag{Name: "consumer-heartbeat-interval", Value: "5s", Usage: "the broker's group.consumer.heartbeat.interval.ms as a `DURATION` (consumer protocol)"},
		&cli.StringFlag{Name: "consumer-assignment-interval", Value: "1s", Usage: "the broker's group.consumer.assignment.interval.ms as a `DURATION`: at most one target assignment per interval (consumer protocol, Kafka 4.3 and later, KIP-1263; 0 computes one at every change)"},
		&cli.StringFlag{Name: "share-assignment-interval", Value: "1s", Usage: "the broker's group.share.assignment.interval.ms as a `DURATION`: at most one target assignment per interval (--protocol share, Kafka 4.3 and later, KIP-1263; 0 computes one at every change)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "draw the members' heartbeat and poll phases with seed `N` (each seed is one draw)"},
		&cli.IntFlag{Name: "samples", Value: 1, Usage: "play `N` draws (seeds --seed to --seed+N-1) and report p50, p95 and max of each figure"},
		&cli.StringFlag{Name: "rtt", Value: "2ms", Usage: "the round trip of one request to the coordinator as a `DURATION` (classic)"},
		&cli.BoolFlag{Name: "static", Usage: "make every member static, with its ID as group.instance.id (KIP-345)"},
		&cli.BoolFlag{Name: "forming", Usage: "start from an empty group that every member joins at 0 (default: stable at 0)"},
		event("crash", "", "member `ID@TIME` crashes: no more heartbeats, no LeaveGroup; repeatable"),
		event("close", "", "member `ID@TIME` closes: a dynamic one sends LeaveGroup, a static one does not"),
		event("restart", "", "member `ID@TIME+DOWNTIME` closes and starts again after DOWNTIME"),
		event("stall", "", "member `ID@TIME+EXTRA`: the batch it processes at TIME takes EXTRA longer (a GC pause, a slow batch)"),
		event("join", "", "member `ID[=TOPIC,...]@TIME` starts and joins (default: every topic; =/PATTERN/ or =TOPIC,...,/PATTERN/ subscribes by pattern, --protocol consumer)"),
		event("subscribe", "", "member `ID=TOPIC,...@TIME` changes its subscription (ID=/PATTERN/@TIME or ID=TOPIC,...,/PATTERN/@TIME: by pattern, --protocol consumer)"),
		event("grow", "", "topic `NAME:N@TIME` (or NAME:+N@TIME) gets N partitions (N more)"),
		&cli.StringFlag{Name: "until", Usage: "end the timeline at `TIME` (default: once the group is stable after the last event)"},
		&cli.StringFlag{Name: "format", Usage: "print results in `FORMAT`: table, json, jsonl (default: table)"},
		&cli.BoolFlag{Name: "steps", Usage: "also list, per strategy, every step that mattered (table format)"},
		&cli.StringFlag{Name: "svg", Usage: "also draw the timelines into `FILE` as SVG"},
		clientFlag("assigncalc"),
	)
	for _, f := range serverFlags() {
		if f.Names()[0] == "kafka" {
			// Here the version also decides the coordinator's
			// reconciliation, whatever the assignor.
			f = &cli.StringFlag{Name: "kafka", Usage: "the brokers run Kafka `VERSION`, 4.0 to 4.4 (default: 4.4, the newest), with --protocol consumer: the server-side assignors of that release, and its coordinator's reconciliation (from 4.2 a member's own revoked partitions come back at once, KAFKA-19449; from 4.3 at most one target per --consumer-assignment-interval, KIP-1263); with --protocol share, 4.2 to 4.4: its simple assignor and, from 4.3, --share-assignment-interval"}
		}
		flags = append(flags, f)
	}
	return &cli.Command{
		Name:      "timeline",
		Usage:     "predict when rebalances start, how long they last and how long partitions go unconsumed",
		UsageText: "assigncalc timeline GROUP-FLAGS [--crash ID@TIME] [--restart ID@TIME+DOWNTIME] [--stall ID@TIME+EXTRA] [--close ID@TIME] [--join ID@TIME] ...",
		Description: "Simulates the group's heartbeats, session and poll timeouts and join/sync phases (or, with\n" +
			"--protocol consumer, KIP-848's heartbeat reconciliation), event by event, with each strategy's real\n" +
			"assignments. TIME and DURATION are Go durations (10s, 1m30s, 250ms) or milliseconds. A partition\n" +
			"is unowned while no live member consumes it, from its owner's crash, close or revocation until its\n" +
			"next owner receives it.\n\n" +
			"Without --forming the group starts Stable at 0, with what the members own in --in or\n" +
			"--from-describe, or else with each strategy's own assignment.\n\n" +
			"--client NAME computes each rebalance's assignment as that library's group leader does (java's\n" +
			"sticky assignors exactly, the other libraries' marked approximate); a member's \"client\" in --in\n" +
			"overrides it, the first member leading. The default list keeps the strategies the client has; a\n" +
			"strategy or static membership it lacks is an error naming the client. The members also get the\n" +
			"library's timing traits: franz-go's extra heartbeat 500ms after each cooperative assignment,\n" +
			"sarama's 2s wait before rejoining when a new join phase interrupts its SyncGroup.\n\n" +
			"Example:\n" +
			"   assigncalc timeline --members 3 --topics t:6 --crash c1@10s\n" +
			"   assigncalc timeline --members 3 --topics t:6 --static --restart c1@10s+20s --svg restart.svg\n" +
			"   assigncalc timeline --members 3 --topics t:2 --protocol share --crash c1@10s",
		Flags:  flags,
		Action: func(c *cli.Context) error { return runTimeline(e, c, events) },
	}
}

func runTimeline(e *env, c *cli.Context, events []change) error {
	if c.Args().Present() {
		return usagef("timeline: unexpected argument %q", c.Args().First())
	}
	format, err := parseFormat(c.String("format"), formatTable, formatTable, formatJSON, formatJSONL)
	if err != nil {
		return err
	}
	base, assignor, leader, err := scenarioFromFlags(e, c, events)
	if err != nil {
		return err
	}
	var strategies []assign.Strategy
	if base.Protocol == timeline.Share {
		strategies, err = shareTimelineStrategies(e, c, &base)
	} else {
		strategies, err = timelineStrategies(e, c, &base, assignor)
	}
	if err != nil {
		return err
	}
	if !c.IsSet("strategy") {
		strategies = offeredBy(leader, strategies)
	}
	strategies, fidelity, err := forClient(e, leader, strategies)
	if err != nil {
		return err
	}
	samples := c.Int("samples")
	if samples < 1 || samples > timeline.MaxSamples {
		return usagef("--samples %d: want 1 to %d", samples, timeline.MaxSamples)
	}
	var tls []*timeline.Timeline
	var dists []timeline.Distribution
	prog := e.startProgress("timeline", len(strategies))
	defer prog.end()
	var labels []string // the strategies as the tables show them
	for i, s := range strategies {
		sc := base
		sc.Strategy = s
		var tl *timeline.Timeline
		prog.during(i+1, s.Name(), func() {
			tl, err = timeline.Simulate(sc)
			if err == nil && samples > 1 {
				var d timeline.Distribution
				d, err = timeline.Sample(sc, samples)
				dists = append(dists, d)
			}
		})
		if errors.Is(err, timeline.ErrInvalidScenario) || errors.Is(err, timeline.ErrNotSettled) {
			return &usageError{err}
		}
		if err != nil && isClientEmulation(s) {
			return emulationError(leader, s, "timeline", err)
		}
		if err != nil {
			return err
		}
		tls = append(tls, tl)
		labels = append(labels, clientLabel(leader, fidelity, s))
	}
	prog.end()
	if format == formatTable || c.String("svg") != "" {
		// The pictures and tables name the client; the machine formats
		// keep "strategy" the protocol name.
		shown := make([]*timeline.Timeline, len(tls))
		for i, tl := range tls {
			t := *tl
			t.Strategy = labels[i]
			shown[i] = &t
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVGFile(path, shown); err != nil {
				return err
			}
		}
		if format == formatTable {
			return timelineTables(e, shown, dists, base, c.Bool("steps"))
		}
	}
	rw := &resultWriter{w: e.stdout, format: format}
	for i, tl := range tls {
		d := timeline.Distribution{Samples: 1, Seed: base.Seed}
		if dists != nil {
			d = dists[i]
		}
		var who groupfile.TimelineClient
		if f, ok := fidelity[strategies[i].Name()]; ok && leader != nil && leader != client.Assigncalc {
			who = groupfile.TimelineClient{Name: leader.Name, Approximate: f == client.Approximate}
		}
		line, err := groupfile.AppendTimelineClient(nil, tl, d, who)
		if err != nil {
			return err
		}
		if err := rw.writeRaw(line); err != nil {
			return err
		}
	}
	return rw.close()
}

// timelineStrategies reads --strategy and, for the server-side
// assignors, --kafka and --topic-id (the ids go into sc).
func timelineStrategies(e *env, c *cli.Context, sc *timeline.Scenario, assignor string) ([]assign.Strategy, error) {
	names := c.StringSlice("strategy")
	if len(names) == 0 {
		names = []string{"range,cooperative-sticky"}
		if sc.Protocol == timeline.Consumer {
			names = []string{cmp.Or(assignor, "uniform")}
		}
	}
	out, err := parseStrategies("strategy", names)
	if err != nil {
		return nil, err
	}
	server := false
	for _, s := range out {
		if s.Protocol() == assign.ServerAssigned && sc.Protocol != timeline.Consumer {
			return nil, usagef("--strategy %s: the server-side assignor needs --protocol consumer", s.Name())
		}
		_, versioned := s.(assign.KafkaVersioned)
		server = server || versioned
	}
	if v := c.String("kafka"); v != "" && sc.Protocol == timeline.Consumer {
		if sc.Kafka, err = assign.ParseKafkaVersion(v); err != nil {
			return nil, &usageError{fmt.Errorf("--kafka: %w", err)}
		}
	}
	if c.IsSet("share-assignment-interval") {
		return nil, usagef("--share-assignment-interval: applies to --protocol share only")
	}
	if c.IsSet("consumer-assignment-interval") && sc.Protocol == timeline.Consumer && sc.Kafka != assign.Kafka43 && sc.Kafka != assign.Kafka44 {
		return nil, usagef("--consumer-assignment-interval: Kafka %s has no assignment interval (KIP-1263 came in 4.3)", sc.Kafka)
	}
	if sc.Protocol == timeline.Consumer && !server {
		// A classic strategy standing in for the assignor: --kafka is
		// the coordinator's alone.
		if len(c.StringSlice("topic-id")) > 0 {
			return nil, usagef("--topic-id: applies to the server-side strategies uniform and server-range only")
		}
		return out, nil
	}
	var grown []string // topics a --grow may create: they need ids too
	for _, ev := range sc.Events {
		if ev.Kind == timeline.Grow {
			grown = append(grown, ev.Topic)
		}
	}
	g, err := forServer(e, c, assign.Group{Topics: sc.Topics, TopicIDs: sc.TopicIDs}, out, grown)
	if err != nil {
		return nil, err
	}
	sc.TopicIDs = g.TopicIDs
	return out, nil
}

// scenarioFromFlags builds the scenario the flags describe, without its
// strategy.
func scenarioFromFlags(e *env, c *cli.Context, events []change) (sc timeline.Scenario, assignor string, leader *client.Profile, err error) {
	switch p := c.String("protocol"); p {
	case "classic":
		sc.Protocol = timeline.Classic
	case "consumer":
		sc.Protocol = timeline.Consumer
	case "share":
		sc.Protocol = timeline.Share
	default:
		return sc, "", nil, usagef("--protocol: unknown protocol %q: want classic, consumer or share", p)
	}
	cfg, err := configFromFlags(c)
	if err != nil {
		return sc, "", nil, err
	}
	var broker timeline.Broker
	for _, d := range []struct {
		flag string
		to   *int64
	}{
		{"initial-delay", &broker.InitialRebalanceDelay},
		{"consumer-session-timeout", &broker.ConsumerSessionTimeout},
		{"consumer-heartbeat-interval", &broker.ConsumerHeartbeatInterval},
		{"consumer-assignment-interval", &broker.ConsumerAssignmentInterval},
		{"share-assignment-interval", &broker.ShareAssignmentInterval},
	} {
		if *d.to, err = durationFlag(c, d.flag); err != nil {
			return sc, "", nil, err
		}
	}
	sc.Broker = &broker
	sc.Seed = c.Uint64("seed")
	if sc.RTT, err = durationFlag(c, "rtt"); err != nil {
		return sc, "", nil, err
	}
	in, err := readGroup(e, c)
	if err != nil {
		return sc, "", nil, err
	}
	entry := in.Entry
	if sc.Protocol == timeline.Share {
		// A share group: no paste shows one on the consumer protocol.
	} else if consumer, err := protocolOf(e, c, in); err != nil {
		return sc, "", nil, err
	} else if consumer {
		sc.Protocol = timeline.Consumer
	}
	if err := validateResolved(entry.Group); err != nil {
		return sc, "", nil, err
	}
	warnUnknownTopics(e, entry.Group, nil)
	sc.Topics, sc.TopicIDs = entry.Group.Topics, entry.Group.TopicIDs
	for _, m := range entry.Group.Members {
		tm := timeline.Member{ID: m.ID, InstanceID: m.InstanceID, Topics: m.Topics, TopicRegex: m.TopicRegex, Config: &cfg}
		if c.Bool("static") && tm.InstanceID == "" {
			tm.InstanceID = m.ID
		}
		sc.Members = append(sc.Members, tm)
	}
	// What the client must allow: each member as it will run (--static
	// makes it static).
	checked := entry.Group
	checked.Members = slices.Clone(entry.Group.Members)
	for i := range checked.Members {
		checked.Members[i].InstanceID = sc.Members[i].InstanceID
	}
	if leader, err = groupLeader(c, checked, entry.Clients, entry.Protocols); err != nil {
		return sc, "", nil, err
	}
	if err := applyClientTraits(c, &cfg, sc.Members, entry.Clients); err != nil {
		return sc, "", nil, err
	}
	sc.Forming = c.Bool("forming")
	if !sc.Forming {
		sc.Initial = ownedAssignment(e, entry.Group)
	}
	if c.IsSet("until") {
		if sc.Until, err = durationFlag(c, "until"); err != nil {
			return sc, "", nil, err
		}
	}
	known := slices.Clone(entry.Group.Members) // and those that join, whenever they do
	for _, ch := range events {
		ev, err := parseEvent(ch, &cfg, c.Bool("static"))
		if err != nil {
			return sc, "", nil, err
		}
		if ev.Kind == timeline.Join {
			known = append(known, assign.Member{ID: ev.Member, InstanceID: ev.InstanceID})
		}
		sc.Events = append(sc.Events, ev)
	}
	for i, ev := range sc.Events {
		if ev.Kind == timeline.Join || ev.Kind == timeline.Grow {
			continue
		}
		if sc.Events[i].Member, err = memberRef(events[i].kind, ev.Member, known, in.clientIDs); err != nil {
			return sc, "", nil, err
		}
	}
	if err := patternsNeedConsumer(sc); err != nil {
		return sc, "", nil, err
	}
	return sc, in.assignor, leader, nil
}

// ownedAssignment is what the members of g own (from --in or
// --from-describe), the timeline's starting point; nil when nobody owns
// anything, and each strategy then starts from its own assignment.
// Claims of partitions missing from the metadata are dropped with a
// warning, as Kafka drops them.
func ownedAssignment(e *env, g assign.Group) assign.Assignment {
	var a assign.Assignment
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			if tp.Partition < 0 || tp.Partition >= g.Topics[tp.Topic] {
				e.warnf("member %q owns %s, which is not in the metadata; ignored", m.ID, tp)
				continue
			}
			if a == nil {
				a = make(assign.Assignment)
			}
			a[m.ID] = append(a[m.ID], tp)
		}
	}
	return a
}

// configFromFlags reads the consumer configuration flags.
func configFromFlags(c *cli.Context) (timeline.Config, error) {
	cfg := timeline.Config{MaxPollRecords: c.Int("max-poll-records")}
	var err error
	for _, d := range []struct {
		flag string
		to   *int64
	}{
		{"session-timeout", &cfg.SessionTimeout},
		{"heartbeat-interval", &cfg.HeartbeatInterval},
		{"max-poll-interval", &cfg.MaxPollInterval},
		{"metadata-max-age", &cfg.MetadataMaxAge},
	} {
		if *d.to, err = durationFlag(c, d.flag); err != nil {
			return cfg, err
		}
	}
	per, ok := strings.CutSuffix(c.String("processing"), "/record")
	d, err := time.ParseDuration(per)
	if !ok || err != nil || d < 0 {
		return cfg, usagef("--processing %q: want a processing time per record, e.g. 2ms/record or 500us/record", c.String("processing"))
	}
	cfg.RecordMicros = d.Microseconds()
	return cfg, nil
}

// durationFlag reads a flag holding a duration.
func durationFlag(c *cli.Context, flag string) (int64, error) {
	ms, err := parseMs(c.String(flag))
	if err != nil {
		return 0, usagef("--%s: %v", flag, err)
	}
	return ms, nil
}

// parseMs reads a Go duration ("10s", "1m30s") or a number of
// milliseconds, in whole milliseconds.
func parseMs(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d%time.Millisecond != 0 {
		return 0, fmt.Errorf("%q is not a duration in whole milliseconds (e.g. 10s, 1m30s, 250ms)", s)
	}
	return d.Milliseconds(), nil
}

// parseEvent reads one event flag. New members get cfg and, with
// --static, their ID as group.instance.id.
func parseEvent(ch change, cfg *timeline.Config, static bool) (timeline.Event, error) {
	bad := func(want string) error { return usagef("--%s %q: want %s", ch.kind, ch.arg, want) }
	what, when, ok := cutLast(ch.arg, "@")
	if !ok || what == "" {
		return timeline.Event{}, bad("…@TIME")
	}
	var ev timeline.Event
	var extra string
	if ch.kind == "restart" || ch.kind == "stall" {
		when, extra, ok = strings.Cut(when, "+")
		if !ok {
			return ev, bad("ID@TIME+DURATION")
		}
	}
	at, err := parseMs(when)
	if err != nil {
		return ev, usagef("--%s %q: %v", ch.kind, ch.arg, err)
	}
	ev.At = at
	if extra != "" {
		if ev.For, err = parseMs(extra); err != nil {
			return ev, usagef("--%s %q: %v", ch.kind, ch.arg, err)
		}
	}
	ev.Member = what
	switch ch.kind {
	case "crash":
		ev.Kind = timeline.Crash
	case "close":
		ev.Kind = timeline.Close
	case "restart":
		ev.Kind = timeline.Restart
	case "stall":
		ev.Kind = timeline.Stall
	case "join":
		ev.Kind, ev.Config = timeline.Join, cfg
		if id, topics, ok := strings.Cut(what, "="); ok {
			ev.Member, ev.Topics = id, append([]string{}, splitList(topics)...)
			if strings.Contains(topics, "/") {
				if ev.Topics, ev.TopicRegex, err = subscriptionOf(ch.kind, ch.arg, topics); err != nil {
					return ev, err
				}
			}
		}
		if static {
			ev.InstanceID = ev.Member
		}
	case "subscribe":
		id, topics, ok := strings.Cut(what, "=")
		if !ok {
			return ev, bad("ID=TOPIC,...@TIME")
		}
		ev.Kind, ev.Member, ev.Topics = timeline.Subscribe, id, splitList(topics)
		if strings.Contains(topics, "/") {
			if ev.Topics, ev.TopicRegex, err = subscriptionOf(ch.kind, ch.arg, topics); err != nil {
				return ev, err
			}
		}
	case "grow":
		name, count, ok := strings.Cut(what, ":")
		n, err := strconv.ParseInt(strings.TrimPrefix(count, "+"), 10, 32)
		if !ok || name == "" || err != nil || n < 0 {
			return ev, bad("NAME:N@TIME or NAME:+N@TIME")
		}
		ev.Kind, ev.Member, ev.Topic, ev.Partitions = timeline.Grow, "", name, int32(n)
		if strings.HasPrefix(count, "+") {
			ev.Partitions, ev.More = 0, int32(n)
		}
	}
	return ev, nil
}

func cutLast(s, sep string) (string, string, bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func writeSVGFile(path string, tls []*timeline.Timeline) error {
	f, err := os.Create(path)
	if err != nil {
		return usagef("--svg: %v", err)
	}
	if err := timeline.WriteSVG(f, tls...); err != nil {
		f.Close()
		if errors.Is(err, timeline.ErrTooManyPanels) {
			return usagef("--svg: %v", err) // fewer strategies would fit
		}
		return err
	}
	return f.Close()
}

// timelineTables prints the rebalances of every strategy, then one
// summary line per strategy (with --samples, the distributions), then the
// assumptions the figures rest on.
func timelineTables(e *env, tls []*timeline.Timeline, dists []timeline.Distribution, sc timeline.Scenario, steps bool) error {
	rb := &table{
		header: []string{"STRATEGY", "START", "END", "TOOK", "GENERATION", "REASON"},
		aligns: []align{left, right, right, right, right, left},
	}
	for _, tl := range tls {
		if len(tl.Rebalances) == 0 {
			rb.add(tl.Strategy, "-", "-", "-", "-", "no rebalance")
		}
		for _, r := range tl.Rebalances {
			rb.add(tl.Strategy, timeline.FormatMs(r.Start), timeline.FormatMs(r.End), timeline.FormatMs(r.End-r.Start), itoa(int(r.Generation)), r.Reason)
		}
	}
	if err := rb.render(e.stdout); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	sum := &table{
		header: []string{"STRATEGY", "PROTOCOL", "REBALANCES", "LONGEST PAUSE", "UNOWNED PARTITION-TIME", "END"},
		aligns: []align{left, left, right, right, right, right},
	}
	for _, tl := range tls {
		s := tl.Summary
		sum.add(tl.Strategy, tl.Protocol.String(), itoa(s.Rebalances), timeline.FormatMs(s.MaxUnownedMs), timeline.FormatPartitionMs(s.UnownedPartitionMs), timeline.FormatMs(tl.End))
	}
	if err := sum.render(e.stdout); err != nil {
		return err
	}
	if dists != nil {
		fmt.Fprintf(e.stdout, "\nOver %d draws (seeds %d to %d), p50 / p95 / max:\n", dists[0].Samples, dists[0].Seed, dists[0].Seed+uint64(dists[0].Samples)-1)
		dt := &table{
			header: []string{"STRATEGY", "LONGEST PAUSE", "UNOWNED PARTITION-SECONDS", "REBALANCE TOOK"},
			aligns: []align{left, right, right, right},
		}
		three := func(p timeline.Percentiles, f func(int64) string) string {
			return f(p.P50) + " / " + f(p.P95) + " / " + f(p.Max)
		}
		for i, tl := range tls {
			d := dists[i]
			dt.add(tl.Strategy, three(d.LongestPause, timeline.FormatMs), three(d.UnownedPartitionMs, partitionSeconds), three(d.RebalanceMs, timeline.FormatMs))
		}
		if err := dt.render(e.stdout); err != nil {
			return err
		}
	}
	fmt.Fprintln(e.stdout)
	for _, line := range assumptions(sc, len(dists) > 0) {
		fmt.Fprintln(e.stdout, line)
	}
	if !steps {
		return nil
	}
	for _, tl := range tls {
		fmt.Fprintf(e.stdout, "\n%s:\n", tl.Strategy)
		st := &table{header: []string{"AT", "MEMBER", "STEP"}, aligns: []align{right, left, left}}
		for _, s := range tl.Steps {
			who := s.Member
			if who == "" {
				who = "-"
			}
			st.add(timeline.FormatMs(s.At), who, s.What)
		}
		if err := st.render(e.stdout); err != nil {
			return err
		}
	}
	return nil
}

// assumptions are the lines printed under the tables: package
// timeline's, with what each pattern resolves to before the last.
func assumptions(sc timeline.Scenario, sampled bool) []string {
	out := timeline.Assumptions(sc, sampled)
	if sc.Protocol == timeline.Consumer {
		out = slices.Insert(out, len(out)-1, patternAssumptions(sc)...)
	}
	return out
}

// partitionSeconds is a partition-time in partition-seconds, without the
// unit, for a column whose header names it.
func partitionSeconds(ms int64) string { return strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64) }

// applyClientTraits gives cfg, the configuration of the members without
// a client of their own and of those that join, the timing traits of
// --client, and each member with its own client in the group file that
// client's: franz-go's cooperative check and sarama's rejoin backoff. The
// names were checked by groupLeader.
func applyClientTraits(c *cli.Context, cfg *timeline.Config, members []timeline.Member, clients []string) error {
	def, err := parseClient(c, "assigncalc")
	if err != nil {
		return err
	}
	cfg.CooperativeCheck, cfg.RejoinBackoff = def.CooperativeCheck, def.RejoinBackoff
	for i := range members {
		if i >= len(clients) || clients[i] == "" {
			continue
		}
		p, err := parseClientName(clients[i])
		if err != nil {
			return &usageError{fmt.Errorf("members[%d].client: %w", i, err)}
		}
		if p.CooperativeCheck != cfg.CooperativeCheck || p.RejoinBackoff != cfg.RejoinBackoff {
			own := *cfg
			own.CooperativeCheck, own.RejoinBackoff = p.CooperativeCheck, p.RejoinBackoff
			members[i].Config = &own
		}
	}
	return nil
}
