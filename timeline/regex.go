package timeline

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// Subscriptions by pattern (KIP-848's SubscribedTopicRegex; [Member] and
// [Event] TopicRegex) under the consumer protocol. The coordinator's
// assignors resolve a pattern against the topics as they are when they
// compute a target ([assign.ResolveTopicRegex]), so a member that joins
// or subscribes with a pattern, and a growth that creates a topic a
// pattern matches, start a new group epoch whose target holds what the
// pattern matches then; a topic that nobody's names or patterns take in
// starts none (subscribedTo).
//
// What Kafka does and the timeline does not: its coordinator resolves a
// group's patterns asynchronously, at a heartbeat after a topic is
// created (GroupMetadataManager's lastMetadataImageWithNewTopics), never
// within 10 s of the group's previous resolution
// (REGEX_BATCH_REFRESH_MIN_INTERVAL_MS), and bumps the group epoch only
// if the resolution changed; here the growth's new group epoch resolves
// at once. So a topic created within 10 s of a pattern's last resolution
// reaches the members here up to those 10 s (plus a heartbeat interval)
// sooner than in Kafka. Likewise a pattern no member of the group had
// before is resolved by Kafka asynchronously, its new group epoch coming
// with the result (handleRegularExpressionsResult), and here with the
// heartbeat that brings it.
//
// Inside the package a member's pattern travels in its topic list, as
// one entry that no topic name can be (patternMark and the pattern), so
// that the protocols carry it wherever they carry a subscription; only
// the consumer protocol's coordinator reads it back (serverMember), and
// normalize refuses a pattern under any other protocol.

// patternMark opens the entry of a topic list that holds a pattern: a
// NUL, which no Kafka topic name holds ([a-zA-Z0-9._-]).
const patternMark = "\x00"

// withPatternEntry returns topics with pattern appended as its entry, a
// list that is never nil; topics as it is when pattern is "".
func withPatternEntry(topics []string, pattern string) []string {
	if pattern == "" {
		return topics
	}
	return append(slices.Clone(topics), patternMark+pattern)
}

// serverMember returns m, a member as the consumer protocol's
// coordinator holds it, with a pattern carried in its Topics moved to its
// TopicRegex, for the assignor to resolve.
func serverMember(m assign.Member) assign.Member {
	i := slices.IndexFunc(m.Topics, func(t string) bool { return strings.HasPrefix(t, patternMark) })
	if i < 0 {
		return m
	}
	m.TopicRegex = m.Topics[i][len(patternMark):]
	m.Topics = slices.Delete(slices.Clone(m.Topics), i, i+1)
	return m
}

// checkPattern refuses, for normalize to wrap, a pattern the scenario cannot
// play: one that does not compile, one under a protocol other than the
// consumer protocol, or one for a strategy that does not resolve it (a
// classic strategy standing in for the coordinator's assignor).
func checkPattern(n *normalized, pattern string, topics []string) error {
	if slices.ContainsFunc(topics, func(t string) bool { return strings.HasPrefix(t, patternMark) }) {
		return errors.New("a topic name cannot begin with a NUL")
	}
	if pattern == "" {
		return nil
	}
	if n.Protocol != Consumer || n.Strategy.Protocol() != assign.ServerAssigned {
		return fmt.Errorf("subscription by pattern /%s/: only the consumer protocol's assignors (uniform, server-range) resolve a pattern", pattern)
	}
	if _, err := regexp.Compile(pattern); err != nil {
		return fmt.Errorf("topic pattern %q does not compile: %v", pattern, err)
	}
	return nil
}

// subscribedTo reports whether a member of g, the consumer protocol's
// group as its assignor reads it, subscribes to topic by name or by a
// pattern that matches it. Kafka's coordinator bumps the group epoch for
// a change of the metadata only when the hash of the subscribed topics
// changes (ModernGroup.computeMetadataHash over the group's subscribed
// topic names, those its resolved patterns give included).
func subscribedTo(g assign.Group, topic string) bool {
	r, err := assign.ResolveTopicRegex(g)
	if err != nil {
		return true // normalize compiled every pattern; let the target say
	}
	return slices.ContainsFunc(r.Members, func(m assign.Member) bool { return slices.Contains(m.Topics, topic) })
}
