package assign

// This file resolves Member.TopicRegex, the consumer protocol's
// subscription by pattern, as Kafka's group coordinator does.

import (
	"fmt"
	"regexp"
	"slices"
)

// errClassicRegex is the refusal of a member subscribed by pattern by a
// strategy that cannot resolve it.
var errClassicRegex = fmt.Errorf("%w: only the coordinator's consumer-protocol assignors (uniform, server-range) resolve a pattern; "+
	"classic clients resolve theirs themselves and join with the topic names, and share groups subscribe by names only", ErrTopicRegex)

// ResolveTopicRegex returns g with every member that subscribes by
// pattern (Member.TopicRegex) subscribed instead to its Topics and, after
// them in Go string order, every topic of g.Topics the pattern matches in
// full that Topics does not list; its TopicRegex is then "". Members
// without a pattern, and g itself, are unchanged; if no member has one, g
// is returned as it is. Members that name no topics and share a pattern
// share one resolved Topics slice (clipped: appending to it copies), so
// that resolving a big group costs one list per pattern, not one per
// member. A pattern that does not compile is refused with
// an [*InputError] naming the member and wrapping [ErrTopicRegex].
//
// This is what Kafka's group coordinator does since KIP-848 (Kafka 4.0;
// GroupMetadataManager, TopicRegexResolver and TargetAssignmentBuilder):
// a heartbeat whose SubscribedTopicRegex RE2J cannot compile fails with
// INVALID_REGULAR_EXPRESSION; a valid pattern is matched with
// Matcher.matches, the whole topic name, against every topic of the
// metadata, internal topics included (unlike the classic Java
// consumer's own matching, which exclude.internal.topics filters); the
// assignor sees the union of the member's SubscribedTopicNames and the
// pattern's topics. Two things Kafka does are not modelled: it keeps
// only the topics the member's principal may DESCRIBE (we know no ACLs),
// and it resolves asynchronously, when a new pattern arrives, when
// topics are created, and every group.consumer.regex.refresh.interval.ms
// (10 minutes by default), never twice within 10 s; g.Topics is taken as
// the metadata the last resolution saw.
//
// RE2J began as a port of Go's regexp package (its source files name
// the Go file each ports), so both read RE2 syntax and match in time
// linear in the name; a construct one of them gained later may be
// refused by the other, and here a pattern is refused only if Go refuses
// it. For patterns users write they differ where this function makes up
// for it or where it cannot matter:
//   - Go's MatchString finds the pattern anywhere in a name; Kafka's
//     matches must match all of it. The pattern is compiled anchored, as
//     ^(?:pattern)$, so "orders" matches the topic orders and not
//     orders-eu, and "orders-.*" does not match old-orders-eu.
//   - Anchors are redundant under full matching, in both: "^orders$" is
//     "orders"; "orders$.*" matches only orders.
//   - Java strings are UTF-16 and Go's are UTF-8, so classes such as .
//     and \p{L} could differ on characters outside the Basic Multilingual
//     Plane; Kafka topic names are ASCII ([a-zA-Z0-9._-]), where both
//     read a character the same way. An unescaped . matches any
//     character, the . of a topic name included, in both.
//
// TestResolveTopicRegex holds each of these cases.
func ResolveTopicRegex(g Group) (Group, error) {
	first := slices.IndexFunc(g.Members, func(m Member) bool { return m.TopicRegex != "" })
	if first < 0 {
		return g, nil
	}
	// Many members of a group share one pattern: compile and match each
	// pattern once.
	type resolved struct {
		topics []string
		err    error
	}
	var names []string
	byPattern := make(map[string]*resolved)
	out := g
	out.Members = slices.Clone(g.Members)
	for i := first; i < len(out.Members); i++ {
		m := &out.Members[i]
		if m.TopicRegex == "" {
			continue
		}
		r, ok := byPattern[m.TopicRegex]
		if !ok {
			if names == nil {
				names = sortedTopicNames(g.Topics)
			}
			r = &resolved{}
			r.topics, r.err = matchTopics(m.TopicRegex, names)
			byPattern[m.TopicRegex] = r
		}
		if r.err != nil {
			return Group{}, memberError(i, m, fmt.Errorf("%w %q: %v", ErrTopicRegex, m.TopicRegex, r.err))
		}
		m.Topics = unionTopics(m.Topics, r.topics)
		m.TopicRegex = ""
	}
	return out, nil
}

// resolveFor resolves g's patterns where s is a coordinator's
// consumer-protocol assignor (protocol ServerAssigned: [Uniform],
// [ServerRange]), and returns g as it is otherwise, for s to refuse.
func resolveFor(s Strategy, g Group) (Group, error) {
	if s != nil && s.Protocol() == ServerAssigned {
		return ResolveTopicRegex(g)
	}
	return g, nil
}

// matchTopics returns the names, in the order given, that pattern matches
// in full.
func matchTopics(pattern string, names []string) ([]string, error) {
	// The pattern is compiled alone first: wrapped, an unbalanced one
	// such as "a)|(b" would compile into something else.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range names {
		if re.MatchString(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// unionTopics returns explicit followed by the topics of matched it does
// not list. Neither is modified; the result is one of them, clipped, when
// the other adds nothing.
func unionTopics(explicit, matched []string) []string {
	if len(explicit) == 0 {
		return slices.Clip(matched)
	}
	listed := make(map[string]bool, len(explicit))
	for _, t := range explicit {
		listed[t] = true
	}
	out := slices.Clip(explicit)
	for _, t := range matched {
		if !listed[t] {
			out = append(out, t)
		}
	}
	return out
}

// sortedTopicNames returns the topics of the metadata in Go string order.
func sortedTopicNames(topics map[string]int32) []string {
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	slices.Sort(names)
	return names
}
