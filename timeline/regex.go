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
// [Event] TopicRegex) under the consumer protocol, resolved as Kafka's
// group coordinator resolves them (GroupMetadataManager since Kafka 4.0:
// maybeUpdateRegularExpressions, handleRegularExpressionsResult):
//
//   - The coordinator keeps, per pattern, the topics it matched at the
//     group's last resolution, and its assignor sees a member's topic
//     names and what its pattern last matched (patternRefresh.resolve).
//   - It resolves every pattern of the group again at a heartbeat of any
//     member when a pattern has no resolution yet (a member brought a new
//     one) or a topic was created since the last resolution
//     (lastMetadataImageWithNewTopics), but never within 10 s of the last
//     resolution (REGEX_BATCH_REFRESH_MIN_INTERVAL_MS). A resolution that
//     changes what a pattern matches starts a new group epoch.
//   - A created topic that no member subscribes to by name changes no
//     group epoch by itself (subscribedTo): the subscribed topics' hash
//     did not change.
//   - A member that joins or changes its subscription starts an epoch
//     when its topic names change, when it drops its pattern, or when it
//     takes up a pattern the group has resolved for another member; a
//     pattern new to the group starts none until its resolution does
//     (subscriptionStartsEpoch). A pattern's resolution is forgotten when
//     its last subscriber leaves or changes pattern (forgetPattern).
//
// What the timeline simplifies: Kafka resolves asynchronously and its
// epoch comes with the result, moments after the heartbeat; here it comes
// at the heartbeat. The patterns present at the start count as resolved
// long before t = 0, so a topic created early waits only for a
// heartbeat. group.consumer.regex.refresh.interval.ms's periodic
// resolution finds nothing new here (topics are never deleted and ACLs
// are not modelled), so it is not played.
//
// Inside the package a member's pattern travels in its topic list, as
// one entry that no topic name can be (patternMark and the pattern), so
// that the protocols carry it wherever they carry a subscription; only
// the consumer protocol's coordinator reads it back
// (patternRefresh.resolve), and normalize refuses a pattern under any
// other protocol.

// regexMinRefresh is Kafka's REGEX_BATCH_REFRESH_MIN_INTERVAL_MS: the
// least time between two resolutions of a group's patterns.
const regexMinRefresh = 10_000

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

// patternRefresh is the consumer-protocol coordinator's resolution of
// its members' patterns.
type patternRefresh struct {
	resolved map[string][]string // pattern => the topics it matched, sorted; nil before the first resolution
	at       int64               // when the patterns were last resolved
	seen     int                 // how many topics existed then (topics are never deleted)

	// patterns are the group's distinct patterns at group epoch byEpoch,
	// once gathered (groupPatterns).
	patterns []string
	byEpoch  int32
	gathered bool
}

// patternOf returns the pattern carried in topics, and topics without
// it; "" and topics when there is none.
func patternOf(topics []string) (string, []string) {
	i := slices.IndexFunc(topics, func(t string) bool { return strings.HasPrefix(t, patternMark) })
	if i < 0 {
		return "", topics
	}
	return topics[i][len(patternMark):], slices.Delete(slices.Clone(topics), i, i+1)
}

// patterns returns the distinct patterns of members, sorted.
func patterns(members []assign.Member) []string {
	var out []string
	for _, m := range members {
		if p, _ := patternOf(m.Topics); p != "" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// resolve returns members as the assignor sees them: each one's pattern
// replaced by the topics it matched at the last resolution (none for a
// pattern not resolved yet). The first call that meets a pattern
// resolves the patterns of members as of long before now.
func (p *patternRefresh) resolve(members []assign.Member, topics map[string]int32, now int64) []assign.Member {
	ps := patterns(members)
	if len(ps) == 0 {
		return members
	}
	if p.resolved == nil {
		p.refresh(ps, topics, now)
		p.at = now - regexMinRefresh - 1
	}
	out := slices.Clone(members)
	for i := range out {
		pattern, names := patternOf(out[i].Topics)
		if pattern == "" {
			continue
		}
		matched := p.resolved[pattern]
		if len(names) == 0 {
			// The members of a pattern share its resolution, read only,
			// rather than each merging it into its names: the merge is
			// quadratic in the topics a pattern matches
			// (BenchmarkPatterns/members=200/topics=800).
			out[i].Topics = slices.Clip(matched)
			continue
		}
		listed := make(map[string]bool, len(names))
		for _, t := range names {
			listed[t] = true
		}
		for _, t := range matched {
			if !listed[t] {
				names = append(names, t)
			}
		}
		out[i].Topics = names
	}
	return out
}

// due reports whether a heartbeat at now resolves the patterns ps again.
func (p *patternRefresh) due(ps []string, topics map[string]int32, now int64) bool {
	if len(ps) == 0 || now <= p.at+regexMinRefresh {
		return false
	}
	return len(topics) != p.seen || slices.ContainsFunc(ps, func(x string) bool { _, ok := p.resolved[x]; return !ok })
}

// refresh resolves ps against topics at now and returns, sorted, the
// patterns whose topics changed (a pattern met for the first time
// included, when it matches something).
func (p *patternRefresh) refresh(ps []string, topics map[string]int32, now int64) []string {
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	slices.Sort(names)
	next := make(map[string][]string, len(ps))
	var changed []string
	for _, x := range ps {
		re := regexp.MustCompile("^(?:" + x + ")$") // normalize compiled it
		var matched []string
		for _, t := range names {
			if re.MatchString(t) {
				matched = append(matched, t)
			}
		}
		next[x] = matched
		if !slices.Equal(matched, p.resolved[x]) {
			changed = append(changed, x)
		}
	}
	p.resolved, p.at, p.seen = next, now, len(topics)
	return changed
}

// patternsPending reports whether the group's patterns wait for a
// resolution (a topic created since the last one, or a pattern never
// resolved): the group is not settled until a heartbeat has made it.
func (k *kip848) patternsPending() bool {
	ps := k.groupPatterns()
	return k.regex.due(ps, k.topics, k.regex.at+regexMinRefresh+1)
}

// groupPatterns returns the distinct patterns of the group's members,
// sorted. Members and subscriptions change only with a new group epoch,
// so they are gathered once per epoch: every heartbeat asks
// (TestTimelineScales).
func (k *kip848) groupPatterns() []string {
	if k.regex.byEpoch == k.epoch && k.regex.gathered {
		return k.regex.patterns
	}
	var members []assign.Member
	for _, id := range k.ids {
		if m := k.members[id]; m.membership != outside {
			members = append(members, assign.Member{Topics: m.Topics})
		}
	}
	k.regex.patterns, k.regex.byEpoch, k.regex.gathered = patterns(members), k.epoch, true
	return k.regex.patterns
}

// refreshPatterns is the coordinator's look at its patterns during a
// heartbeat: when due, it resolves them again, and a change starts a
// new group epoch.
func (k *kip848) refreshPatterns() {
	ps := k.groupPatterns()
	if !k.regex.due(ps, k.topics, k.now) {
		return
	}
	changed := k.regex.refresh(ps, k.topics, k.now)
	if len(changed) == 0 {
		return
	}
	var what []string
	for _, x := range changed {
		what = append(what, fmt.Sprintf("/%s/ matches %s", x, orNothing(strings.Join(k.regex.resolved[x], ","))))
	}
	k.bump("patterns resolved again: " + strings.Join(what, "; "))
}

func orNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}

// subscriptionStartsEpoch reports whether the heartbeat that brings m's
// subscription, changed from old (nil for a member that joins), starts a
// group epoch by itself, as Kafka's coordinator decides it
// (GroupMetadataManager.consumerGroupHeartbeat, 4.0 to 4.4:
// hasMemberSubscriptionChanged, maybeUpdateRegularExpressions): when its
// topic names change, when it drops its pattern, or when it takes up a
// pattern that another member of the group subscribes to and whose
// resolution the group holds. A pattern new to the group starts none by
// itself; its resolution does, at this heartbeat or a later one, when it
// matches something (refreshPatterns). why says why it starts none.
func (k *kip848) subscriptionStartsEpoch(m *kipMember, old []string) (starts bool, why string) {
	oldPattern, oldNames := patternOf(old)
	pattern, names := patternOf(m.Topics)
	switch {
	case !sameTopicSet(oldNames, names):
		return true, ""
	case pattern == oldPattern:
		return false, "subscription unchanged"
	case pattern == "":
		return true, ""
	}
	if _, ok := k.regex.resolved[pattern]; ok && k.othersSubscribe(m.ID, pattern) {
		return true, ""
	}
	return false, fmt.Sprintf("/%s/ is new to the group, and waits for its resolution", pattern)
}

// joinStartsEpoch: see subscriptionStartsEpoch.
func (k *kip848) joinStartsEpoch(m *kipMember) (bool, string) {
	k.regex.gathered = false // the group's patterns may change without a new epoch
	return k.subscriptionStartsEpoch(m, nil)
}

// subscriptionChanged is the coordinator's answer to m's heartbeat with
// a subscription changed from old: a new group epoch or, for a pattern
// new to the group, none yet; and old's pattern forgotten if no member
// subscribes to it any more.
func (k *kip848) subscriptionChanged(m *kipMember, old []string) {
	k.regex.gathered = false
	starts, why := k.subscriptionStartsEpoch(m, old)
	if p, _ := patternOf(old); p != "" {
		k.forgetPattern(p)
	}
	if !starts {
		k.step("", "no new group epoch for %s's subscription: %s", m.ID, why)
		return
	}
	k.bump(m.ID + ": subscription changed")
}

// othersSubscribe reports whether a member of the group other than id
// subscribes to pattern.
func (k *kip848) othersSubscribe(id, pattern string) bool {
	for _, other := range k.ids {
		if o := k.members[other]; other != id && o.membership != outside {
			if p, _ := patternOf(o.Topics); p == pattern {
				return true
			}
		}
	}
	return false
}

// forgetPattern drops the resolution of pattern once no member of the
// group subscribes to it, as Kafka's coordinator writes its tombstone
// when the last subscriber leaves or changes pattern: a member that takes
// it up later brings a pattern new to the group.
func (k *kip848) forgetPattern(pattern string) {
	if _, ok := k.regex.resolved[pattern]; ok && !k.othersSubscribe("", pattern) {
		delete(k.regex.resolved, pattern)
	}
}

// sameTopicSet reports whether a and b name the same topics.
func sameTopicSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
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
// group as its assignor reads it (patterns replaced by what they matched
// when last resolved), subscribes to topic. Kafka's coordinator bumps the
// group epoch for a change of the metadata only when the hash of the
// subscribed topics changes (ModernGroup.computeMetadataHash over the
// group's subscribed topic names, its resolved patterns' included).
func subscribedTo(g assign.Group, topic string) bool {
	return slices.ContainsFunc(g.Members, func(m assign.Member) bool { return slices.Contains(m.Topics, topic) })
}
