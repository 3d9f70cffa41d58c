package wire

import "github.com/assigncalc/assigncalc/assign"

// Assignment is ConsumerProtocolAssignment: what the group leader sends
// each member in SyncGroup, and each member receives back.
//
// Its layout is the same in every version (versions 1 to 3 exist only to
// follow the subscription's):
//
//	version             int16           the header
//	assigned_partitions [topic [int32]] v0+
//	user_data           nullable bytes  v0+  int32 length, -1 = null
type Assignment struct {
	// Version is the version the bytes declared when decoded, which may be
	// above MaxAssignmentVersion. When encoding, it is the version to
	// write: AutoVersion writes 0 (every version carries every field), and
	// versions above MaxAssignmentVersion are written as it.
	Version int16

	// Partitions are the assigned partitions, grouped by topic on the wire
	// and flattened here in wire order.
	Partitions []assign.TopicPartition

	// UserData is the assignor's data for the member: nil is null, a
	// non-nil empty slice is empty. None of Kafka's built-in assignors
	// writes any.
	UserData []byte
}

// DecodeAssignment decodes a ConsumerProtocolAssignment of any version. It
// refuses bytes that end early or declare impossible lengths with a
// [*DecodeError], and never allocates more than a small multiple of
// len(b). Bytes after the user data are ignored.
func DecodeAssignment(b []byte) (Assignment, error) {
	var a Assignment
	err := a.UnmarshalBinary(b)
	return a, err
}

// UnmarshalBinary decodes b into a; see [DecodeAssignment].
func (a *Assignment) UnmarshalBinary(b []byte) error {
	*a = Assignment{}
	r := &reader{src: b, message: "assignment", version: -1}
	v, err := r.int16(plain("version"))
	if err != nil {
		return err
	}
	if v < 0 {
		return r.fail(plain("version"), 0, ErrUnsupportedVersion, "version %d at offset 0 is negative", v)
	}
	a.Version, r.version = v, v
	if a.Partitions, err = r.topicPartitions("assigned_partitions"); err != nil {
		return err
	}
	a.UserData, err = r.nullableBytes(plain("user_data"))
	return err
}

// AppendTo appends a, encoded at a.Version, to dst. Partitions are written
// one topic entry per run of consecutive partitions of one topic: sort them
// (as [assign.Assignment] lists are) for one entry per topic.
func (a Assignment) AppendTo(dst []byte) ([]byte, error) {
	v, err := encodeVersion("assignment", a.Version, 0, MaxAssignmentVersion)
	if err != nil {
		return dst, err
	}
	w := &writer{buf: dst, message: "assignment", version: v}
	w.int16(v)
	w.topicPartitions("assigned_partitions", a.Partitions)
	w.nullableBytes(plain("user_data"), a.UserData)
	if w.err != nil {
		return dst, w.err
	}
	return w.buf, nil
}

// MarshalBinary encodes a at a.Version; see [Assignment.AppendTo].
func (a Assignment) MarshalBinary() ([]byte, error) { return a.AppendTo(nil) }
