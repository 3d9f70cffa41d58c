// Package describe reads what operators already have about a consumer
// group — the output of Kafka's kafka-consumer-groups.sh --describe, or a
// plain CSV — into a group with owned partitions that package assign can
// rebalance.
//
// # Layouts
//
// Parse recognises the layout by its header line:
//
//   - the offsets view, kafka-consumer-groups.sh --describe (with or
//     without --verbose's LEADER-EPOCH; older releases have no GROUP
//     column):
//
//     GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID
//
//     one row per partition; a member that owns nothing has TOPIC and
//     PARTITION "-"; a partition nobody owns (committed offsets only) has
//     CONSUMER-ID "-";
//
//   - the members view, --describe --members --verbose, as the Scala tool
//     printed it (Kafka 2.x to 3.6), with GROUP-INSTANCE-ID when a member
//     is static:
//
//     GROUP  CONSUMER-ID  GROUP-INSTANCE-ID  HOST  CLIENT-ID  #PARTITIONS  ASSIGNMENT
//
//     ASSIGNMENT being "t1(0,1,2), t2(3)", or "-" for none;
//
//   - the members view of Kafka 4.0 (KIP-1099), with epochs and the
//     current and target assignments written "t1:0,1;t2:3":
//
//     GROUP  CONSUMER-ID  [GROUP-INSTANCE-ID]  HOST  CLIENT-ID  #PARTITIONS  CURRENT-EPOCH  CURRENT-ASSIGNMENT  TARGET-EPOCH  TARGET-ASSIGNMENT  [UPGRADED]
//
//   - CSV: member,topic,partition[,lag], with or without that header.
//
// Columns are padded to a common width, and an empty GROUP-INSTANCE-ID is
// only spaces, so rows are cut at the header's column positions unless
// they split into exactly as many fields as the header.
//
// The members view without --verbose, and the members view of Kafka 3.8
// and 3.9, whose ASSIGNMENT lists partition numbers without their topics,
// do not say what each member owns: they are refused with an [*Error]
// naming the view to use instead.
//
// # What describe output does not carry
//
// Subscriptions and partition counts. [Snapshot.Group] assumes that every
// member subscribes to every topic the output lists, and that each topic
// has one partition more than the highest it lists, unless told otherwise,
// and says what it assumed.
package describe

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// View names a layout Parse recognises.
type View string

// The layouts.
const (
	OffsetsView  View = "offsets view (--describe)"
	MembersView  View = "members view (--describe --members --verbose)"
	KIP1099View  View = "members view of Kafka 4.0 (--describe --members --verbose)"
	CSVView      View = "CSV (member,topic,partition[,lag])"
	missingValue      = "-" // what kafka-consumer-groups.sh prints for an absent value
)

// Member is one consumer of the group as the output shows it.
type Member struct {
	ID         string // CONSUMER-ID (member.id)
	InstanceID string // GROUP-INSTANCE-ID, "" when dynamic or not shown
	Host       string // HOST, "" when not shown
	ClientID   string // CLIENT-ID, "" when not shown

	// Owned lists the partitions the member holds (the current assignment
	// of the KIP-1099 view), sorted.
	Owned []assign.TopicPartition

	// Target is the KIP-1099 view's target assignment, sorted; nil in the
	// other layouts.
	Target []assign.TopicPartition
}

// Snapshot is what one describe output says about one group.
type Snapshot struct {
	Name    string // GROUP, "" when the layout has none
	View    View
	Members []Member // in order of first appearance

	// Unowned lists the partitions shown without a consumer (the offsets
	// view's committed offsets of partitions nobody holds), sorted.
	Unowned []assign.TopicPartition

	// Lag holds the LAG of each partition that shows one.
	Lag map[assign.TopicPartition]int64

	// Notices are the lines the tool printed about the group's state
	// ("Warning: Consumer group 'g' is rebalancing."), in order.
	Notices []string
}

// Error is a describe output that cannot be read, with its line (from 1;
// 0 when not about one line).
type Error struct {
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "describe: " + e.Err.Error()
	}
	return fmt.Sprintf("describe: line %d: %v", e.Line, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errors wrapped in an [*Error].
var (
	// ErrUnknownLayout is input whose header is none of the layouts.
	ErrUnknownLayout = errors.New("not a layout of kafka-consumer-groups.sh --describe nor member,topic,partition CSV")
	// ErrNoAssignment is a layout that does not say what members own.
	ErrNoAssignment = errors.New("this view does not say which partitions each member owns")
	// ErrSyntax is a row that cannot be read.
	ErrSyntax = errors.New("cannot read the row")
	// ErrManyGroups is output describing more than one group.
	ErrManyGroups = errors.New("more than one group")
	// ErrSparse is a topic whose partition count would be derived from a
	// high partition number that few listed partitions back.
	ErrSparse = errors.New("too few of its partitions listed to derive its partition count")
)

// A derived partition count must be backed by the partitions listed: at
// most maxSparse times as many, or at most minDerived. Beyond that the
// count is a number the input merely claims, and a group of that many
// partitions would be built from a line of text.
const (
	maxSparse  = 16
	minDerived = 1024
)

// maxInput bounds what Parse reads: describe output of the largest groups
// is a few tens of megabytes.
const maxInput = 256 << 20

// Parse reads one group's describe output, or CSV, in any layout the
// package documents.
func Parse(r io.Reader) (*Snapshot, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &Error{Err: err}
	}
	if len(data) > maxInput {
		return nil, &Error{Err: fmt.Errorf("more than %d bytes", maxInput)}
	}
	var lines []line
	var notices []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(nil, len(data)+1)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), " \t\r")
		if kafkaNotice(text) {
			notices = append(notices, strings.TrimSpace(text))
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		lines = append(lines, line{n, text})
	}
	if len(lines) == 0 {
		return nil, &Error{Err: errors.New("no group: the input is empty")}
	}
	parse := parseTable
	if isCSV(lines[0].text) {
		parse = parseCSV
	}
	snap, err := parse(lines)
	if err != nil {
		return nil, err
	}
	snap.Notices = notices
	return snap, nil
}

type line struct {
	n    int
	text string
}

// kafkaNotice reports the lines kafka-consumer-groups.sh prints about a
// group's state (on stderr, but often captured with 2>&1).
func kafkaNotice(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "Warning: Consumer group '") || strings.HasPrefix(s, "Consumer group '")
}

func isCSV(first string) bool {
	if strings.ContainsAny(first, " \t") && !strings.Contains(first, ",") {
		return false
	}
	f := strings.Split(first, ",")
	if len(f) < 3 || len(f) > 4 {
		return false
	}
	if strings.EqualFold(strings.TrimSpace(f[0]), "member") {
		return true
	}
	_, err := strconv.ParseInt(strings.TrimSpace(f[2]), 10, 32)
	return err == nil
}

// builder collects members in order of appearance.
type builder struct {
	s     *Snapshot
	index map[string]int // member ID => index in s.Members
}

func newBuilder(v View) *builder {
	return &builder{s: &Snapshot{View: v, Lag: make(map[assign.TopicPartition]int64)}, index: make(map[string]int)}
}

func (b *builder) member(id string) *Member {
	i, ok := b.index[id]
	if !ok {
		i = len(b.s.Members)
		b.index[id] = i
		b.s.Members = append(b.s.Members, Member{ID: id})
	}
	return &b.s.Members[i]
}

func (b *builder) group(n int, name string) error {
	switch {
	case name == "" || name == missingValue:
	case b.s.Name == "":
		b.s.Name = name
	case b.s.Name != name:
		return &Error{Line: n, Err: fmt.Errorf("%w: %q and %q; describe one group at a time (--group)", ErrManyGroups, b.s.Name, name)}
	}
	return nil
}

func (b *builder) done() *Snapshot {
	for i := range b.s.Members {
		m := &b.s.Members[i]
		slices.SortFunc(m.Owned, assign.TopicPartition.Compare)
		m.Owned = slices.Compact(m.Owned)
		slices.SortFunc(m.Target, assign.TopicPartition.Compare)
	}
	slices.SortFunc(b.s.Unowned, assign.TopicPartition.Compare)
	b.s.Unowned = slices.Compact(b.s.Unowned)
	return b.s
}

func parseCSV(lines []line) (*Snapshot, error) {
	b := newBuilder(CSVView)
	for i, l := range lines {
		rec, err := csv.NewReader(strings.NewReader(l.text)).Read()
		if err != nil {
			return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: %v", ErrSyntax, err)}
		}
		if i == 0 && strings.EqualFold(strings.TrimSpace(rec[0]), "member") {
			continue // the header
		}
		if len(rec) < 3 || len(rec) > 4 {
			return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: want member,topic,partition[,lag], found %d fields", ErrSyntax, len(rec))}
		}
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		tp, err := partition(rec[1], rec[2])
		if err != nil {
			return nil, &Error{Line: l.n, Err: err}
		}
		if rec[0] == "" || rec[0] == missingValue {
			b.s.Unowned = append(b.s.Unowned, tp)
		} else {
			m := b.member(rec[0])
			m.Owned = append(m.Owned, tp)
		}
		if len(rec) == 4 && rec[3] != "" && rec[3] != missingValue {
			lag, err := strconv.ParseInt(rec[3], 10, 64)
			if err != nil {
				return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: lag %q is not a whole number", ErrSyntax, rec[3])}
			}
			b.s.Lag[tp] = lag
		}
	}
	return b.done(), nil
}

func partition(topic, p string) (assign.TopicPartition, error) {
	if topic == "" || topic == missingValue {
		return assign.TopicPartition{}, fmt.Errorf("%w: empty topic", ErrSyntax)
	}
	n, err := strconv.ParseInt(p, 10, 32)
	if err != nil || n < 0 || n == math.MaxInt32 {
		// MaxInt32 is no partition number: the count would not fit.
		return assign.TopicPartition{}, fmt.Errorf("%w: partition %q of topic %q is not a partition number", ErrSyntax, p, topic)
	}
	return assign.TopicPartition{Topic: topic, Partition: int32(n)}, nil
}

// columns is a header line: its names and where each starts.
type columns struct {
	names  []string
	starts []int
}

func header(text string) columns {
	var c columns
	for i := 0; i < len(text); {
		if text[i] == ' ' || text[i] == '\t' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		c.names = append(c.names, text[i:j])
		c.starts = append(c.starts, i)
		i = j
	}
	return c
}

func (c columns) has(name string) bool { return slices.Contains(c.names, name) }

// split cuts a row into one field per column: by white space when that
// gives exactly one field per column, else at the header's positions (the
// last column taking the rest of the line).
func (c columns) split(text string) map[string]string {
	out := make(map[string]string, len(c.names))
	if f := strings.Fields(text); len(f) == len(c.names) {
		for i, name := range c.names {
			out[name] = f[i]
		}
		return out
	}
	for i, name := range c.names {
		from, to := c.starts[i], len(text)
		if i+1 < len(c.names) {
			to = c.starts[i+1]
		}
		if from >= len(text) {
			out[name] = ""
			continue
		}
		out[name] = strings.TrimSpace(text[from:min(to, len(text))])
	}
	return out
}

func parseTable(lines []line) (*Snapshot, error) {
	cols := header(lines[0].text)
	switch {
	case cols.has("TOPIC") && cols.has("PARTITION") && cols.has("CONSUMER-ID"):
		return parseOffsets(cols, lines)
	case cols.has("CONSUMER-ID") && cols.has("#PARTITIONS") && cols.has("CURRENT-ASSIGNMENT"):
		return parseMembers(cols, lines, KIP1099View)
	case cols.has("CONSUMER-ID") && cols.has("#PARTITIONS") && cols.has("ASSIGNMENT"):
		return parseMembers(cols, lines, MembersView)
	case cols.has("CONSUMER-ID") && cols.has("#PARTITIONS"):
		return nil, &Error{Line: lines[0].n, Err: fmt.Errorf("%w: the members view without --verbose has no ASSIGNMENT; use --describe --members --verbose, or the offsets view (--describe)", ErrNoAssignment)}
	case cols.has("COORDINATOR") || cols.has("ASSIGNMENT-STRATEGY"):
		return nil, &Error{Line: lines[0].n, Err: fmt.Errorf("%w: the state view (--describe --state) lists no members; use the offsets view (--describe)", ErrNoAssignment)}
	}
	return nil, &Error{Line: lines[0].n, Err: ErrUnknownLayout}
}

func parseOffsets(cols columns, lines []line) (*Snapshot, error) {
	b := newBuilder(OffsetsView)
	for _, l := range lines[1:] {
		if l.text == lines[0].text {
			continue // the header again: several groups, or a repeated paste
		}
		f := cols.split(l.text)
		if err := b.group(l.n, f["GROUP"]); err != nil {
			return nil, err
		}
		id, topic, p := f["CONSUMER-ID"], f["TOPIC"], f["PARTITION"]
		if topic == missingValue && p == missingValue {
			if id != "" && id != missingValue {
				b.member(id) // a member that owns nothing
			}
			continue
		}
		tp, err := partition(topic, p)
		if err != nil {
			return nil, &Error{Line: l.n, Err: err}
		}
		if id == "" || id == missingValue {
			b.s.Unowned = append(b.s.Unowned, tp)
		} else {
			m := b.member(id)
			m.Owned = append(m.Owned, tp)
			m.Host, m.ClientID = value(f["HOST"]), value(f["CLIENT-ID"])
		}
		if lag := f["LAG"]; lag != "" && lag != missingValue {
			n, err := strconv.ParseInt(lag, 10, 64)
			if err != nil {
				return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: LAG %q is not a whole number", ErrSyntax, lag)}
			}
			b.s.Lag[tp] = n
		}
	}
	return b.done(), nil
}

// value reads a cell, "-" being absent.
func value(s string) string {
	if s == missingValue {
		return ""
	}
	return s
}

func parseMembers(cols columns, lines []line, v View) (*Snapshot, error) {
	b := newBuilder(v)
	for _, l := range lines[1:] {
		if l.text == lines[0].text {
			continue
		}
		f := cols.split(l.text)
		if err := b.group(l.n, f["GROUP"]); err != nil {
			return nil, err
		}
		id := f["CONSUMER-ID"]
		if id == "" || id == missingValue {
			return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: no CONSUMER-ID", ErrSyntax)}
		}
		m := b.member(id)
		m.InstanceID, m.Host, m.ClientID = value(f["GROUP-INSTANCE-ID"]), value(f["HOST"]), value(f["CLIENT-ID"])
		var err error
		if v == KIP1099View {
			if m.Owned, err = colonList(f["CURRENT-ASSIGNMENT"]); err == nil {
				m.Target, err = colonList(f["TARGET-ASSIGNMENT"])
			}
		} else {
			m.Owned, err = parenList(f["ASSIGNMENT"])
		}
		if err != nil {
			return nil, &Error{Line: l.n, Err: err}
		}
		if want, err := strconv.Atoi(f["#PARTITIONS"]); err == nil && want != len(m.Owned) && v == MembersView {
			return nil, &Error{Line: l.n, Err: fmt.Errorf("%w: #PARTITIONS is %d but ASSIGNMENT lists %d", ErrSyntax, want, len(m.Owned))}
		}
	}
	return b.done(), nil
}

// parenList reads the Scala tool's "t1(0,1,2), t2(3)".
func parenList(s string) ([]assign.TopicPartition, error) {
	if s == "" || s == missingValue {
		return nil, nil
	}
	var out []assign.TopicPartition
	for entry := range strings.SplitSeq(s, "),") {
		entry = strings.TrimSuffix(strings.TrimSpace(entry), ")")
		topic, parts, ok := strings.Cut(entry, "(")
		topic = strings.TrimSpace(topic)
		if !ok || topic == "" {
			return nil, fmt.Errorf("%w: ASSIGNMENT %q lists partitions without their topic (the members view of Kafka 3.8 and 3.9); use the offsets view (--describe) instead", ErrNoAssignment, s)
		}
		if parts == "" {
			continue
		}
		for p := range strings.SplitSeq(parts, ",") {
			tp, err := partition(topic, strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			out = append(out, tp)
		}
	}
	return out, nil
}

// colonList reads KIP-1099's "t1:0,1;t2:3".
func colonList(s string) ([]assign.TopicPartition, error) {
	if s == "" || s == missingValue {
		return nil, nil
	}
	var out []assign.TopicPartition
	for entry := range strings.SplitSeq(s, ";") {
		topic, parts, ok := strings.Cut(entry, ":")
		if !ok || topic == "" {
			return nil, fmt.Errorf("%w: assignment %q: want TOPIC:P,P;TOPIC:P", ErrSyntax, s)
		}
		for p := range strings.SplitSeq(parts, ",") {
			tp, err := partition(topic, p)
			if err != nil {
				return nil, err
			}
			out = append(out, tp)
		}
	}
	return out, nil
}

// Group builds the group the snapshot shows: every member owning what the
// output says it holds, at generation 1 (a stable group's members all
// report one generation). What describe output does not carry is
// assumed, and the assumptions are returned in English:
//
//   - each topic's partition count is counts[topic] when given, else one
//     more than the highest partition listed;
//   - each member subscribes to subscriptions[member ID] when given, else
//     to every topic the output lists (sorted).
//
// A count below a listed partition is kept (the claim of a partition
// that no longer exists is dropped by the strategies, as Kafka drops it),
// and said. A count to derive from a partition number far above the
// partitions listed of its topic is refused with [ErrSparse].
func (s *Snapshot) Group(counts map[string]int32, subscriptions map[string][]string) (assign.Group, []string, error) {
	highest := make(map[string]int32)
	listed := make(map[assign.TopicPartition]bool)
	perTopic := make(map[string]int)
	note := func(tps []assign.TopicPartition) {
		for _, tp := range tps {
			if h, ok := highest[tp.Topic]; !ok || tp.Partition > h {
				highest[tp.Topic] = tp.Partition
			}
			if !listed[tp] {
				listed[tp] = true
				perTopic[tp.Topic]++
			}
		}
	}
	for _, m := range s.Members {
		note(m.Owned)
		note(m.Target)
	}
	note(s.Unowned)
	g := assign.Group{Topics: make(map[string]int32)}
	var notes, derived []string
	for _, t := range slices.Sorted(maps.Keys(highest)) {
		if n, ok := counts[t]; ok {
			g.Topics[t] = n
			if n <= highest[t] {
				notes = append(notes, fmt.Sprintf("%s has %d partitions as given, though partition %d is listed", t, n, highest[t]))
			}
			continue
		}
		if n := int64(highest[t]) + 1; n > minDerived && n > maxSparse*int64(perTopic[t]) {
			return assign.Group{}, nil, &Error{Err: fmt.Errorf("topic %q: %w: partition %d is listed, but only %d of its partitions are; give its count (--topics %s:COUNT)", t, ErrSparse, highest[t], perTopic[t], t)}
		}
		g.Topics[t] = highest[t] + 1
		derived = append(derived, fmt.Sprintf("%s:%d", t, highest[t]+1))
	}
	for t, n := range counts {
		if _, ok := g.Topics[t]; !ok {
			g.Topics[t] = n
		}
	}
	if len(derived) > 0 {
		notes = append(notes, fmt.Sprintf("partition counts from the highest partition listed: %s (give --topics NAME:COUNT for more)", strings.Join(derived, ", ")))
	}
	all := slices.Sorted(maps.Keys(highest))
	assumed := 0
	for _, m := range s.Members {
		am := assign.Member{ID: m.ID, InstanceID: m.InstanceID, Topics: all, Generation: -1}
		if sub, ok := subscriptions[m.ID]; ok {
			am.Topics = sub
		} else {
			assumed++
		}
		if len(m.Owned) > 0 {
			am.Owned, am.Generation = slices.Clone(m.Owned), 1
		}
		g.Members = append(g.Members, am)
	}
	if assumed > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d members subscribe to every topic listed (%s): describe output shows no subscriptions", assumed, len(s.Members), strings.Join(all, ", ")))
	}
	if s.View == KIP1099View {
		notes = append(notes, "members own their CURRENT-ASSIGNMENT; TARGET-ASSIGNMENT is the broker's plan, not read")
	}
	return g, notes, nil
}

// Warnings says what in the output is not as a stable group shows it: the
// tool's own lines about the group's state, then each partition listed
// under more than one member (output caught mid-rebalance, or a stale
// member), whose claims are at one generation, so they tie, and no member
// keeps the partition.
func (s *Snapshot) Warnings() []string {
	var warnings []string
	for _, n := range s.Notices {
		warnings = append(warnings, "kafka-consumer-groups.sh said: "+n)
	}
	return append(warnings, s.sharedClaims()...)
}

// sharedClaims is the second half of Warnings.
func (s *Snapshot) sharedClaims() []string {
	owners := make(map[assign.TopicPartition][]string)
	var order []assign.TopicPartition
	for _, m := range s.Members {
		for _, tp := range m.Owned {
			if len(owners[tp]) == 0 {
				order = append(order, tp)
			}
			if !slices.Contains(owners[tp], m.ID) {
				owners[tp] = append(owners[tp], m.ID)
			}
		}
	}
	var notes []string
	for _, tp := range order {
		if ids := owners[tp]; len(ids) > 1 {
			notes = append(notes, fmt.Sprintf("%s is listed under %d members (%s): their claims tie, so none keeps it", tp, len(ids), strings.Join(ids, ", ")))
		}
	}
	return notes
}
