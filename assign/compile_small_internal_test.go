package assign

import (
	"errors"
	"fmt"
	"github.com/assigncalc/assigncalc/assign/internal/intern"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestSmallGroupMatchesCompiled holds Range, RoundRobin and Sticky's
// Assign, which answer a small shared group without compiling it
// (compile_small.go), to the compiled path (compileAny, then rangeOf,
// roundRobinOf, stickyOf) on the same group: the same answer, or the same
// error. Groups are drawn around the small path's bounds: up to 18
// members (it takes 16), static and dynamic members (Kafka's order is not
// the listed one), topic names whose Go and Java orders differ, names
// listed twice, missing from the metadata or with no partitions, the
// members' lists shared, copied, or one of them different, and, to hold
// read to declining where it must, members that list partitions, replica
// racks, and invalid groups (an ID repeated or empty, a negative count,
// an empty topic name, a member subscribed by pattern). IDs are short or
// long, ASCII or not, with characters whose Java order is not Go's.
func TestSmallGroupMatchesCompiled(t *testing.T) {
	names := []string{"a", "b", "t-10", "t-9", "\uff21", "\U00010400", "x"}
	taken := 0
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		ascii := rapid.Bool().Draw(t, "ascii") // most draws: names the small path takes
		pool := names
		if ascii {
			pool = []string{"a", "b", "t-10", "t-9", "x"}
		}
		for _, name := range pool {
			if rapid.IntRange(0, 4).Draw(t, "absent") > 0 {
				g.Topics[name] = rapid.Int32Range(0, 13).Draw(t, "partitions")
			}
		}
		fault := rapid.IntRange(0, 9).Draw(t, "fault")
		switch fault {
		case 0:
			g.Topics["a"] = -1
		case 1:
			g.Topics[""] = 2
		case 2:
			g.PartitionRacks = map[string][][]string{}
			for name, n := range g.Topics {
				for range n {
					racks := rapid.SampledFrom([][]string{{"r0"}, {"r1"}, {"r0", "r1"}}).Draw(t, "replicas")
					g.PartitionRacks[name] = append(g.PartitionRacks[name], racks)
				}
			}
		}
		sub := rapid.SliceOfN(rapid.SampledFrom(pool), 0, 9).Draw(t, "sub")
		if fault == 1 && rapid.Bool().Draw(t, "listed") {
			sub = slices.Sorted(maps.Keys(g.Topics)) // "" among every name of the metadata
		}
		nm := rapid.IntRange(1, smallMembers+2).Draw(t, "members")
		static := rapid.Bool().Draw(t, "static")
		copied := rapid.Bool().Draw(t, "copied")
		differ := rapid.IntRange(-1, 3*nm).Draw(t, "differ") // a member whose list differs, when < nm
		owner := rapid.IntRange(-1, 3*nm).Draw(t, "owner")   // a member that owns a partition, when < nm
		// IDs short, or long (read ORs their bytes a word at a time), or
		// with characters whose Java order is not Go's, somewhere.
		idForm := rapid.SampledFrom([]string{"m%d", "consumer-%05d", "consumer-\uff21%d", "\U00010400-consumer-%d"}).Draw(t, "ID form")
		for i := range nm {
			id := fmt.Sprintf(idForm, (nm-i)*7%19)
			if idForm[0] == 'c' && i%2 == 1 {
				id = strings.Replace(id, "\uff21", "\U00010400", 1) // beside the other: Java's order is not Go's
			}
			m := Member{ID: id, Topics: sub, Rack: rapid.SampledFrom([]string{"", "r0", "r1"}).Draw(t, "rack")}
			if static && i%3 != 1 {
				m.InstanceID = fmt.Sprintf("i%d", (i*5)%19)
			}
			if copied {
				m.Topics = slices.Clone(sub)
			}
			if i == differ {
				m.Topics = append(slices.Clone(sub), "b")
			}
			if i == owner {
				m.Owned = []TopicPartition{{"a", 0}}
			}
			g.Members = append(g.Members, m)
		}
		switch rapid.IntRange(0, 19).Draw(t, "member fault") {
		case 0:
			g.Members[nm-1].ID = g.Members[0].ID
		case 1:
			g.Members[nm/2].ID = ""
		case 2:
			g.Members[nm-1].InstanceID, g.Members[0].InstanceID = "i", "i"
		case 3:
			g.Members[nm/2].TopicRegex = "t-.*"
		case 4:
			g.Members[nm-1].ID = g.Members[nm/2].ID // neighbours or not in Kafka's order
		}
		var sg smallGroup
		if sg.read(&g, false) {
			taken++
		}
		for _, st := range smallStrategies {
			matchCompiled(t, st.s, st.compiled, g)
		}
	})
	if taken == 0 {
		t.Fatal("no group took the small path")
	}
	t.Logf("%d groups took the small path", taken)
}

// TestOrBytes holds orBytes, which read uses to know that names are
// ASCII, to ascii, which tests each byte: on strings of every length up
// to 3 words, ASCII or with one byte at or above utf8.RuneSelf anywhere.
func TestOrBytes(t *testing.T) {
	for n := range 25 {
		b := []byte(strings.Repeat("x", n))
		for at := -1; at < n; at++ {
			for _, high := range []byte{0x80, 0xff} {
				if at >= 0 {
					b[at] = high
				}
				s := string(b)
				if got, want := orBytes(s)&highBits == 0, ascii(s); got != want {
					t.Errorf("orBytes(%q) says ASCII %v, ascii %v", s, got, want)
				}
				if at >= 0 {
					b[at] = 'x'
				}
			}
		}
	}
}

// TestSmallGroupTooManyPartitions: a small shared group whose topics hold
// more than MaxPartitions is refused as compile refuses it, before
// anything as large is allocated, whatever strategy answers it.
func TestSmallGroupTooManyPartitions(t *testing.T) {
	g := Group{
		Topics:  map[string]int32{"a": MaxPartitions, "b": 1},
		Members: []Member{{ID: "m0", Topics: []string{"a", "b"}}},
	}
	for _, s := range []Strategy{Range{}, RoundRobin{}, Sticky{}} {
		if _, err := s.Assign(g); !errors.Is(err, ErrTooManyPartitions) {
			t.Errorf("%s.Assign(%d partitions) = %v, want %v", s.Name(), MaxPartitions+1, err, ErrTooManyPartitions)
		}
	}
}

// TestCompileSmallMatchesAny holds compileGroup, which compiles a small
// shared group listing every topic of its metadata from its smallGroup
// (smallGroup.compile), to compileAny on the same group: every field of
// the compiled group equal (meta by its names: its index is seeded at
// random), or the same error, for every use of Owned. Members list
// claims, some of them repeated, of partitions that do not exist, of
// topics they do not list, at different generations, as well as the
// groups of TestSmallGroupMatchesCompiled.
func TestCompileSmallMatchesAny(t *testing.T) {
	names := []string{"a", "b", "t-10", "t-9", "x", "\uff21"}
	small := 0
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		pool := names[:rapid.IntRange(0, len(names)).Draw(t, "topics")]
		for _, name := range pool {
			g.Topics[name] = rapid.Int32Range(0, 9).Draw(t, "partitions")
		}
		if rapid.IntRange(0, 9).Draw(t, "fault") == 0 {
			g.Topics["a"] = -1
		}
		sub := slices.Clone(pool)
		if rapid.Bool().Draw(t, "shuffled") {
			sub = rapid.Permutation(sub).Draw(t, "sub")
		}
		if rapid.IntRange(0, 4).Draw(t, "repeat") == 0 && len(sub) > 0 {
			sub = append(sub, sub[0])
		}
		if rapid.IntRange(0, 4).Draw(t, "drop") == 0 && len(sub) > 0 {
			sub = sub[1:] // one topic of the metadata listed by nobody
		}
		nm := rapid.IntRange(1, smallMembers+2).Draw(t, "members")
		for i := range nm {
			m := Member{ID: fmt.Sprintf("m%d", (nm-i)*7%19), Topics: sub, Generation: rapid.Int32Range(-1, 2).Draw(t, "generation")}
			if rapid.Bool().Draw(t, "static") {
				m.InstanceID = fmt.Sprintf("i%d", (i*5)%19)
			}
			m.Rack = rapid.SampledFrom([]string{"", "r0"}).Draw(t, "rack")
			for range rapid.IntRange(0, 4).Draw(t, "claims") {
				m.Owned = append(m.Owned, TopicPartition{
					Topic:     rapid.SampledFrom(append([]string{"gone"}, names...)).Draw(t, "topic"),
					Partition: rapid.Int32Range(0, 9).Draw(t, "partition"),
				})
			}
			if rapid.Bool().Draw(t, "sorted") {
				slices.SortFunc(m.Owned, TopicPartition.Compare)
			}
			g.Members = append(g.Members, m)
		}
		var sg smallGroup
		if sg.read(&g, true) && sg.nt == len(g.Topics) {
			small++
		}
		for _, use := range []ownedRead{ownedIgnored, ownedListed, ownedResolved, ownedKeptIfLossless, ownedKeptPacked} {
			got, gotErr := compileGroup(g, use, nil, true)
			want, wantErr := compileAny(g, use, nil, true)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("use %d: compileGroup's error %v, compileAny's %v", use, gotErr, wantErr)
			}
			if gotErr != nil {
				continue
			}
			if !slices.Equal(got.meta.Names(), want.meta.Names()) {
				t.Fatalf("use %d: meta %q, want %q", use, got.meta.Names(), want.meta.Names())
			}
			got.meta, want.meta = intern.Sorted{}, intern.Sorted{}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("use %d: compileGroup\n%+v\ncompileAny\n%+v", use, got, want)
			}
		}
	})
	if small == 0 {
		t.Fatal("no group took smallGroup.compile")
	}
	t.Logf("%d groups took smallGroup.compile", small)
}

// TestSmallGroupAllocatesTheAnswer: on a small shared group where nobody
// owns anything, Range, RoundRobin, Sticky and CooperativeSticky allocate
// no more often than writing their answer alone does (a map and one
// backing array, as bench's write-output floor writes it): smallGroup and
// its scratch stay on the stack. A group of 10 members and 10 topics of
// 10 partitions, bench's uniform-10x100; then, as bench's join1, its
// Sticky answer carried over and a member joining, where Sticky gives up
// claims (keptDealt with giveUp) and CooperativeSticky withholds them,
// and both allocate their answer alone too.
func TestSmallGroupAllocatesTheAnswer(t *testing.T) {
	g := Group{Topics: map[string]int32{}}
	var topics []string
	for i := range 10 {
		name := fmt.Sprintf("topic-%05d", i)
		g.Topics[name] = 10
		topics = append(topics, name)
	}
	for i := range 10 {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%05d", i), Topics: topics})
	}
	for _, s := range []Strategy{Range{}, RoundRobin{}, Sticky{}, CooperativeSticky{}} {
		testAllocatesTheAnswer(t, s, g)
	}
	prev, err := Sticky{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	joined := Carry(g, prev, 1)
	joined.Members = append(joined.Members, Member{ID: "consumer-new", Topics: topics, Generation: -1})
	for _, withhold := range []bool{false, true} {
		var sg smallGroup
		if _, ok := sg.sticky(&joined, withhold); !ok {
			t.Fatalf("the joined group does not take the small path (withhold %v)", withhold)
		}
	}
	testAllocatesTheAnswer(t, Sticky{}, joined)
	testAllocatesTheAnswer(t, CooperativeSticky{}, joined)
}

// testAllocatesTheAnswer fails t when s.Assign(g) allocates more often
// than writing an answer of g's members and partitions does.
func testAllocatesTheAnswer(t *testing.T, s Strategy, g Group) {
	t.Helper()
	total := 0
	for _, n := range g.Topics {
		total += int(n)
	}
	var last Assignment // kept, as a caller keeps the answer
	floor := testing.AllocsPerRun(100, func() {
		out := make(Assignment, len(g.Members))
		backing := make([]TopicPartition, total)
		for i, m := range g.Members {
			out[m.ID] = backing[i*total/len(g.Members) : (i+1)*total/len(g.Members)]
		}
		last = out
	})
	if len(last) != len(g.Members) {
		t.Fatal("the floor wrote no answer")
	}
	if got := testing.AllocsPerRun(100, func() {
		if _, err := s.Assign(g); err != nil {
			t.Fatal(err)
		}
	}); got > floor {
		t.Errorf("%s.Assign allocates %.0f times a call, writing its answer %.0f", s.Name(), got, floor)
	}
}

// TestSmallKeptMatchesCompiled holds Sticky.Assign on small shared groups
// whose members list claims (smallGroup.keptDealt, and its declining) to
// the compiled path (compileAny, stickyOf) on the same group: the same
// answer or the same error. Claims are a previous answer carried over
// (the group then loses members, gains some, or both, as bench's leave1,
// replace10 and join1 do), then sometimes spoiled: a list out of order, a
// partition listed twice by one member or by two, a partition or topic
// that does not exist, another generation, a member given more than its
// share. (Some of what keptDealt declines, claims at different
// generations that do not conflict, would get the same answer from it:
// it declines what compile does not send to keepAndDeal.) Some lists name
// topics, from some claim on, with other strings than the subscriptions'.
func TestSmallKeptMatchesCompiled(t *testing.T) {
	kept := 0
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		var topics []string
		for _, name := range []string{"a", "b", "t-10", "t-9"}[:rapid.IntRange(1, 4).Draw(t, "topics")] {
			g.Topics[name] = rapid.Int32Range(0, 13).Draw(t, "partitions")
			topics = append(topics, name)
		}
		before := rapid.IntRange(1, smallMembers).Draw(t, "members before")
		for i := range before {
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%02d", (i*7)%17), Topics: topics, Generation: 3})
		}
		prev, err := Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		for i := range g.Members {
			g.Members[i].Owned = prev[g.Members[i].ID]
		}
		leavers := rapid.IntRange(0, min(3, len(g.Members)-1)).Draw(t, "leavers")
		for range leavers {
			k := rapid.IntRange(0, len(g.Members)-1).Draw(t, "leaver")
			g.Members = slices.Delete(g.Members, k, k+1)
		}
		for i := range rapid.IntRange(0, leavers+1).Draw(t, "joiners") {
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("new%d", i), Topics: topics, Generation: -1})
			if rapid.Bool().Draw(t, "static") {
				g.Members[len(g.Members)-1].InstanceID = fmt.Sprintf("i%d", i)
			}
		}
		m := &g.Members[rapid.IntRange(0, len(g.Members)-1).Draw(t, "spoiled")]
		switch rapid.IntRange(0, 19).Draw(t, "spoil") {
		case 0:
			m.Owned = append(slices.Clone(m.Owned), TopicPartition{"a", 0})
		case 1:
			m.Owned = append([]TopicPartition{{"t-9", 0}}, m.Owned...)
		case 2:
			m.Owned = append(slices.Clone(m.Owned), TopicPartition{"x", 1})
		case 3:
			m.Owned = append(slices.Clone(m.Owned), TopicPartition{"t-9", 13})
		case 4:
			m.Generation = 2
		case 5:
			m.Owned = append(slices.Clone(m.Owned), g.Members[0].Owned...)
			slices.SortFunc(m.Owned, TopicPartition.Compare)
		case 6:
			m.Owned = slices.Clone(m.Owned)
			slices.Reverse(m.Owned)
		case 7:
			m.Owned = append(slices.Clone(m.Owned), TopicPartition{"a", -1})
		case 8:
			// A partition listed by two members at one generation,
			// neither over its share.
			if last := &g.Members[len(g.Members)-1]; len(last.Owned) == 0 && len(g.Members[0].Owned) > 0 {
				last.Owned, last.Generation = g.Members[0].Owned[:1], g.Members[0].Generation
			}
		case 9:
			if len(m.Owned) > 0 {
				m.Owned = append([]TopicPartition{m.Owned[0]}, m.Owned...)
			}
		case 10:
			m.Owned = append([]TopicPartition{{"a", -1}}, m.Owned...)
		case 11:
			m.Owned = append(slices.Clone(m.Owned), TopicPartition{"t-9", math.MaxInt32}) // past the last partition number
		}
		// Names in Owned lists that are other strings than the
		// subscription's (as a decoder makes them), from some claim on,
		// in some members' lists: keptDealt compares them by content, and
		// answers as it does with the subscription's strings.
		copied := Group{Topics: g.Topics, Members: slices.Clone(g.Members)}
		for i := range copied.Members {
			if from := rapid.IntRange(-1, 12).Draw(t, "copied names from"); from >= 0 && from < len(copied.Members[i].Owned) {
				owned := slices.Clone(copied.Members[i].Owned)
				for k := from; k < len(owned); k++ {
					owned[k].Topic = strings.Clone(owned[k].Topic)
				}
				copied.Members[i].Owned = owned
			}
		}
		for _, withhold := range []bool{false, true} {
			var sg, sgCopied smallGroup
			a, ok := sg.sticky(&g, withhold)
			b, okCopied := sgCopied.sticky(&copied, withhold)
			if ok != okCopied || !reflect.DeepEqual(a, b) {
				t.Fatalf("withhold %v: keptDealt answered %v (%v) with the subscriptions' strings, %v (%v) with copies", withhold, a, ok, b, okCopied)
			}
		}
		g = copied
		var sg smallGroup
		if _, ok := sg.sticky(&g, true); ok && slices.ContainsFunc(g.Members, func(m Member) bool { return len(m.Owned) > 0 }) {
			kept++
		}
		for _, st := range []struct {
			s        Strategy
			compiled func(*compiledGroup) (Assignment, error)
		}{{Sticky{}, stickyOf}, {CooperativeSticky{}, cooperativeOf}} {
			matchCompiled(t, st.s, st.compiled, g)
		}
	})
	if kept == 0 {
		t.Fatal("no group took keptDealt")
	}
	t.Logf("%d groups took keptDealt", kept)
}

// TestSmallKeptBeyondTopic: a claim of partition 2 of a topic of two is
// dropped, as Kafka drops a claim of a partition that no longer exists,
// and not read as partition 0 of the topic after it (partitions are
// numbered topic by topic). m0 keeps a-0, m1 b-1, and a-1 and b-0 are
// dealt: m0 [a-0 a-1], m1 [b-0 b-1], which the compiled path answers.
func TestSmallKeptBeyondTopic(t *testing.T) {
	g := Group{
		Topics: map[string]int32{"a": 2, "b": 2},
		Members: []Member{
			{ID: "m0", Topics: []string{"a", "b"}, Generation: 1, Owned: []TopicPartition{{"a", 0}, {"a", 2}}},
			{ID: "m1", Topics: []string{"a", "b"}, Generation: 1, Owned: []TopicPartition{{"b", 1}}},
		},
	}
	want := Assignment{"m0": {{"a", 0}, {"a", 1}}, "m1": {{"b", 0}, {"b", 1}}}
	cg, err := compileAny(g, ownedKeptIfLossless, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if compiled, err := stickyOf(cg); err != nil || !reflect.DeepEqual(compiled, want) {
		t.Fatalf("the compiled path answered %v, %v; want %v", compiled, err, want)
	}
	if got, err := (Sticky{}).Assign(g); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Sticky.Assign = %v, %v; want %v", got, err, want)
	}
}

// TestSmallKeptHugePartition: a claim of partition 2^31-1 of a topic
// after the first is a partition that does not exist, dropped as the
// compiled path drops it, not read (partition 0 of the topic plus the
// claim's number overflows) as a partition before it: keptDealt
// compared the sum with the topic's end and indexed its owner array with
// it, which panicked. m0 keeps nothing, m1 a-0, and a-1, b-0 and b-1 are
// dealt from m0 on.
func TestSmallKeptHugePartition(t *testing.T) {
	g := Group{
		Topics: map[string]int32{"a": 2, "b": 2},
		Members: []Member{
			{ID: "m0", Topics: []string{"a", "b"}, Generation: 1, Owned: []TopicPartition{{"b", math.MaxInt32}}},
			{ID: "m1", Topics: []string{"a", "b"}, Generation: 1, Owned: []TopicPartition{{"a", 0}}},
		},
	}
	want := Assignment{"m0": {{"a", 1}, {"b", 1}}, "m1": {{"a", 0}, {"b", 0}}}
	for _, s := range []Strategy{Sticky{}, CooperativeSticky{}} {
		matchCompiled(t, s, map[string]func(*compiledGroup) (Assignment, error){"sticky": stickyOf, "cooperative-sticky": cooperativeOf}[s.Name()], g)
		if got, err := s.Assign(g); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s.Assign = %v, %v; want %v", s.Name(), got, err, want)
		}
	}
}

// TestSmallJoinMatchesGeneral holds Sticky's Assign on small shared
// groups where members list more than their target (keptDealt with
// giveUp) to the general path, every claim settled partition by
// partition (ownedResolved), and to the compiled path (keepAndDeal);
// and CooperativeSticky's, which takes the small path there too,
// withholding what is given up (keptDealt with withhold), on the same
// groups, some of them groups where the follow-up round's claims get
// other targets (TestSmallCooperativeUnsettled is one). The
// groups: a fresh round of up to 12 members carried over, or claims
// drawn anyhow (lopsided, in runs of any length), then up to four
// joiners owning nothing, some static, their IDs sorting before or after
// the others' in Kafka's order; some lists have a topic's partitions out
// of order, and then the small path must decline whenever some member is
// over its target, as keepAndDeal does (readKept).
func TestSmallJoinMatchesGeneral(t *testing.T) {
	over, declined, cooperative, unsettled := 0, 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		var topics []string
		for _, name := range []string{"a", "b", "t-10", "t-9", "u"}[:rapid.IntRange(1, 5).Draw(t, "topics")] {
			g.Topics[name] = rapid.Int32Range(0, 13).Draw(t, "partitions")
			topics = append(topics, name)
		}
		n := rapid.IntRange(1, 12).Draw(t, "members")
		for i := range n {
			m := Member{ID: fmt.Sprintf("m%02d", (i*7)%17), Topics: topics, Generation: -1}
			if rapid.IntRange(0, 3).Draw(t, "static") == 0 {
				m.InstanceID = fmt.Sprintf("i%d", n-i)
			}
			g.Members = append(g.Members, m)
		}
		if rapid.Bool().Draw(t, "fresh round") {
			prev, err := Sticky{}.Assign(g)
			if err != nil {
				t.Fatal(err)
			}
			g = Carry(g, prev, 2)
		} else {
			sorted := slices.Sorted(maps.Keys(g.Topics))
			for _, topic := range sorted {
				for p := range g.Topics[topic] {
					if rapid.IntRange(0, 5).Draw(t, "unowned") == 0 {
						continue
					}
					m := &g.Members[rapid.IntRange(0, n-1).Draw(t, "owner")]
					m.Owned = append(m.Owned, TopicPartition{topic, p})
					m.Generation = 2
				}
			}
		}
		for i := range rapid.IntRange(0, 4).Draw(t, "joiners") {
			prefix := rapid.SampledFrom([]string{"a", "z"}).Draw(t, "joiner ID") // before or after the others
			m := Member{ID: fmt.Sprintf("%s%d", prefix, i), Topics: topics, Generation: -1}
			if rapid.Bool().Draw(t, "static joiner") {
				m.InstanceID = fmt.Sprintf("j%d", i)
			}
			g.Members = append(g.Members, m)
		}
		cg, err := compileAny(g, ownedKeptIfLossless, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		isOver := cg.kept != nil && cg.kept.over
		settled := !FollowUpTargetsMove(g) // the targets of what this round gives are this round's
		unordered := false
		if rapid.IntRange(0, 3).Draw(t, "unordered") == 0 {
			// A topic's partitions in reverse in one member's list: not in
			// partition order, though its topics are in Go order.
			m := &g.Members[rapid.IntRange(0, len(g.Members)-1).Draw(t, "unordered member")]
			owned := slices.Clone(m.Owned)
			for from := 0; from < len(owned); {
				to := from + 1
				for to < len(owned) && owned[to].Topic == owned[from].Topic {
					to++
				}
				if to-from > 1 {
					slices.Reverse(owned[from:to])
					unordered = true
					break
				}
				from = to
			}
			m.Owned = owned
		}
		var sg smallGroup
		_, withheld := sg.sticky(&g, true)
		_, ok := sg.sticky(&g, false)
		switch {
		case isOver && unordered && (ok || withheld):
			t.Fatalf("the small path answered a group with a member over target and a list out of order")
		case isOver && unordered:
			declined++
		case isOver && ok:
			over++
			if withheld {
				cooperative++
				if !settled {
					unsettled++
				}
			}
		}
		for _, st := range []struct {
			s        Strategy
			general  func(Group, ownedRead) (Assignment, error)
			compiled func(*compiledGroup) (Assignment, error)
		}{{Sticky{}, stickyAssign, stickyOf}, {CooperativeSticky{}, cooperativeAssign, cooperativeOf}} {
			got, gotErr := st.s.Assign(g)
			general, generalErr := st.general(g, ownedResolved)
			var compiled Assignment
			cg, compiledErr := compileAny(g, ownedKeptIfLossless, nil, true)
			if compiledErr == nil {
				compiled, compiledErr = st.compiled(cg)
			}
			if gotErr != nil || generalErr != nil || compiledErr != nil {
				t.Fatalf("%s errors: Assign %v, general %v, compiled %v", st.s.Name(), gotErr, generalErr, compiledErr)
			}
			if !reflect.DeepEqual(got, general) {
				t.Fatalf("%s: Assign answered\n%v\nsettling every claim\n%v", st.s.Name(), got, general)
			}
			if !reflect.DeepEqual(got, compiled) {
				t.Fatalf("%s: Assign answered\n%v\nthe compiled path\n%v", st.s.Name(), got, compiled)
			}
		}
	})
	if over == 0 || declined == 0 || cooperative == 0 {
		t.Fatalf("%d groups with a member over target took the small path (%d of them for CooperativeSticky too, %d where the follow-up round's targets move), %d declined for a list out of order: want some of each", over, cooperative, unsettled, declined)
	}
	t.Logf("%d groups with a member over target took the small path (%d of them for CooperativeSticky too, %d where the follow-up round's targets move), %d declined for a list out of order", over, cooperative, unsettled, declined)
}

// TestSmallCooperativeUnsettled: CooperativeSticky, on a group where the
// follow-up round's claims (this round's answer) get other targets than
// this round's, answers as settling every claim does (settledTarget,
// whose second solve moves the extra partition), without compiling. One topic of 8 partitions; m0 lists
// nothing, m1 a-4, m2 a-0 to a-3: targets 2, 3, 3 (the two that list
// most get one more). m2 gives up a-3 (it keeps its lowest); a-5, a-6,
// a-7, which nobody lists, go round-robin to m0, m1, m0; a-3 is withheld
// (Sticky gives it to m1). After that round m0 and m1 have 2 each, and
// the targets of those claims would give m0 the extra one, not m1.
func TestSmallCooperativeUnsettled(t *testing.T) {
	a := func(ps ...int32) []TopicPartition {
		var out []TopicPartition
		for _, p := range ps {
			out = append(out, TopicPartition{"a", p})
		}
		return out
	}
	g := Group{
		Topics: map[string]int32{"a": 8},
		Members: []Member{
			{ID: "m0", Topics: []string{"a"}, Generation: 1},
			{ID: "m1", Topics: []string{"a"}, Generation: 1, Owned: a(4)},
			{ID: "m2", Topics: []string{"a"}, Generation: 1, Owned: a(0, 1, 2, 3)},
		},
	}
	if !FollowUpTargetsMove(g) {
		t.Fatal("the follow-up round's targets do not move: the group does not test what it is for")
	}
	var sg smallGroup
	if _, ok := sg.sticky(&g, true); !ok {
		t.Fatal("the small path declines CooperativeSticky on the group")
	}
	for _, c := range []struct {
		s    Strategy
		want Assignment
	}{
		{CooperativeSticky{}, Assignment{"m0": a(5, 7), "m1": a(4, 6), "m2": a(0, 1, 2)}},
		{Sticky{}, Assignment{"m0": a(5, 7), "m1": a(3, 4, 6), "m2": a(0, 1, 2)}},
	} {
		if got, err := c.s.Assign(g); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s.Assign = %v, %v; want %v", c.s.Name(), got, err, c.want)
		}
	}
	matchCompiled(t, CooperativeSticky{}, cooperativeOf, g)
	general, err := cooperativeAssign(g, ownedResolved)
	if want := (Assignment{"m0": a(5, 7), "m1": a(4, 6), "m2": a(0, 1, 2)}); err != nil || !reflect.DeepEqual(general, want) {
		t.Errorf("settling every claim = %v, %v; want %v", general, err, want)
	}
}

// matchCompiled fails t unless s.Assign answers g, errors included, as
// compiled answers g compiled by compileAny: the general compile, never
// smallGroup's.
func matchCompiled(t interface{ Fatalf(string, ...any) }, s Strategy, compiled func(*compiledGroup) (Assignment, error), g Group) {
	got, gotErr := s.Assign(g)
	var want Assignment
	cg, wantErr := compileAny(g, ownedKeptIfLossless, nil, true)
	if wantErr == nil {
		want, wantErr = compiled(cg)
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: Assign's error %v, the compiled path's %v", s.Name(), gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: Assign answered\n%v\nthe compiled path\n%v", s.Name(), got, want)
	}
}
