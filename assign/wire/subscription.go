package wire

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/assigncalc/assigncalc/assign"
)

// Versions of the consumer protocol this package knows. A message that
// declares a higher version is read as the highest known one, and the bytes
// after the fields of that version are ignored, as Kafka's Java client does
// (ConsumerProtocol.checkSubscriptionVersion): the consumer protocol only
// ever appends fields.
const (
	MaxSubscriptionVersion int16 = 3
	MaxAssignmentVersion   int16 = 3
)

// AutoVersion, as a message's Version, makes the encoder pick the lowest
// version that carries every field that is set. Version 0, the zero value,
// does the same: an encoder never writes a version too low for the fields
// that are set (see [Subscription.Version]), so AutoVersion is only a way
// of saying so at the call site.
const AutoVersion int16 = -1

// DefaultGeneration is Kafka's "no generation" (AbstractStickyAssignor's
// DEFAULT_GENERATION): the value of a generation that is absent.
const DefaultGeneration int32 = -1

// Subscription is ConsumerProtocolSubscription: the protocol metadata a
// member of a "consumer" group sends in JoinGroup, and the leader receives
// for every member in the JoinGroup response.
//
// Its layout, all integers big-endian, strings with an int16 length:
//
//	version          int16          the header
//	topics           [string]       v0+  int32 count
//	user_data        nullable bytes v0+  int32 length, -1 = null
//	owned_partitions [topic [int32]] v1+ KIP-429
//	generation_id    int32          v2+  KIP-792, -1 = none
//	rack_id          nullable string v3+ KIP-881, -1 = null
//
// Fields a version does not carry are "ignorable" in Kafka's schema: an
// encoder writing an older version drops them, and a decoder reading one
// leaves them at their defaults (nil, -1, nil).
type Subscription struct {
	// Version is the version the bytes declared when decoded, which may be
	// above MaxSubscriptionVersion. When encoding, it is the lowest
	// version to write: the encoder writes
	//
	//	min(max(Version, MinVersion()), MaxSubscriptionVersion)
	//
	// so a field that is set is never dropped. The zero value (0, or
	// AutoVersion) therefore writes the lowest version that carries every
	// field set: a Subscription{Topics: ..., OwnedPartitions: ...} is
	// written as v2 (GenerationID 0 is a generation, see below), not as v0
	// bytes that silently lose the owned partitions, which would make a
	// cooperative leader revoke them all. Set GenerationID to
	// DefaultGeneration, and leave the later fields at their defaults, for
	// v0 or v1 bytes. What a decoder returns re-encodes to the same
	// version, since it leaves the fields its version lacks at their
	// defaults.
	Version int16

	// Topics is the subscription, in the order given.
	Topics []string

	// UserData is the assignor's data: nil is null, a non-nil empty slice
	// is empty. The sticky assignors put their state here (see
	// [StickyUserData] and [AppendCooperativeUserData]).
	UserData []byte

	// OwnedPartitions (v1+) are the partitions the member owns, grouped by
	// topic on the wire and flattened here in wire order.
	OwnedPartitions []assign.TopicPartition

	// GenerationID (v2+) is the generation in which the member owned
	// OwnedPartitions; DefaultGeneration (-1) when absent. Its zero value
	// 0 is a generation like any other: it makes the encoder write v2.
	GenerationID int32

	// RackID (v3+) is the member's client.rack; nil is null. Kafka treats
	// null and "" alike (no rack); this type keeps them apart so that bytes
	// round-trip exactly.
	RackID *string
}

// MinVersion returns the lowest version that carries every field of s that
// differs from its default.
func (s *Subscription) MinVersion() int16 {
	switch {
	case s.RackID != nil:
		return 3
	case s.GenerationID != DefaultGeneration:
		return 2
	case len(s.OwnedPartitions) > 0:
		return 1
	}
	return 0
}

// DecodeSubscription decodes a ConsumerProtocolSubscription of any version.
// It refuses bytes that end early or declare impossible lengths with a
// [*DecodeError], and never allocates more than a small multiple of
// len(b). Bytes after the last field it knows are ignored.
func DecodeSubscription(b []byte) (Subscription, error) {
	var s Subscription
	err := s.UnmarshalBinary(b)
	return s, err
}

// UnmarshalBinary decodes b into s; see [DecodeSubscription].
func (s *Subscription) UnmarshalBinary(b []byte) error {
	*s = Subscription{GenerationID: DefaultGeneration}
	v, err := readSubscription(b, nil)
	if err != nil {
		return err
	}
	s.Version, s.GenerationID = v.version, v.generation
	if n := v.numTopics(); n > 0 {
		s.Topics = make([]string, 0, n)
		for name := range checkedStrings(v.topics) {
			s.Topics = append(s.Topics, string(name))
		}
	}
	if v.userData != nil {
		s.UserData = append(make([]byte, 0, len(v.userData)), v.userData...)
	}
	if v.ownedTotal > 0 {
		s.OwnedPartitions = appendTopicPartitions(make([]assign.TopicPartition, 0, v.ownedTotal), v.owned, nil)
	}
	if !v.rackNull {
		rack := string(v.rack)
		s.RackID = &rack
	}
	return nil
}

// subscriptionView is a ConsumerProtocolSubscription that
// readSubscription checked, its arrays, bytes and strings still views of
// the message: what [Subscription.UnmarshalBinary] copies out, and what
// the JoinGroup decoder interns without copying.
type subscriptionView struct {
	version    int16
	topics     []byte // the topics array, its count first; see checkedStrings
	sameTopics bool   // topics are the bytes of readSubscription's known array
	userData   []byte // nil when null
	owned      []byte // the owned_partitions entries (v1+); see checkedEntries
	ownedTotal int    // the partitions owned holds
	generation int32  // DefaultGeneration before v2
	rack       []byte // rack_id (v3+)
	rackNull   bool   // rack_id is null, or absent
}

// numTopics returns the number of topics subscribed to.
func (v *subscriptionView) numTopics() int { return int(binary.BigEndian.Uint32(v.topics)) }

// readSubscription reads and checks the ConsumerProtocolSubscription b,
// with every check and error of [DecodeSubscription]: it is the one
// decoder of the message, for DecodeSubscription and for the leader's
// JoinGroup decoder. known, when not nil, is a topics array a call before
// checked: when b's topics array starts with those bytes, it is that
// array, and is not checked again (members that subscribe alike send
// the same array).
func readSubscription(b, known []byte) (subscriptionView, error) {
	var v subscriptionView
	r := &reader{src: b, message: "subscription", version: -1}
	version, err := r.int16(plain("version"))
	if err != nil {
		return v, err
	}
	if version < 0 {
		return v, r.fail(plain("version"), 0, ErrUnsupportedVersion, "version %d at offset 0 is negative", version)
	}
	v.version, r.version = version, version

	at := r.off
	if known != nil && r.left() >= len(known) && bytes.Equal(b[at:at+len(known)], known) {
		v.sameTopics = true
		r.off += len(known)
	} else {
		n, err := r.count(plain("topics"), 2)
		if err != nil {
			return v, err
		}
		for k := range n {
			if _, _, err := r.stringBytes(field{"topics", k, ""}, false); err != nil {
				return v, err
			}
		}
	}
	v.topics = b[at:r.off:r.off]

	if v.userData, err = r.bytesView(plain("user_data")); err != nil {
		return v, err
	}
	if version >= 1 {
		first, total, err := r.scanTopicPartitions("owned_partitions")
		if err != nil {
			return v, err
		}
		v.owned, v.ownedTotal = b[first:r.off:r.off], total
	}
	v.generation = DefaultGeneration
	if version >= 2 {
		if v.generation, err = r.int32(plain("generation_id")); err != nil {
			return v, err
		}
	}
	v.rackNull = true
	if version >= 3 {
		if v.rack, v.rackNull, err = r.stringBytes(plain("rack_id"), true); err != nil {
			return v, err
		}
	}
	return v, nil
}

// encodeVersion resolves the version an encoder writes: v (AutoVersion
// counting as 0) raised to need, the lowest version that carries every
// field set, and capped at highest, which carries them all.
func encodeVersion(message string, v, need, highest int16) (int16, error) {
	switch {
	case v == AutoVersion:
		v = 0
	case v < 0:
		return 0, fmt.Errorf("wire: %s: cannot encode version %d: %w", message, v, ErrUnsupportedVersion)
	}
	return min(max(v, need), highest), nil
}

// AppendTo appends s to dst, encoded at s.Version or at the lowest version
// above it that carries every field set (see [Subscription.Version]).
// Owned partitions are
// written one topic entry per run of consecutive partitions of one topic:
// sort them (as [assign.Assignment] lists are) for one entry per topic.
// Kafka's Java client also sorts topics and owned partitions; this encoder
// writes them in the order given.
func (s Subscription) AppendTo(dst []byte) ([]byte, error) {
	v, err := encodeVersion("subscription", s.Version, s.MinVersion(), MaxSubscriptionVersion)
	if err != nil {
		return dst, err
	}
	w := &writer{buf: dst, message: "subscription", version: v}
	w.int16(v)
	w.count(plain("topics"), len(s.Topics))
	for i, t := range s.Topics {
		w.string(field{"topics", i, ""}, t)
	}
	w.nullableBytes(plain("user_data"), s.UserData)
	if v >= 1 {
		w.topicPartitions("owned_partitions", s.OwnedPartitions)
	}
	if v >= 2 {
		w.int32(s.GenerationID)
	}
	if v >= 3 {
		w.nullableString(plain("rack_id"), s.RackID)
	}
	if w.err != nil {
		return dst, w.err
	}
	return w.buf, nil
}

// MarshalBinary encodes s; see [Subscription.AppendTo].
func (s Subscription) MarshalBinary() ([]byte, error) { return s.AppendTo(nil) }
