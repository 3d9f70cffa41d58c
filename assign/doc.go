// Package assign computes Kafka consumer-group partition assignments as pure
// functions, for Go Kafka clients that lead a consumer group and for tools
// that preview what a rebalance will do.
//
// # The model
//
// A [Group] holds the members, as the group leader sees them in the
// JoinGroup response, and the metadata of the topics they subscribe to: each
// topic's partition count and, optionally, the racks of each partition's
// replicas. A [Member] has an ID, an optional group.instance.id (static
// membership, KIP-345), an optional rack (KIP-881), its subscription, and
// the partitions it owned in a given generation. A [Strategy] turns a Group
// into an [Assignment]: the sorted partitions of every member, members that
// get nothing included.
//
// [Group.Validate] refuses what no Kafka client can send (empty or repeated
// member IDs, repeated group.instance.ids, negative partition counts, ...)
// with an [*InputError] naming the member, topic or partition at fault, and
// tolerates what Kafka tolerates (subscriptions to unknown topics, claims of
// deleted partitions). Every strategy validates its input.
//
// # Strategies
//
// Look strategies up by Kafka's name or Java class name with [Lookup].
//
//	name                 type                 protocol     choose it when
//	range                [Range]              eager        topics are co-partitioned and joined per partition (Kafka's default)
//	roundrobin           [RoundRobin]         eager        partitions should spread evenly and nothing needs to stay put
//
// Range and RoundRobin return exactly what Kafka's Java client returns for
// the same input, member order (static members first, Java's UTF-16 string
// order) and KIP-881 rack awareness included, so that a Go leader in a
// mixed group hands out what a Java leader would.
//
// # Invariants
//
// Every assignment a strategy returns satisfies [Verify] (validity):
//
//	for every topic t some member subscribes to, present in Group.Topics
//	with n > 0 partitions, and every 0 <= p < n:
//	    exactly one member m is assigned (t, p), and t is in m.Topics;
//	nothing else is assigned.
//
// Determinism: the result is a function of the group's content only. The
// order of Group.Members, of each member's Topics and Owned, and the
// iteration order of every map are never observable. Where Kafka's own rule
// uses an order (Range and RoundRobin sort members; a vote depends on hash
// order), that order is computed from the content, never taken from the
// input.
//
// # Kafka Improvement Proposals
//
//   - KIP-345: static membership; static members sort first in Range and
//     RoundRobin.
//   - KIP-881: rack-aware assignment for Range (and the sticky assignors).
package assign
