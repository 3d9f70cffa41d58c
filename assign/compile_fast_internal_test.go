package assign

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// drawTopicNames draws distinct topic names: ASCII ones, whose Java order
// is Go's, and, when nonASCII, some with a character beyond the Basic
// Multilingual Plane, which Java orders before a character of the plane's
// upper end (U+FF5E) where Go orders it after.
func drawTopicNames(t *rapid.T, nonASCII bool) []string {
	nt := rapid.IntRange(1, 24).Draw(t, "topics")
	names := make([]string, nt)
	for k := range names {
		names[k] = fmt.Sprintf("t%02d", k)
		if nonASCII && rapid.IntRange(0, 2).Draw(t, "odd") == 0 {
			// The orders differ at this character, before the number.
			names[k] = "u" + rapid.SampledFrom([]string{"\U0001F600", "\uFF5E"}).Draw(t, "char") + names[k]
		}
	}
	return names
}

// copyName returns name in bytes of its own, so that only its bytes, not
// its address, say which topic it names.
func copyName(name string) string { return strings.Clone(name) }

// TestCompileSubsInOrder: compile's subscriptions are, for every member,
// the topics its Topics name that exist with partitions, as ascending
// topic indices in Java's order of the names, each once, whatever the
// order, repeats or unknown names of its list; distinctNames says whether
// the list named only such topics, none twice. The reference below reads
// each list through a map from name to topic index built from the
// subscribed topics sorted by javaCompare, nothing compile uses; the lists
// drawn are mostly in Go order and made of the metadata's own strings (the
// fast path of compileSubs), sometimes not.
func TestCompileSubsInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := drawTopicNames(t, rapid.Bool().Draw(t, "nonASCII"))
		g := Group{Topics: map[string]int32{}}
		for _, name := range names {
			g.Topics[name] = int32(rapid.IntRange(0, 4).Draw(t, "parts")) // 0: a topic with no partitions
		}
		goOrder := slices.Sorted(func(yield func(string) bool) {
			for name := range g.Topics {
				if !yield(name) {
					return
				}
			}
		})
		nm := rapid.IntRange(1, 12).Draw(t, "members")
		for i := range nm {
			var topics []string
			how := rapid.IntRange(0, 5).Draw(t, "how")
			switch {
			case i > 0 && how == 0:
				topics = g.Members[i-1].Topics // shared
			case i > 0 && how == 1:
				// A copy of an earlier list, sometimes with one name in
				// the middle swapped for another: the same length, first
				// and last names (internSubs' key), not the same list.
				topics = slices.Clone(g.Members[rapid.IntRange(0, i-1).Draw(t, "earlier")].Topics)
				if len(topics) > 2 && rapid.Bool().Draw(t, "swap") {
					topics[len(topics)/2] = rapid.SampledFrom(goOrder).Draw(t, "other")
				}
			default:
				for _, name := range goOrder {
					if rapid.Bool().Draw(t, "subscribes") {
						topics = append(topics, name)
					}
				}
				if rapid.IntRange(0, 3).Draw(t, "disorder") == 0 && len(topics) > 1 {
					j := rapid.IntRange(0, len(topics)-1).Draw(t, "j")
					topics = append(topics, topics[j]) // a repeat, out of order
				}
				if rapid.IntRange(0, 5).Draw(t, "unknown") == 0 {
					topics = append(topics, "zz-unknown")
				}
				if rapid.IntRange(0, 3).Draw(t, "copies") == 0 {
					for k := range topics {
						topics[k] = copyName(topics[k])
					}
				}
			}
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%d", i), Topics: topics, Generation: -1})
		}
		cg, err := compile(g, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}

		// The reference: the topics subscribed with partitions, in Java
		// order, and each member's list read through a map.
		subscribed := map[string]bool{}
		for _, m := range g.Members {
			for _, name := range m.Topics {
				if g.Topics[name] > 0 {
					subscribed[name] = true
				}
			}
		}
		var want []string
		for name := range subscribed {
			want = append(want, name)
		}
		slices.SortFunc(want, javaCompare)
		if !slices.Equal(cg.topics, want) {
			t.Fatalf("topics %q, want %q", cg.topics, want)
		}
		index := map[string]int32{}
		for k, name := range want {
			index[name] = int32(k)
		}
		for i, m := range g.Members {
			var sub []int32
			distinct := true
			seen := map[int32]bool{}
			for _, name := range m.Topics {
				k, ok := index[name]
				if !ok {
					distinct = false
					continue
				}
				if seen[k] {
					distinct = false
					continue
				}
				seen[k] = true
				sub = append(sub, k)
			}
			slices.Sort(sub)
			if !slices.Equal(cg.subs[i], sub) || cg.distinctNames[i] != distinct {
				t.Fatalf("member %d (%q): subscription %v (distinct %v), want %v (%v)", i, m.Topics, cg.subs[i], cg.distinctNames[i], sub, distinct)
			}
		}
	})
}

// TestOwnedTopicIsTopicIndex: ownedTopic, which guesses a claim's topic
// from the member's own subscription by the address of its name, finds
// exactly the topic topicIndex finds, for names that are the metadata's
// strings, copies of them and unknown names, from any cursor; and it
// moves the cursor only past the topic it found in the subscription.
func TestOwnedTopicIsTopicIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := drawTopicNames(t, rapid.Bool().Draw(t, "nonASCII"))
		g := Group{Topics: map[string]int32{}}
		for _, name := range names {
			g.Topics[name] = int32(rapid.IntRange(0, 3).Draw(t, "parts"))
		}
		var topics []string
		for name := range g.Topics { // the map's own strings, as Carry's Owned lists hold them
			if rapid.Bool().Draw(t, "subscribes") {
				topics = append(topics, name)
			}
		}
		slices.Sort(topics)
		g.Members = []Member{{ID: "m", Topics: topics, Generation: -1}, {ID: "n", Topics: slices.Clone(names), Generation: -1}}
		cg, err := compile(g, ownedIgnored)
		if err != nil {
			t.Fatal(err)
		}
		after, _ := cg.goSteps()
		sub := cg.subs[0]
		guess := ownedGuess{sub: sub}
		ti, known := int32(0), false
		for range rapid.IntRange(1, 30).Draw(t, "lookups") {
			var name string
			switch rapid.IntRange(0, 3).Draw(t, "kind") {
			case 0:
				name = "zz-unknown"
			case 1:
				name = copyName(rapid.SampledFrom(names).Draw(t, "copy"))
			default:
				if len(cg.topics) == 0 {
					continue
				}
				name = cg.topics[rapid.IntRange(0, len(cg.topics)-1).Draw(t, "topic")]
			}
			if rapid.IntRange(0, 4).Draw(t, "jump") == 0 {
				guess = ownedGuess{sub: sub, at: rapid.IntRange(0, len(sub)).Draw(t, "at")}
			}
			was := guess.at
			got, gotOK := cg.ownedTopic(&guess, after, ti, known, name)
			at := guess.at
			want, wantOK := cg.topicIndex(name)
			if gotOK != wantOK || gotOK && got != want {
				t.Fatalf("ownedTopic(%q) = %d, %v; topicIndex = %d, %v", name, got, gotOK, want, wantOK)
			}
			if at != was && (at <= was || sub[at-1] != got) {
				t.Fatalf("ownedTopic(%q) = %d moved the cursor from %d to %d (sub %v)", name, got, was, at, sub)
			}
			if gotOK {
				ti, known = got, true
			}
		}
	})
}

// TestSameNameIsEquality: sameName and sameString, the comparisons of the
// hot loops that read Owned lists, agree with == (sameString only where
// it says yes) on strings equal or not, empty, sharing their bytes or
// copies, of one length or not.
func TestSameNameIsEquality(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pool := rapid.SliceOfN(rapid.StringMatching(`[ab]{0,3}`), 1, 6).Draw(t, "pool")
		a := rapid.SampledFrom(pool).Draw(t, "a")
		b := rapid.SampledFrom(pool).Draw(t, "b")
		if rapid.Bool().Draw(t, "copy") {
			b = copyName(b)
		}
		if rapid.Bool().Draw(t, "prefix") && len(a) > 0 {
			b = a[:len(a)-1] // shares a's address, another length
		}
		if rapid.Bool().Draw(t, "empties") {
			x, y := "ab"+a, "ba"+b
			a, b = x[:0], y[len(y):] // empty, at two addresses
		}
		if got := sameName(a, b); got != (a == b) {
			t.Fatalf("sameName(%q, %q) = %v", a, b, got)
		}
		if sameString(a, b) && a != b {
			t.Fatalf("sameString(%q, %q) for different strings", a, b)
		}
	})
}

// TestCompileSharesCollidingLists: members whose lists are equal share
// one compiled subscription even when another, different list has the
// same length and first and last names (internSubs' key), as two of
// bench's hetero groups' five lists do. Before repeats chained such
// lists, every member listing the second one got a copy of its own, so
// the solver's indexes kept a row per member; the answers were the same.
// Both readings are held: the members' Topics, and the indices the
// leader's round gives ([OwnedRuns.Subs]).
func TestCompileSharesCollidingLists(t *testing.T) {
	g := Group{Topics: map[string]int32{}}
	var names []string
	for k := range 12 {
		name := fmt.Sprintf("t%02d", k)
		names = append(names, name)
		g.Topics[name] = 2
	}
	// x and y have 10 names each, from t00 to t11; z has one more.
	x := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 11}
	y := []int32{0, 1, 2, 3, 4, 5, 6, 7, 9, 11}
	z := []int32{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11}
	lists := [][]int32{x, y, x, z, y, y, x, z} // members 0..7
	o := &OwnedRuns{RunOff: make([]int32, len(lists)+1), Names: names}
	bare := g
	for i, l := range lists {
		var topics []string
		for _, k := range l {
			topics = append(topics, strings.Clone(names[k])) // a copy: equal, not shared
		}
		id := fmt.Sprintf("m%d", i)
		g.Members = append(g.Members, Member{ID: id, Topics: topics, Generation: -1})
		bare.Members = append(bare.Members, Member{ID: id, Generation: -1})
		o.Subs = append(o.Subs, slices.Clone(l))
	}
	fromTopics, err := compile(g, ownedResolved)
	if err != nil {
		t.Fatal(err)
	}
	fromGiven, err := compileWith(bare, ownedResolved, o)
	if err != nil {
		t.Fatal(err)
	}
	for name, cg := range map[string]*compiledGroup{"Topics": fromTopics, "given": fromGiven} {
		for i := range lists {
			for j := range i {
				equal := slices.Equal(lists[i], lists[j])
				if got := sameSlice(cg.subs[i], cg.subs[j]); got != equal {
					t.Errorf("%s: members %d and %d share a subscription: %v, want %v (lists %v and %v)", name, j, i, got, equal, lists[j], lists[i])
				}
				if !slices.Equal(cg.subs[i], lists[i]) {
					t.Errorf("%s: member %d subscribes to %v, want %v", name, i, cg.subs[i], lists[i])
				}
			}
		}
	}
}

// TestCompileGivenSubsAllocs: compiling subscriptions given as indices
// (the leader's round) allocates as often for 400 members as for 40, five
// distinct lists of copies among them. A look-up of repeats that took the
// given lists as an interface value once per member allocated once per
// member: 981 allocations more a round on BenchmarkRound's
// hetero-1000x2000t in bench/, caught there before this test.
func TestCompileGivenSubsAllocs(t *testing.T) {
	allocs := func(n int) float64 {
		g := Group{Topics: map[string]int32{}}
		var names []string
		for k := range 20 {
			name := fmt.Sprintf("t%02d", k)
			names = append(names, name)
			g.Topics[name] = 3
		}
		o := &OwnedRuns{RunOff: make([]int32, n+1), Names: names}
		for i := range n {
			var sub []int32
			for k := range int32(20) {
				if (int(k)+i)%5 < 3 {
					sub = append(sub, k)
				}
			}
			o.Subs = append(o.Subs, sub)
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%03d", i), Generation: -1})
		}
		return testing.AllocsPerRun(20, func() {
			if _, err := compileWith(g, ownedResolved, o); err != nil {
				t.Fatal(err)
			}
		})
	}
	if few, many := allocs(40), allocs(400); many > few+2 {
		t.Errorf("compile allocates %v times for 400 members, %v for 40", many, few)
	}
}
