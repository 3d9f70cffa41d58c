package describe

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign"
)

// kind is the layout of one section of a paste.
type kind int

const (
	kindNone         kind = iota
	kindOffsets           // GROUP TOPIC PARTITION ... CONSUMER-ID HOST CLIENT-ID, or OWNER
	kindMembers           // ... #PARTITIONS ASSIGNMENT
	kindMembersPlain      // ... #PARTITIONS, no ASSIGNMENT
	kindKIP1099           // ... CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT
	kindState             // GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE ...
	kindRpkBlock          // rpk's GROUP, COORDINATOR, STATE ... lines
	kindRpkTable          // rpk's TOPIC PARTITION ... MEMBER-ID ...
)

// section is a header and the rows under it, or rows without one.
type section struct {
	kind   kind
	cols   columns
	header line   // n == 0 when the header was cut off
	group  string // the rpk block's group, for its table
	rows   []row  // rows read already: rpk's block, rows without a header
	lines  []line // a table's lines, cut into rows as they are read
	from   int    // the index of the line after the header, in read's lines
}

// add makes lines[i] the last line of s. A table's lines are every line
// from its header to the next section's (read starts a section at each
// header, and refuses a header it does not know), so s keeps them as a
// slice of lines. rpk's block is read from its key lines alone (rows):
// nothing else is printed in it.
func (s *section) add(lines []line, i int) {
	if s.kind != kindRpkBlock {
		s.lines = lines[s.from : i+1]
	}
}

// each calls fn with each row of s, in order. A table's lines are cut
// into one buffer as they are read: the strings of a row stay valid, its
// vals slice only during the call, and a section of any size holds one
// row at a time.
func (s *section) each(fn func(row) error) error {
	for _, r := range s.rows {
		if err := fn(r); err != nil {
			return err
		}
	}
	var buf []string
	for _, l := range s.lines {
		r := s.cols.split(l, buf)
		if err := fn(r); err != nil {
			return err
		}
		buf = r.vals[:0]
	}
	return nil
}

// row is a line cut into one field per column: vals[i] is the field of
// column names[i].
type row struct {
	n     int
	names []string // the section's column names, shared by its rows
	vals  []string
}

// get returns the field of column name, or "" when the row has no such
// column. Headers name about ten columns: a scan costs less than a map
// per row.
func (r row) get(name string) string {
	v, _ := r.lookup(name)
	return v
}

// lookup is get that also reports whether the row has the column.
func (r row) lookup(name string) (string, bool) {
	for i, n := range r.names {
		if n == name {
			return r.vals[i], true
		}
	}
	return "", false
}

// rpkBlockNames are the columns of a row of rpk's block about a group.
var rpkBlockNames = []string{"key", "value"}

// rpkKeys are the lines of rpk group describe's block about a group.
var rpkKeys = map[string]bool{
	"COORDINATOR": true, "COORDINATOR-NODE": true, "COORDINATOR-PARTITION": true,
	"STATE": true, "BALANCER": true, "MEMBERS": true, "TOTAL-LAG": true, "ERROR": true,
}

// headerWord matches a column name as the tools print them.
var headerWord = regexp.MustCompile(`^[A-Z#(][A-Z0-9#()-]*$`)

// read splits lines into sections and reads each into c.
func (c *collector) read(lines []line) error {
	var sections []*section
	var cur *section
	var headless []line
	rpkGroup := ""
	for i, l := range lines {
		if cur != nil && !mayBeHeader(l.text) {
			cur.add(lines, i)
			continue
		}
		cols := header(l.text)
		k := headerKind(cols)
		if k == kindNone && cols.names[0] == "GROUP" && len(cols.names) >= 2 && !looksHeader(cols) {
			rpkGroup = strings.TrimSpace(l.text[cols.starts[1]:])
			cur = &section{kind: kindRpkBlock, header: l, group: rpkGroup, from: i + 1}
			sections = append(sections, cur)
			continue
		}
		if cur != nil && cur.kind == kindRpkBlock && rpkKeys[cols.names[0]] {
			value := ""
			if len(cols.names) > 1 {
				value = strings.TrimSpace(l.text[cols.starts[1]:])
			}
			cur.rows = append(cur.rows, row{l.n, rpkBlockNames, []string{cols.names[0], value}})
			continue
		}
		if k == kindNone && looksHeader(cols) {
			return &Error{Line: l.n, Err: ErrUnknownLayout}
		}
		if k != kindNone {
			cur = &section{kind: k, cols: cols, header: l, from: i + 1}
			if k == kindRpkTable {
				cur.group = rpkGroup
			}
			sections = append(sections, cur)
			continue
		}
		if cur == nil {
			headless = lines[:i+1] // the lines before the first header
			continue
		}
		cur.add(lines, i)
	}
	if len(headless) > 0 {
		s, err := inferSection(headless)
		if err != nil {
			return err
		}
		sections = append([]*section{s}, sections...)
	}
	for _, s := range sections {
		if err := c.readSection(s); err != nil {
			return err
		}
	}
	return nil
}

// mayBeHeader reports whether read must cut text as a header to classify
// it; when not, the line is a row of the current section. A header of a
// known layout names PARTITION, #PARTITIONS or COORDINATOR; rpk's block
// lines and any line looksHeader refuses begin with a column name, whose
// first character is one of A-Z, # and ( (headerWord).
func mayBeHeader(text string) bool {
	first := strings.TrimLeft(text, " \t")
	if first == "" {
		return true
	}
	if c := first[0]; ('A' <= c && c <= 'Z') || c == '#' || c == '(' {
		return true
	}
	return strings.Contains(text, "PARTITION") || strings.Contains(text, "COORDINATOR")
}

// looksHeader reports a line of three or more column names.
func looksHeader(cols columns) bool {
	if len(cols.names) < 3 {
		return false
	}
	for _, n := range cols.names {
		if !headerWord.MatchString(n) {
			return false
		}
	}
	return true
}

func headerKind(c columns) kind {
	switch {
	case len(c.names) < 3:
		return kindNone
	case c.has("TOPIC") && c.has("PARTITION") && c.has("MEMBER-ID"):
		return kindRpkTable
	case c.has("TOPIC") && c.has("PARTITION") && (c.has("CONSUMER-ID") || c.has("OWNER")):
		return kindOffsets
	case c.has("CONSUMER-ID") && c.has("#PARTITIONS") && c.has("CURRENT-ASSIGNMENT"):
		return kindKIP1099
	case c.has("CONSUMER-ID") && c.has("#PARTITIONS") && c.has("ASSIGNMENT"):
		return kindMembers
	case c.has("CONSUMER-ID") && c.has("#PARTITIONS"):
		return kindMembersPlain
	case c.has("GROUP") && c.has("COORDINATOR") && (c.has("STATE") || c.has("ASSIGNMENT-STRATEGY")):
		return kindState
	}
	return kindNone
}

func (c *collector) readSection(s *section) error {
	if s.kind == kindRpkBlock {
		return c.readRpkBlock(s)
	}
	if s.kind == kindMembers {
		// Kafka 3.8 and 3.9 print ASSIGNMENT without topics: one such row
		// makes the section that view, whose "-" rows say nothing either.
		var plain error
		var group string
		var line int
		s.each(func(r row) error {
			_, err := c.names.parenList(r.get("ASSIGNMENT"))
			if errors.Is(err, ErrNoAssignment) {
				plain, group, line = err, r.get("GROUP"), r.n
				return err // stops at the first
			}
			return nil
		})
		if plain != nil {
			if err := s.each(func(r row) error { return c.membersRow(r, kindMembersPlain, 0) }); err != nil {
				return err
			}
			c.group(group, line).refuse(&Error{Line: line, Err: plain})
			return nil
		}
	}
	return s.each(func(r row) error {
		switch s.kind {
		case kindOffsets:
			return c.offsetsRow(r, "", OffsetsView)
		case kindRpkTable:
			return c.offsetsRow(r, s.group, RpkView)
		case kindMembers, kindMembersPlain, kindKIP1099:
			return c.membersRow(r, s.kind, s.header.n)
		case kindState:
			c.stateRow(r, s.header.n)
		}
		return nil
	})
}

// offsetsRow reads a row of the offsets view or of rpk's table.
func (c *collector) offsetsRow(r row, group string, v View) error {
	b := c.group(cmpOr(r.get("GROUP"), group), r.n)
	b.owning(v)
	id := cmpOr(r.get("CONSUMER-ID"), r.get("MEMBER-ID"))
	host, client := value(r.get("HOST")), value(r.get("CLIENT-ID"))
	if owner, ok := r.lookup("OWNER"); ok {
		id = owner
		if owner == "none" { // the ZooKeeper-era tool's unowned partition
			id = ""
		}
		if i := strings.Index(owner, "_/"); i > 0 { // Kafka 0.10's client.id_/host
			client, host = owner[:i], owner[i+1:]
		}
	}
	id = value(id)
	topic, p := r.get("TOPIC"), r.get("PARTITION")
	if topic == missingValue && p == missingValue {
		if id != "" {
			b.describe(id, value(r.get("INSTANCE-ID")), host, client) // a member that owns nothing
		}
		return nil
	}
	tp, err := b.names.partition(topic, p)
	if err != nil {
		return &Error{Line: r.n, Err: err}
	}
	if id == "" {
		b.s.Unowned = append(b.s.Unowned, tp)
	} else {
		m := b.describe(id, value(r.get("INSTANCE-ID")), host, client)
		m.Owned = append(m.Owned, tp)
	}
	if lag := r.get("LAG"); lag != "" && lag != missingValue {
		n, err := strconv.ParseInt(lag, 10, 64)
		if err != nil {
			return &Error{Line: r.n, Err: fmt.Errorf("%w: LAG %q is not a whole number", ErrSyntax, lag)}
		}
		b.s.Lag[tp] = n
	}
	return nil
}

// describe returns member id, noting what else a row says about it.
func (b *builder) describe(id, instance, host, client string) *Member {
	m := b.member(id)
	ns := b.names
	m.InstanceID, m.Host, m.ClientID = cmpOr(ns.keep(instance), m.InstanceID), cmpOr(ns.keep(host), m.Host), cmpOr(ns.keep(client), m.ClientID)
	return m
}

// membersRow reads a row of one of the members views; header is the
// line of the section's header.
func (c *collector) membersRow(r row, k kind, header int) error {
	b := c.group(r.get("GROUP"), r.n)
	id := value(r.get("CONSUMER-ID"))
	if id == "" {
		return &Error{Line: r.n, Err: fmt.Errorf("%w: no CONSUMER-ID", ErrSyntax)}
	}
	m := b.describe(id, value(r.get("GROUP-INSTANCE-ID")), value(r.get("HOST")), value(r.get("CLIENT-ID")))
	switch k {
	case kindMembersPlain:
		if header == 0 {
			return nil // a members view that turned out to be one without topics
		}
		b.refuse(&Error{Line: header, Err: fmt.Errorf("%w: the members view without --verbose has no ASSIGNMENT; use --describe --members --verbose, or the offsets view (--describe)", ErrNoAssignment)})
		return nil
	case kindKIP1099:
		owned, err := b.names.colonList(r.get("CURRENT-ASSIGNMENT"))
		if err != nil {
			return &Error{Line: r.n, Err: err}
		}
		target, err := b.names.colonList(r.get("TARGET-ASSIGNMENT"))
		if err != nil {
			return &Error{Line: r.n, Err: err}
		}
		m.Owned, m.Target = append(m.Owned, owned...), append(m.Target, target...)
		for _, ep := range []struct {
			name string
			to   *int32
		}{{"CURRENT-EPOCH", &m.CurrentEpoch}, {"TARGET-EPOCH", &m.TargetEpoch}} {
			name, to := ep.name, ep.to
			if e := r.get(name); e != "" && e != missingValue {
				n, err := strconv.ParseInt(e, 10, 32)
				if err != nil {
					return &Error{Line: r.n, Err: fmt.Errorf("%w: %s %q is not an epoch", ErrSyntax, name, e)}
				}
				*to = int32(n)
				b.s.Protocol = Consumer // a classic member shows no epochs
			}
		}
		b.owning(KIP1099View)
		return nil
	}
	owned, err := b.names.parenList(r.get("ASSIGNMENT"))
	if err != nil {
		return &Error{Line: r.n, Err: err}
	}
	m.Owned = append(m.Owned, owned...)
	b.owning(MembersView)
	if want, err := strconv.Atoi(r.get("#PARTITIONS")); err == nil && want != len(owned) {
		b.s.Remarks = append(b.s.Remarks, fmt.Sprintf("line %d: %s: #PARTITIONS is %d but ASSIGNMENT lists %d; ASSIGNMENT counts", r.n, id, want, len(owned)))
	}
	return nil
}

// stateRow reads a row of the state view, which completes another view
// of its group.
func (c *collector) stateRow(r row, header int) {
	b := c.group(r.get("GROUP"), r.n)
	b.s.Strategy, b.s.State = b.names.keep(value(r.get("ASSIGNMENT-STRATEGY"))), b.names.keep(value(r.get("STATE")))
	b.s.Coordinator = strings.TrimSpace(r.get("COORDINATOR") + " " + r.get("(ID)"))
	if e := r.get("GROUP-EPOCH"); (e != "" && e != missingValue) || b.s.Strategy == "uniform" {
		b.s.Protocol = Consumer // classic groups have no group epoch, and no uniform assignor
	}
	b.refuse(&Error{Line: header, Err: fmt.Errorf("%w: the state view (--describe --state) lists no members; use the offsets view (--describe)", ErrNoAssignment)})
}

// readRpkBlock reads rpk group describe's lines about a group. A group of
// no members is fully described by them; one with members needs the table
// that follows (absent with --print-summary).
func (c *collector) readRpkBlock(s *section) error {
	b := c.group(s.group, s.header.n)
	for _, r := range s.rows {
		v := r.get("value")
		switch r.get("key") {
		case "COORDINATOR", "COORDINATOR-NODE":
			b.s.Coordinator = b.names.keep(v)
		case "COORDINATOR-PARTITION":
			_, p, _ := strings.Cut(v, "/")
			n, err := strconv.ParseInt(p, 10, 32)
			if err != nil || n < 0 {
				return &Error{Line: r.n, Err: fmt.Errorf("%w: COORDINATOR-PARTITION %q: want __consumer_offsets/N", ErrSyntax, v)}
			}
			b.s.CoordinatorPartition = int32(n)
		case "STATE":
			b.s.State = b.names.keep(v)
		case "BALANCER":
			b.s.Strategy = b.names.keep(v)
		case "MEMBERS":
			if v == "0" {
				b.owning(RpkView)
			}
		case "ERROR":
			b.s.Remarks = append(b.s.Remarks, "rpk said: "+v)
		}
	}
	b.refuse(&Error{Line: s.header.n, Err: fmt.Errorf("%w: rpk group describe --print-summary lists no partitions; run it without --print-summary", ErrNoAssignment)})
	return nil
}

// partition reads a partition of topic, keeping the topic's name.
func (ns names) partition(topic, p string) (assign.TopicPartition, error) {
	if topic == "" || topic == missingValue {
		return assign.TopicPartition{}, fmt.Errorf("%w: empty topic", ErrSyntax)
	}
	n, err := strconv.ParseInt(p, 10, 32)
	if err != nil || n < 0 || n == math.MaxInt32 {
		// MaxInt32 is no partition number: the count would not fit.
		return assign.TopicPartition{}, fmt.Errorf("%w: partition %q of topic %q is not a partition number", ErrSyntax, p, topic)
	}
	return assign.TopicPartition{Topic: ns.keep(topic), Partition: int32(n)}, nil
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

// split cuts l into one field per column: by white space when that
// gives exactly one field per column, or one fewer where a CONSUMER-ID ran
// into its HOST (Kafka 0.11); else at the header's positions (the last
// column taking the rest of the line). The fields go into buf's array
// when it is large enough.
func (c columns) split(l line, buf []string) row {
	text := l.text
	r := row{n: l.n, names: c.names}
	f := fields(buf[:0], text)
	if len(f) == len(c.names)-1 {
		if i := slices.Index(c.names, "CONSUMER-ID"); i >= 0 && i+1 < len(c.names) && c.names[i+1] == "HOST" {
			if j := strings.LastIndexByte(f[i], '/'); j > 0 {
				f = slices.Insert(f, i+1, f[i][j:])
				f[i] = f[i][:j]
			}
		}
	}
	if len(f) == len(c.names) {
		r.vals = f
		return r
	}
	r.vals = slices.Grow(f[:0], len(c.names))[:len(c.names)]
	for i := range c.names {
		from, to := c.starts[i], len(text)
		if i+1 < len(c.names) {
			to = c.starts[i+1]
		}
		r.vals[i] = ""
		if from < len(text) {
			r.vals[i] = strings.TrimSpace(text[from:min(to, len(text))])
		}
	}
	return r
}

// fields appends the fields of s, as [strings.Fields] cuts them, to dst.
// Rows are ASCII but for a rare host or client name, and cutting them
// here spares a slice per row (BenchmarkParse).
func fields(dst []string, s string) []string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(dst, strings.Fields(s)...)
		}
	}
	start := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			if start >= 0 {
				dst, start = append(dst, s[start:i]), -1
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		dst = append(dst, s[start:])
	}
	return dst
}

// value reads a cell, "-" being absent.
func value(s string) string {
	if s == missingValue {
		return ""
	}
	return s
}

// parenList reads the Scala tool's "t1(0,1,2), t2(3)".
func (ns names) parenList(s string) ([]assign.TopicPartition, error) {
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
			tp, err := ns.partition(topic, strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			out = append(out, tp)
		}
	}
	return out, nil
}

// colonList reads KIP-1099's "t1:0,1;t2:3".
func (ns names) colonList(s string) ([]assign.TopicPartition, error) {
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
			tp, err := ns.partition(topic, p)
			if err != nil {
				return nil, err
			}
			out = append(out, tp)
		}
	}
	return out, nil
}
