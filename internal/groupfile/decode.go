package groupfile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
