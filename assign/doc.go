// Package assign computes Kafka consumer-group partition assignments as pure
// functions, for Go Kafka clients that lead a consumer group and for tools
// that preview what a rebalance will do. It answers one round: given a
// group, what each member is assigned. What uses only that answer lives
// beside it (see "Beside this package" below).
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
//   - "range", [Range], eager: Kafka's default; for co-partitioned topics
//     joined partition by partition, since the same members get the same
//     partition numbers of every topic.
//   - "roundrobin", [RoundRobin], eager: the most even spread when nothing
//     needs to stay put.
//   - "sticky", [Sticky], eager: members that keep local state per
//     partition; balance first, then keep what each member had.
//   - "cooperative-sticky", [CooperativeSticky], cooperative: as sticky,
//     without stopping the whole group at each rebalance. The choice for
//     new deployments of the classic protocol.
//   - "uniform", [Uniform], and "server-range", [ServerRange]: the
//     assignors Kafka 4.x's group coordinator runs itself for groups on the
//     consumer protocol (KIP-848, group.protocol=consumer), reproduced
//     exactly for Kafka 4.0 to 4.4, to preview what the broker will
//     assign ([ServerStrategies] lists them).
//   - "simple", [Simple]: the assignor of Kafka 4.2 to 4.4's share groups
//     (KIP-932), which may give one partition to several members;
//     [VerifyShare] states what a valid share assignment is
//     ([ShareStrategies] lists it).
//
// Range and RoundRobin return exactly what Kafka's Java client returns for
// the same input, member order (static members first, Java's UTF-16 string
// order) and KIP-881 rack awareness included, so that a Go leader in a
// mixed group hands out what a Java leader would.
//
// Sticky and CooperativeSticky follow Kafka's rules (balance first, then
// stickiness; generations decide conflicting claims; cooperative never
// hands a partition straight from one owner to another) but cannot be
// matched output for output: Kafka's choices depend on HashMap order, and
// its heterogeneous path is a greedy heuristic. Ours is optimally balanced
// ([VerifyBalanced]), moves the fewest partitions that balance allows, and
// is deterministic.
//
// Each strategy says what it promises ([Strategy.Traits]: balanced,
// sticky, its Java class) and which rebalance protocol it runs
// ([Strategy.Protocol]); checkers and models read those rather than ask
// which strategy they hold. [CooperativeSticky.Assign] answers with this
// round, which withholds the partitions other members must first revoke;
// its [CooperativeSticky.Plan] ([Planner]) shows the round, the target and
// what moves in between.
//
// # Checking and comparing
//
// [Verify], [VerifyBalanced] and [VerifyCooperative] state the invariants
// below; [Check] picks those that apply to a strategy, for an assignment
// computed elsewhere, and [AssignChecked] runs a strategy and checks its
// answer. [Summarize], [CrossRack], [UnspreadTopics] and [MoveBound]
// measure an assignment; [Moves] and [Moved] compare two ([Move] is the one
// type for a partition that changed hands); [Owned] reads what the members
// claim, and [Carry] feeds an answer back as the members' claims for the
// next round.
//
// # The leader's form
//
// [AssignPacked] and [AssignPackedOwned] answer in a packed form
// ([Packed]), runs of partitions per member, which package wire encodes
// straight into SyncGroup assignments without building an [Assignment].
//
// # Beside this package
//
// What needs only this package's exported API lives in packages of its
// own, as net/http keeps httputil and cookiejar beside it:
//
//   - [github.com/assigncalc/assigncalc/assign/wire]: the consumer
//     protocol's bytes (subscriptions, assignments, sticky user data) and
//     the leader's whole round, JoinGroup members in, SyncGroup
//     assignments out.
//   - [github.com/assigncalc/assigncalc/assign/coordinator]: what the group
//     coordinator decides besides the assignment: the vote over the
//     members' strategies, a consumer's rebalance protocol, rolling
//     upgrades, the coordinator's partition, and the consumer protocol's
//     reconciliation and migration.
//   - [github.com/assigncalc/assigncalc/churn]: many rounds: a group
//     followed through joins, leaves, restarts, growth and strategy
//     switches.
//   - [github.com/assigncalc/assigncalc/timeline]: many rounds in time:
//     heartbeats, polls and timeouts.
//   - [github.com/assigncalc/assigncalc/assign/client]: what each client
//     library allows, and each one's strategies as its leader computes
//     them (Java's sticky assignors exactly).
//   - [github.com/assigncalc/assigncalc/assign/assigntest]: generators of
//     groups for tests.
//
// # Invariants
//
// Every assignment Range, RoundRobin and Sticky return, and every target of
// CooperativeSticky, satisfies [Verify] (validity):
//
//	for every topic t some member subscribes to, present in Group.Topics
//	with n > 0 partitions, and every 0 <= p < n:
//	    exactly one member m is assigned (t, p), and t is in m.Topics;
//	nothing else is assigned.
//
// Balance, for the sticky strategies ([VerifyBalanced]):
//
//	no chain of members m0, m1, ..., mk (k >= 1) in which each m(i) holds a
//	partition of a topic m(i+1) subscribes to has count(m0) >= count(mk) + 2
//
// Stickiness: among balanced assignments, the sticky strategies keep the
// largest number of surviving claims (a partition whose owner stays and
// still subscribes does not move unless balance requires it).
//
// Cooperative safety ([VerifyCooperative]): in a cooperative round a
// partition goes only to its newest-generation claimant (the member
// listing it in Owned at the highest Generation anyone lists it at),
// to nobody while that claim is tied, and to anyone while nobody claims it:
//
//	p ∈ a(m) ⇒ newest(p) = ∅ or newest(p) = {m}
//
// A claim below the newest generation never makes a hand-over safe. This
// implies Kafka's consumer-side check ([CheckCooperative]). The round
// after the owners revoke reaches the target.
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
//   - KIP-54: the sticky assignor.
//   - KIP-341: sticky assignor generations; a partition prefers its
//     previous owner when it must move.
//   - KIP-345: static membership; static members sort first in Range and
//     RoundRobin.
//   - KIP-429: incremental cooperative rebalancing (CooperativeSticky).
//   - KIP-848: the consumer group protocol, whose coordinator assigns
//     (Uniform, ServerRange).
//   - KIP-881: rack-aware assignment for Range and the sticky assignors.
//   - KAFKA-12984: equal-generation claims of one partition cancel.
//   - KAFKA-18688: any member may hold the extra partition.
package assign
