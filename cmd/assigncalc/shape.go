package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/assigncalc/assigncalc/churn"
	"github.com/assigncalc/assigncalc/internal/describe"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/urfave/cli/v2"
)

// shapeFlags describe a group on the command line, shared by the preview
// and simulate.
func shapeFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "members", Usage: "`N` members named c0..cN-1, each subscribed to every topic"},
		&cli.StringSliceFlag{Name: "member", Usage: "add member `ID[#INSTANCE][=TOPIC,...][@RACK]`: its group.instance.id (a static member), subscription (default: every topic; =/PATTERN/ or =TOPIC,...,/PATTERN/ subscribes by pattern, for uniform and server-range) and rack; repeatable"},
		&cli.StringSliceFlag{Name: "topics", Usage: "topics and partition counts `NAME:COUNT,...` (e.g. t1:7,t2:3); repeatable"},
		&cli.IntFlag{Name: "replicas", DefaultText: "1 with --racks", Usage: "place `N` replicas of each partition on consecutive racks of --racks, for a rack-aware preview"},
		&cli.StringFlag{Name: "racks", Usage: "racks `A,B,...` to place replicas on; members of --members get them in turn"},
		&cli.StringFlag{Name: "in", Usage: "read the group from `FILE` in the JSON contract (- for stdin) instead of the flags above"},
		&cli.StringFlag{Name: "from-describe", Usage: "read the group and what each member owns from `FILE` (- for stdin): a paste of kafka-consumer-groups.sh --describe [--members --verbose] [--state] or rpk group describe, or CSV member,topic,partition[,lag]; --topics and --member override the counts and subscriptions it lacks"},
		groupFlag(),
	}
}

// groupFlag picks one group of a paste that describes several.
func groupFlag() cli.Flag {
	return &cli.StringFlag{Name: "group", Usage: "with --from-describe: read group `NAME` of a paste of several (--all-groups)"}
}

// describeOverrideFlags are the flags that complete --from-describe in
// the commands that read no other group flags (plan, check).
func describeOverrideFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "topics", Usage: "with --from-describe: partition counts `NAME:COUNT,...` (default: derived from the partitions listed)"},
		&cli.StringSliceFlag{Name: "member", Usage: "with --from-describe: member `ID[#INSTANCE][=TOPIC,...][@RACK]`'s instance, subscription and rack (default: every topic the group holds)"},
		groupFlag(),
	}
}

// groupInput is a group read from the flags, with what else the input
// says about it.
type groupInput struct {
	groupfile.Entry

	// lag is each partition's lag, from --from-describe; nil when unknown.
	lag map[assign.TopicPartition]int64

	// clientIDs holds the client.id of each member a paste shows one of,
	// by member ID; nil otherwise.
	clientIDs map[string]string

	// redpanda reports a group pasted from rpk group describe, and
	// shownPartition the coordinator partition it showed (-1 if none).
	redpanda       bool
	shownPartition int32

	// assignor is the broker's assignor of a group that --from-describe
	// shows on the consumer protocol (KIP-848), "" for any other group.
	assignor string
}

// groupFromFlags builds the group the shape flags or --in describe, and the
// warnings Kafka's tolerance deserves (subscriptions to unknown topics).
func groupFromFlags(e *env, c *cli.Context) (groupfile.Entry, error) {
	in, err := readGroup(e, c)
	return in.Entry, err
}

// readGroup is groupFromFlags with the lag --from-describe knows.
func readGroup(e *env, c *cli.Context) (groupInput, error) {
	if path := c.String("from-describe"); path != "" {
		return fromDescribe(e, c, path)
	}
	if c.IsSet("group") {
		return groupInput{}, usagef("--group picks a group of --from-describe's paste")
	}
	entry, err := shapeGroup(e, c)
	return groupInput{Entry: entry}, err
}

// shapeGroup builds the group of the shape flags or --in.
func shapeGroup(e *env, c *cli.Context) (groupfile.Entry, error) {
	if path := c.String("in"); path != "" {
		for _, f := range []string{"members", "member", "topics", "replicas", "racks"} {
			if c.IsSet(f) {
				return groupfile.Entry{}, usagef("--in cannot be combined with --%s", f)
			}
		}
		src, done, err := openInput(e, path)
		if err != nil {
			return groupfile.Entry{}, err
		}
		defer done()
		return readOne(src, path)
	}

	g := assign.Group{Topics: make(map[string]int32)}
	var topicOrder []string
	for _, spec := range c.StringSlice("topics") {
		for item := range strings.SplitSeq(spec, ",") {
			name, count, err := parseTopic(spec, item)
			if err != nil {
				return groupfile.Entry{}, err
			}
			if _, dup := g.Topics[name]; dup {
				return groupfile.Entry{}, usagef("--topics: topic %q given twice", name)
			}
			g.Topics[name] = count
			topicOrder = append(topicOrder, name)
		}
	}
	if len(g.Topics) == 0 {
		return groupfile.Entry{}, usagef("no topics: give --topics NAME:COUNT,... (e.g. --topics t1:7) or --in FILE")
	}
	if total := totalPartitions(g.Topics); total > assign.MaxPartitions {
		return groupfile.Entry{}, usagef("--topics: %d partitions in all, more than the %d a group may have", total, assign.MaxPartitions)
	}

	var racks []string
	if r := c.String("racks"); r != "" {
		for name := range strings.SplitSeq(r, ",") {
			name = strings.TrimSpace(name)
			if name == "" {
				return groupfile.Entry{}, usagef("--racks %q: empty rack name", r)
			}
			if slices.Contains(racks, name) {
				return groupfile.Entry{}, usagef("--racks: rack %q given twice", name)
			}
			racks = append(racks, name)
		}
	}
	replicas := c.Int("replicas")
	switch {
	case c.IsSet("replicas") && len(racks) == 0:
		return groupfile.Entry{}, usagef("--replicas needs --racks to place the replicas on")
	case c.IsSet("replicas") && (replicas < 1 || replicas > len(racks)):
		return groupfile.Entry{}, usagef("--replicas %d: want between 1 and the number of racks (%d)", replicas, len(racks))
	case !c.IsSet("replicas"):
		replicas = 1
	}
	if len(racks) > 0 {
		g.PartitionRacks = placeReplicas(g.Topics, racks, replicas)
	}

	n := c.Int("members")
	if n < 0 || n > 1<<20 {
		return groupfile.Entry{}, usagef("--members %d: want between 0 and %d", n, 1<<20)
	}
	for i := range n {
		m := assign.Member{ID: "c" + strconv.Itoa(i), Topics: slices.Clone(topicOrder), Generation: -1}
		if len(racks) > 0 {
			m.Rack = racks[i%len(racks)]
		}
		g.Members = append(g.Members, m)
	}
	for _, spec := range c.StringSlice("member") {
		m, _, err := parseMember("member", spec, topicOrder)
		if err != nil {
			return groupfile.Entry{}, err
		}
		g.Members = append(g.Members, m)
	}
	if len(g.Members) == 0 {
		return groupfile.Entry{}, usagef("no members: give --members N or --member ID[=TOPIC,...][@RACK]")
	}
	return groupfile.Entry{Group: g, Protocols: make([][]string, len(g.Members))}, nil
}

// fromDescribe reads --from-describe: the members and what they own from
// describe output; partition counts from --topics, else the listing;
// subscriptions, instance ids and racks from --member, else assumed. What
// was assumed goes to stderr.
func fromDescribe(e *env, c *cli.Context, path string) (groupInput, error) {
	for _, f := range []string{"in", "members", "replicas", "racks"} {
		if c.IsSet(f) {
			return groupInput{}, usagef("--from-describe cannot be combined with --%s", f)
		}
	}
	src, done, err := openFlagInput(e, "from-describe", path)
	if err != nil {
		return groupInput{}, err
	}
	snap, err := describe.ParseGroup(src, c.String("group"))
	done()
	if err != nil {
		return groupInput{}, err
	}
	counts := make(map[string]int32)
	for _, spec := range c.StringSlice("topics") {
		for item := range strings.SplitSeq(spec, ",") {
			name, count, err := parseTopic(spec, item)
			if err != nil {
				return groupInput{}, err
			}
			counts[name] = count
		}
	}
	type override struct {
		m     assign.Member
		given churn.Given
	}
	overrides := make(map[string]override)
	subs := make(map[string][]string)
	for _, spec := range c.StringSlice("member") {
		m, given, err := parseMember("member", spec, nil)
		if err != nil {
			return groupInput{}, err
		}
		overrides[m.ID] = override{m, given}
		if given&churn.GivenTopics != 0 {
			subs[m.ID] = m.Topics
		}
	}
	g, notes, err := snap.Group(counts, subs)
	if err != nil {
		return groupInput{}, fmt.Errorf("%s: %w", path, err)
	}
	for i := range g.Members {
		m := &g.Members[i]
		o, ok := overrides[m.ID]
		if !ok {
			continue
		}
		delete(overrides, m.ID)
		if o.given&churn.GivenInstance != 0 {
			m.InstanceID = o.m.InstanceID
		}
		if o.given&churn.GivenRack != 0 {
			m.Rack = o.m.Rack
		}
		if o.m.TopicRegex != "" {
			m.TopicRegex = o.m.TopicRegex
		}
	}
	for _, spec := range c.StringSlice("member") { // members the output does not show join, in flag order
		m, _, _ := parseMember("member", spec, slices.Sorted(maps.Keys(g.Topics)))
		if _, extra := overrides[m.ID]; extra {
			g.Members = append(g.Members, m)
			delete(overrides, m.ID)
			notes = append(notes, fmt.Sprintf("member %s is not in the describe output: added, owning nothing", m.ID))
		}
	}
	for _, n := range notes {
		e.notef("%s: %s", path, n)
	}
	for _, w := range snap.Warnings() {
		e.warnf("%s: %s", path, w)
	}
	entry := groupfile.Entry{Name: snap.Name, Group: g, Protocols: make([][]string, len(g.Members))}
	clientIDs := make(map[string]string)
	for _, m := range snap.Members {
		if m.ClientID != "" {
			clientIDs[m.ID] = m.ClientID
		}
	}
	return groupInput{Entry: entry, lag: snap.Lag, assignor: snap.Assignor(), clientIDs: clientIDs,
		redpanda: snap.View == describe.RpkView, shownPartition: snap.CoordinatorPartition}, nil
}

// parseTopic parses NAME:COUNT, an item of the --topics value spec.
func parseTopic(spec, item string) (string, int32, error) {
	item = strings.TrimSpace(item)
	if item == "" {
		return "", 0, usagef("--topics %q: empty item; want NAME:COUNT,... e.g. t1:7,t2:3", spec)
	}
	name, count, ok := strings.Cut(item, ":")
	if !ok || name == "" {
		return "", 0, usagef("--topics %q: want NAME:COUNT, e.g. t1:7", item)
	}
	n, err := parseCount("--topics "+strconv.Quote(item), count)
	if err != nil {
		return "", 0, err
	}
	return name, n, nil
}

// parseCount reads a partition count, naming what is wrong for the flag
// described by where.
func parseCount(where, count string) (int32, error) {
	n, err := strconv.ParseInt(count, 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(count, "-"):
		return 0, usagef("%s: %s is too large for a partition count (max 2147483647)", where, count)
	case err != nil:
		return 0, usagef("%s: partition count %q is not a whole number", where, count)
	case n < 0:
		return 0, usagef("%s: partition count %d is negative", where, n)
	case n > 1<<31-1:
		return 0, usagef("%s: %d is too large for a partition count (max 2147483647)", where, n)
	}
	return int32(n), nil
}

// parseMember parses ID[#INSTANCE][=TOPIC,...][@RACK]: the member's ID,
// its group.instance.id (a static member), its subscription and its rack.
// The rack is what follows the last '@', the instance what follows the
// first '#' before any '='. It reports which parts the spec gives; without
// '=' the member subscribes to allTopics.
//
// The subscription may end in a pattern between slashes, ID=/orders-.*/
// or ID=payments,/orders-.*/ (KIP-848's SubscribedTopicRegex, which the
// coordinator's assignors resolve): no topic name holds a '/' (Kafka
// allows only [a-zA-Z0-9._-]), so it cannot be read as a topic list, and
// the pattern is everything between the first '/' after the '=' and the
// last '/', commas and '@' included; a rack follows that last '/'.
func parseMember(flag, spec string, allTopics []string) (assign.Member, churn.Given, error) {
	m := assign.Member{Generation: -1}
	var given churn.Given
	rest := spec
	if eq := strings.IndexByte(rest, '='); eq >= 0 && strings.IndexByte(rest[eq:], '/') >= 0 {
		open := eq + strings.IndexByte(rest[eq:], '/')
		end := strings.LastIndexByte(rest, '/')
		if end == open {
			return m, 0, usagef("--%s %q: a topic pattern is written between slashes, /PATTERN/; the closing '/' is missing", flag, spec)
		}
		m.TopicRegex = rest[open+1 : end]
		if m.TopicRegex == "" {
			return m, 0, usagef("--%s %q: empty topic pattern //", flag, spec)
		}
		if _, err := regexp.Compile(m.TopicRegex); err != nil {
			return m, 0, usagef("--%s %q: topic pattern %q does not compile: %v", flag, spec, m.TopicRegex, err)
		}
		if before := rest[eq+1 : open]; before != "" && !strings.HasSuffix(before, ",") {
			return m, 0, usagef("--%s %q: a topic pattern /PATTERN/ ends the subscription, after any topics and a comma", flag, spec)
		}
		tail := rest[end+1:]
		if tail != "" && tail[0] != '@' {
			return m, 0, usagef("--%s %q: only @RACK may follow a topic pattern, not %q", flag, spec, tail)
		}
		rest = rest[:open] + tail
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		m.Rack, rest, given = rest[i+1:], rest[:i], given|churn.GivenRack
		if m.Rack == "" {
			return m, 0, usagef("--%s %q: empty rack after '@'", flag, spec)
		}
	}
	id, topics, hasTopics := strings.Cut(rest, "=")
	if i := strings.IndexByte(id, '#'); i >= 0 {
		id, m.InstanceID, given = id[:i], id[i+1:], given|churn.GivenInstance
	}
	m.ID = id
	if m.ID == "" {
		return m, 0, usagef("--%s %q: empty member ID", flag, spec)
	}
	if !utf8.ValidString(spec) {
		return m, 0, usagef("--%s %q: not valid UTF-8", flag, spec)
	}
	if !hasTopics {
		m.Topics = slices.Clone(allTopics)
		return m, given, nil
	}
	m.Topics = topicList(topics)
	if m.TopicRegex != "" && len(m.Topics) == 0 {
		m.Topics = nil // as the group file reads a pattern alone
	}
	return m, given | churn.GivenTopics, nil
}

// topicList splits TOPIC,...; an empty list is an empty subscription.
func topicList(s string) []string {
	out := []string{}
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// totalPartitions is the number of partitions of topics. Placing their
// replicas takes memory in proportion, so flags claiming more than
// assign.MaxPartitions are refused before anything is placed.
func totalPartitions(topics map[string]int32) int64 {
	var total int64
	for _, n := range topics {
		total += int64(n)
	}
	return total
}

// placeReplicas places the replicas of every partition of topics on
// racks as Kafka places a new topic's (coordinator.ReplicaRacks).
func placeReplicas(topics map[string]int32, racks []string, replicas int) map[string][][]string {
	out := make(map[string][][]string, len(topics))
	for t, n := range topics {
		out[t] = coordinator.ReplicaRacks(0, n, racks, replicas)
	}
	return out
}

// groupSummary summarises a group in one line.
func groupSummary(g assign.Group) string {
	parts := 0
	for _, n := range g.Topics {
		parts += int(n)
	}
	plural := func(n int, one, many string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s", n, one)
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	out := fmt.Sprintf("%s, %s, %s", plural(len(g.Members), "member", "members"), plural(len(g.Topics), "topic", "topics"), plural(parts, "partition", "partitions"))
	racks := make(map[string]bool)
	for _, m := range g.Members {
		if m.Rack != "" {
			racks[m.Rack] = true
		}
	}
	for _, lists := range g.PartitionRacks {
		for _, rs := range lists {
			for _, r := range rs {
				if r != "" {
					racks[r] = true
				}
			}
		}
	}
	if len(racks) > 0 {
		out += ", racks " + strings.Join(slices.Sorted(maps.Keys(racks)), ", ")
	}
	return out
}

// warnUnknownTopics warns of subscriptions to topics missing from the
// metadata: Kafka skips them, so they are not an error, but they are
// usually a typo.
// Warnings already given (member, topic) are kept in warned, when not nil,
// so that a simulation warns once.
func warnUnknownTopics(e *env, g assign.Group, warned map[[2]string]bool) {
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if _, ok := g.Topics[t]; !ok {
				if warned != nil {
					if warned[[2]string{m.ID, t}] {
						continue
					}
					warned[[2]string{m.ID, t}] = true
				}
				e.warnf("member %q subscribes to topic %q, which is not in the metadata; it is skipped, as Kafka skips it", m.ID, t)
			}
		}
	}
}

// readOne reads the one group of a group file.
func readOne(src io.Reader, path string) (groupfile.Entry, error) {
	entries, err := groupfile.ReadAll(src)
	if err != nil {
		return groupfile.Entry{}, err
	}
	if len(entries) != 1 {
		return groupfile.Entry{}, usagef("--in %s: holds %d groups, want exactly one (use assigncalc plan for batches)", path, len(entries))
	}
	return entries[0], nil
}
