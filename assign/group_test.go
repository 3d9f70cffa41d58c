package assign

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func TestValidateRefuses(t *testing.T) {
	sub := []string{"t"}
	tests := []struct {
		name    string
		g       Group
		want    error  // sentinel
		message string // the whole Error()
	}{
		{
			name:    "empty member ID",
			g:       Group{Topics: map[string]int32{"t": 1}, Members: []Member{{ID: "a", Topics: sub}, {Topics: sub}}},
			want:    ErrEmptyMemberID,
			message: `assign: member "" (at index 1): empty member ID`,
		},
		{
			name:    "duplicate member ID",
			g:       Group{Topics: map[string]int32{"t": 1}, Members: []Member{{ID: "a"}, {ID: "b"}, {ID: "a"}}},
			want:    ErrDuplicateMemberID,
			message: `assign: member "a" (at index 2): duplicate member ID`,
		},
		{
			name:    "duplicate instance ID",
			g:       Group{Members: []Member{{ID: "a", InstanceID: "i"}, {ID: "b", InstanceID: "i"}}},
			want:    ErrDuplicateInstanceID,
			message: `assign: member "b" (at index 1): duplicate group.instance.id "i"`,
		},
		{
			name:    "negative partition count",
			g:       Group{Topics: map[string]int32{"t": -3}, Members: []Member{{ID: "a", Topics: sub}}},
			want:    ErrNegativePartitions,
			message: `assign: topic "t": negative partition count -3`,
		},
		{
			name:    "empty topic name in metadata",
			g:       Group{Topics: map[string]int32{"": 3}},
			want:    ErrEmptyTopicName,
			message: `assign: empty topic name`,
		},
		{
			name: "rack lists shorter than the partitions",
			g: Group{Topics: map[string]int32{"t": 3}, PartitionRacks: map[string][][]string{"t": {{"a"}, {"b"}}},
				Members: []Member{{ID: "a", Topics: sub}}},
			want:    ErrRackCount,
			message: `assign: topic "t": number of partition rack lists differs from the partition count: 2 rack lists for 3 partitions`,
		},
		{
			name:    "racks of a topic missing from the metadata",
			g:       Group{Topics: map[string]int32{"t": 1}, PartitionRacks: map[string][][]string{"u": {{"a"}}}},
			want:    ErrRacksUnknownTopic,
			message: `assign: topic "u": partition racks given for a topic missing from the metadata`,
		},
		{
			name: "partition owned twice by one member",
			g: Group{Topics: map[string]int32{"t": 4}, Members: []Member{
				{ID: "a", Topics: sub, Owned: []TopicPartition{{"t", 2}, {"t", 0}, {"t", 2}}},
			}},
			want:    ErrDuplicateOwned,
			message: `assign: member "a" (at index 0): topic "t": partition 2: partition owned twice by one member`,
		},
		{
			// In ascending order but for the repeat, its names equal
			// strings in arrays of their own (as decoded from the wire).
			name: "partition owned twice, listed in order",
			g: Group{Topics: map[string]int32{"t": 4}, Members: []Member{
				{ID: "a", Topics: sub, Owned: []TopicPartition{{"t", 0}, {strings.Clone("t"), 2}, {strings.Clone("t"), 2}}},
			}},
			want:    ErrDuplicateOwned,
			message: `assign: member "a" (at index 0): topic "t": partition 2: partition owned twice by one member`,
		},
		{
			name:    "too many partitions",
			g:       Group{Topics: map[string]int32{"t": MaxPartitions, "u": 1}, Members: []Member{{ID: "a", Topics: []string{"t", "u"}}}},
			want:    ErrTooManyPartitions,
			message: `assign: topic "u": too many partitions: the subscribed topics hold more than 33554432`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.g.Validate()
			if !errors.Is(err, tc.want) {
				t.Fatalf("Validate() = %v, want an error wrapping %v", err, tc.want)
			}
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Validate() = %T, want *InputError", err)
			}
			if got := err.Error(); got != tc.message {
				t.Errorf("Validate() message mismatch (-want +got):\n%s", cmp.Diff(tc.message, got))
			}
		})
	}
}

// TestValidateTolerates lists what Kafka tolerates and so must we: each
// group here is valid.
func TestValidateTolerates(t *testing.T) {
	tests := []struct {
		name string
		g    Group
	}{
		{"no members", Group{Topics: map[string]int32{"t": 3}}},
		{"no metadata", Group{Members: []Member{{ID: "a", Topics: []string{"t"}}}}},
		{"subscription to a missing topic", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a", Topics: []string{"nope", "t"}}}}},
		{"subscription to a topic with no partitions", Group{Topics: map[string]int32{"t": 0}, Members: []Member{{ID: "a", Topics: []string{"t"}}}}},
		{"empty subscription", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a"}}}},
		{"topic listed twice", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a", Topics: []string{"t", "t"}}}}},
		{"owned partition beyond the count", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a", Topics: []string{"t"}, Owned: []TopicPartition{{"t", 7}, {"t", 7}}}}}},
		{"owned partition of a deleted topic", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a", Topics: []string{"t"}, Owned: []TopicPartition{{"gone", 0}}}}}},
		{"owned negative partition", Group{Topics: map[string]int32{"t": 3}, Members: []Member{{ID: "a", Topics: []string{"t"}, Owned: []TopicPartition{{"t", -1}}}}}},
		{"one partition claimed by two members", Group{Topics: map[string]int32{"t": 3}, Members: []Member{
			{ID: "a", Topics: []string{"t"}, Owned: []TopicPartition{{"t", 0}}},
			{ID: "b", Topics: []string{"t"}, Owned: []TopicPartition{{"t", 0}}},
		}}},
		{"empty rack lists", Group{Topics: map[string]int32{"t": 2}, PartitionRacks: map[string][][]string{"t": {nil, {}}}}},
		// Validate settles most groups by the metadata's total; past the
		// cap only the subscribed topics count.
		{"more partitions than MaxPartitions in topics nobody subscribes to", Group{Topics: map[string]int32{"t": MaxPartitions, "u": 1}, Members: []Member{{ID: "a", Topics: []string{"t"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.g.Validate(); err != nil {
				t.Errorf("Validate() = %v, want nil", err)
			}
		})
	}
}

func TestCompileInterns(t *testing.T) {
	// Topics in Java order (U+10400 before U+FF21), only those subscribed
	// with partitions; subscriptions deduplicated and sorted; claims of
	// partitions that no longer exist dropped; static members first.
	g := Group{
		Topics: map[string]int32{"\uff21": 2, "\U00010400": 1, "b": 3, "unused": 5, "empty": 0},
		Members: []Member{
			{ID: "m1", Topics: []string{"b", "\uff21", "b", "empty", "nope"}, Owned: []TopicPartition{{"b", 9}, {"b", 1}, {"unused", 0}}},
			{ID: "m0", InstanceID: "z", Topics: []string{"\U00010400"}},
			{ID: "m2", InstanceID: "y", Rack: "r1"},
		},
		PartitionRacks: map[string][][]string{"b": {{"r2", "r1", "r2"}, nil, {""}}},
	}
	cg, err := compile(g, ownedListed)
	if err != nil {
		t.Fatal(err)
	}
	type summary struct {
		Topics     []string
		NumParts   []int32
		Subs       [][]int32
		Owned      [][]int32
		KafkaOrder []int32
		RackNames  []string
		MemberRack []int32
		PartRacks  [][][]int32
	}
	want := summary{
		Topics:     []string{"b", "\U00010400", "\uff21"},
		NumParts:   []int32{3, 1, 2},
		Subs:       [][]int32{{0, 2}, {1}, nil},
		Owned:      [][]int32{{1}, nil, nil}, // b-9 no longer exists; b-1 is partition number 1
		KafkaOrder: []int32{2, 1, 0},         // y, z, then dynamic m1
		RackNames:  []string{"r1", "r2"},
		MemberRack: []int32{-1, -1, 0},
		PartRacks:  [][][]int32{{{0, 1}, {}, {}}, nil, nil},
	}
	owned := make([][]int32, len(g.Members))
	for m := range owned {
		if o := cg.owned(int32(m)); len(o) > 0 {
			owned[m] = o
		}
	}
	got := summary{cg.topics, cg.numParts, cg.subs, owned, cg.kafkaOrder, cg.rackNames, cg.memberRack, cg.partRacks}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compile(g) mismatch (-want +got):\n%s", diff)
	}
}

// TestDuplicateOwnedFound checks the duplicate-claim check of compile, in
// each of its uses, and of Validate, whose fast path trusts lists sorted topic by topic,
// against a map of what each member listed, on lists of every shape:
// sorted, shuffled, with repeats, with topics that nobody subscribes to or
// that no longer exist.
func TestDuplicateOwnedFound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		topics := []string{"a", "b", "c", "gone"}
		g := Group{Topics: map[string]int32{
			"a": rapid.Int32Range(0, 4).Draw(t, "a"),
			"b": rapid.Int32Range(0, 4).Draw(t, "b"),
			"c": rapid.Int32Range(0, 4).Draw(t, "c"),
		}}
		n := rapid.IntRange(1, 3).Draw(t, "members")
		alike := rapid.Bool().Draw(t, "alike") // one subscription and one generation, as ownedKeptIfLossless wants
		for i := range n {
			m := Member{ID: fmt.Sprint("m", i), Generation: rapid.Int32Range(0, 1).Draw(t, "generation")}
			m.Topics = rapid.SliceOfDistinct(rapid.SampledFrom(topics[:3]), rapid.ID).Draw(t, "topics")
			if alike && i > 0 {
				m.Topics, m.Generation = g.Members[0].Topics, g.Members[0].Generation
			}
			m.Owned = rapid.SliceOfN(rapid.Custom(func(t *rapid.T) TopicPartition {
				topic := rapid.SampledFrom(topics).Draw(t, "topic")
				if rapid.Bool().Draw(t, "copied") {
					topic = strings.Clone(topic) // equal names in arrays of their own
				}
				return TopicPartition{topic, rapid.Int32Range(-1, 4).Draw(t, "partition")}
			}), 0, 8).Draw(t, "owned")
			if rapid.Bool().Draw(t, "sorted") {
				slices.SortFunc(m.Owned, TopicPartition.Compare)
			}
			g.Members = append(g.Members, m)
		}
		subscribed := make(map[string]bool)
		for _, m := range g.Members {
			for _, tp := range m.Topics {
				subscribed[tp] = true
			}
		}
		var want *InputError // the first repeat of the first member with one
		for i, m := range g.Members {
			seen := make(map[TopicPartition]bool)
			for _, tp := range m.Owned {
				if !subscribed[tp.Topic] || tp.Partition < 0 || tp.Partition >= g.Topics[tp.Topic] {
					continue
				}
				if seen[tp] && want == nil {
					want = &InputError{Member: m.ID, Index: i, Topic: tp.Topic, Partition: tp.Partition, Err: ErrDuplicateOwned}
				}
				seen[tp] = true
			}
		}
		// Validate's fast path trusts lists in strictly ascending order.
		var got *InputError
		if err := g.Validate(); want == nil && err != nil || want != nil && (!errors.As(err, &got) || *got != *want) {
			t.Fatalf("Validate() = %v, want %v", err, want)
		}
		for _, use := range []ownedRead{ownedIgnored, ownedListed, ownedResolved, ownedKeptIfLossless} {
			_, err := compile(g, use)
			if want == nil {
				if err != nil {
					t.Fatalf("compile(g, %d) = %v, want nil", use, err)
				}
				continue
			}
			var got *InputError
			if !errors.As(err, &got) || *got != *want {
				t.Fatalf("compile(g, %d) = %v, want %v", use, err, want)
			}
		}
	})
}

// TestFirstRepeat checks firstRepeat, pairwise on short lists and with a
// map on long ones, against a statement of what it finds.
func TestFirstRepeat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfN(rapid.SampledFrom([]string{"", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "u", "v", "w", "x", "y", "z"}), 0, 3*shortList).Draw(t, "keys")
		if rapid.Bool().Draw(t, "wide") { // long lists of keys of up to three letters, without repeats too
			keys = rapid.SliceOfN(rapid.StringMatching(`[a-e]{0,3}`), shortList+1, 5*shortList).Draw(t, "wide keys")
		}
		if rapid.Bool().Draw(t, "sorted") {
			slices.Sort(keys) // ascending, often with repeats: the check for ascending keys must not pass them
			if rapid.Bool().Draw(t, "distinct") {
				keys = slices.Compact(keys)
			}
			// Some keys moved out of place, up to more than nearlyAscending
			// sets aside.
			for range rapid.IntRange(0, outOfPlace+2).Draw(t, "moved") {
				if len(keys) == 0 {
					break
				}
				from := rapid.IntRange(0, len(keys)-1).Draw(t, "from")
				k := keys[from]
				keys = slices.Delete(keys, from, from+1)
				to := rapid.IntRange(0, len(keys)).Draw(t, "to")
				keys = slices.Insert(keys, to, k)
			}
			for range rapid.IntRange(0, 3).Draw(t, "empties") { // empty keys repeat nothing
				keys = slices.Insert(keys, rapid.IntRange(0, len(keys)).Draw(t, "empty at"), "")
			}
			if len(keys) > 0 && rapid.Bool().Draw(t, "repeat") { // one key again, anywhere
				k := keys[rapid.IntRange(0, len(keys)-1).Draw(t, "repeated")]
				keys = slices.Insert(keys, rapid.IntRange(0, len(keys)).Draw(t, "at"), k)
			}
		}
		want := -1
	search:
		for i, k := range keys {
			for _, earlier := range keys[:i] {
				if k != "" && k == earlier {
					want = i
					break search
				}
			}
		}
		if got := firstRepeat(keys, func(k *string) string { return *k }); got != want {
			t.Fatalf("firstRepeat(%q) = %d, want %d", keys, got, want)
		}
	})
}

// TestCompileSubscriptions checks the topics and subscriptions compile
// finds (with its guesses from the metadata's order and its sharing
// between neighbours) against a map-based statement, on subscriptions in
// any order with repeats, unknown topics, empty topics, non-BMP names,
// and neighbours sharing one slice.
func TestCompileSubscriptions(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "\U00010400", "\uff21", "unknown"}
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: make(map[string]int32)}
		for _, name := range names[:len(names)-1] {
			if rapid.Bool().Draw(t, "exists") {
				g.Topics[name] = rapid.Int32Range(0, 3).Draw(t, "partitions")
			}
		}
		for i := range rapid.IntRange(0, 2*shortList).Draw(t, "unsubscribed") {
			g.Topics[fmt.Sprintf("x%02d", i)] = 1 // past shortList, names are found with a map
		}
		for i := range rapid.IntRange(0, 5).Draw(t, "members") {
			m := Member{ID: fmt.Sprint("m", i)}
			if i > 0 && rapid.Bool().Draw(t, "share") {
				m.Topics = g.Members[i-1].Topics
			} else {
				m.Topics = rapid.SliceOfN(rapid.SampledFrom(names), 0, 12).Draw(t, "topics")
				if rapid.Bool().Draw(t, "sorted") {
					slices.Sort(m.Topics)
				}
			}
			g.Members = append(g.Members, m)
		}
		cg, err := compile(g, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, m := range g.Members {
			for _, name := range m.Topics {
				if g.Topics[name] > 0 && !slices.Contains(want, name) {
					want = append(want, name)
				}
			}
		}
		slices.SortFunc(want, javaCompare)
		if !slices.Equal(cg.topics, want) {
			t.Fatalf("topics = %q, want %q", cg.topics, want)
		}
		var byGo []string
		for _, ti := range cg.goOrder() {
			byGo = append(byGo, cg.topics[ti])
		}
		if !slices.IsSorted(byGo) || len(byGo) != len(want) {
			t.Fatalf("goOrder gives %q, not the topics in Go order", byGo)
		}
		for i, m := range g.Members {
			var sub []int32
			for ti, name := range want {
				if slices.Contains(m.Topics, name) {
					sub = append(sub, int32(ti))
				}
			}
			if !slices.Equal(cg.subs[i], sub) {
				t.Fatalf("member %d subscribes to %v, want %v", i, cg.subs[i], sub)
			}
			for ti, name := range want {
				if got, ok := cg.topicIndex(name); !ok || got != int32(ti) || cg.numParts[ti] != g.Topics[name] || cg.start[ti+1]-cg.start[ti] != g.Topics[name] {
					t.Fatalf("topic %q: numbered inconsistently", name)
				}
			}
		}
		for name := range g.Topics {
			if _, ok := cg.topicIndex(name); ok != slices.Contains(want, name) {
				t.Fatalf("topicIndex(%q) finds it: %v; subscribed with partitions: %v", name, ok, !ok)
			}
		}
		if _, ok := cg.topicIndex("unknown"); ok {
			t.Fatalf("topicIndex finds a topic missing from the metadata")
		}
	})
}
