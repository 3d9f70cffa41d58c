package assign

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
	"github.com/assigncalc/assigncalc/assign/internal/oracle"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// uniformHomogeneousOwner is uniformHomogeneous on the owner array, as
// it was before it moved to runs: quotas, each member in turn keeping
// what it holds up to its quota (quotas and keepUpTo, which the two
// share), then the free and released partitions dealt from one list of
// pids, in chunks, to the members below quota. The Kafka oracle goldens
// anchored it while it was the production path, and TestKIP848Goldens
// still checks it against them (TestUniformOwnerGoldens).
func (sg *serverGroup) uniformHomogeneousOwner(v KafkaVersion) error {
	cg := sg.cg
	members := int32(len(sg.byPos))
	if members == 0 {
		return nil
	}
	topics, err := sg.subscriptionOrder(sg.byPos[0])
	if err != nil || len(topics) == 0 {
		return err // nothing subscribed exists: every target is empty
	}

	// The partitions nobody holds, in the subscription set's topic order,
	// then room for those members release. Every member starts from what
	// it holds (owner); keepUpTo releases, and leaves what it releases in
	// owner until dealt. When nobody holds anything, free is every
	// partition.
	total := int32(0)
	for _, t := range topics {
		total += cg.numParts[t]
	}
	held := int32(0)
	if sg.anyHeld() {
		held = sumHeld(sg.heldIn)
	}
	free := make([]int32, 0, max(0, total-held))
	for _, t := range topics {
		// A topic wholly held has nothing free.
		if sg.anyHeld() && sg.heldIn[t] == cg.numParts[t] {
			continue
		}
		start := cg.start[t]
		for p, h := range sg.owner[start : start+cg.numParts[t]] {
			if h < 0 {
				free = append(free, start+int32(p))
			}
		}
	}

	below, free := sg.quotas(v, total, free)
	next := 0
	for _, u := range below {
		for i := int32(0); i < u.quota && next < len(free); i++ {
			sg.owner[free[next]] = u.pos
			next++
		}
	}
	if next < len(free) {
		return errUnassigned
	}
	return nil
}

// TestUniformRunsMatchOwner checks the homogeneous builder on runs
// against the general path, which reads the targets into owner: on
// random groups, some with targets dealt in long stretches and some at
// fault (a partition held twice or by two members, one the topic does
// not have, a topic without an id), for both Kafka versions, the error
// or the answer (as ranges and as an Assignment) is the same. The
// reference is solveOwner; the Kafka oracle goldens anchor that reference (TestUniformOwnerGoldens).
func TestUniformRunsMatchOwner(t *testing.T) {
	onRuns, faults, asIs := 0, 0, 0
	for i := range 3000 {
		rng := newTestRand(uint64(i))
		g := randomKIP848Group(rng, "runs")
		switch rng.IntN(6) {
		case 0: // every partition in one stretch per member
			var all []TopicPartition
			for _, m := range g.Members {
				all = append(all, m.Owned...)
			}
			slices.SortFunc(all, TopicPartition.Compare)
			for j := range g.Members {
				g.Members[j].Owned = nil
			}
			for k, tp := range all {
				j := k * len(g.Members) / max(1, len(all))
				g.Members[j].Owned = append(g.Members[j].Owned, tp)
			}
		case 1: // a fault
			if j := rng.IntN(len(g.Members)); len(g.Members[j].Owned) > 0 {
				m := &g.Members[j]
				tp := m.Owned[rng.IntN(len(m.Owned))]
				switch rng.IntN(4) {
				case 0:
					m.Owned = append(m.Owned, tp) // twice
				case 1:
					o := &g.Members[(j+1)%len(g.Members)]
					o.Owned = append(slices.Clone(o.Owned), tp) // by two members
				case 2:
					tp.Partition = g.Topics[tp.Topic] + int32(rng.IntN(2)) // out of range
					m.Owned = append(m.Owned, tp)
				case 3:
					m.Owned = append(m.Owned, TopicPartition{"no-such-topic", 0})
				}
			}
		}
		for _, v := range []KafkaVersion{Kafka41, Kafka40} {
			u := Uniform{Kafka: v}
			general, gerr := solveOwner(u, g)
			runs, rerr := u.solve(g)
			if fmt.Sprint(gerr) != fmt.Sprint(rerr) {
				t.Fatalf("group %d, %v: general path %v, runs %v", i, v, gerr, rerr)
			}
			if gerr != nil {
				faults++
				continue
			}
			if runs.owner == nil {
				onRuns++
			}
			if diff := cmp.Diff(general.ranges(), runs.ranges()); diff != "" {
				t.Fatalf("group %d, %v: ranges differ (-general +runs):\n%s", i, v, diff)
			}
			answer := runs.assignment()
			if diff := cmp.Diff(general.assignmentWritingAll(), answer); diff != "" {
				t.Fatalf("group %d, %v: assignments differ (-general, every list written +runs):\n%s", i, v, diff)
			}
			want := handedBack(g, general.assignment())
			if diff := cmp.Diff(want, handedBack(g, answer)); diff != "" {
				t.Fatalf("group %d, %v: lists handed back differ (-general +runs):\n%s", i, v, diff)
			}
			if len(want) > 0 && runs.asIs != nil {
				asIs++
			}
		}
	}
	t.Logf("%d answers on runs, %d errors, %d with lists handed back by the builder", onRuns, faults, asIs)
	if onRuns < 1000 || faults < 200 || asIs < 300 {
		t.Errorf("only %d answers on runs, %d errors and %d with lists handed back by the builder", onRuns, faults, asIs)
	}
}

// handedBack lists the members whose list in a is their whole Owned
// list itself, not a copy: what Uniform.Assign hands back. (A prefix of
// Owned handed back, keptPrefix, is left to TestUniformAssignShares.)
func handedBack(g Group, a Assignment) []string {
	var ids []string
	for _, m := range g.Members {
		if l := a[m.ID]; len(l) > 0 && len(l) == len(m.Owned) && unsafe.SliceData(l) == unsafe.SliceData(m.Owned) {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// TestUniformRunsHostileTargets: targets built to hurt the runs path are
// refused as the general path refuses them: a stretch of partitions that
// wraps past MaxInt32, and 200,000 entries alternating between two
// partitions, each entry a run of its own (the runs sort once made them
// quadratic: this case took minutes then, not milliseconds, which the
// test does not time). The reference is solveOwner, whose errors are
// readTarget's, which TestKIP848Errors pins down.
func TestUniformRunsHostileTargets(t *testing.T) {
	base := func() Group {
		return Group{
			Topics:   map[string]int32{"t": 4},
			TopicIDs: map[string]TopicID{"t": nameTopicID("t")},
			Members:  []Member{{ID: "a", Topics: []string{"t"}}, {ID: "b", Topics: []string{"t"}}},
		}
	}
	wrap := base()
	wrap.Members[0].Owned = []TopicPartition{{"t", math.MaxInt32}, {"t", math.MinInt32}}
	alternating := base()
	for i := range 200_000 {
		alternating.Members[1].Owned = append(alternating.Members[1].Owned, TopicPartition{"t", int32(2 * (i % 2))})
	}
	for name, g := range map[string]Group{"wrap": wrap, "alternating": alternating} {
		_, gerr := solveOwner(Uniform{}, g)
		_, rerr := Uniform{}.solve(g)
		if gerr == nil || fmt.Sprint(gerr) != fmt.Sprint(rerr) {
			t.Errorf("%s: general path %v, runs %v; want the same error", name, gerr, rerr)
		}
	}
}

// uniformRunsMatch is FuzzUniformRuns' property: on a group of
// kip848Group whose targets some draws rewrite (stretches of partitions,
// repeats, partitions a topic does not have, partitions of another
// member's target), the runs path and the general path give the same
// error or the same answer, and Assign's lists handed back where a
// target is its Owned list are those the general path writes. The
// reference is solveOwner; the Kafka oracle goldens anchor that reference (TestUniformOwnerGoldens).
func uniformRunsMatch(t *rapid.T) {
	g := kip848Group(t)
	if len(g.Members) == 0 || len(g.Members[0].Topics) == 0 {
		t.Skip("nothing to hold")
	}
	topics := g.Members[0].Topics
	for range rapid.IntRange(0, 4).Draw(t, "rewrites") {
		m := &g.Members[rapid.IntRange(0, len(g.Members)-1).Draw(t, "member")]
		topic := rapid.SampledFrom(topics).Draw(t, "topic")
		n := g.Topics[topic]
		first := int32(rapid.IntRange(-1, int(n)).Draw(t, "first"))
		owned := slices.Clone(m.Owned)
		for p := range int32(rapid.IntRange(1, 6).Draw(t, "stretch")) {
			owned = append(owned, TopicPartition{topic, first + p})
		}
		m.Owned = owned
	}
	for _, v := range []KafkaVersion{Kafka41, Kafka40} {
		general, gerr := solveOwner(Uniform{Kafka: v}, g)
		runs, rerr := Uniform{Kafka: v}.solve(g)
		if fmt.Sprint(gerr) != fmt.Sprint(rerr) {
			t.Fatalf("%v: general path %v, runs %v", v, gerr, rerr)
		}
		if gerr != nil {
			continue
		}
		if diff := cmp.Diff(general.ranges(), runs.ranges()); diff != "" {
			t.Fatalf("%v: ranges differ (-general +runs):\n%s", v, diff)
		}
		answer := runs.assignment()
		if diff := cmp.Diff(general.assignmentWritingAll(), answer); diff != "" {
			t.Fatalf("%v: assignments differ (-general, every list written +runs, lists handed back):\n%s", v, diff)
		}
		if diff := cmp.Diff(handedBack(g, general.assignment()), handedBack(g, answer)); diff != "" {
			t.Fatalf("%v: lists handed back differ (-general +runs):\n%s", v, diff)
		}
	}
}

func TestUniformRunsRewritten(t *testing.T) { rapid.Check(t, uniformRunsMatch) }

func FuzzUniformRuns(f *testing.F) { f.Fuzz(rapid.MakeFuzz(uniformRunsMatch)) }

// TestUniformOwnerGoldens checks the reference path, solveOwner, against
// the answers Kafka's assignors printed for groups.jsonl and
// scenarios.jsonl, as TestKIP848Goldens checks Uniform: the differential
// tests above hold the builder on runs to a path that Kafka itself
// anchors, not to one checked only against the builder.
func TestUniformOwnerGoldens(t *testing.T) {
	for _, set := range []struct{ groups, prefix string }{{"groups.jsonl", ""}, {"scenarios.jsonl", "scenarios."}} {
		groups := readKIP848Groups(t, filepath.Join("testdata", "kip848", set.groups))
		for _, run := range kip848Runs {
			u, ok := run.strategy.(Uniform)
			if !ok {
				continue
			}
			want := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "kip848", set.prefix+run.file))
			if len(want) != len(groups) {
				t.Fatalf("%s: %d answers for %d groups", set.prefix+run.file, len(want), len(groups))
			}
			for i, g := range groups {
				sg, err := solveOwner(u, g)
				if err != nil || want[i].Error != "" {
					t.Errorf("%s %s: error %v, Kafka says %q", set.prefix+run.file, want[i].Name, err, want[i].Error)
					continue
				}
				if diff := cmp.Diff(want[i].Assignment, answerOf(sg.assignmentWritingAll())); diff != "" {
					t.Errorf("%s %s: mismatch (-kafka +owner path):\n%s", set.prefix+run.file, want[i].Name, diff)
				}
			}
		}
	}
}

// TestKeepUpToStretch holds keepUpTo's fast path for a target that is one
// stretch of consecutive partitions (oneStretch, releaseFromStretch) to
// the general path: first releaseFromStretch against the tail of
// jvm.IntSetOrder over the same partitions, for stretches anywhere in a
// block of 65536, then whole join1 groups (everyone holds a stretch of
// its fresh target, one member joins, so every member releases) through
// solve against solveOwner, which reads targets into owner and never
// takes the fast path.
func TestKeepUpToStretch(t *testing.T) {
	rng := newTestRand(30)
	for i := range 3000 {
		n := int32(1 + rng.IntN(3000))
		if i%3 == 0 {
			n = int32(1 + rng.IntN(40))
		}
		block := int32(rng.IntN(3)) << 16
		first := block + int32(rng.IntN(int(65536-n+1)))
		release := int32(rng.IntN(int(n) + 1))
		parts := make([]int32, n)
		for k := range parts {
			parts[k] = first + int32(k)
		}
		var want []int32
		order := jvm.IntSetOrder(parts)
		for _, k := range order[int(n-release):] {
			want = append(want, 1000+parts[k])
		}
		got := releaseFromStretch(1000, first, n, release, []int32{7})
		if got[0] != 7 || !slices.Equal(got[1:], want) {
			t.Fatalf("stretch %d+%d, release %d: got %v, want %v", first, n, release, got[1:], want)
		}
	}

	fast := 0
	for _, sh := range []struct{ members, topics, parts int }{
		{20, 1, 10000}, {7, 3, 100}, {100, 10, 1000}, {3, 1, 200000}, {50, 4, 70000}, {5, 2, 7},
	} {
		g := Group{Topics: map[string]int32{}, TopicIDs: map[string]TopicID{}}
		var names []string
		for k := range sh.topics {
			name := fmt.Sprintf("topic-%d", k)
			names = append(names, name)
			g.Topics[name] = int32(sh.parts)
			g.TopicIDs[name] = nameTopicID(name)
		}
		for j := range sh.members {
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%05d", j), Topics: names})
		}
		for _, v := range []KafkaVersion{Kafka41, Kafka40} {
			fresh, err := Uniform{Kafka: v}.Assign(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, leave := range []bool{false, true} {
				in := churned(g, fresh, leave)
				sg, err := Uniform{Kafka: v}.solve(in)
				if err != nil {
					t.Fatal(err)
				}
				for m := range in.Members {
					if _, _, _, ok := sg.oneStretch(int32(m)); ok {
						fast++
					}
				}
				general, err := solveOwner(Uniform{Kafka: v}, in)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(general.ranges(), sg.ranges()); diff != "" {
					t.Fatalf("%+v, %v, leave %v: ranges differ (-general +stretch):\n%s", sh, v, leave, diff)
				}
			}
		}
	}
	if fast < 500 {
		t.Errorf("only %d targets took the fast path", fast)
	}
}

// TestSortRuns checks sortRuns against a comparison sort of the same
// runs: shuffled runs of consecutive pids, one topic's pids after the
// other's, many runs or few, over many topics or few, so that both of
// its ways are taken, with topics held in one run and in many.
func TestSortRuns(t *testing.T) {
	for seed := range 300 {
		r := newTestRand(uint64(seed))
		topics := 1 + r.IntN(400)
		var runs []pidRun
		pid := int32(0)
		for topic := range topics {
			parts := int32(1 + r.IntN(50))
			for p := int32(0); p < parts; {
				n := min(parts-p, int32(1+r.IntN(10)))
				if r.IntN(3) > 0 {
					runs = append(runs, pidRun{pid + p, pid + p + n, int32(topic), int32(r.IntN(20))})
				}
				p += n
			}
			pid += parts
		}
		r.Shuffle(len(runs), func(i, j int) { runs[i], runs[j] = runs[j], runs[i] })
		want := slices.Clone(runs)
		slices.SortFunc(want, func(a, b pidRun) int { return int(a.lo - b.lo) })
		in := slices.Clone(runs)
		if seed%2 == 1 { // room after the runs for the copy, as readRuns leaves, or one run short of it
			in = append(make([]pidRun, 0, max(len(runs), 2*len(runs)-1+r.IntN(4))), runs...)
		}
		if got := sortRuns(in, topics); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d runs of %d topics: sortRuns\n%v\nwant\n%v", seed, len(runs), topics, got, want)
		}
	}
}

// TestReadIDs holds readIDs, which checks the ids it looks up as a list
// when g.TopicIDs names exactly the topics, to the two checks it
// replaces, one after the other: CheckTopicIDs over the whole map, then
// a topic without an id. Groups are random, most trimmed to the ids of
// their topics (the list's case), then spoiled: an id given twice, the
// zero id, the metadata topic's, a topic's id dropped, or two ids that
// keys.Seen folds alike.
func TestReadIDs(t *testing.T) {
	listed, faults := 0, 0
	for i := range 3000 {
		rng := newTestRand(uint64(i))
		g := randomKIP848Group(rng, "ids")
		cg, err := compileForServer(g)
		if err != nil || len(cg.topics) < 2 {
			continue
		}
		ids := map[string]TopicID{}
		for name, id := range g.TopicIDs {
			ids[name] = id
		}
		if rng.IntN(4) > 0 {
			ids = map[string]TopicID{}
			for _, name := range cg.topics {
				ids[name] = g.TopicIDs[name]
			}
		}
		a, b := cg.topics[rng.IntN(len(cg.topics))], cg.topics[rng.IntN(len(cg.topics))]
		switch rng.IntN(8) {
		case 1:
			ids[a] = ids[b]
		case 2:
			ids[a] = TopicID{}
		case 3:
			ids[a] = TopicID{15: 1}
		case 4:
			delete(ids, a)
		case 5:
			if a != b {
				ids[a], ids[b] = TopicID{0: 1}, TopicID{12: 1 << 3} // one fold
			}
		case 6: // a topic's id given to a name that is no topic too
			for name := range ids {
				if _, ok := cg.topicIndex(name); !ok {
					ids[name] = ids[a]
					break
				}
			}
		}
		g.TopicIDs = ids
		cg.group.TopicIDs = ids
		sg := &serverGroup{cg: cg}
		got := sg.readIDs()
		want := CheckTopicIDs(g)
		if want == nil {
			for _, name := range cg.topics {
				if _, ok := ids[name]; !ok {
					want = topicError(name, ErrNoTopicID)
					break
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("group %d: readIDs %v, want %v", i, got, want)
		}
		if len(ids) == len(cg.topics) {
			listed++
		}
		if want != nil {
			faults++
			continue
		}
		for k, name := range cg.topics {
			if sg.ids[k] != jvm.Uuid(ids[name]) {
				t.Fatalf("group %d: id of %q: %v, want %v", i, name, sg.ids[k], ids[name])
			}
		}
	}
	t.Logf("%d groups whose ids name exactly their topics, %d faults", listed, faults)
	if listed < 1000 || faults < 500 {
		t.Errorf("only %d groups whose ids name exactly their topics and %d faults", listed, faults)
	}
}

// TestServerSameNameSets: the subscription type newServerGroup finds from
// what compile shared is sameNameSets' of the members' lists, on lists
// that share one slice, copy one, or differ by a name repeated, missing
// from the metadata, of a topic without partitions, or left out.
func TestServerSameNameSets(t *testing.T) {
	names := []string{"a", "b", "c", "gone", "empty"}
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{"a": 2, "b": 1, "c": 3, "empty": 0}, TopicIDs: map[string]TopicID{}}
		for name := range g.Topics {
			g.TopicIDs[name] = nameTopicID(name)
		}
		base := rapid.SliceOfN(rapid.SampledFrom(names), 0, 4).Draw(t, "base")
		for i := range rapid.IntRange(1, 5).Draw(t, "members") {
			topics := base
			switch rapid.IntRange(0, 3).Draw(t, "how") {
			case 1:
				topics = slices.Clone(base)
			case 2:
				topics = rapid.SliceOfN(rapid.SampledFrom(names), 0, 4).Draw(t, "own")
			case 3:
				topics = append(slices.Clone(base), rapid.SampledFrom(names).Draw(t, "extra"))
			}
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%d", i), Topics: topics})
		}
		sg, err := newServerGroup(g)
		if err != nil {
			t.Fatal(err)
		}
		if want := sameNameSets(g.Members); sg.homogeneous != want {
			t.Fatalf("homogeneous %v, sameNameSets %v, members %+v", sg.homogeneous, want, g.Members)
		}
	})
}
