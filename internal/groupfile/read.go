package groupfile

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// Entry is one group read from a group file.
type Entry struct {
	// Name is the group's optional label, "" when absent.
	Name string

	// Group is the group, with Generation -1 for members that give none.
	Group assign.Group

	// Protocols holds, for each member of Group.Members (same index), the
	// strategies it offers in preference order, or nil when the member
	// gives no "protocols".
	Protocols [][]string

	// Clients holds, for each member of Group.Members (same index), the
	// client library it runs ("client": a name of package
	// assign/client's profiles, unchecked here), or "" when not given;
	// nil when no member gives one.
	Clients []string

	// Line is the line on which the group's JSON value begins, from 1.
	Line int
}

// Errors wrapped in an [*Error] to say what is wrong with a group file.
var (
	// ErrSyntax is malformed JSON. Reading stops at it: the rest of the
	// input cannot be split into groups reliably.
	ErrSyntax = errors.New("malformed JSON")
	// ErrType is a value of the wrong JSON type.
	ErrType = errors.New("wrong type")
	// ErrNumber is a number that is not an integer in int32.
	ErrNumber = errors.New("not an integer in int32")
	// ErrUnknownField is a key the contract does not define.
	ErrUnknownField = errors.New("unknown field")
	// ErrDuplicateKey is a key given twice in one object.
	ErrDuplicateKey = errors.New("duplicate key")
	// ErrMissingField is a required field that is absent or null.
	ErrMissingField = errors.New("missing field")
	// ErrTopicID is a topic id that is not 22 characters of URL-safe
	// base64; the error's Path names the topic.
	ErrTopicID = errors.New("not a Kafka topic id (22 characters of URL-safe base64, as kafka-topics.sh prints TopicId)")
)

// Error reports what is wrong in a group file and where.
type Error struct {
	Line   int    // line of the fault, from 1
	Column int    // column of the fault in bytes, from 1
	Path   string // where in the group, e.g. "members[1].owned.t1[0]"; "" for the whole value
	Group  int    // position of the group in the file, from 1
	Err    error  // one of the Err* sentinels, wrapped with detail
}

// Error formats e as "groupfile: line L, column C: path: what".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "groupfile: line %d, column %d: ", e.Line, e.Column)
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the Err* sentinel, wrapped with detail.
func (e *Error) Unwrap() error { return e.Err }

// ReadAll reads every group of r. It stops at the first error, which is an
// [*Error]; use a [Reader] to go on past groups with bad content.
func ReadAll(r io.Reader) ([]Entry, error) {
	rd := NewReader(r)
	var out []Entry
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// Reader reads the groups of a group file one at a time.
type Reader struct {
	src   io.Reader
	data  []byte
	dec   *decoder
	n     int // groups returned so far
	done  bool
	ioErr error
}

// NewReader returns a Reader of the groups in r. It reads r to the end on
// the first call to Next.
func NewReader(r io.Reader) *Reader {
	return &Reader{src: r}
}

// Next returns the next group. At the end of the input it returns io.EOF.
//
// An error about one group's content (an [*Error] not wrapping
// [ErrSyntax]) comes with the Entry's Name and Line when they could be
// read; the next call goes on with the following group. After malformed
// JSON ([ErrSyntax]) or a read error, Next returns io.EOF.
func (r *Reader) Next() (Entry, error) {
	if r.dec == nil && !r.done {
		data, err := io.ReadAll(r.src)
		if err != nil {
			r.done = true
			return Entry{}, fmt.Errorf("groupfile: %w", err)
		}
		r.data = data
		r.dec = newDecoder(data)
	}
	if r.done {
		return Entry{}, io.EOF
	}
	if !r.dec.more() {
		r.done = true
		return Entry{}, io.EOF
	}
	r.n++
	e, err := r.dec.group()
	if err != nil {
		err.Group = r.n
		if errors.Is(err, ErrSyntax) {
			r.done = true
		}
		return e, err
	}
	return e, nil
}

// group-level reading

// groupReader reads one group, remembering the path of what it reads.
type groupReader struct {
	d *decoder
}

// obj reads an object, calling field for each key with the key's offset;
// field must read the value. Repeated keys are refused.
func (g *groupReader) obj(path string, field func(key string, keyOff int) *Error) *Error {
	d := g.d
	if err := g.want(path, kindObject); err != nil {
		return err
	}
	d.pos++
	if d.peekByte() == '}' {
		d.pos++
		return nil
	}
	seen := make(map[string]bool)
	for {
		if d.peek() != kindString {
			return d.syntaxf(d.pos, "want a string key, found %s", d.describe())
		}
		keyOff := d.pos
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		if seen[key] {
			return d.errAt(keyOff, path, fmt.Errorf("%w %q", ErrDuplicateKey, key))
		}
		seen[key] = true
		if err := field(key, keyOff); err != nil {
			return err
		}
		done, err := d.next('}')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// arr reads an array, calling elem for each element with its index; elem
// must read the element.
func (g *groupReader) arr(path string, elem func(i int) *Error) *Error {
	d := g.d
	if err := g.want(path, kindArray); err != nil {
		return err
	}
	d.pos++
	if d.peekByte() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		done, err := d.next(']')
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// want checks that the next value is of kind k. A value that is not even
// JSON is a syntax error.
func (g *groupReader) want(path string, k kind) *Error {
	d := g.d
	got := d.peek()
	if got == k {
		return nil
	}
	if got == kindBad {
		return d.syntaxf(d.pos, "want a value, found %s", d.describe())
	}
	return d.errAt(d.pos, path, fmt.Errorf("%w: want %s, found %s", ErrType, k, got))
}

// null consumes a null if one is next.
func (g *groupReader) null() (bool, *Error) {
	if g.d.peek() != kindNull {
		return false, nil
	}
	return true, g.d.literal()
}

func (g *groupReader) str(path string) (string, *Error) {
	if err := g.want(path, kindString); err != nil {
		return "", err
	}
	return g.d.str()
}

func (g *groupReader) int32(path string) (int32, *Error) {
	if err := g.want(path, kindNumber); err != nil {
		return 0, err
	}
	g.d.skipSpace()
	off := g.d.pos
	text, err := g.d.number()
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(text, 10, 32)
	if perr != nil {
		return 0, g.d.errAt(off, path, fmt.Errorf("%w: %s", ErrNumber, text))
	}
	return int32(n), nil
}

func (g *groupReader) strings(path string) ([]string, *Error) {
	out := []string{}
	err := g.arr(path, func(i int) *Error {
		s, err := g.str(index(path, i))
		out = append(out, s)
		return err
	})
	return out, err
}

func (g *groupReader) unknown(path, key string, keyOff int) *Error {
	return g.d.errAt(keyOff, path, fmt.Errorf("%w %q", ErrUnknownField, key))
}

func (g *groupReader) missing(path, key string, off int) *Error {
	return g.d.errAt(off, path, fmt.Errorf("%w %q", ErrMissingField, key))
}

func field(path, key string) string {
	if path == "" {
		return key
	}
	if isIdent(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '-' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// read reads the group value into e.
func (g *groupReader) read(e *Entry) *Error {
	d := g.d
	start := d.pos
	if d.peek() == kindArray {
		err := g.want("", kindObject)
		err.Err = fmt.Errorf("%w: want an object per group, found an array (write many groups as JSON lines, one object per line)", ErrType)
		return err
	}
	var haveTopics, haveMembers bool
	var first *Error // first content error; reading goes on to find the name
	keep := func(err *Error) *Error {
		if err == nil || errors.Is(err, ErrSyntax) {
			return err
		}
		if first == nil {
			first = err
		}
		return nil
	}
	err := g.obj("", func(key string, keyOff int) *Error {
		valOff := d.pos
		var err *Error
		switch key {
		case "name":
			var null bool
			if null, err = g.null(); !null && err == nil {
				e.Name, err = g.str("name")
			}
		case "topics":
			haveTopics = true
			e.Group.Topics, err = g.topics()
		case "partitionRacks":
			var null bool
			if null, err = g.null(); !null && err == nil {
				e.Group.PartitionRacks, err = g.partitionRacks()
			}
		case "members":
			haveMembers = true
			e.Group.Members, e.Protocols, e.Clients, err = g.members()
		case "topicIds":
			var null bool
			if null, err = g.null(); !null && err == nil {
				e.Group.TopicIDs, err = g.topicIDs()
			}
		default:
			err = g.unknown("", key, keyOff)
		}
		if err != nil && !errors.Is(err, ErrSyntax) {
			// Skip the rest of this field's value and go on.
			d.pos = valOff
			if serr := d.skipValue(); serr != nil {
				return serr
			}
		}
		return keep(err)
	})
	if err != nil {
		return err
	}
	if first != nil {
		return first
	}
	switch {
	case !haveTopics:
		return g.missing("", "topics", start)
	case !haveMembers:
		return g.missing("", "members", start)
	}
	return nil
}

func (g *groupReader) topics() (map[string]int32, *Error) {
	g.d.skipSpace()
	off := g.d.pos
	if null, err := g.null(); null || err != nil {
		if err == nil {
			err = g.missing("", "topics", off)
		}
		return nil, err
	}
	out := make(map[string]int32)
	err := g.obj("topics", func(key string, _ int) *Error {
		n, err := g.int32(field("topics", key))
		out[key] = n
		return err
	})
	return out, err
}

func (g *groupReader) topicIDs() (map[string]assign.TopicID, *Error) {
	out := make(map[string]assign.TopicID)
	err := g.obj("topicIds", func(key string, _ int) *Error {
		path := field("topicIds", key)
		g.d.skipSpace()
		off := g.d.pos
		s, err := g.str(path)
		if err != nil {
			return err
		}
		id, perr := assign.ParseTopicID(s)
		if perr != nil {
			return g.d.errAt(off, path, fmt.Errorf("%w: %q", ErrTopicID, s))
		}
		out[key] = id
		return nil
	})
	return out, err
}

func (g *groupReader) partitionRacks() (map[string][][]string, *Error) {
	out := make(map[string][][]string)
	err := g.obj("partitionRacks", func(key string, _ int) *Error {
		path := field("partitionRacks", key)
		lists := [][]string{}
		err := g.arr(path, func(p int) *Error {
			// null is a partition whose replicas' racks are unknown, as
			// [] is (the javasticky goldens write it so).
			if null, err := g.null(); null || err != nil {
				lists = append(lists, nil)
				return err
			}
			racks, err := g.strings(index(path, p))
			lists = append(lists, racks)
			return err
		})
		out[key] = lists
		return err
	})
	return out, err
}

func (g *groupReader) members() ([]assign.Member, [][]string, []string, *Error) {
	g.d.skipSpace()
	off := g.d.pos
	if null, err := g.null(); null || err != nil {
		if err == nil {
			err = g.missing("", "members", off)
		}
		return nil, nil, nil, err
	}
	members := []assign.Member{}
	var protocols [][]string
	var clients []string
	any := false
	err := g.arr("members", func(i int) *Error {
		m, x, err := g.member(index("members", i))
		members = append(members, m)
		protocols = append(protocols, x.protocols)
		clients = append(clients, x.client)
		any = any || x.client != ""
		return err
	})
	if !any {
		clients = nil
	}
	return members, protocols, clients, err
}

// memberExtra is what a member of the contract holds beyond assign.Member.
type memberExtra struct {
	protocols []string
	client    string
}

func (g *groupReader) member(path string) (assign.Member, memberExtra, *Error) {
	m := assign.Member{Generation: -1}
	var x memberExtra
	start := g.d.pos
	var haveID, haveTopics bool
	optional := func(read func() *Error) *Error {
		if null, err := g.null(); null || err != nil {
			return err
		}
		return read()
	}
	err := g.obj(path, func(key string, keyOff int) *Error {
		var err *Error
		switch key {
		case "id":
			haveID = true
			m.ID, err = g.str(field(path, key))
		case "instance":
			err = optional(func() (err *Error) { m.InstanceID, err = g.str(field(path, key)); return })
		case "rack":
			err = optional(func() (err *Error) { m.Rack, err = g.str(field(path, key)); return })
		case "topics":
			haveTopics = true
			m.Topics, err = g.strings(field(path, key))
		case "topicRegex":
			err = optional(func() (err *Error) { m.TopicRegex, err = g.topicRegex(field(path, key)); return })
		case "owned":
			err = optional(func() (err *Error) { m.Owned, err = g.owned(field(path, key)); return })
		case "generation":
			err = optional(func() (err *Error) { m.Generation, err = g.int32(field(path, key)); return })
		case "protocols":
			err = optional(func() (err *Error) { x.protocols, err = g.strings(field(path, key)); return })
		case "client":
			err = optional(func() (err *Error) { x.client, err = g.str(field(path, key)); return })
		default:
			err = g.unknown(path, key, keyOff)
		}
		return err
	})
	if err != nil {
		return m, x, err
	}
	switch {
	case !haveID:
		return m, x, g.missing(path, "id", start)
	case !haveTopics && m.TopicRegex == "":
		return m, x, g.missing(path, "topics", start)
	}
	if len(m.Topics) == 0 && m.TopicRegex != "" {
		m.Topics = nil // as the writer leaves "topics" out, "topics": [] beside a pattern reads as none
	}
	return m, x, nil
}

// topicRegex reads a member's subscription by pattern (KIP-848's
// SubscribedTopicRegex) and refuses one Go's regexp cannot compile here,
// where the error can name its place in the file; assign resolves it.
func (g *groupReader) topicRegex(path string) (string, *Error) {
	off := g.d.pos
	s, err := g.str(path)
	if err != nil {
		return "", err
	}
	if _, cerr := regexp.Compile(s); cerr != nil {
		return "", g.d.errAt(off, path, fmt.Errorf("%w %q: %v", assign.ErrTopicRegex, s, cerr))
	}
	return s, nil
}

func (g *groupReader) owned(path string) ([]assign.TopicPartition, *Error) {
	var out []assign.TopicPartition
	err := g.obj(path, func(topic string, _ int) *Error {
		tpath := field(path, topic)
		return g.arr(tpath, func(i int) *Error {
			p, err := g.int32(index(tpath, i))
			out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
			return err
		})
	})
	return out, err
}
