// Package churn follows a Kafka consumer group through many rebalances:
// members join, leave and restart, topics grow, subscriptions and the
// group's strategy change ([Change]), and each change is played as the
// rounds of rebalancing it starts, under the classic protocol (eager or
// cooperative) or the consumer protocol (KIP-848, reconciled with package
// coordinator's [coordinator.Reconcile]). A [Churn] carries each stable
// assignment forward as the members' claims, and each [Step] says what
// moved and why. [Rollout] plays a rolling upgrade's assignments.
//
// It counts rounds, not time: package timeline, its sibling, plays the
// same rules against the clock. Neither imports the other.
package churn
