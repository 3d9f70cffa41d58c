package timeline

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// Assumptions returns the lines a reader of sc's figures needs beside
// them: a header, then one line per rule of the model (as the package doc
// states it) that the figures rest on. The rules every scenario rests on
// come first; a rule that only some scenarios exercise (a dynamic
// member's new member.id, the static rejoin, a client trait) is there
// only when sc exercises it. The lines name the settings by the flags of
// the assigncalc command (--seed, --rtt, --kafka, ...), whose output they
// are written for. sampled says the figures include draws
// after sc.Seed's. The last line is always the backlog's.
func Assumptions(sc Scenario, sampled bool) []string {
	draw := fmt.Sprintf("the rebalances and the summary are one draw, --seed %d", sc.Seed)
	if sampled {
		draw += " (the first of the draws)"
	}
	out := []string{"Assumed (a model, not a measurement):"}
	if sc.Forming {
		out = append(out, "- the members join at 0 and start their heartbeats and polls when they receive their assignment")
	} else {
		out = append(out, "- members out of step: each one's first heartbeat and first poll drawn uniformly over one heartbeat interval and one batch; "+draw)
	}
	switch sc.Protocol {
	case Share:
		return append(out, shareAssumptions(sc)...)
	case Classic:
		out = append(out,
			fmt.Sprintf("- every request takes a %s round trip (--rtt); the assignment reaches the members 2 round trips after the last JoinGroup", FormatMs(sc.RTT)),
			"- a member hears of a rebalance at its next heartbeat and rejoins at its next poll; the join phase waits for the slowest member, or max.poll.interval.ms",
			"- eager members revoke everything as they rejoin; cooperative ones keep consuming through the first round, then revoke and rejoin at once for the follow-up")
	default:
		out = append(out, "- requests take no time; a member revokes at its next poll and is given partitions at its next heartbeat once their owner released them",
			kafkaAssumption(sc))
	}
	out = append(out, ruleAssumptions(sc)...)
	return append(out, "- every poll returns a full batch: the members always have a backlog")
}

// kafkaAssumption says how the coordinator of sc's Kafka release
// reconciles, where releases differ.
func kafkaAssumption(sc Scenario) string {
	v := sc.Kafka
	regained := "a member's own revoked partitions that its new target gives back come back at once (KAFKA-19449, from 4.2)"
	if v == assign.Kafka40 || v == assign.Kafka41 {
		regained = "a member's own revoked partitions that its new target gives back come back a heartbeat later (fixed in 4.2, KAFKA-19449)"
	}
	interval := "a new target at every change (the assignment interval came in 4.3)"
	if v == assign.Kafka43 || v == assign.Kafka44 {
		b := DefaultBroker()
		if sc.Broker != nil {
			b = *sc.Broker
		}
		interval = fmt.Sprintf("at most one target per %s (--consumer-assignment-interval, KIP-1263)", FormatMs(b.ConsumerAssignmentInterval))
		if b.ConsumerAssignmentInterval == 0 {
			interval = "a new target at every change (--consumer-assignment-interval 0)"
		}
	}
	return fmt.Sprintf("- Kafka %s's coordinator (--kafka): %s; %s", v, interval, regained)
}

// shareAssumptions are what the share model assumes, after the phases'.
func shareAssumptions(sc Scenario) []string {
	interval := "a target at every change (the assignment interval came in 4.3)"
	if sc.Kafka == assign.Kafka43 || sc.Kafka == assign.Kafka44 {
		b := DefaultBroker()
		if sc.Broker != nil {
			b = *sc.Broker
		}
		interval = fmt.Sprintf("at most one target per %s (--share-assignment-interval, KIP-1263), computed at a heartbeat once the interval is over", FormatMs(b.ShareAssignmentInterval))
		if b.ShareAssignmentInterval == 0 {
			interval = "a target at every change (--share-assignment-interval 0)"
		}
	}
	return []string{
		"- requests take no time; a member takes its whole target at its next heartbeat, with no revocation wait: another member may still hold a partition it receives (Kafka's ShareGroupAssignmentBuilder)",
		"- Kafka " + sc.Kafka.String() + "'s simple assignor; " + interval,
		"- share consumers have no max.poll.interval.ms: a stall changes nothing the group sees",
	}
}

// exercised is what of the model's membership rules a scenario's events
// reach: what its restarts and closes do, and its members' client traits.
type exercised struct {
	dynamicRestart bool  // a dynamic member's process starts again
	crashRestart   bool  // ... after its previous process crashed
	staticClose    bool  // a static member closes or restarts
	staticRestart  bool  // a static member's process starts again
	check          int64 // the largest Config.CooperativeCheck of any member
	backoff        int64 // the largest Config.RejoinBackoff of any member
}

func exercisedBy(sc Scenario) exercised {
	var x exercised
	static := make(map[string]bool)
	crashed := make(map[string]bool)
	checkOf := func(c *Config) {
		if c != nil {
			x.check = max(x.check, c.CooperativeCheck)
			x.backoff = max(x.backoff, c.RejoinBackoff)
		}
	}
	for _, m := range sc.Members {
		static[m.ID] = m.InstanceID != ""
		checkOf(m.Config)
	}
	evs := slices.Clone(sc.Events)
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	for _, ev := range evs {
		switch ev.Kind {
		case Join:
			static[ev.Member] = ev.InstanceID != ""
			checkOf(ev.Config)
		case Crash:
			crashed[ev.Member] = true
		case Close:
			x.staticClose = x.staticClose || static[ev.Member]
		case Restart:
			if static[ev.Member] {
				x.staticClose, x.staticRestart = true, true
				break
			}
			x.dynamicRestart = true
			x.crashRestart = x.crashRestart || crashed[ev.Member]
		}
	}
	return x
}

// ruleAssumptions are the lines of the membership rules and client traits
// that sc exercises, under the classic or the consumer protocol.
func ruleAssumptions(sc Scenario) []string {
	x := exercisedBy(sc)
	var out []string
	if sc.Protocol == Classic {
		if x.dynamicRestart {
			line := "- a dynamic member's new process joins with no member.id and gets a new one (KIP-394)"
			if x.crashRestart {
				line += "; its crashed process's member.id stays in the group, and a join phase waits for it, until its session expires"
			}
			out = append(out, line)
		}
		if x.staticClose {
			out = append(out, "- a static member's close sends no LeaveGroup: the group rebalances only if its session expires")
		}
		if x.staticRestart {
			rule := "- a static member's new process rejoins with its group.instance.id and Kafka hands back its assignment, no rebalance, unless the selected protocol changes (never here: one strategy)"
			if sc.Broker != nil && sc.Broker.StaticRejoinRebalances {
				rule = "- a static member's new process rejoins with its group.instance.id and, as on kfake, the group rebalances if its JoinGroup metadata differs from its previous one's"
			}
			out = append(out, rule)
		}
		if x.check > 0 {
			out = append(out, fmt.Sprintf("- client trait (--client, or a member's client): franz-go's cooperative members also heartbeat %s after each assignment they receive", FormatMs(x.check)))
		}
		if x.backoff > 0 {
			out = append(out, fmt.Sprintf("- client trait (--client, or a member's client): sarama's members wait %s before they rejoin when a new join phase interrupts their SyncGroup (REBALANCE_IN_PROGRESS)", FormatMs(x.backoff)))
		}
		return out
	}
	if x.dynamicRestart {
		line := "- a dynamic member's new process generates a new member.id (KIP-1082)"
		if x.crashRestart {
			line += "; its crashed process's member.id keeps its partitions, which no one else may take, until its session expires"
		}
		out = append(out, line)
	}
	if x.staticClose {
		out = append(out, "- a static member leaves with epoch -2: the coordinator keeps its assignment for group.consumer.session.timeout.ms, for its new process to take back")
	}
	return out
}
