// Package timeline predicts when a Kafka consumer group rebalances, how
// long each rebalance lasts, and how long each partition goes without a
// consumer, as a deterministic discrete-event simulation.
//
// [Simulate] takes a [Scenario] (members with their configs, topics, a
// strategy, a start state and timed [Event]s) and returns a [Timeline]:
// the rebalances with their generations, the steps that mattered
// (heartbeats that brought news, JoinGroup, SyncGroup, revocations,
// timeouts), each partition's ownership and unowned spans, and a
// [Summary]. Every time is an integer number of milliseconds; nothing
// reads a clock; the same scenario gives the same timeline, whatever the
// order of its members. Assignments are the real answers of package
// [github.com/assigncalc/assigncalc/assign]'s strategies.
//
// A partition is unowned while no live member consumes it: from its
// owner's crash, close, revocation or poll timeout until its next owner
// receives it. A crashed member's partitions are unowned from the crash,
// not from when the coordinator notices.
//
// # The classic protocol
//
// As Kafka's classic group coordinator and Java consumer behave:
//
//   - Members are not in lockstep. At a stable start each member has a
//     [Phase]: when its first heartbeat and its first poll come, given in
//     [Scenario.Phases] or drawn from [Scenario.Seed] ([DrawPhase]: uniform
//     over one heartbeat interval and one batch); [Sample] plays many
//     draws. After a SyncGroup every member that received it restarts its
//     heartbeat thread and its poll loop from that instant, as the Java
//     consumer does, so members that went through a rebalance together
//     are in step until the next one.
//   - Each request takes a round trip ([Scenario.RTT]; the CLI's default
//     is [DefaultRTT]): a heartbeat's news arrives a round trip after it
//     is sent, and the assignment reaches the members two round trips
//     after the last JoinGroup (its response, then SyncGroup's round
//     trip); a JoinGroup, LeaveGroup or expiry in between starts a new
//     join phase, in which the members still waiting count as rejoined
//     (the coordinator answers their SyncGroup REBALANCE_IN_PROGRESS and
//     Java's AbstractCoordinator rejoins at once; the round trips that
//     takes are left out), unless their client backs off (below).
//   - Each member's heartbeat thread beats every heartbeat.interval.ms,
//     counted from when it last received an assignment; the coordinator
//     expires a member session.timeout.ms after its last heartbeat (or
//     JoinGroup/SyncGroup) and rebalances.
//   - Its poll loop polls, processes a full batch (max.poll.records ×
//     the processing time per record), and polls again. A member learns of
//     a rebalance from its next heartbeat and rejoins at its next poll,
//     after the batch it is processing.
//   - A poll that comes more than max.poll.interval.ms after the previous
//     one makes the member leave when the interval runs out: a dynamic
//     member sends LeaveGroup, a static one stops heartbeating, so its
//     partitions move only after the session timeout. It joins again at
//     its next poll.
//   - The join phase ends when every member has rejoined, or when the
//     rebalance timeout (the largest max.poll.interval.ms) passes, which
//     drops the members that did not. A member whose JoinGroup is waiting
//     is not expired. An empty group waits group.initial.rebalance.delay.ms
//     instead, and as long again each time members joined during the wait,
//     within the rebalance timeout (KIP-134).
//   - The leader assigns with the strategy; SyncGroup hands out the
//     result; the group is Stable in a new generation. Members report
//     what they last received and in which generation, which the sticky
//     strategies read.
//   - The join phase waits for the slowest member: each hears of the
//     rebalance at its own next heartbeat and rejoins at its own next
//     poll. Eager members revoke everything as they rejoin (before
//     JoinGroup), so an eager round stops every partition of the group,
//     the first rejoiner's longest. Cooperative members (KIP-429) keep
//     consuming what they own through the first round (poll(Duration)
//     does not block on the join), revoke what the new assignment takes
//     away as they receive it, and then rejoin at once for the follow-up
//     rebalance that hands those partitions out; the others hear of the
//     follow-up at their next heartbeat.
//   - A dynamic member's new process is a new member: its JoinGroup
//     carries no member.id and it gets a new one (KIP-394). If its
//     previous process crashed and the coordinator has not expired it
//     yet, the old member.id stays in the group beside the new one: a
//     join phase (the new member's JoinGroup starts one) waits for it
//     until its session expires, counted from its last heartbeat, or the
//     rebalance timeout drops it. Kafka's GroupCoordinator and kfake
//     expire the old member.id on its own timer the same way; the new
//     member is not touched by that expiry.
//   - Client traits, per member in its [Config]: franz-go's cooperative
//     members heartbeat also 500 ms after each assignment
//     ([Config].CooperativeCheck), so a member that received nothing in
//     a cooperative round hears of the follow-up within 500 ms rather
//     than a heartbeat interval. sarama's members wait
//     Consumer.Group.Rebalance.Retry.Backoff (2 s by default) after a
//     SyncGroup answered REBALANCE_IN_PROGRESS before they rejoin
//     ([Config].RejoinBackoff): the join phase that interrupted their
//     SyncGroup waits for them (or drops them at the rebalance timeout),
//     an eager one has no heartbeat meanwhile and is expired if its
//     session runs out first, and a cooperative one keeps consuming what
//     it owns. Only a JoinGroup, LeaveGroup or expiry within the two round
//     trips after a join phase ends reaches this (a group forming with no
//     initial delay, as on kfake, or a cascade of restarts); with no round
//     trip (RTT 0) nothing does. Java, franz-go and kafka-go rejoin at
//     once on that answer (package client's profiles cite the code);
//     kafka-go's JoinGroupBackoff follows other errors, such as the
//     UNKNOWN_MEMBER_ID its JoinGroup gets after the coordinator removed
//     it, which the model does not reach for kafka-go (it rejoins from
//     its own goroutine and has no poll timeout). sarama gives up after
//     Consumer.Group.Rebalance.Retry.Max (4) such answers in a row and
//     returns from Consume; the model backs off every time.
//   - A dynamic member's close sends LeaveGroup: an immediate rebalance. A
//     static member's close does not (KIP-345). Its new process joins with
//     its group.instance.id and no member.id; if the coordinator still
//     knows the instance, it gives the member a new member.id and stores
//     the new JoinGroup metadata. In a Stable group that is all: the
//     member gets its cached assignment back without a rebalance, unless
//     the protocol the group would select changes (never here: one
//     strategy). The metadata is not compared: that a restarted
//     cooperative member now claims nothing in no generation, or an eager
//     sticky member's user data no longer holds its assignment, changes
//     nothing; a returning leader is told to skip the assignment (KIP-814).
//     While the group prepares a rebalance the member takes part in the
//     join phase under way; while it completes one (the SyncGroup round
//     trip) a new join phase starts. This is Kafka's
//     GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin
//     (group-coordinator; the same on the 4.0 to 4.4 branches, read at
//     confluentinc/kafka 4.0 c6f1e72e14 and 4.4 8d3916cfe1) and, before
//     it, the Scala GroupCoordinator.updateStaticMemberAndRebalance
//     (apache/kafka 1eb7644349). franz-go's kfake differs: it rebalances
//     when the metadata is not byte for byte the member's previous
//     JoinGroup's ([Broker].StaticRejoinRebalances predicts it).
//   - Partitions added to a topic are noticed by the leader at its next
//     metadata refresh (every metadata.max.age.ms, counted from t = 0),
//     and it rejoins at its next poll.
//
// # The consumer protocol (KIP-848)
//
// No join or sync phase. Every change (a member joining or leaving, a
// session timeout, a new subscription, new partitions) bumps the group
// epoch and the coordinator computes a new target assignment at once;
// from Kafka 4.3 at most once per group.consumer.assignment.interval.ms
// ([Broker].ConsumerAssignmentInterval, KIP-1263), a later target then
// waiting for the first heartbeat after the interval. [Scenario].Kafka
// picks the release and lists what differs between releases.
// Each member reconciles at its heartbeats (the broker's
// group.consumer.heartbeat.interval.ms): it first revokes what its target
// no longer holds, at its next poll (the callback runs in poll), and
// acknowledges with a heartbeat right away; a partition goes to its new
// owner, at that owner's next heartbeat, only once the old owner has
// released it. A dynamic member's new process is a new member: the
// consumer generates its member.id, once per process (KIP-1082;
// AbstractMembershipManager's memberId is a random Uuid on Kafka's 4.0 to
// 4.4 branches), and joins with member epoch 0. If its previous process
// crashed and its session has not expired, the old member.id stays in the
// group with its target and holds its partitions, which no other member
// may take, until its session expires. A dynamic member leaves with member
// epoch -1, which frees its partitions at once; a static member leaves
// with epoch -2 and the coordinator keeps its assignment for the session
// timeout (group.consumer.session.timeout.ms). A rebalance, here, runs from an
// epoch bump until every member has reached its target.
//
// The target is the server-side assignor's answer for the members, each
// claiming its current target: [assign.Uniform] (Kafka 4.1's, the
// broker's default) unless the scenario names another, such as
// [assign.ServerRange] or a classic strategy standing in for one (Range
// for "range"). The server-side assignors depend on topic ids:
// [Scenario.TopicIDs], or ids derived from the names.
//
// # Share groups (KIP-932)
//
// Members of a share group (Kafka 4.2 and later, [Share]) heartbeat as
// consumer-protocol members do (ShareGroupHeartbeat), and every change
// bumps the group epoch and computes a target with the share assignor
// ([assign.Simple]), under which several members may hold one partition.
// There is no revocation wait: Kafka's ShareGroupAssignmentBuilder
// (group-coordinator, modern/share, unchanged on the 4.2, 4.3 and 4.4
// branches since 35bd71cfc2) moves a member whose epoch is behind
// straight to the target epoch with the target's partitions, never
// checking whether another member still holds one, and the share
// consumer (ShareMembershipManager) has no rebalance listener. So a
// member takes its whole target at its next heartbeat: it stops what it
// lost and consumes what it gained at that instant. A partition is
// unowned only while no member holds it. Share consumers have no
// max.poll.interval.ms (a stall changes nothing) and no static
// membership (refused); group.share.heartbeat.interval.ms and
// group.share.session.timeout.ms are read from [Broker]'s consumer
// fields, whose defaults are the same. From Kafka 4.3 a target is
// computed at most once per group.share.assignment.interval.ms
// ([Broker].ShareAssignmentInterval, KIP-1263), by the consumer
// protocol's rule.
//
// # Simplifications
//
//   - Every request has the same round trip; the leader's assignment
//     takes no time. The members' JoinGroup reach the coordinator when
//     they are sent. Under the consumer protocol requests are instant.
//   - A static member's rejoin with its cached assignment (KIP-345) takes
//     no time.
//   - Every poll returns a full batch: the members always have a backlog.
//     A configuration whose batch takes longer than max.poll.interval.ms
//     is refused.
//   - A stable start is the only place phases are drawn; members that
//     join or restart later start their cycles when they receive their
//     assignment.
//   - The poll timeout fires exactly at max.poll.interval.ms after the
//     last poll (the Java heartbeat thread notices within its retry
//     backoff).
//   - A member dropped from a join phase, or expired, while alive loses its
//     partitions at that instant and learns of it at its next heartbeat.
//   - A static member rejoining with a new subscription, or a static
//     leader rejoining after the partitions changed, causes a rebalance.
//     Kafka's coordinator hands back the cached assignment in both cases
//     too; what follows is up to the client (a Java leader that skipped
//     the assignment does not notice partitions added while it was down,
//     as the coordinator's own comment says; kgo's leader balances anyway
//     and rejoins if its own share differs from the cached one).
//   - KIP-848 revocations are not bounded by the rebalance timeout, and
//     the broker notices new partitions at once.
//   - Within one millisecond, scenario events come first, then the
//     coordinator's timers, then polls, then heartbeats; ties between
//     members go by member ID. A heartbeat due at the instant of a crash is
//     not sent.
//
// # Invariants
//
// Checked by the package's property tests over random scenarios:
//
//	no partition has two owners at any instant (but in a share group);
//	once the last event has played out and the group is stable, every
//	partition of a topic some live member subscribes to has an owner;
//	Simulate(s) does not depend on the order of s.Members.
package timeline
