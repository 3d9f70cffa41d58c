package main

import (
	"regexp"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/urfave/cli/v2"
)

// Members subscribed by pattern in simulate: churn resolves the patterns
// at every step (churn/regex.go); this file reads the notation of
// --subscribe and narrows the strategies to those that resolve one.

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

// subscriptionOf reads the subscription of --subscribe ID=LIST: topics
// and, last, an optional /PATTERN/.
func subscriptionOf(arg, list string) (topics []string, pattern string, err error) {
	open := strings.IndexByte(list, '/')
	if open < 0 {
		return topicList(list), "", nil
	}
	end := strings.LastIndexByte(list, '/')
	switch {
	case end == open:
		return nil, "", usagef("--subscribe %q: a topic pattern is written between slashes, /PATTERN/; the closing '/' is missing", arg)
	case end == open+1:
		return nil, "", usagef("--subscribe %q: empty topic pattern //", arg)
	case end != len(list)-1:
		return nil, "", usagef("--subscribe %q: nothing may follow a topic pattern, not %q", arg, list[end+1:])
	case open > 0 && !strings.HasSuffix(list[:open], ","):
		return nil, "", usagef("--subscribe %q: a topic pattern /PATTERN/ ends the subscription, after any topics and a comma", arg)
	}
	pattern = list[open+1 : end]
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, "", usagef("--subscribe %q: topic pattern %q does not compile: %v", arg, pattern, err)
	}
	return topicList(list[:open]), pattern, nil
}
