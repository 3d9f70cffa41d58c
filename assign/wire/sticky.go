package wire

import (
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// StickyUserData is the user data Kafka's eager StickyAssignor puts in each
// member's subscription: the partitions the member was assigned last, and
// (version 1, Kafka 2.3+) the generation of that assignment. The leader
// reads it to keep partitions where they were.
//
// It has no version header; the versions differ only by the trailing
// generation:
//
//	previous_assignment [topic [int32]]  v0+
//	generation          int32            v1+
//
// Kafka reads version 1 and falls back to version 0 when no generation
// follows the list (StickyAssignor.deserializeTopicPartitionAssignment);
// [DecodeStickyUserData] does the same.
type StickyUserData struct {
	// Version is 1 when the data carries a generation, 0 when not. When
	// encoding it is the lowest version to write, 0 or 1 (AutoVersion
	// counts as 0): version 1 is written whenever Generation is not
	// DefaultGeneration, so the generation is never dropped. The zero
	// value's Generation, 0, is a generation: set DefaultGeneration for
	// version 0 bytes.
	Version int16

	// Previous is the member's previous assignment, flattened in wire
	// order.
	Previous []assign.TopicPartition

	// Generation is the generation of Previous; DefaultGeneration (-1) in
	// version 0.
	Generation int32
}

// DecodeStickyUserData decodes StickyAssignor user data. Four or more bytes
// after the partition list make it version 1 (bytes after the generation
// are ignored); fewer make it version 0, as in Kafka. A partition list that
// cannot be read is a [*DecodeError]. Note that Kafka's leader treats
// null or empty user data as "no previous assignment" rather than as an
// error; [GroupFromJoin] does the same.
func DecodeStickyUserData(b []byte) (StickyUserData, error) {
	r := &reader{src: b, message: "sticky user data", version: -1}
	prev, err := r.topicPartitions("previous_assignment")
	if err != nil {
		return StickyUserData{}, err
	}
	d := StickyUserData{Version: 0, Previous: prev, Generation: DefaultGeneration}
	if r.left() >= 4 {
		d.Version = 1
		d.Generation, _ = r.int32(plain("generation"))
	}
	return d, nil
}

// AppendTo appends d to dst, encoded at d.Version, or at version 1 when
// d.Generation is set (see [StickyUserData.Version]).
func (d StickyUserData) AppendTo(dst []byte) ([]byte, error) {
	v := d.Version
	switch {
	case v == AutoVersion:
		v = 0
	case v != 0 && v != 1:
		return dst, fmt.Errorf("wire: sticky user data: cannot encode version %d, only 0 and 1 exist: %w", v, ErrUnsupportedVersion)
	}
	if d.Generation != DefaultGeneration {
		v = 1
	}
	w := &writer{buf: dst, message: "sticky user data", version: v}
	w.topicPartitions("previous_assignment", d.Previous)
	if v >= 1 {
		w.int32(d.Generation)
	}
	if w.err != nil {
		return dst, w.err
	}
	return w.buf, nil
}

// MarshalBinary encodes d; see [StickyUserData.AppendTo].
func (d StickyUserData) MarshalBinary() ([]byte, error) { return d.AppendTo(nil) }

// AppendCooperativeUserData appends the user data Kafka's
// CooperativeStickyAssignor puts in its subscription: the generation of the
// member's owned partitions, as a bare int32. Since subscription version 2
// the generation also travels in [Subscription.GenerationID], which Kafka
// prefers; clients keep writing the user data for leaders that read v1.
func AppendCooperativeUserData(dst []byte, generation int32) []byte {
	w := &writer{buf: dst}
	w.int32(generation)
	return w.buf
}

// DecodeCooperativeUserData reads the generation of CooperativeStickyAssignor
// user data. Bytes after the first four are ignored; fewer than four are a
// [*DecodeError]. (Kafka's leader then takes the generation to be
// DefaultGeneration, and so does [GroupFromJoin].)
func DecodeCooperativeUserData(b []byte) (int32, error) {
	r := &reader{src: b, message: "cooperative-sticky user data", version: -1}
	return r.int32(plain("generation"))
}
