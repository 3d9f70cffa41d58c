// Package describe reads what operators already have about a consumer
// group — a paste of Kafka's kafka-consumer-groups.sh --describe, of
// Redpanda's rpk group describe, or a plain CSV — into a group with owned
// partitions that package assign can rebalance.
//
// # Layouts
//
// A paste may hold several tables, each recognised by its header line:
//
//   - the offsets view, kafka-consumer-groups.sh --describe (with or
//     without --verbose's LEADER-EPOCH; with or without GROUP, HOST and
//     CLIENT-ID, as releases printed them):
//
//     GROUP  TOPIC  PARTITION  CURRENT-OFFSET  LOG-END-OFFSET  LAG  CONSUMER-ID  HOST  CLIENT-ID
//
//     one row per partition; a member that owns nothing has TOPIC and
//     PARTITION "-"; a partition nobody owns (committed offsets only) has
//     CONSUMER-ID "-". Kafka 0.10 and the ZooKeeper-era tool print OWNER
//     instead of CONSUMER-ID, HOST and CLIENT-ID ("consumer-2_/10.0.0.1",
//     a client id and host, or a ZooKeeper consumer's thread id); the
//     owner is the member. Kafka 0.11 let a long CONSUMER-ID run into
//     HOST ("id-uuid/192.168.1.153"): the last '/' splits them;
//
//   - the members view, --describe --members --verbose, as the Scala tool
//     printed it (Kafka 2.x to 3.6), with GROUP-INSTANCE-ID when a member
//     is static:
//
//     GROUP  CONSUMER-ID  GROUP-INSTANCE-ID  HOST  CLIENT-ID  #PARTITIONS  ASSIGNMENT
//
//     ASSIGNMENT being "t1(0,1,2), t2(3)", or "-" for none; a #PARTITIONS
//     that disagrees with ASSIGNMENT (a hand-redacted row) is a remark,
//     and ASSIGNMENT is what counts;
//
//   - the members view of Kafka 4 (KIP-1099), with epochs and the
//     current and target assignments written "t1:0,1;t2:3":
//
//     GROUP  CONSUMER-ID  [GROUP-INSTANCE-ID]  HOST  CLIENT-ID  #PARTITIONS  CURRENT-EPOCH  CURRENT-ASSIGNMENT  TARGET-EPOCH  TARGET-ASSIGNMENT
//
//   - the state view, --describe --state [--verbose], which says who
//     coordinates the group, its state and its assignor, but not who owns
//     what: it completes another view of the same group;
//
//   - rpk group describe: a block of GROUP, COORDINATOR (or
//     COORDINATOR-NODE and COORDINATOR-PARTITION), STATE, BALANCER,
//     MEMBERS and TOTAL-LAG lines, then the table
//
//     TOPIC  PARTITION  CURRENT-OFFSET  LOG-START-OFFSET  LOG-END-OFFSET  LAG  MEMBER-ID  [INSTANCE-ID]  CLIENT-ID  HOST
//
//     a group with MEMBERS 0 and no table being an empty group;
//
//   - CSV: member,topic,partition[,lag], with or without that header.
//
// Columns are padded to a common width, and an empty cell is only spaces,
// so rows are cut at the header's column positions unless they split into
// exactly as many fields as the header. Rows whose header was cut off are
// read by their column count and contents when exactly one layout fits
// them, and refused with [ErrNoHeader] otherwise.
//
// The members view without --verbose, the members view of Kafka 3.8 and
// 3.9 (whose ASSIGNMENT lists partition numbers without their topics),
// the state view and rpk's summary do not say what each member owns: a
// group that only they show is refused with an [*Error] naming the view
// to use instead.
//
// # Noise
//
// Shell prompt lines ("$ bin/kafka-consumer-groups.sh ...", "bash-5.1# ...",
// "> ..."), the command itself, Kafka's "Note: ..." lines, kubectl's
// lines and blank lines are skipped. The tools' own messages about a
// group ("Consumer group 'g' has no active members.", "Error: ...",
// "Warning: ...") are kept as notices, never read as a group.
//
// # Several groups
//
// A paste of several groups (--all-groups, or pastes one after another) is
// refused with the groups' names unless [ParseGroup] is told which to read.
//
// # What describe output does not carry
//
// Subscriptions and partition counts. [Snapshot.Group] assumes that every
// member subscribes to every topic the output lists, and that each topic
// has one partition more than the highest it lists, unless told otherwise,
// and says what it assumed.
package describe

import (
	"errors"
	"fmt"
	"io"
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
	StateView    View = "state view (--describe --state)"
	RpkView      View = "rpk group describe"
	CSVView      View = "CSV (member,topic,partition[,lag])"
	missingValue      = "-" // what kafka-consumer-groups.sh prints for an absent value
)

// Protocol is the group protocol a snapshot shows its group on.
type Protocol string

// The group protocols. A snapshot whose output does not tell has
// Protocol "".
const (
	// Classic is the JoinGroup/SyncGroup protocol, assignments computed by
	// a client leader.
	Classic Protocol = "classic"
	// Consumer is KIP-848's protocol, assignments computed by the broker:
	// shown by KIP-1099's epochs, a state view's GROUP-EPOCH, or the
	// uniform assignor.
	Consumer Protocol = "consumer"
)

// Assignor is the name package assign gives the broker's assignor of a
// group on the consumer protocol: the state view's ASSIGNMENT-STRATEGY
// ("range" being the server's range, "server-range" in assign), else
// "uniform", Kafka's default (the first of group.consumer.assignors). It
// is "" for other groups.
func (s *Snapshot) Assignor() string {
	switch {
	case s.Protocol != Consumer:
		return ""
	case s.Strategy == "range":
		return "server-range"
	case s.Strategy == "":
		return "uniform"
	}
	return s.Strategy
}

// Member is one consumer of the group as the output shows it.
type Member struct {
	ID         string // CONSUMER-ID (member.id), MEMBER-ID or OWNER
	InstanceID string // GROUP-INSTANCE-ID, "" when dynamic or not shown
	Host       string // HOST, "" when not shown
	ClientID   string // CLIENT-ID, "" when not shown

	// Owned lists the partitions the member holds (the current assignment
	// of the KIP-1099 view), sorted.
	Owned []assign.TopicPartition

	// Target is the KIP-1099 view's target assignment, sorted; nil in the
	// other layouts.
	Target []assign.TopicPartition

	// CurrentEpoch and TargetEpoch are the KIP-1099 view's epochs, -1 when
	// not shown.
	CurrentEpoch, TargetEpoch int32
}

// Snapshot is what one describe output says about one group.
type Snapshot struct {
	Name string // GROUP, "" when the layout has none
	View View   // the layout that said who owns what (the first, when several did)

	// Protocol is the group protocol the output shows, "" when it does
	// not say.
	Protocol Protocol
	// Strategy is the state view's ASSIGNMENT-STRATEGY or rpk's BALANCER,
	// "" when not shown.
	Strategy string
	// State is the group's STATE, "" when not shown.
	State string
	// Coordinator is the state view's COORDINATOR (ID) or rpk's
	// COORDINATOR, "" when not shown.
	Coordinator string
	// CoordinatorPartition is rpk's COORDINATOR-PARTITION, -1 when not
	// shown.
	CoordinatorPartition int32

	Members []Member // in order of first appearance

	// Unowned lists the partitions shown without a consumer (the offsets
	// view's committed offsets of partitions nobody holds), sorted.
	Unowned []assign.TopicPartition

	// Lag holds the LAG of each partition that shows one.
	Lag map[assign.TopicPartition]int64

	// Notices are the lines the tool printed about the group's state
	// ("Warning: Consumer group 'g' is rebalancing."), in order.
	Notices []string

	// Remarks are what the reader noticed that does not add up (a
	// #PARTITIONS that disagrees with its ASSIGNMENT), in order.
	Remarks []string
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
	ErrUnknownLayout = errors.New("not a layout of kafka-consumer-groups.sh --describe, rpk group describe nor member,topic,partition CSV")
	// ErrNoHeader is rows whose header was cut off and whose layout
	// cannot be told from them alone.
	ErrNoHeader = errors.New("the header line is missing")
	// ErrNoAssignment is a layout that does not say what members own.
	ErrNoAssignment = errors.New("this view does not say which partitions each member owns")
	// ErrSyntax is a row that cannot be read.
	ErrSyntax = errors.New("cannot read the row")
	// ErrManyGroups is output describing more than one group.
	ErrManyGroups = errors.New("more than one group")
	// ErrNoGroup is output that does not describe the group asked for.
	ErrNoGroup = errors.New("no such group in the input")
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

// Parse reads the one group a describe output, or CSV, shows, in any
// layout the package documents. Output of several groups is refused with
// [ErrManyGroups], naming them.
func Parse(r io.Reader) (*Snapshot, error) { return ParseGroup(r, "") }

// ParseGroup is [Parse] reading only the group named group from output
// that may describe several; "" means the only one.
func ParseGroup(r io.Reader, group string) (*Snapshot, error) {
	data, err := readAll(r)
	if err != nil {
		return nil, err
	}
	return parse(data, group)
}

// parse is [ParseGroup] on the whole paste.
func parse(data, group string) (*Snapshot, error) {
	lines, notices := classify(data)
	var err error
	if len(lines) == 0 {
		if len(notices) > 0 {
			return nil, &Error{Err: fmt.Errorf("no group in the input; the tool said: %s", notices[0].text)}
		}
		return nil, &Error{Err: errors.New("no group: the input is empty")}
	}
	c := newCollector()
	if isCSV(lines[0].text) {
		err = parseCSV(c, lines)
	} else {
		err = c.read(lines)
	}
	if err != nil {
		return nil, err
	}
	return c.pick(group, notices)
}

// readAll reads r whole, refusing more than maxInput bytes. The paste is
// built in place as a string, not copied from bytes; what a snapshot keeps
// of it is copied out ([names.keep]), so the paste itself is garbage once
// read.
func readAll(r io.Reader) (string, error) {
	var in strings.Builder
	if l, ok := r.(interface{ Len() int }); ok { // strings.Reader, bytes.Buffer and the like
		in.Grow(min(l.Len(), maxInput) + 1)
	}
	if _, err := io.Copy(&in, io.LimitReader(r, maxInput+1)); err != nil {
		return "", &Error{Err: err}
	}
	if in.Len() > maxInput {
		return "", &Error{Err: fmt.Errorf("more than %d bytes", maxInput)}
	}
	return in.String(), nil
}

// collector gathers what every section of a paste says, group by group.
type collector struct {
	groups []*builder
	byName map[string]*builder // group name => its builder
	names  names
}

func newCollector() *collector {
	return &collector{byName: make(map[string]*builder), names: make(names)}
}

// names holds one copy of each name a snapshot keeps (groups, members,
// hosts, client ids, topics). Rows are cut from the paste without copying
// it, and a snapshot that held those cuts would hold the whole paste.
type names map[string]string

// keep returns s's own copy, made the first time s is seen.
func (ns names) keep(s string) string {
	if s == "" {
		return ""
	}
	k, ok := ns[s]
	if !ok {
		k = strings.Clone(s)
		ns[k] = k
	}
	return k
}

// builder collects one group's members in order of appearance.
type builder struct {
	s     *Snapshot
	first int            // the line where the group first appears
	index map[string]int // member ID => index in s.Members

	owns    bool  // some section said who owns what
	refusal error // why a section that did not say could not (the first)
	names   names // the collector's
}

// group returns the builder of the group named name ("" for a section
// that names none), first seen at line n.
func (c *collector) group(name string, n int) *builder {
	if name == missingValue {
		name = ""
	}
	b, ok := c.byName[name]
	if !ok {
		name = c.names.keep(name)
		b = &builder{
			s:     &Snapshot{Name: name, CoordinatorPartition: -1, Lag: make(map[assign.TopicPartition]int64)},
			first: n,
			index: make(map[string]int),
			names: c.names,
		}
		c.byName[name] = b
		c.groups = append(c.groups, b)
	}
	return b
}

// owning marks that view said who owns what in b's group.
func (b *builder) owning(v View) {
	if !b.owns {
		b.owns, b.s.View = true, v
	}
}

// refuse notes why a section of b's group did not say who owns what.
func (b *builder) refuse(err error) {
	if b.refusal == nil {
		b.refusal = err
	}
}

func (b *builder) member(id string) *Member {
	i, ok := b.index[id]
	if !ok {
		i, id = len(b.s.Members), b.names.keep(id)
		b.index[id] = i
		b.s.Members = append(b.s.Members, Member{ID: id, CurrentEpoch: -1, TargetEpoch: -1})
	}
	return &b.s.Members[i]
}

func (b *builder) done() *Snapshot {
	for i := range b.s.Members {
		m := &b.s.Members[i]
		slices.SortFunc(m.Owned, assign.TopicPartition.Compare)
		m.Owned = slices.Compact(m.Owned)
		slices.SortFunc(m.Target, assign.TopicPartition.Compare)
		m.Target = slices.Compact(m.Target)
	}
	slices.SortFunc(b.s.Unowned, assign.TopicPartition.Compare)
	b.s.Unowned = slices.Compact(b.s.Unowned)
	return b.s
}

// pick chooses the group to return: the one named, else the only one.
// Sections that name no group (the offsets view before KIP-175) belong to
// the one group that other sections name, when there is one.
func (c *collector) pick(name string, notices []notice) (*Snapshot, error) {
	groups := c.groups
	if anon, ok := c.byName[""]; ok {
		var named []*builder
		for _, b := range groups {
			if b != anon {
				named = append(named, b)
			}
		}
		if len(named) == 1 {
			named[0].merge(anon)
			groups = named
		}
	}
	var b *builder
	switch {
	case len(groups) == 0:
		return nil, &Error{Err: errors.New("no group in the input: its tables have no rows")}
	case name != "":
		i := slices.IndexFunc(groups, func(b *builder) bool { return b.s.Name == name })
		if i < 0 {
			said := ""
			for _, n := range notices {
				if n.group == name {
					said = "; the tool said: " + n.text
					break
				}
			}
			return nil, &Error{Err: fmt.Errorf("%w: %q; the input shows %s%s", ErrNoGroup, name, groupNames(groups), said)}
		}
		b = groups[i]
	case len(groups) > 1:
		return nil, &Error{Line: groups[1].first, Err: fmt.Errorf("%w: %s; choose one (--group NAME)", ErrManyGroups, groupNames(groups))}
	default:
		b = groups[0]
	}
	if !b.owns {
		if b.refusal != nil {
			return nil, b.refusal
		}
		return nil, &Error{Line: b.first, Err: ErrNoAssignment}
	}
	for _, n := range notices {
		if n.group == "" || n.group == b.s.Name || b.s.Name == "" { // a group without a name may be the one named
			b.s.Notices = append(b.s.Notices, n.text)
		}
	}
	return b.done(), nil
}

// merge adds what o says to b: o names no group.
func (b *builder) merge(o *builder) {
	if o.owns {
		b.owning(o.s.View)
	}
	if b.refusal == nil {
		b.refusal = o.refusal
	}
	for _, m := range o.s.Members {
		bm := b.member(m.ID)
		bm.Owned = append(bm.Owned, m.Owned...)
		bm.Target = append(bm.Target, m.Target...)
		bm.InstanceID = cmpOr(bm.InstanceID, m.InstanceID)
		bm.Host, bm.ClientID = cmpOr(bm.Host, m.Host), cmpOr(bm.ClientID, m.ClientID)
	}
	b.s.Unowned = append(b.s.Unowned, o.s.Unowned...)
	for tp, lag := range o.s.Lag {
		b.s.Lag[tp] = lag
	}
	b.s.Remarks = append(b.s.Remarks, o.s.Remarks...)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func groupNames(groups []*builder) string {
	var names []string
	for _, b := range groups {
		if b.s.Name == "" {
			names = append(names, "(a section without GROUP)")
			continue
		}
		names = append(names, strconv.Quote(b.s.Name))
	}
	if len(names) > 10 {
		names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
	}
	return strings.Join(names, ", ")
}
