// Package javasticky reproduces what Apache Kafka's Java StickyAssignor and
// CooperativeStickyAssignor return for a group, decision for decision:
// the same partitions per member, including where Java's answer is
// unbalanced, gives a partition to two members or to none, or throws (then
// [Assign] returns a [*JavaError] naming Java's exception).
//
// # Which Kafka
//
// A [Version] per behaviour of AbstractStickyAssignor since 3.5.0 (KIP-881's
// racks), each named for the first release that behaves so; [ForRelease]
// maps a release, patch releases included, to its version:
//
//	Kafka35  3.5.0, 3.5.1
//	Kafka36  3.5.2, 3.6.0 to 3.6.2, 3.7.0
//	Kafka38  3.7.1, 3.8.0 and later (3.9, 4.x)
//
// [Kafka38] reproduces AbstractStickyAssignor, StickyAssignor and
// CooperativeStickyAssignor of apache/kafka commit 1eb7644349c (trunk of
// 2024-10-25), whose assignor code last changed in behaviour with
// f0291ac74b8 (KAFKA-15170, rack-aware fixes) and 027fad4b2a0 (KAFKA-16277,
// owned partitions sorted by partition before the quota cut), both in
// 3.8.0 and back-ported to 3.7.1; later commits, up to the 4.0 to 4.4
// branches of confluentinc/kafka, change only form (imports, annotations,
// rewrites that iterate and insert alike). [Kafka36] lacks
// those two; it has c6ad151ac3b (KAFKA-14639, a claim losing to a higher
// generation no longer replaces the winner as the previous owner) and
// e0b7499103d (KAFKA-15106, isBalanced), both in 3.6.0 and back-ported to
// 3.5.2. [Kafka35] lacks all four. The emulation's phases ask one
// predicate per commit (version.go) at the point the commit changed.
// StickyAssignor, CooperativeStickyAssignor, RangeAssignor and
// RoundRobinAssignor did not change in behaviour from 3.5.0 to 4.4.
//
// Before KAFKA-16277 the order of a member's claims is observable: the
// constrained path keeps the first of them up to its quota. Eager sticky
// reads them from StickyAssignor's user data, which lists the topics in
// the order of the HashMap serializeTopicPartitionAssignment groups them
// in (see convention 3).
//
// # Conventions
//
// Kafka's answer depends on Java collection orders and on what the leader
// passes the assignor. Assign takes them as a Java leader has them after
// the JoinGroup response (ConsumerCoordinator.onLeaderElected):
//
//  1. The subscriptions are a java.util.HashMap<String, Subscription>
//     filled in the order of Group.Members.
//  2. Each subscription's topics are sorted (String.compareTo) without
//     repeats and its owned partitions sorted by (topic, partition), as a
//     round trip through ConsumerProtocol leaves them; groupInstanceId is
//     the member's InstanceID, rackId its Rack as given ("" is no rack).
//  3. Eager sticky reads a member's previous assignment from its user data:
//     StickyAssignor's V1 layout with the generation when Generation >= 0,
//     the V0 layout without one when Generation < 0, and no user data when
//     the member owned nothing; its ownedPartitions are empty (an eager
//     member revokes everything before it joins). The Subscription's
//     generationId is the generation, or absent (-1) when negative:
//     AbstractStickyAssignor reads the other claimant's generation there.
//  4. Cooperative sticky reads ownedPartitions and generationId; its user
//     data is the encoded generation (-1 when negative).
//  5. A fresh assignor instance per call (AbstractStickyAssignor's
//     maxGeneration only grows).
//  6. Cluster metadata: one PartitionInfo per partition 0..n-1 of every
//     subscribed topic with partitions, with one replica per rack listed in
//     Group.PartitionRacks (a replica without a rack when none is listed).
//
// Like Java, the emulation keeps claims of partitions a topic no longer has
// (a member may be handed such a partition back) and lets them derail the
// unassigned-partition scan that follows; it does not drop them as package
// assign's own strategies do.
//
// # Tree bins
//
// Java's HashSet turns a bucket of nine entries or more in a table of 64
// buckets or more into a red-black tree, changing which element its
// iterator returns first. The general path reads the first element of such
// sets (PartitionMovements), and follows them as Java's HashMap keeps them
// through adds, removes and resizes, tree bins included (jvm.ChurnSet).
//
// The tests compare every answer with the oracle of testdata/oracle, built
// from Kafka's own classes (see testdata/README.md).
package javasticky
