package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
	"github.com/urfave/cli/v2"
)

// Members subscribed by pattern in simulate and timeline: churn and
// timeline resolve the patterns at every step or target (churn/regex.go,
// timeline/regex.go); this file reads the notation of --subscribe (and of
// timeline's --join), and narrows simulate's strategies to those that
// resolve one.

// hasPatterns reports whether a member of g, or a --join or --subscribe
// of changes, subscribes by pattern: no topic name holds a '/', so a '/'
// in the subscription after '=' can only open one.
func hasPatterns(g assign.Group, changes []change) bool {
	if slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.TopicRegex != "" }) {
		return true
	}
	return slices.ContainsFunc(changes, func(ch change) bool {
		_, sub, ok := strings.Cut(ch.arg, "=")
		return (ch.kind == "join" || ch.kind == "subscribe") && ok && strings.Contains(sub, "/")
	})
}

// patternStrategies narrows strategies, for a group with patterns, to
// the coordinator's consumer-protocol assignors, the only ones that
// resolve a pattern. Strategies the user named are kept, for the churn to
// refuse with the member's name.
func patternStrategies(c *cli.Context, strategies []assign.Strategy, consumer bool) ([]assign.Strategy, error) {
	if !consumer {
		return nil, usagef("simulate: a subscription by pattern is the consumer protocol's (KIP-848): add --protocol consumer, whose assignors uniform and server-range resolve it")
	}
	if c.IsSet("compare") && !mentionsAll(c.StringSlice("compare")) {
		return strategies, nil
	}
	return slices.DeleteFunc(strategies, func(s assign.Strategy) bool { return s.Protocol() != assign.ServerAssigned }), nil
}

// validateResolved validates g with its patterns resolved, as the
// coordinator's assignors see it; a pattern that does not compile is
// refused naming its member.
func validateResolved(g assign.Group) error {
	r, err := assign.ResolveTopicRegex(g)
	if err != nil {
		return err
	}
	return r.Validate()
}

// subscriptionOf reads the subscription LIST of --flag arg (ID=LIST for
// --subscribe, and for timeline's --join ID=LIST@TIME): topics and,
// last, an optional /PATTERN/.
func subscriptionOf(flag, arg, list string) (topics []string, pattern string, err error) {
	open := strings.IndexByte(list, '/')
	if open < 0 {
		return topicList(list), "", nil
	}
	end := strings.LastIndexByte(list, '/')
	switch {
	case end == open:
		return nil, "", usagef("--%s %q: a topic pattern is written between slashes, /PATTERN/; the closing '/' is missing", flag, arg)
	case end == open+1:
		return nil, "", usagef("--%s %q: empty topic pattern //", flag, arg)
	case end != len(list)-1:
		return nil, "", usagef("--%s %q: nothing may follow a topic pattern, not %q", flag, arg, list[end+1:])
	case open > 0 && !strings.HasSuffix(list[:open], ","):
		return nil, "", usagef("--%s %q: a topic pattern /PATTERN/ ends the subscription, after any topics and a comma", flag, arg)
	}
	pattern = list[open+1 : end]
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, "", usagef("--%s %q: topic pattern %q does not compile: %v", flag, arg, pattern, err)
	}
	return topicList(list[:open]), pattern, nil
}

// patternsNeedConsumer refuses, for timeline, a subscription by pattern
// (of a member or of a --join or --subscribe) under a protocol other than
// the consumer protocol, whose coordinator resolves it.
func patternsNeedConsumer(sc timeline.Scenario) error {
	if sc.Protocol == timeline.Consumer {
		return nil
	}
	for _, m := range sc.Members {
		if m.TopicRegex != "" {
			return usagef("timeline: member %s subscribes by pattern /%s/, which is the consumer protocol's (KIP-848): add --protocol consumer", m.ID, m.TopicRegex)
		}
	}
	for _, ev := range sc.Events {
		if ev.TopicRegex != "" {
			return usagef("timeline: --%s %s subscribes by pattern /%s/, which is the consumer protocol's (KIP-848): add --protocol consumer", ev.Kind, ev.Member, ev.TopicRegex)
		}
	}
	return nil
}

// patternAssumptions are timeline's lines under the tables for
// subscriptions by pattern: what each member's pattern resolves to at
// the start (three members, then a count), and when a pattern is
// resolved again.
func patternAssumptions(sc timeline.Scenario) []string {
	var out []string
	var g assign.Group
	g.Topics = sc.Topics
	for _, m := range sc.Members {
		if m.TopicRegex != "" {
			g.Members = append(g.Members, assign.Member{ID: m.ID, Topics: m.Topics, TopicRegex: m.TopicRegex})
		}
	}
	if r, err := assign.ResolveTopicRegex(g); err == nil {
		for i, m := range r.Members {
			if i == 3 {
				out = append(out, fmt.Sprintf("- and %d more members subscribe by pattern", len(r.Members)-3))
				break
			}
			out = append(out, fmt.Sprintf("- %s subscribes by pattern /%s/: at the start it resolves to %s", m.ID, g.Members[i].TopicRegex, orNone(strings.Join(m.Topics, ","))))
		}
	}
	if len(out) == 0 && !slices.ContainsFunc(sc.Events, func(ev timeline.Event) bool { return ev.TopicRegex != "" }) {
		return nil
	}
	return append(out, "- the coordinator resolves the patterns again at a heartbeat once a topic was created or a new pattern came, never within 10 s of the last time (the start's count as long before); a change starts a group epoch, and a pattern new to the group starts none before its resolution")
}
