package assign

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func mustTopicID(t testing.TB, s string) TopicID {
	t.Helper()
	id, err := ParseTopicID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// threeOnFour is t with four partitions over A, B and C, which the member
// map iterates in that order ("A", "B", "C" hash to 65, 66, 67: buckets
// 1, 2, 3 of 16). The quota is 4/3 = 1 with one +1.
func threeOnFour(t *testing.T, owned ...[]int32) Group {
	g := Group{Topics: map[string]int32{"t": 4}, TopicIDs: map[string]TopicID{"t": mustTopicID(t, "Yp0cT2sWQ7ChA0qyU5Ckdg")}}
	for i, id := range []string{"A", "B", "C"} {
		m := Member{ID: id, Topics: []string{"t"}}
		if i < len(owned) {
			for _, p := range owned[i] {
				m.Owned = append(m.Owned, TopicPartition{"t", p})
			}
		}
		g.Members = append(g.Members, m)
	}
	return g
}

func tps(ps ...int32) []TopicPartition {
	var out []TopicPartition
	for _, p := range ps {
		out = append(out, TopicPartition{"t", p})
	}
	return out
}

// TestUniformWhoTakesThePlusOne works KAFKA-18688's change by hand.
func TestUniformWhoTakesThePlusOne(t *testing.T) {
	tests := []struct {
		name    string
		group   Group
		version KafkaVersion
		want    Assignment
	}{
		{
			// Fresh, 4.0.0: the first member visited takes the +1; the
			// free partitions 0..3 are dealt in chunks: A 0,1, B 2, C 3.
			name: "fresh, 4.0", group: threeOnFour(t), version: Kafka40,
			want: Assignment{"A": tps(0, 1), "B": tps(2), "C": tps(3)},
		},
		{
			// Fresh, 4.1: A keeps nothing, so it gives the +1 back (three
			// members left, one +1); so does B (two left); C is the last
			// and must take it: A 0, B 1, C 2,3.
			name: "fresh, 4.1", group: threeOnFour(t), version: Kafka41,
			want: Assignment{"A": tps(0), "B": tps(1), "C": tps(2, 3)},
		},
		{
			// Balanced, 4.0.0: A takes the +1 and waits for one more; C
			// (quota 1) keeps 2, the first of HashSet{2, 3}, and releases
			// 3, which goes to A: a balanced group moves a partition.
			name: "balanced, 4.0", group: threeOnFour(t, []int32{0}, []int32{1}, []int32{2, 3}), version: Kafka40,
			want: Assignment{"A": tps(0, 3), "B": tps(1), "C": tps(2)},
		},
		{
			// Balanced, 4.1: A and B give the +1 back, C keeps both.
			name: "balanced, 4.1", group: threeOnFour(t, []int32{0}, []int32{1}, []int32{2, 3}), version: Kafka41,
			want: Assignment{"A": tps(0), "B": tps(1), "C": tps(2, 3)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Uniform{Kafka: tc.version}.Assign(tc.group)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Uniform(%v) mismatch (-want +got):\n%s", tc.version, diff)
			}
		})
	}
}

// TestUniformOverQuota: A holds all four partitions, listed 3, 1, 0, 2.
// HashSet<Integer> of them iterates 0, 1, 2, 3 (each in its own bucket).
// A's quota is 2 (it takes the +1 and uses it, so it keeps it): it keeps
// 0 and 1 and releases 2 and 3, which B and C (quota 1 each, no +1 left)
// take in turn.
func TestUniformOverQuota(t *testing.T) {
	for _, v := range []KafkaVersion{Kafka40, Kafka41} {
		got, err := Uniform{Kafka: v}.Assign(threeOnFour(t, []int32{3, 1, 0, 2}))
		if err != nil {
			t.Fatal(err)
		}
		want := Assignment{"A": tps(0, 1), "B": tps(2), "C": tps(3)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Uniform(%v) mismatch (-want +got):\n%s", v, diff)
		}
	}
}

func TestKIP848Errors(t *testing.T) {
	base := func() Group {
		g := threeOnFour(t)
		g.TopicIDs = map[string]TopicID{"t": mustTopicID(t, "Yp0cT2sWQ7ChA0qyU5Ckdg")}
		return g
	}
	tests := []struct {
		name   string
		change func(g *Group)
		want   error
		topic  string
	}{
		{"no id for a subscribed topic", func(g *Group) { g.TopicIDs = nil }, ErrNoTopicID, "t"},
		{"no id for a held deleted topic", func(g *Group) { g.Members[0].Owned = []TopicPartition{{"gone", 0}} }, ErrNoTopicID, "gone"},
		{"zero id", func(g *Group) { g.TopicIDs["t"] = TopicID{} }, ErrReservedTopicID, "t"},
		{"metadata topic's id", func(g *Group) { g.TopicIDs["t"] = TopicID{15: 1} }, ErrReservedTopicID, "t"},
		{"one id, two names", func(g *Group) { g.TopicIDs["u"] = g.TopicIDs["t"] }, ErrDuplicateTopicID, "u"},
		{"a partition in two targets", func(g *Group) {
			g.Members[0].Owned = tps(1)
			g.Members[2].Owned = tps(1)
		}, ErrTargetConflict, "t"},
		{"a partition the topic does not have", func(g *Group) { g.Members[1].Owned = tps(4) }, ErrTargetOutOfRange, "t"},
		{"a partition listed twice", func(g *Group) { g.Members[1].Owned = tps(2, 0, 2) }, ErrDuplicateOwned, "t"},
	}
	for _, tc := range tests {
		g := base()
		tc.change(&g)
		for _, s := range []Strategy{Uniform{}, Uniform{Kafka: Kafka40}} {
			_, err := s.Assign(g)
			var ie *InputError
			if !errors.Is(err, tc.want) || !errors.As(err, &ie) || ie.Topic != tc.topic {
				t.Errorf("%s: %s.Assign: %v, want %v naming topic %q", tc.name, s.Name(), err, tc.want, tc.topic)
			}
		}
	}
	if _, err := (Uniform{Kafka: 7}).Assign(base()); !errors.Is(err, ErrUnknownKafkaVersion) {
		t.Errorf("unknown version: %v", err)
	}
	for in, want := range map[string]KafkaVersion{"4.0": Kafka40, "4.0.0": Kafka40, "4.0.1": Kafka41, "4.0.2": Kafka41, "4.1": Kafka41, "4.1.0": Kafka41, " 4.1.1 ": Kafka41} {
		if got, err := ParseKafkaVersion(in); err != nil || got != want {
			t.Errorf("ParseKafkaVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"3.9", "4", "4.5", "4.0.x", "4.0.1.2", ""} {
		if _, err := ParseKafkaVersion(in); !errors.Is(err, ErrUnknownKafkaVersion) {
			t.Errorf("ParseKafkaVersion(%q): %v, want ErrUnknownKafkaVersion", in, err)
		}
	}
}

func TestServerRangeStatic(t *testing.T) {
	// Static members first by instance ID (i0 < i1), then dynamic ones by
	// member ID: z (i0), a (i1), b, c. Seven partitions over four: 2, 2, 2, 1.
	g := Group{Topics: map[string]int32{"t": 7}, Members: []Member{
		{ID: "c", Topics: []string{"t"}}, {ID: "a", InstanceID: "i1", Topics: []string{"t"}},
		{ID: "b", Topics: []string{"t"}}, {ID: "z", InstanceID: "i0", Topics: []string{"t"}},
	}}
	want := Assignment{"z": tps(0, 1), "a": tps(2, 3), "b": tps(4, 5), "c": tps(6)}
	got, err := ServerRange{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ServerRange mismatch (-want +got):\n%s", diff)
	}
	ra, err := ServerRange{}.AssignRanges(g)
	if err != nil {
		t.Fatal(err)
	}
	wantRanges := RangeAssignment{Topics: []string{"t"}, IDs: []string{"c", "a", "b", "z"}, Ranges: [][]TopicRange{
		{{0, 6, 7}}, {{0, 2, 4}}, {{0, 4, 6}}, {{0, 0, 2}},
	}}
	if diff := cmp.Diff(wantRanges, ra); diff != "" {
		t.Errorf("AssignRanges mismatch (-want +got):\n%s", diff)
	}
}

// kip848Group draws a group of randomKIP848Group from a seed, so that
// rapid can draw, though not shrink, the groups the oracle checks.
func kip848Group(t *rapid.T) Group {
	seed := rapid.Uint64().Draw(t, "seed")
	return randomKIP848Group(rand.New(rand.NewPCG(seed, 848)), "rapid")
}

func TestKIP848Valid(t *testing.T) { rapid.Check(t, kip848Valid) }

func TestUniformHomogeneousSpread(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := kip848Group(t)
		sg, err := compileServer(g)
		if err != nil {
			t.Fatal(err)
		}
		if !sg.homogeneous {
			t.Skip("heterogeneous")
		}
		for _, v := range []KafkaVersion{Kafka40, Kafka41} {
			a, _ := Uniform{Kafka: v}.Assign(g)
			lo, hi := -1, 0
			for _, ps := range a {
				if lo < 0 || len(ps) < lo {
					lo = len(ps)
				}
				hi = max(hi, len(ps))
			}
			if hi-lo > 1 {
				t.Fatalf("%v: spread %d", v, hi-lo)
			}
		}
	})
}

// TestUniformKeepsBalanced: with 4.1, a homogeneous group whose members
// hold what uniform gave them gets the same again (KAFKA-18688's point).
func TestUniformKeepsBalanced(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := kip848Group(t)
		first, err := Uniform{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		sg, _ := compileServer(g)
		if !sg.homogeneous {
			t.Skip("heterogeneous")
		}
		again := g
		again.Members = slices.Clone(g.Members)
		for i := range again.Members {
			again.Members[i].Owned = first[again.Members[i].ID]
		}
		second, err := Uniform{}.Assign(again)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, second); diff != "" {
			t.Fatalf("a balanced group moved (-first +second):\n%s", diff)
		}
	})
}

func TestServerRangeIgnoresMemberOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := kip848Group(t)
		want, err := ServerRange{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		shuffled := g
		shuffled.Members = slices.Clone(g.Members)
		perm := rapid.Permutation(shuffled.Members).Draw(t, "order")
		shuffled.Members = perm
		got, err := ServerRange{}.Assign(shuffled)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("member order changed the answer (-listed +shuffled):\n%s", diff)
		}
	})
}

// TestLookupUnknownListsEveryName is a regression test: Lookup's message
// for an unknown name listed the client-side strategies only, though it
// accepts "uniform" and "server-range" too. Every name it lists must be
// accepted, and every accepted Kafka name listed.
func TestLookupUnknownListsEveryName(t *testing.T) {
	_, err := Lookup("sticky-ish")
	if !errors.Is(err, ErrUnknownStrategy) {
		t.Fatalf("Lookup(sticky-ish): %v, want ErrUnknownStrategy", err)
	}
	const want = "want one of range, roundrobin, sticky, cooperative-sticky, uniform, server-range, simple, or a Java class name"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Lookup's message %q lacks %q", err, want)
	}
	for _, name := range []string{"range", "roundrobin", "sticky", "cooperative-sticky", "uniform", "server-range", "simple"} {
		if s, err := Lookup(name); err != nil || s.Name() != name {
			t.Errorf("Lookup(%q) = %v, %v", name, s, err)
		}
	}
}
