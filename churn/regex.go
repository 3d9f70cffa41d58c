package churn

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// Subscriptions by pattern (KIP-848's SubscribedTopicRegex,
// [assign.Member].TopicRegex) in the churn model. A [Churn] keeps each
// member's subscription as declared, its topic names and its pattern, and
// resolves the patterns against the topics as they are at every rebalance
// ([assign.ResolveTopicRegex]); [Churn.Group] and [Step.Group] hold the
// resolved subscriptions. Only the coordinator's consumer-protocol
// assignors ([assign.Uniform], [assign.ServerRange]) resolve a pattern:
// under any other strategy a member with one is refused, as
// [assign.AssignChecked] refuses it.
//
// When a topic is created, Kafka's group coordinator (GroupMetadataManager
// since KIP-848, Kafka 4.0) notes the metadata version that brought it
// (lastMetadataImageWithNewTopics); at the next heartbeat of a member of
// a group with patterns, if the group's last resolution is older than that
// version, older than 10 s (REGEX_BATCH_REFRESH_MIN_INTERVAL_MS), and no
// resolution is running, it resolves every pattern of the group again,
// asynchronously, and a resolution that changes a pattern's topics bumps
// the group epoch: a new target. So the refresh is neither immediate nor
// lost: it comes a heartbeat (and, within 10 s of the group's last
// resolution, those 10 s) after the creation. The churn model has no
// clock: a growth that creates a topic a pattern matches is one
// rebalance whose target includes the topic, what Kafka reaches once the
// refresh has run. What it cannot express is the wait, nor two creations
// within 10 s of each other batched into one resolution; package timeline
// plays both. A member's periodic refresh
// (group.consumer.regex.refresh.interval.ms) matters only where topics
// change without a growth, which no [Change] does.

// hasPattern reports whether a member of g subscribes by pattern.
func hasPattern(g assign.Group) bool {
	return slices.ContainsFunc(g.Members, func(m assign.Member) bool { return m.TopicRegex != "" })
}

// resolve returns g as s sees it: every pattern resolved against
// g.Topics when s is a coordinator's consumer-protocol assignor; g as it
// is when no member has a pattern; otherwise an [*assign.InputError]
// naming the first member with one.
func resolve(s assign.Strategy, g assign.Group) (assign.Group, error) {
	if !hasPattern(g) {
		return g, nil
	}
	if s.Protocol() == assign.ServerAssigned {
		return assign.ResolveTopicRegex(g)
	}
	i := slices.IndexFunc(g.Members, func(m assign.Member) bool { return m.TopicRegex != "" })
	m := g.Members[i]
	return assign.Group{}, &assign.InputError{Member: m.ID, Index: i, Partition: -1,
		Err: fmt.Errorf("%w /%s/: %s cannot resolve it; only the consumer protocol's assignors (uniform, server-range) resolve a pattern", assign.ErrTopicRegex, m.TopicRegex, s.Name())}
}

// checkPattern refuses, as an [*assign.InputError] about ch.Member, a
// pattern of ch that does not compile.
func checkPattern(ch Change) error {
	if ch.TopicRegex == "" {
		return nil
	}
	if _, err := regexp.Compile(ch.TopicRegex); err != nil {
		return &assign.InputError{Member: ch.Member, Index: -1, Partition: -1, Err: fmt.Errorf("%w %q: %v", assign.ErrTopicRegex, ch.TopicRegex, err)}
	}
	return nil
}

// subscription returns the topics m subscribes to when the metadata holds
// topics: its Topics and, with a pattern, every topic it matches.
func subscription(m assign.Member, topics map[string]int32) ([]string, error) {
	if m.TopicRegex == "" {
		return m.Topics, nil
	}
	m.Owned = nil
	g, err := assign.ResolveTopicRegex(assign.Group{Topics: topics, Members: []assign.Member{m}})
	if err != nil {
		return nil, err
	}
	return g.Members[0].Topics, nil
}

// declared writes a subscription as the command line does: the topics,
// then the pattern between slashes.
func declared(topics []string, pattern string) string {
	return withPattern(strings.Join(topics, ","), pattern)
}

// withPattern appends /pattern/, if any, to a list of topics.
func withPattern(s, pattern string) string {
	if pattern == "" {
		return s
	}
	if s != "" {
		s += ","
	}
	return s + "/" + pattern + "/"
}

// patternNote says what a member's pattern resolves to, for a step's
// notes, or "" for a member without one.
func patternNote(m assign.Member, topics map[string]int32) string {
	if m.TopicRegex == "" {
		return ""
	}
	resolved, err := subscription(m, topics)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s subscribes to %s, which resolves to %s", m.ID, declared(m.Topics, m.TopicRegex), orNothing(topicList(resolved, ",")))
}

// matchedNotes says, after a growth that created topic, which patterns
// match it (before is the group with its patterns, after the group
// resolved): the coordinator resolves patterns again when a topic is
// created.
func matchedNotes(topic string, before, after assign.Group) []string {
	var patterns []string
	by := make(map[string][]string)
	for i, m := range before.Members {
		if m.TopicRegex == "" || slices.Contains(m.Topics, topic) || !slices.Contains(after.Members[i].Topics, topic) {
			continue
		}
		if by[m.TopicRegex] == nil {
			patterns = append(patterns, m.TopicRegex)
		}
		by[m.TopicRegex] = append(by[m.TopicRegex], m.ID)
	}
	notes := make([]string, 0, len(patterns))
	for _, p := range patterns {
		notes = append(notes, fmt.Sprintf("the pattern /%s/ of %s matches the new topic %s: the coordinator resolves the group's patterns again "+
			"at a heartbeat after the topic appears (at most once per 10 s), a new group epoch", p, memberNames(by[p]), topic))
	}
	return notes
}

// memberNames names members for a note: all of them up to three, else
// the first three and how many more.
func memberNames(ids []string) string {
	switch n := len(ids); {
	case n > 3:
		return fmt.Sprintf("%s and %d more members", strings.Join(ids[:3], ", "), n-3)
	case n > 1:
		return strings.Join(ids[:n-1], ", ") + " and " + ids[n-1]
	}
	return ids[0]
}

// resubscribed is what a subscription change found.
type resubscribed struct {
	notes     []string
	unchanged bool // the member subscribes to the same topics: no rebalance (rule 6)
}

// resubscribe applies ch, a subscription change, to m, comparing the
// topics it subscribes to before and after against the metadata topics.
func resubscribe(m *assign.Member, ch Change, topics map[string]int32) (resubscribed, error) {
	var out resubscribed
	was, err := subscription(*m, topics)
	if err != nil {
		return out, err
	}
	m.Topics, m.TopicRegex = slices.Clone(ch.Topics), ch.TopicRegex
	now, err := subscription(*m, topics)
	if err != nil {
		return out, err
	}
	if note := patternNote(*m, topics); note != "" {
		out.notes = append(out.notes, note)
	}
	if slices.Equal(topicSet(was), topicSet(now)) {
		out.notes = append(out.notes, fmt.Sprintf("%s's subscription is unchanged: no rebalance", m.ID))
		out.unchanged = true
	}
	return out, nil
}

// patternNotes says what the subscriptions by pattern of g resolve to,
// for the notes of the first step: one note per declared subscription,
// naming up to three of its members, so that a big group's notes stay
// short.
func patternNotes(g assign.Group) []string {
	if !hasPattern(g) {
		return nil
	}
	r, err := assign.ResolveTopicRegex(g)
	if err != nil {
		return nil // NewChurn refuses g
	}
	type seen struct {
		members  []string
		resolved []string
	}
	var order []string
	by := make(map[string]*seen)
	for i, m := range g.Members {
		if m.TopicRegex == "" {
			continue
		}
		d := declared(m.Topics, m.TopicRegex)
		s, ok := by[d]
		if !ok {
			s = &seen{resolved: r.Members[i].Topics}
			by[d] = s
			order = append(order, d)
		}
		s.members = append(s.members, m.ID)
	}
	notes := make([]string, 0, len(order))
	for _, d := range order {
		s := by[d]
		verb := "subscribes"
		if len(s.members) > 1 {
			verb = "subscribe"
		}
		notes = append(notes, fmt.Sprintf("%s %s to %s, which resolves to %s", memberNames(s.members), verb, d, orNothing(topicList(s.resolved, ","))))
	}
	return notes
}
