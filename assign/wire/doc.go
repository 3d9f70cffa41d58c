// Package wire encodes and decodes the bytes of Kafka's "consumer" group
// protocol, so that a Go client can go from a JoinGroup response's member
// metadata to SyncGroup assignment bytes with package assign alone, byte
// for byte compatible with Kafka's Java client, librdkafka, franz-go and
// sarama.
//
// # Messages
//
//   - [Subscription]: ConsumerProtocolSubscription versions 0 to 3, the
//     metadata each member sends in JoinGroup.
//   - [Assignment]: ConsumerProtocolAssignment versions 0 to 3, what the
//     leader sends each member in SyncGroup.
//   - [StickyUserData]: the user data of Kafka's eager StickyAssignor,
//     versions 0 and 1; and the generation CooperativeStickyAssignor keeps
//     in its user data ([AppendCooperativeUserData]).
//
// Partitions travel grouped by topic ([topic [partition]]); this package
// flattens them to []assign.TopicPartition in wire order and groups runs of
// one topic when encoding. Nullable fields keep null apart from empty: nil
// versus a non-nil empty slice for bytes, a nil *string for a null rack.
//
// # Versions
//
// A message that declares a version above the highest one this package
// knows is read as the highest known one, and the bytes after its fields
// are ignored: Kafka's rule for the consumer protocol, which only appends
// fields. Encoders write the Version of the message, raised to the lowest
// version that carries every field set: no encoder drops a field that is
// set, and the zero value (or AutoVersion) writes that lowest version.
//
// # Hostile input
//
// Decoders check every length and count against the bytes left before they
// allocate, refuse negative lengths (other than -1 where the schema allows
// null), truncated fields and counts that cannot fit with a [*DecodeError]
// naming the message, the field and its byte offset, never panic, and never
// allocate more than a small multiple of their input.
//
// # Glue for group leaders and members
//
// [GroupFromJoin] turns a JoinGroup member list and the topic metadata into
// an [assign.Group] for a strategy, reading each member's previous
// ownership where Kafka's assignor of that name reads it, with topic names
// interned against the metadata and every member's lists in a few arrays
// for the whole group. [SyncGroupAssignments] turns an [assign.Assignment]
// into SyncGroup bytes; [SyncGroupPacked] writes the same bytes from an
// [assign.Packed], the form [assign.AssignPacked] computes without the
// Assignment map. [NextSubscription] builds the subscription a member
// sends next, including the user data the sticky strategies need. [Lead]
// does the leader's whole round in one call, bytes to bytes through
// AssignPacked. None of them does any I/O.
package wire
