package churn

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func tps(topic string, ps ...int32) []assign.TopicPartition {
	out := make([]assign.TopicPartition, len(ps))
	for i, p := range ps {
		out[i] = assign.TopicPartition{Topic: topic, Partition: p}
	}
	return out
}

// TestChurnPatternPicksUpNewTopic follows, by hand, a member subscribed
// by pattern under server-range. c0 subscribes to /orders-.*/, c1 to
// payments. At the start c0 holds orders-eu 0,1 and c1 payments 0,1:
// each topic has one subscriber. A growth creates orders-us: the pattern
// matches it, so the growth is a rebalance and c0, its one subscriber,
// receives orders-us 0,1 (new partitions: nothing moves). A growth that
// creates audit, which no pattern matches, starts no rebalance. Then c1
// subscribes to payments and /orders-us/: orders-us has two subscribers
// and two partitions, one each; server range takes its members in
// Kafka's HashMap order, c0 ("c0".hashCode() 3117, bucket 13 of 16)
// before c1 (3118, bucket 14), so c0 keeps orders-us 0 and orders-us 1
// moves from c0 to c1: c0 revokes it in the first heartbeat round and
// c1 receives it in the second (deferred).
func TestChurnPatternPicksUpNewTopic(t *testing.T) {
	g := assign.Group{
		Topics: map[string]int32{"orders-eu": 2, "payments": 2},
		Members: []assign.Member{
			{ID: "c0", TopicRegex: "orders-.*", Generation: -1},
			{ID: "c1", Topics: []string{"payments"}, Generation: -1},
		},
	}
	g, _ = g.WithDerivedTopicIDs()
	s := assign.ServerRange{}
	ch, first, err := NewChurn(s, g)
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignment{"c0": tps("orders-eu", 0, 1), "c1": tps("payments", 0, 1)}
	if diff := cmp.Diff(want, first.After); diff != "" {
		t.Fatalf("start mismatch (-want +got):\n%s", diff)
	}
	if want := []string{"c0 subscribes to /orders-.*/, which resolves to orders-eu"}; !slices.Equal(first.Notes, want) {
		t.Errorf("start: notes %q; want %q", first.Notes, want)
	}
	if got := first.Group.Members[0]; !slices.Equal(got.Topics, []string{"orders-eu"}) || got.TopicRegex != "" {
		t.Errorf("start: c0 subscribes to %v, pattern %q; want [orders-eu] resolved", got.Topics, got.TopicRegex)
	}

	step, err := ch.Apply(Change{Kind: ChangeGrow, Topic: "orders-us", Partitions: 2})
	if err != nil {
		t.Fatal(err)
	}
	want = assign.Assignment{"c0": append(tps("orders-eu", 0, 1), tps("orders-us", 0, 1)...), "c1": tps("payments", 0, 1)}
	if diff := cmp.Diff(want, step.After); diff != "" {
		t.Errorf("after orders-us is created mismatch (-want +got):\n%s", diff)
	}
	if step.Rebalances != 1 || len(step.Moves) != 0 || step.Revoked != 0 {
		t.Errorf("orders-us created: %d rebalances, moves %v, %d revoked; want 1, none, 0", step.Rebalances, step.Moves, step.Revoked)
	}
	if got := ch.Group().Members[0].Topics; !slices.Equal(got, []string{"orders-eu", "orders-us"}) {
		t.Errorf("after orders-us is created, c0 subscribes to %v; want [orders-eu orders-us]", got)
	}
	if len(step.Notes) != 1 || !strings.Contains(step.Notes[0], "the pattern /orders-.*/ of c0 matches the new topic orders-us") {
		t.Errorf("orders-us created: notes %q; want one saying c0's pattern matches it", step.Notes)
	}

	step, err = ch.Apply(Change{Kind: ChangeGrow, Topic: "audit", Partitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	if step.Rebalances != 0 || len(step.Notes) != 1 || !strings.Contains(step.Notes[0], "nobody subscribes to audit") {
		t.Errorf("audit created: %d rebalances, notes %q; want none and a note that nobody subscribes to it", step.Rebalances, step.Notes)
	}

	step, err = ch.Apply(Change{Kind: ChangeSubscribe, Member: "c1", Topics: []string{"payments"}, TopicRegex: "orders-us"})
	if err != nil {
		t.Fatal(err)
	}
	want = assign.Assignment{"c0": append(tps("orders-eu", 0, 1), tps("orders-us", 0)...), "c1": append(tps("orders-us", 1), tps("payments", 0, 1)...)}
	if diff := cmp.Diff(want, step.After); diff != "" {
		t.Errorf("after c1 subscribes to /orders-us/ mismatch (-want +got):\n%s", diff)
	}
	wantMoves := []assign.Move{{Partition: assign.TopicPartition{Topic: "orders-us", Partition: 1}, From: "c0", To: "c1", Reason: assign.ReasonLayout, Deferred: true}}
	if diff := cmp.Diff(wantMoves, step.Moves); diff != "" {
		t.Errorf("moves mismatch (-want +got):\n%s", diff)
	}
	if got := step.Change.String(); got != "subscribe c1 to payments,/orders-us/" {
		t.Errorf("change: %q; want %q", got, "subscribe c1 to payments,/orders-us/")
	}
	if len(step.Notes) != 1 || step.Notes[0] != "c1 subscribes to payments,/orders-us/, which resolves to payments,orders-us" {
		t.Errorf("subscribe: notes %q; want the resolution", step.Notes)
	}
}

// TestChurnPatternRejoins: a member that left with a pattern comes back
// with it unless the join gives a subscription, and the pattern is
// resolved against the topics of the rejoin. c0 (/t.*/) leaves while
// holding t1 0,1; t2 is created; c0 rejoins and, alone, takes t1 and t2.
func TestChurnPatternRejoins(t *testing.T) {
	// Uniform needs an id for t2 too: the ids are derived with t2 in
	// the metadata, which then starts without it.
	g := assign.Group{Topics: map[string]int32{"t1": 2, "t2": 1}, Members: []assign.Member{{ID: "c0", TopicRegex: "t.*", Generation: -1}, {ID: "c1", Topics: []string{}, Generation: -1}}}
	g, _ = g.WithDerivedTopicIDs()
	g.Topics = map[string]int32{"t1": 2}
	ch, _, err := NewChurn(assign.Uniform{}, g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Change{{Kind: ChangeLeave, Member: "c0"}, {Kind: ChangeGrow, Topic: "t2", Partitions: 1}} {
		if _, err := ch.Apply(c); err != nil {
			t.Fatal(err)
		}
	}
	step, err := ch.Apply(Change{Kind: ChangeJoin, Member: "c0"})
	if err != nil {
		t.Fatal(err)
	}
	want := assign.Assignment{"c0": append(tps("t1", 0, 1), tps("t2", 0)...), "c1": nil}
	if diff := cmp.Diff(want, step.After); diff != "" {
		t.Errorf("after c0 rejoins mismatch (-want +got):\n%s", diff)
	}
	if len(step.Notes) != 1 || !strings.Contains(step.Notes[0], "subscription /t.*/") {
		t.Errorf("rejoin: notes %q; want one saying c0 keeps its subscription /t.*/", step.Notes)
	}
}

// TestChurnPatternRefused: a classic strategy, or a switch to one, refuses
// a member subscribed by pattern; a pattern that does not compile is an
// input error naming the member; a refused change leaves the churn as it
// was.
func TestChurnPatternRefused(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 2}, Members: []assign.Member{{ID: "c0", TopicRegex: "t", Generation: -1}}}
	g, _ = g.WithDerivedTopicIDs()
	if _, _, err := NewChurn(assign.Range{}, g); !errors.Is(err, assign.ErrTopicRegex) || !strings.Contains(err.Error(), "range cannot resolve it") {
		t.Errorf("NewChurn(range) with a pattern: %v; want ErrTopicRegex saying range cannot resolve it", err)
	}
	ch, _, err := NewChurn(assign.Uniform{}, g)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Apply(Change{Kind: ChangeStrategy, Strategy: assign.Range{}}); !errors.Is(err, assign.ErrTopicRegex) {
		t.Errorf("switch to range with a pattern: %v; want ErrTopicRegex", err)
	}
	var ie *assign.InputError
	if _, err := ch.Apply(Change{Kind: ChangeJoin, Member: "c1", TopicRegex: "t(", Given: GivenTopics}); !errors.As(err, &ie) || ie.Member != "c1" || !errors.Is(err, assign.ErrTopicRegex) {
		t.Errorf("join with pattern t(: %v; want an InputError about c1 wrapping ErrTopicRegex", err)
	}
	// The churn is as it was: uniform, c0 alone with t 0,1.
	step, err := ch.Apply(Change{Kind: ChangeJoin, Member: "c1", TopicRegex: "t", Given: GivenTopics})
	if err != nil {
		t.Fatal(err)
	}
	if step.Rebalances != 1 || len(step.Group.Members) != 2 || len(step.After["c0"])+len(step.After["c1"]) != 2 || len(step.After["c1"]) != 1 {
		t.Errorf("join c1=/t/ after the refusals: %d rebalances, after %v; want 1 and one partition each", step.Rebalances, step.After)
	}
}

// TestMemberNames: a note names up to three members, then counts.
func TestMemberNames(t *testing.T) {
	for _, tt := range []struct {
		ids  []string
		want string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"a", "b", "c", "d", "e"}, "a, b, c and 2 more members"},
	} {
		if got := memberNames(tt.ids); got != tt.want {
			t.Errorf("memberNames(%q) = %q; want %q", tt.ids, got, tt.want)
		}
	}
}

// TestChurnPatternProperties plays random joins, leaves, subscription
// changes and growths (creating topics among them) on groups whose
// members subscribe by prefix patterns, under uniform and server range.
// After every step each member's resolved subscription is what
// strings.HasPrefix picks from the topics then, beside its names (an
// oracle that knows nothing of regexp), the assignment is valid for it
// (so a created topic a pattern matches is assigned at once), and a
// growth of a topic nobody subscribes to by either way starts no
// rebalance.
func TestChurnPatternProperties(t *testing.T) {
	universe := []string{"a-0", "a-1", "b-0", "c"}
	prefixes := map[string]string{"": "", "a-.*": "a-", "b-.*": "b-", "a-.*|c": ""}
	type declared struct {
		topics  []string
		pattern string
	}
	oracle := func(d declared, topics map[string]int32) []string {
		out := slices.Clone(d.topics)
		for _, tp := range universe {
			if _, ok := topics[tp]; !ok || slices.Contains(out, tp) {
				continue
			}
			p, ok := prefixes[d.pattern]
			switch {
			case d.pattern == "a-.*|c" && (strings.HasPrefix(tp, "a-") || tp == "c"):
				out = append(out, tp)
			case ok && p != "" && strings.HasPrefix(tp, p):
				out = append(out, tp)
			}
		}
		return topicSet(out)
	}
	patterns := []string{"", "a-.*", "b-.*", "a-.*|c"}
	rapid.Check(t, func(t *rapid.T) {
		var s assign.Strategy = assign.Uniform{}
		if rapid.Bool().Draw(t, "server-range") {
			s = assign.ServerRange{}
		}
		all := make(map[string]int32, len(universe))
		for _, tp := range universe {
			all[tp] = 1
		}
		g := assign.Group{Topics: all}
		g, _ = g.WithDerivedTopicIDs() // ids for every topic a growth may create
		g.Topics = map[string]int32{"a-0": int32(rapid.IntRange(0, 4).Draw(t, "a-0")), "b-0": int32(rapid.IntRange(0, 4).Draw(t, "b-0"))}
		drawSub := func(label string) declared {
			return declared{
				topics:  rapid.SliceOfDistinct(rapid.SampledFrom(universe), rapid.ID[string]).Draw(t, label+" topics"),
				pattern: rapid.SampledFrom(patterns).Draw(t, label+" pattern"),
			}
		}
		model := map[string]declared{}
		next := 0
		for range rapid.IntRange(1, 3).Draw(t, "members") {
			d := drawSub("member")
			id := fmt.Sprintf("m%d", next)
			next++
			model[id] = d
			g.Members = append(g.Members, assign.Member{ID: id, Topics: d.topics, TopicRegex: d.pattern, Generation: -1})
		}
		ch, first, err := NewChurn(s, g)
		if err != nil {
			t.Fatal(err)
		}
		check := func(step Step, what string) {
			if err := assign.Verify(step.Group, step.After); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(step.Group.Members) != len(model) {
				t.Fatalf("%s: %d members; the model has %d", what, len(step.Group.Members), len(model))
			}
			for _, m := range step.Group.Members {
				if want := oracle(model[m.ID], step.Group.Topics); m.TopicRegex != "" || !slices.Equal(topicSet(m.Topics), want) {
					t.Fatalf("%s: %s subscribes to %v (pattern %q left); the oracle says %v", what, m.ID, m.Topics, m.TopicRegex, want)
				}
			}
		}
		check(first, "start")
		for i := range rapid.IntRange(1, 8).Draw(t, "steps") {
			var c Change
			ids := slices.Sorted(maps.Keys(model))
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				tp := rapid.SampledFrom(universe).Draw(t, "topic")
				c = Change{Kind: ChangeGrow, Topic: tp, Partitions: ch.Group().Topics[tp] + int32(rapid.IntRange(0, 2).Draw(t, "more"))}
			case 1:
				d := drawSub("join")
				c = Change{Kind: ChangeJoin, Member: fmt.Sprintf("m%d", next), Topics: d.topics, TopicRegex: d.pattern, Given: GivenTopics}
				next++
			case 2:
				d := drawSub("subscribe")
				c = Change{Kind: ChangeSubscribe, Member: rapid.SampledFrom(ids).Draw(t, "who"), Topics: d.topics, TopicRegex: d.pattern}
			case 3:
				if len(ids) == 1 {
					continue
				}
				c = Change{Kind: ChangeLeave, Member: rapid.SampledFrom(ids).Draw(t, "who")}
			}
			before := maps.Clone(ch.Group().Topics)
			step, err := ch.Apply(c)
			if err != nil {
				t.Fatalf("step %d (%v): %v", i, c, err)
			}
			switch c.Kind {
			case ChangeJoin, ChangeSubscribe:
				model[c.Member] = declared{c.Topics, c.TopicRegex}
			case ChangeLeave:
				delete(model, c.Member)
			case ChangeGrow:
				_, existed := before[c.Topic]
				subscribed := false
				for _, d := range model {
					subscribed = subscribed || slices.Contains(oracle(d, step.Group.Topics), c.Topic)
				}
				if (existed && before[c.Topic] == c.Partitions || !subscribed) && step.Rebalances != 0 {
					t.Fatalf("step %d (%v): %d rebalances; nobody subscribes to %s or its count did not change", i, c, step.Rebalances, c.Topic)
				}
			}
			check(step, fmt.Sprintf("step %d (%v)", i, c))
		}
	})
}
