// Package coordinator reproduces what a Kafka group coordinator decides
// besides the assignment itself, using only package assign's exported
// API:
//
//   - the vote over the strategies a classic group's members offer
//     ([Vote]), with the tie-breaks of the Java and the Scala coordinator,
//     and the rebalance protocol a consumer runs for its configured
//     strategies ([ClientProtocol]);
//   - rolling upgrades from one strategy list to another
//     ([SimulateRollout]), flagging refused members and falls back to
//     eager rebalancing (package churn plays their assignments);
//   - which partition of __consumer_offsets coordinates a group
//     ([CoordinatorPartition]);
//   - the consumer protocol's (KIP-848) reconciliation of members towards
//     their target assignment, heartbeat by heartbeat ([Reconcile],
//     [Stops]), the one rule the churn model and the timeline share, and
//     the migration of a classic group to that protocol
//     ([PreviewMigration]).
//
// # Kafka 4.3: what KIP-1251 and KIP-1263 change here
//
// Nothing this package computes. KIP-1251 (assignment epochs for consumer
// groups, KAFKA-20066, apache/kafka pull requests 21508, 21594 and 21692)
// records, for each partition a member is assigned, the member epoch at
// which it was assigned, and relaxes the coordinator's check of an
// OffsetCommit from a consumer-protocol member from clientEpoch ==
// brokerEpoch to assignmentEpoch(partition) <= clientEpoch <=
// brokerEpoch, so that a commit sent before the member heard of its new
// epoch is no longer fenced with STALE_MEMBER_EPOCH. It decides which
// offset commits are accepted, not what a member is assigned, revokes
// or receives, nor when: the targets, the rounds of [Reconcile], the
// revocations [NextAssignment] asks for and the [Stops] are those of
// Kafka 4.2. KIP-1263 (at most one target per
// group.consumer.assignment.interval.ms) decides when a target is
// computed, which takes a clock: the timeline models it; [Reconcile]
// reconciles towards a target once it exists, as before.
// TestKafka43ReconcilesAs42 holds NextAssignment to that.
//
// Like package assign it is pure: no I/O, no state between calls, no
// dependence on map order.
package coordinator
