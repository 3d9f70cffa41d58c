package wire

import (
	"encoding/binary"
	"fmt"
	"iter"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/intern"
)

// reader reads Kafka's classic (non-flexible) encoding: big-endian
// integers, strings with an int16 length, byte slices and arrays with an
// int32 length or count, -1 meaning null where the schema allows it.
//
// Every length and count is checked against the bytes left before anything
// is allocated, so a decoder allocates at most a small multiple of its
// input, whatever the input declares.
type reader struct {
	src     []byte
	off     int
	message string
	version int16 // -1 until known
}

func (r *reader) left() int { return len(r.src) - r.off }

func (r *reader) fail(f field, at int, err error, format string, args ...any) *DecodeError {
	return &DecodeError{
		Message: r.message,
		Version: r.version,
		Field:   f.String(),
		Offset:  at,
		Err:     err,
		detail:  fmt.Sprintf(format, args...),
	}
}

func (r *reader) need(f field, n int) error {
	if r.left() < n {
		return r.fail(f, r.off, ErrTruncated, "need %d bytes at offset %d, %d left", n, r.off, r.left())
	}
	return nil
}

func (r *reader) int16(f field) (int16, error) {
	if err := r.need(f, 2); err != nil {
		return 0, err
	}
	v := int16(binary.BigEndian.Uint16(r.src[r.off:]))
	r.off += 2
	return v, nil
}

func (r *reader) int32(f field) (int32, error) {
	if err := r.need(f, 4); err != nil {
		return 0, err
	}
	v := int32(binary.BigEndian.Uint32(r.src[r.off:]))
	r.off += 4
	return v, nil
}

// count reads an array's int32 element count and checks that that many
// elements of at least minSize bytes each fit in what is left. A null
// array (-1) is refused: no array of the consumer protocol is nullable.
func (r *reader) count(f field, minSize int) (int, error) {
	at := r.off
	n, err := r.int32(f)
	if err != nil {
		return 0, err
	}
	switch {
	case n == -1:
		return 0, r.fail(f, at, ErrUnexpectedNull, "count -1 (null) at offset %d in an array that cannot be null", at)
	case n < 0:
		return 0, r.fail(f, at, ErrNegativeLength, "count %d at offset %d is negative", n, at)
	case int64(n)*int64(minSize) > int64(r.left()):
		return 0, r.fail(f, at, ErrTruncated, "count %d at offset %d exceeds the %d bytes left", n, at, r.left())
	}
	return int(n), nil
}

// stringBytes reads a string's int16 length and returns its bytes, or
// null=true for a nullable string whose length is -1.
func (r *reader) stringBytes(f field, nullable bool) (b []byte, null bool, err error) {
	at := r.off
	n, err := r.int16(f)
	if err != nil {
		return nil, false, err
	}
	switch {
	case n == -1 && nullable:
		return nil, true, nil
	case n == -1:
		return nil, false, r.fail(f, at, ErrUnexpectedNull, "length -1 (null) at offset %d in a string that cannot be null", at)
	case n < 0:
		return nil, false, r.fail(f, at, ErrNegativeLength, "length %d at offset %d is negative", n, at)
	case int(n) > r.left():
		return nil, false, r.fail(f, at, ErrTruncated, "length %d at offset %d exceeds the %d bytes left", n, at, r.left())
	}
	b = r.src[r.off : r.off+int(n)]
	r.off += int(n)
	return b, false, nil
}

func (r *reader) string(f field) (string, error) {
	b, _, err := r.stringBytes(f, false)
	return string(b), err
}

func (r *reader) nullableString(f field) (*string, error) {
	b, null, err := r.stringBytes(f, true)
	if err != nil || null {
		return nil, err
	}
	s := string(b)
	return &s, nil
}

// nullableBytes reads bytes with an int32 length, -1 meaning null (nil).
// The result is a copy: it never aliases the input. An empty, non-null
// value is a non-nil empty slice.
func (r *reader) nullableBytes(f field) ([]byte, error) {
	b, err := r.bytesView(f)
	if b == nil || err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(b)), b...), nil
}

// bytesView reads what nullableBytes does, without the copy: the result
// aliases the input.
func (r *reader) bytesView(f field) ([]byte, error) {
	at := r.off
	n, err := r.int32(f)
	if err != nil {
		return nil, err
	}
	switch {
	case n == -1:
		return nil, nil
	case n < 0:
		return nil, r.fail(f, at, ErrNegativeLength, "length %d at offset %d is negative", n, at)
	case int64(n) > int64(r.left()):
		return nil, r.fail(f, at, ErrTruncated, "length %d at offset %d exceeds the %d bytes left", n, at, r.left())
	}
	b := r.src[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// topicPartitions reads Kafka's [Topic [Partition]] list and flattens it in
// wire order. A topic entry with no partitions contributes nothing.
//
// It reads the list twice: once to check every count and length and to
// count the partitions (scanTopicPartitions), once to fill a slice of
// exactly that many. So the result takes 24 bytes per 4-byte partition on
// the wire, whatever the grouping, and a hostile list allocates nothing
// before it is refused.
func (r *reader) topicPartitions(name string) ([]assign.TopicPartition, error) {
	first, total, err := r.scanTopicPartitions(name)
	if err != nil || total == 0 {
		return nil, err
	}
	return appendTopicPartitions(make([]assign.TopicPartition, 0, total), r.src[first:r.off], nil), nil
}

// scanTopicPartitions checks a [Topic [Partition]] list, leaves r after
// it, and returns where its entries start and how many partitions it
// holds.
func (r *reader) scanTopicPartitions(name string) (first, total int, err error) {
	n, err := r.count(plain(name), 2+4) // each entry: a string length and a partition count
	if err != nil {
		return 0, 0, err
	}
	first = r.off
	for i := range n {
		if _, _, err := r.stringBytes(field{name, i, "topic"}, false); err != nil {
			return 0, 0, err
		}
		np, err := r.count(field{name, i, "partitions"}, 4)
		if err != nil {
			return 0, 0, err
		}
		r.off += 4 * np
		total += np
	}
	return first, total, nil
}

// appendTopicPartitions appends the partitions of entries, the entries of
// a list scanTopicPartitions checked, to dst. Topic names are the
// strings of names when it holds them (see [topicTable]), and new strings
// otherwise.
func appendTopicPartitions(dst []assign.TopicPartition, entries []byte, names *topicTable) []assign.TopicPartition {
	var c intern.Cursor
	for name, parts := range checkedEntries(entries) {
		if len(parts) == 0 {
			continue
		}
		var topic string
		if names != nil {
			topic, _ = names.lookup(name, &c)
		} else {
			topic = string(name)
		}
		for p := 0; p < len(parts); p += 4 {
			dst = append(dst, assign.TopicPartition{Topic: topic, Partition: int32(binary.BigEndian.Uint32(parts[p:]))})
		}
	}
	return dst
}

// checkedEntries walks the entries of a [topic [partition]] list that
// scanTopicPartitions checked (its count left out), yielding each
// entry's topic name and its partitions' bytes, four a partition. It is
// the one walk over such lists for every decoder of the package.
func checkedEntries(entries []byte) iter.Seq2[[]byte, []byte] {
	return func(yield func(name, parts []byte) bool) {
		for p := 0; p < len(entries); {
			tlen := int(binary.BigEndian.Uint16(entries[p:]))
			name := entries[p+2 : p+2+tlen]
			p += 2 + tlen
			end := p + 4 + 4*int(binary.BigEndian.Uint32(entries[p:]))
			if !yield(name, entries[p+4:end]) {
				return
			}
			p = end
		}
	}
}

// checkedStrings walks an array of strings that a reader checked, its
// count first, yielding each string's bytes.
func checkedStrings(array []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for p := 4; p < len(array); {
			end := p + 2 + int(binary.BigEndian.Uint16(array[p:]))
			if !yield(array[p+2 : end]) {
				return
			}
			p = end
		}
	}
}
