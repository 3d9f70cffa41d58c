package assign

import (
	"slices"
	"testing"
)

// TestCommonSubscribers pins which groups take the path of RoundRobin
// for members sharing one subscription: the differential tests
// pass either way, so without this a lost fast path would go unnoticed.
func TestCommonSubscribers(t *testing.T) {
	topics := []string{"t0", "t1", "t2"}
	parts := map[string]int32{"t0": 2, "t1": 3, "t2": 1, "empty": 0}
	member := func(id, instance string, topics ...string) Member {
		return Member{ID: id, InstanceID: instance, Topics: topics, Generation: -1}
	}
	cases := []struct {
		name    string
		members []Member
		want    []string // subscribers in member order; nil for the general path
	}{{
		name:    "one shared slice",
		members: []Member{member("b", "", topics...), member("a", "", topics...), member("c", "i0", topics...)},
		want:    []string{"c", "a", "b"},
	}, {
		name: "equal subscriptions in other orders, repeats, unknown and empty topics",
		members: []Member{member("a", "", "t2", "t1", "t0"), member("b", "", "t0", "t1", "t2", "t0"),
			member("c", "", "t0", "unknown", "t1", "t2", "empty")},
		want: []string{"a", "b", "c"},
	}, {
		name:    "members with an empty subscription are left out",
		members: []Member{member("a", ""), member("b", "", topics...), member("c", "", "unknown")},
		want:    []string{"b"},
	}, {
		name:    "nobody subscribes to anything",
		members: []Member{member("a", ""), member("b", "", "empty")},
		want:    []string{},
	}, {
		name:    "one member on fewer topics",
		members: []Member{member("a", "", topics...), member("b", "", "t0", "t1")},
		want:    nil,
	}, {
		name:    "no two members alike",
		members: []Member{member("a", "", "t0"), member("b", "", "t1")},
		want:    nil,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cg, err := compile(Group{Members: tc.members, Topics: parts}, ownedIgnored)
			if err != nil {
				t.Fatal(err)
			}
			subscribers, ok := commonSubscribers(cg)
			if ok != (tc.want != nil) {
				t.Fatalf("commonSubscribers: ok = %t, want %t", ok, tc.want != nil)
			}
			var got []string
			for _, m := range subscribers {
				got = append(got, tc.members[m].ID)
			}
			if ok && !slices.Equal(got, tc.want) {
				t.Errorf("commonSubscribers = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestWriteOrder pins that topics are written in index order unless Go's
// order of their names differs from Java's.
func TestWriteOrder(t *testing.T) {
	for _, tc := range []struct {
		topics []string
		want   []int32 // nil: index order
	}{
		{[]string{"a", "b", "c"}, nil},
		{[]string{"\uff21"}, nil},
		// Java: U+10400 (surrogates D801 DC00) < U+FF21 < U+FF22; Go puts it last.
		{[]string{"\uff22", "\U00010400", "\uff21"}, []int32{1, 2, 0}},
	} {
		parts := make(map[string]int32)
		for _, name := range tc.topics {
			parts[name] = 1
		}
		cg, err := compile(Group{Members: []Member{{ID: "c", Topics: tc.topics}}, Topics: parts}, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}
		if got := writeOrder(cg); !slices.Equal(got, tc.want) {
			t.Errorf("writeOrder(%q) = %v, want %v (topics in Java order: %q)", tc.topics, got, tc.want, cg.topics)
		}
	}
}

// TestSetsFit pins when RoundRobin deals with sets of members rather than
// rows of positions: when the sets take no more words than the
// subscriptions hold topics.
func TestSetsFit(t *testing.T) {
	group := func(members int, topicsOf func(j int) []string) Group {
		g := Group{Topics: make(map[string]int32)}
		for j := range members {
			m := Member{ID: string(rune('a'+j%26)) + string(rune('0'+j/26)), Topics: topicsOf(j)}
			for _, name := range m.Topics {
				g.Topics[name] = 1
			}
			g.Members = append(g.Members, m)
		}
		return g
	}
	name := func(i int) string { return "t" + string(rune('a'+i%26)) + string(rune('0'+i/26)) }
	for _, tc := range []struct {
		desc string
		g    Group
		want bool
	}{
		// 100 members on 3 of 5 topics: 10 words against 300 subscriptions.
		{"dense", group(100, func(j int) []string { return []string{name(j % 5), name((j + 1) % 5), name((j + 2) % 5)} }), true},
		// 100 members on a topic each: 2 words per topic, 200 against 100.
		{"one topic each", group(100, func(j int) []string { return []string{name(j)} }), false},
	} {
		cg, err := compile(tc.g, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}
		if got := setsFit(cg); got != tc.want {
			t.Errorf("%s: setsFit = %t, want %t", tc.desc, got, tc.want)
		}
	}
}
