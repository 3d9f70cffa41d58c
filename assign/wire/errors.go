package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors wrapped in a [*DecodeError] to say what kind of problem the bytes
// have. Use [errors.Is] to branch on them.
var (
	// ErrTruncated: the input ends inside a field, or a length or count
	// declares more than the bytes that are left could hold.
	ErrTruncated = errors.New("truncated")
	// ErrNegativeLength: a length or count is negative and is not the
	// protocol's null marker -1.
	ErrNegativeLength = errors.New("negative length")
	// ErrUnexpectedNull: a length or count is -1 (null) in a field the
	// protocol does not allow to be null.
	ErrUnexpectedNull = errors.New("null in a non-nullable field")
	// ErrUnsupportedVersion: the version header is negative. (Versions
	// above the highest known one are read as the highest known one.)
	ErrUnsupportedVersion = errors.New("unsupported version")
)

// Errors returned by the encoders.
var (
	// ErrTooLong: a string is longer than the 32767 bytes an int16 length
	// can declare, or a list or byte slice longer than an int32 can count.
	ErrTooLong = errors.New("too long for the protocol")
)

// DecodeError reports bytes that are not a valid message: which message,
// which field, and the byte offset at which the field (or its length
// prefix) starts. Err is one of [ErrTruncated], [ErrNegativeLength],
// [ErrUnexpectedNull] or [ErrUnsupportedVersion].
type DecodeError struct {
	Message string // "subscription", "assignment", "sticky user data" or "cooperative-sticky user data"
	Version int16  // version of the message being read; -1 when unknown or unversioned
	Field   string // path of the field in Kafka's schema names: "owned_partitions[0].partitions"
	Offset  int    // byte offset of the field, or of its length prefix, in the input
	Err     error

	detail string // what was found, for Error; Err.Error() when empty
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("wire: ")
	b.WriteString(e.Message)
	if e.Version >= 0 {
		b.WriteString(" v")
		b.WriteString(strconv.Itoa(int(e.Version)))
	}
	b.WriteString(": ")
	b.WriteString(e.Field)
	b.WriteString(": ")
	if e.detail != "" {
		b.WriteString(e.detail)
	} else {
		fmt.Fprintf(&b, "%v at offset %d", e.Err, e.Offset)
	}
	return b.String()
}

func (e *DecodeError) Unwrap() error { return e.Err }

// field names a field for error messages without formatting anything until
// an error happens: name, name[index] or name[index].sub.
type field struct {
	name  string
	index int // -1: not an element of a list
	sub   string
}

func plain(name string) field { return field{name: name, index: -1} }

func (f field) String() string {
	if f.index < 0 {
		return f.name
	}
	s := f.name + "[" + strconv.Itoa(f.index) + "]"
	if f.sub != "" {
		s += "." + f.sub
	}
	return s
}
