package assign_test

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
)

// regexTopics is the metadata of the resolution table: names a user's
// patterns might reach by accident, internal topics included.
var regexTopics = map[string]int32{
	"orders": 1, "orders-eu": 1, "orders-us": 1, "old-orders-eu": 1,
	"orders.v2": 1, "ordersXv2": 1, "Orders-ASIA": 1, "__consumer_offsets": 50,
	"payments-1": 1, "payments-22": 1,
}

// TestResolveTopicRegex: the topics each pattern reaches, written by hand
// from Kafka's rule (the whole name must match, as RE2J's
// Matcher.matches requires; internal topics are candidates; explicit
// names first, then the matches in Go string order, no topic twice).
func TestResolveTopicRegex(t *testing.T) {
	tests := []struct {
		name    string
		topics  []string
		pattern string
		want    []string
	}{
		{name: "full match, not find", pattern: "orders", want: []string{"orders"}},
		{name: "prefix", pattern: "orders-.*", want: []string{"orders-eu", "orders-us"}},
		{name: "anchors are redundant", pattern: "^orders-.*$", want: []string{"orders-eu", "orders-us"}},
		{name: "dollar then more", pattern: "orders$.*", want: []string{"orders"}},
		{name: "unescaped dot matches any character", pattern: "orders.v2", want: []string{"orders.v2", "ordersXv2"}},
		{name: "escaped dot", pattern: `orders\.v2`, want: []string{"orders.v2"}},
		{name: "character class", pattern: "payments-[0-9]", want: []string{"payments-1"}},
		{name: "perl class and repetition", pattern: `payments-\d+`, want: []string{"payments-1", "payments-22"}},
		{name: "case-sensitive", pattern: "orders-[a-z]+", want: []string{"orders-eu", "orders-us"}},
		{name: "case flag", pattern: "(?i)orders-[a-z]+", want: []string{"Orders-ASIA", "orders-eu", "orders-us"}},
		{name: "alternation is anchored as a whole", pattern: "orders|payments-1", want: []string{"orders", "payments-1"}},
		{name: "internal topics are candidates", pattern: "__.*", want: []string{"__consumer_offsets"}},
		{name: "nothing matches", pattern: "inventory-.*", want: nil},
		{name: "union with explicit names", topics: []string{"payments-22", "orders-us"}, pattern: "orders-.*",
			want: []string{"payments-22", "orders-us", "orders-eu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := assign.Group{Topics: regexTopics, Members: []assign.Member{
				{ID: "plain", Topics: []string{"orders"}},
				{ID: "r", Topics: tt.topics, TopicRegex: tt.pattern},
			}}
			before := in.Members[1]
			got, err := assign.ResolveTopicRegex(in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Members[1].Topics); diff != "" {
				t.Errorf("ResolveTopicRegex(%q) topics mismatch (-want +got):\n%s", tt.pattern, diff)
			}
			if got.Members[1].TopicRegex != "" {
				t.Errorf("TopicRegex = %q after resolution, want empty", got.Members[1].TopicRegex)
			}
			if diff := cmp.Diff([]string{"orders"}, got.Members[0].Topics); diff != "" {
				t.Errorf("member without a pattern changed (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, in.Members[1]); diff != "" {
				t.Errorf("the input group was modified (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveTopicRegexInvalid: a pattern RE2 cannot compile is refused
// with an error naming the member and the pattern, as Kafka's heartbeat
// fails with INVALID_REGULAR_EXPRESSION. "a)|(b" compiles once wrapped in
// ^(?:...)$ and must still be refused.
func TestResolveTopicRegexInvalid(t *testing.T) {
	for _, pattern := range []string{"orders-(", "a)|(b", "[z-a]", "x{1001}", `\8`} {
		g := assign.Group{Topics: regexTopics, Members: []assign.Member{
			{ID: "ok", Topics: []string{"orders"}},
			{ID: "bad", TopicRegex: pattern},
		}}
		_, err := assign.ResolveTopicRegex(g)
		var ie *assign.InputError
		if !errors.As(err, &ie) || !errors.Is(err, assign.ErrTopicRegex) {
			t.Fatalf("ResolveTopicRegex(%q) = %v, want an *InputError wrapping ErrTopicRegex", pattern, err)
		}
		if ie.Member != "bad" || ie.Index != 1 || !strings.Contains(err.Error(), pattern) {
			t.Errorf("ResolveTopicRegex(%q) error %q does not name member bad at index 1 and the pattern", pattern, err)
		}
		if _, err := (assign.Uniform{}).Assign(withIDs(g)); !errors.Is(err, assign.ErrTopicRegex) {
			t.Errorf("Uniform.Assign with pattern %q = %v, want ErrTopicRegex", pattern, err)
		}
	}
}

// TestTopicRegexStrategies: the coordinator's assignors give a member
// subscribed by pattern what they give it subscribed to the resolved
// names; every other strategy refuses it, saying classic clients resolve
// patterns themselves.
func TestTopicRegexStrategies(t *testing.T) {
	byRegex := withIDs(assign.Group{Topics: regexTopics, Members: []assign.Member{
		{ID: "c0", TopicRegex: "orders-.*"},
		{ID: "c1", Topics: []string{"orders-eu", "payments-1"}},
		{ID: "c2", Topics: []string{"payments-1"}, TopicRegex: "orders-(eu|us)"},
	}})
	byName := withIDs(assign.Group{Topics: regexTopics, Members: []assign.Member{
		{ID: "c0", Topics: []string{"orders-eu", "orders-us"}},
		{ID: "c1", Topics: []string{"orders-eu", "payments-1"}},
		{ID: "c2", Topics: []string{"payments-1", "orders-eu", "orders-us"}},
	}})
	for _, s := range []assign.Strategy{assign.Uniform{}, assign.ServerRange{}} {
		got, err := s.Assign(byRegex)
		if err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		want, err := s.Assign(byName)
		if err != nil {
			t.Fatalf("%s by name: %v", s.Name(), err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s by pattern mismatch with by name (-want +got):\n%s", s.Name(), diff)
		}
	}
	for _, s := range []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.Sticky{}, assign.CooperativeSticky{}, assign.Simple{}} {
		_, err := s.Assign(byRegex)
		var ie *assign.InputError
		if !errors.As(err, &ie) || !errors.Is(err, assign.ErrTopicRegex) || ie.Member != "c0" || !strings.Contains(err.Error(), "classic clients resolve") {
			t.Errorf("%s.Assign with a pattern = %v, want ErrTopicRegex naming c0 and saying classic clients resolve patterns", s.Name(), err)
		}
	}
	if err := byRegex.Validate(); !errors.Is(err, assign.ErrTopicRegex) {
		t.Errorf("Validate with a pattern = %v, want ErrTopicRegex", err)
	}
}

// withIDs gives every topic of g a topic id, as the KIP-848 assignors
// need.
func withIDs(g assign.Group) assign.Group {
	g, _ = g.WithDerivedTopicIDs()
	return g
}

// TestResolveTopicRegexProperties, on random small groups: a member
// subscribed by the quoted name of a topic, or by a quoted prefix and
// ".*", gets exactly the topics strings.HasPrefix and == pick (a judge
// that knows nothing of regular expressions), after its explicit topics;
// Uniform and ServerRange answer the group with patterns as they answer
// it resolved; an arbitrary pattern never panics and is either resolved
// or refused with ErrTopicRegex.
func TestResolveTopicRegexProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		g, _ = g.WithDerivedTopicIDs()
		names := slices.Sorted(maps.Keys(g.Topics))
		if len(names) == 0 {
			return
		}
		want := make([][]string, len(g.Members))
		for i := range g.Members {
			m := &g.Members[i]
			name := rapid.SampledFrom(names).Draw(t, "topic")
			var picked func(string) bool
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				continue
			default:
				if !utf8.ValidString(name) { // Kafka's names are ASCII; Go reads a stray byte as U+FFFD
					continue
				}
			}
			switch rapid.IntRange(1, 2).Draw(t, "pattern") {
			case 1:
				m.TopicRegex = regexp.QuoteMeta(name)
				picked = func(t string) bool { return t == name }
			case 2:
				runes := []rune(name)
				prefix := string(runes[:rapid.IntRange(0, len(runes)).Draw(t, "prefix")])
				m.TopicRegex = regexp.QuoteMeta(prefix) + ".*"
				picked = func(t string) bool { return strings.HasPrefix(t, prefix) }
			}
			want[i] = slices.Clone(m.Topics)
			for _, n := range names {
				if picked(n) && !slices.Contains(m.Topics, n) {
					want[i] = append(want[i], n)
				}
			}
		}
		res, err := assign.ResolveTopicRegex(g)
		if err != nil {
			t.Fatalf("ResolveTopicRegex: %v", err)
		}
		for i, m := range res.Members {
			if want[i] == nil && g.Members[i].TopicRegex == "" {
				continue
			}
			if diff := cmp.Diff(want[i], m.Topics); diff != "" {
				t.Fatalf("member %s by %q (-want +got):\n%s", m.ID, g.Members[i].TopicRegex, diff)
			}
		}
		for _, s := range []assign.Strategy{assign.Uniform{}, assign.ServerRange{}} {
			a, err := s.Assign(g)
			b, rerr := s.Assign(res)
			if (err == nil) != (rerr == nil) || !cmp.Equal(a, b) {
				t.Fatalf("%s: with patterns %v, %v; resolved %v, %v", s.Name(), a, err, b, rerr)
			}
		}
		g.Members[0].TopicRegex = rapid.String().Draw(t, "arbitrary")
		if _, err := assign.ResolveTopicRegex(g); err != nil && !errors.Is(err, assign.ErrTopicRegex) {
			t.Fatalf("arbitrary pattern %q: %v, want nil or ErrTopicRegex", g.Members[0].TopicRegex, err)
		}
	})
}

// TestResolveTopicRegexScales: resolving a group whose members share a
// pattern and name no topics costs the copy of the member list and one
// resolution per pattern; a member more adds its Member and nothing per
// matched topic. Copying the matched list for every member, as before,
// added a list of the matched topics per member, 16 bytes a topic or more.
func TestResolveTopicRegexScales(t *testing.T) {
	const topics = 1000
	meta := make(map[string]int32, topics)
	for i := range topics {
		meta[fmt.Sprintf("orders-%04d", i)] = 1
	}
	group := func(members int) assign.Group {
		g := assign.Group{Topics: meta, Members: make([]assign.Member, members)}
		for i := range g.Members {
			g.Members[i] = assign.Member{ID: fmt.Sprintf("c%05d", i), TopicRegex: "orders-.*"}
		}
		return g
	}
	bytesOf := func(g assign.Group) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := assign.ResolveTopicRegex(g)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(r.Members[len(r.Members)-1].Topics); got != topics {
			t.Fatalf("last member resolved to %d topics, want %d", got, topics)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	const n = 500
	small, big := bytesOf(group(n)), bytesOf(group(2*n))
	perMember := float64(big-small) / n
	if limit := 2 * float64(unsafe.Sizeof(assign.Member{})); perMember > limit {
		t.Errorf("each member more costs %.0f bytes (%d members: %d B, %d: %d B), want at most %.0f: twice a Member",
			perMember, n, small, 2*n, big, limit)
	}
}
