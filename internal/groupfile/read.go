// Package groupfile reads and writes the JSON contract of assigncalc: group
// files (one JSON object per group, or JSON lines of many groups) and the
// results computed from them (one JSON object per group and strategy).
//
// A group file looks like this (comments are not part of the format):
//
//	{"name": "checkout-service",                 // optional label, echoed back
//	 "topics": {"t1": 7, "t2": 3},               // topic -> partition count
//	 "partitionRacks": {"t1": [["a","b"], ...]}, // optional: per partition, racks of its replicas
//	 "members": [
//	   {"id": "c0",                              // member.id
//	    "instance": "i0",                        // optional group.instance.id
//	    "rack": "a",                             // optional client.rack
//	    "topics": ["t1", "t2"],                  // subscription
//	    "owned": {"t1": [0, 1]},                 // optional: previously owned partitions
//	    "generation": 3,                         // optional: generation of owned
//	    "protocols": ["cooperative-sticky", "range"]}  // optional: for the vote, in preference order
//	 ]}
//
// The reader is strict: unknown or repeated keys, values of the wrong type,
// numbers that are not integers in int32 and missing required fields
// ("topics", "members", a member's "id" and "topics") are refused with an
// [*Error] giving the line, column and path of the fault. Optional fields
// may be null, which means absent. What the group means (duplicate member
// IDs, negative partition counts, ...) is left to [assign.Group.Validate].
package groupfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

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

// decoder is a strict reader of JSON values with positions. It is written
// by hand rather than over encoding/json so that every error, syntax or
// schema, carries a line and a column, duplicate keys are seen, and one bad
// group does not stop the next from being read.
type decoder struct {
	data []byte
	pos  int

	// Line bookkeeping for pos -> line, column; positions asked for only
	// grow within one group, so a forward scan from the last answer is
	// enough in the common case.
	lineAt, lineOff, line int
}

func newDecoder(data []byte) *decoder {
	return &decoder{data: data, line: 1}
}

// position returns the 1-based line and byte column of offset off.
func (d *decoder) position(off int) (line, col int) {
	if off < d.lineAt {
		d.lineAt, d.lineOff, d.line = 0, 0, 1
	}
	off = min(off, len(d.data))
	for i := d.lineAt; i < off; i++ {
		if d.data[i] == '\n' {
			d.line++
			d.lineOff = i + 1
		}
	}
	d.lineAt = off
	return d.line, off - d.lineOff + 1
}

func (d *decoder) errAt(off int, path string, err error) *Error {
	line, col := d.position(off)
	return &Error{Line: line, Column: col, Path: path, Err: err}
}

func (d *decoder) syntaxf(off int, format string, args ...any) *Error {
	return d.errAt(off, "", fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(format, args...)))
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// more reports whether a value follows.
func (d *decoder) more() bool {
	d.skipSpace()
	return d.pos < len(d.data)
}

// kind of a JSON value, from its first byte.
type kind byte

const (
	kindObject kind = '{'
	kindArray  kind = '['
	kindString kind = '"'
	kindNumber kind = '0'
	kindBool   kind = 't'
	kindNull   kind = 'n'
	kindBad    kind = 0
)

func (k kind) String() string {
	switch k {
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindBool:
		return "a boolean"
	case kindNull:
		return "null"
	}
	return "nothing"
}

// peek skips space and returns the kind of the next value.
func (d *decoder) peek() kind {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return kindBad
	}
	switch c := d.data[d.pos]; {
	case c == '{', c == '[', c == '"':
		return kind(c)
	case c == '-' || '0' <= c && c <= '9':
		return kindNumber
	case c == 't' || c == 'f':
		return kindBool
	case c == 'n':
		return kindNull
	}
	return kindBad
}

// group reads one top-level value as a group. On an error about content
// it skips the rest of the value, so that the next call starts at the next
// group, and returns what it could read of the name and line.
func (d *decoder) group() (Entry, *Error) {
	var e Entry
	start := d.pos
	e.Line, _ = d.position(start)
	g := &groupReader{d: d}
	err := g.read(&e)
	if err != nil && !errors.Is(err, ErrSyntax) {
		// Skip what remains of the value so that the next group can be read.
		d.pos = start
		if serr := d.skipValue(); serr != nil {
			return e, serr
		}
	}
	if err != nil {
		return e, err
	}
	return e, nil
}

// maxDepth bounds the nesting of arrays and objects skipValue follows. The
// contract nests five deep; the bound keeps hostile input such as a
// million '[' from exhausting the stack.
const maxDepth = 100

// skipValue reads past one value, checking only its syntax.
func (d *decoder) skipValue() *Error {
	return d.skip(0)
}

func (d *decoder) skip(depth int) *Error {
	k := d.peek()
	if (k == kindObject || k == kindArray) && depth >= maxDepth {
		return d.syntaxf(d.pos, "nested more than %d deep", maxDepth)
	}
	switch k {
	case kindObject:
		d.pos++
		if d.peekByte() == '}' {
			d.pos++
			return nil
		}
		for {
			if d.peek() != kindString {
				return d.syntaxf(d.pos, "want a string key, found %s", d.describe())
			}
			if _, err := d.str(); err != nil {
				return err
			}
			if err := d.expect(':'); err != nil {
				return err
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			done, err := d.next('}')
			if err != nil || done {
				return err
			}
		}
	case kindArray:
		d.pos++
		if d.peekByte() == ']' {
			d.pos++
			return nil
		}
		for {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
			done, err := d.next(']')
			if err != nil || done {
				return err
			}
		}
	case kindString:
		_, err := d.str()
		return err
	case kindNumber:
		_, err := d.number()
		return err
	case kindBool, kindNull:
		return d.literal()
	default:
		return d.syntaxf(d.pos, "want a value, found %s", d.describe())
	}
}

// peekByte skips space and returns the next byte, 0 at the end.
func (d *decoder) peekByte() byte {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return 0
	}
	return d.data[d.pos]
}

// describe names what is at pos for an error message.
func (d *decoder) describe() string {
	if d.pos >= len(d.data) {
		return "the end of the input"
	}
	r := []rune(string(d.data[d.pos:min(len(d.data), d.pos+4)]))
	if len(r) == 0 || r[0] == 0xFFFD {
		return fmt.Sprintf("byte %#02x", d.data[d.pos])
	}
	return strconv.QuoteRune(r[0])
}

// expect skips space and consumes the byte c.
func (d *decoder) expect(c byte) *Error {
	if d.peekByte() != c {
		return d.syntaxf(d.pos, "want %q, found %s", c, d.describe())
	}
	d.pos++
	return nil
}

// next reads the separator after an element of an object or array: ','
// (more follow) or the closing byte (done).
func (d *decoder) next(closing byte) (done bool, err *Error) {
	switch d.peekByte() {
	case ',':
		d.pos++
		return false, nil
	case closing:
		d.pos++
		return true, nil
	}
	return false, d.syntaxf(d.pos, "want ',' or %q, found %s", closing, d.describe())
}

// literal reads true, false or null.
func (d *decoder) literal() *Error {
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(d.data[d.pos:], []byte(lit)) {
			d.pos += len(lit)
			return nil
		}
	}
	return d.syntaxf(d.pos, "want a value, found %s", d.describe())
}

// number reads a JSON number and returns its text.
func (d *decoder) number() (string, *Error) {
	start := d.pos
	p := d.pos
	data := d.data
	digits := func() int {
		n := 0
		for p < len(data) && '0' <= data[p] && data[p] <= '9' {
			p++
			n++
		}
		return n
	}
	if p < len(data) && data[p] == '-' {
		p++
	}
	switch {
	case p < len(data) && data[p] == '0':
		p++
	case digits() == 0:
		d.pos = p
		return "", d.syntaxf(p, "bad number: want a digit, found %s", d.describe())
	}
	if p < len(data) && data[p] == '.' {
		p++
		if digits() == 0 {
			d.pos = p
			return "", d.syntaxf(p, "bad number: want a digit after '.', found %s", d.describe())
		}
	}
	if p < len(data) && (data[p] == 'e' || data[p] == 'E') {
		p++
		if p < len(data) && (data[p] == '+' || data[p] == '-') {
			p++
		}
		if digits() == 0 {
			d.pos = p
			return "", d.syntaxf(p, "bad number: want a digit in the exponent, found %s", d.describe())
		}
	}
	d.pos = p
	return string(data[start:p]), nil
}

// str reads a JSON string and returns its value. Invalid UTF-8 and lone
// surrogate escapes become U+FFFD, as encoding/json does, so every string
// read is valid UTF-8.
func (d *decoder) str() (string, *Error) {
	start := d.pos
	d.pos++ // opening quote
	data := d.data
	// Fast path: no escapes, valid UTF-8.
	for p := d.pos; p < len(data); p++ {
		c := data[p]
		if c == '"' {
			s := string(data[d.pos:p])
			d.pos = p + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	var b strings.Builder
	p := d.pos
	for {
		if p >= len(data) {
			d.pos = p
			return "", d.syntaxf(start, "string not terminated")
		}
		c := data[p]
		switch {
		case c == '"':
			d.pos = p + 1
			return b.String(), nil
		case c < 0x20:
			d.pos = p
			return "", d.syntaxf(p, "control character %#02x in string", c)
		case c == '\\':
			if p+1 >= len(data) {
				d.pos = p + 1
				return "", d.syntaxf(start, "string not terminated")
			}
			switch e := data[p+1]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
				p += 2
			case 'b':
				b.WriteByte('\b')
				p += 2
			case 'f':
				b.WriteByte('\f')
				p += 2
			case 'n':
				b.WriteByte('\n')
				p += 2
			case 'r':
				b.WriteByte('\r')
				p += 2
			case 't':
				b.WriteByte('\t')
				p += 2
			case 'u':
				r, ok := hex4(data, p+2)
				if !ok {
					return "", d.syntaxf(p, "bad \\u escape in string")
				}
				p += 6
				if 0xD800 <= r && r < 0xDC00 {
					// A high surrogate must be followed by an escaped low one.
					if lo, ok := hex4(data, p+2); ok && p+1 < len(data) && data[p] == '\\' && data[p+1] == 'u' && 0xDC00 <= lo && lo < 0xE000 {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						p += 6
					} else {
						r = 0xFFFD
					}
				} else if 0xDC00 <= r && r < 0xE000 {
					r = 0xFFFD
				}
				b.WriteRune(r)
			default:
				return "", d.syntaxf(p, "bad escape \\%c in string", e)
			}
		case c < 0x80:
			b.WriteByte(c)
			p++
		default:
			r, size := utf8.DecodeRune(data[p:])
			b.WriteRune(r)
			p += size
		}
	}
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
			e.Group.Members, e.Protocols, err = g.members()
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

func (g *groupReader) partitionRacks() (map[string][][]string, *Error) {
	out := make(map[string][][]string)
	err := g.obj("partitionRacks", func(key string, _ int) *Error {
		path := field("partitionRacks", key)
		lists := [][]string{}
		err := g.arr(path, func(p int) *Error {
			racks, err := g.strings(index(path, p))
			lists = append(lists, racks)
			return err
		})
		out[key] = lists
		return err
	})
	return out, err
}

func (g *groupReader) members() ([]assign.Member, [][]string, *Error) {
	g.d.skipSpace()
	off := g.d.pos
	if null, err := g.null(); null || err != nil {
		if err == nil {
			err = g.missing("", "members", off)
		}
		return nil, nil, err
	}
	members := []assign.Member{}
	var protocols [][]string
	err := g.arr("members", func(i int) *Error {
		m, protos, err := g.member(index("members", i))
		members = append(members, m)
		protocols = append(protocols, protos)
		return err
	})
	return members, protocols, err
}

func (g *groupReader) member(path string) (assign.Member, []string, *Error) {
	m := assign.Member{Generation: -1}
	var protocols []string
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
		case "owned":
			err = optional(func() (err *Error) { m.Owned, err = g.owned(field(path, key)); return })
		case "generation":
			err = optional(func() (err *Error) { m.Generation, err = g.int32(field(path, key)); return })
		case "protocols":
			err = optional(func() (err *Error) { protocols, err = g.strings(field(path, key)); return })
		default:
			err = g.unknown(path, key, keyOff)
		}
		return err
	})
	if err != nil {
		return m, protocols, err
	}
	switch {
	case !haveID:
		return m, protocols, g.missing(path, "id", start)
	case !haveTopics:
		return m, protocols, g.missing(path, "topics", start)
	}
	return m, protocols, nil
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

// hex4 reads four hex digits at data[p:].
func hex4(data []byte, p int) (rune, bool) {
	if p+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[p : p+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
