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
// Like package assign it is pure: no I/O, no state between calls, no
// dependence on map order.
package coordinator
