// Package assign computes Kafka consumer-group partition assignments as
// pure functions: Range and RoundRobin exactly as Apache Kafka's Java client
// computes them, and the group coordinator's protocol vote.
//
// # The model
//
// A [Group] holds the members, as the group leader sees them in the
// JoinGroup response, and the metadata of the topics they subscribe to. A
// [Strategy] turns a Group into an [Assignment]: every member's partitions.
// Nothing here does I/O, keeps state between calls, or depends on the order
// of map iteration or of the members in the input.
//
// # Invariants
//
// Every assignment a strategy returns satisfies [Verify]: each partition of
// each subscribed topic is assigned exactly once, only to a member that
// subscribes to its topic, and nothing else is assigned.
package assign
