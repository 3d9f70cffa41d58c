package assign

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestKeptInPlace draws runs sorted by pid and pids to drop, at the ends
// of runs, inside them and outside every run, and checks keptInPlace
// against its definition (no run is written over before it is read, by
// the count of runs each prefix leaves), and dropPids over the runs
// themselves, where it says so, against withoutPids into an array of
// its own.
func TestKeptInPlace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var runs []pidRun
		pid := rapid.Int32Range(0, 3).Draw(t, "start")
		for i := range rapid.IntRange(0, 12).Draw(t, "runs") {
			lo := pid + rapid.Int32Range(0, 2).Draw(t, "gap")
			hi := lo + rapid.Int32Range(1, 5).Draw(t, "len")
			runs = append(runs, pidRun{lo, hi, int32(i % 3), int32(i)})
			pid = hi
		}
		var drop []int32
		for p := range pid + 2 {
			if rapid.IntRange(0, 3).Draw(t, "drop") == 0 {
				drop = append(drop, p)
			}
		}
		want := withoutPids(runs, drop)
		left, fits := 0, true
		for i := range runs {
			left += len(withoutPids(runs[i:i+1], drop))
			fits = fits && left <= i+1
		}
		if got := keptInPlace(runs, drop); got != fits {
			t.Fatalf("keptInPlace(%v, %v) = %v, want %v", runs, drop, got, fits)
		}
		if !fits {
			return
		}
		over := slices.Clone(runs)
		if got := dropPids(over[:0], over, drop); !slices.Equal(got, want) {
			t.Fatalf("dropPids over %v less %v = %v, want %v", runs, drop, got, want)
		}
	})
}

// TestMergeOver draws two disjoint lists of runs sorted by pid, some
// touching runs of one topic and member that must be joined, the first
// in an array with room after it or without, and holds mergeOver, and
// mergeRuns into the first's array from len(b) runs before it, to
// mergeRuns into an array of its own.
func TestMergeOver(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a, b []pidRun
		pid := int32(0)
		for range rapid.IntRange(0, 20).Draw(t, "runs") {
			lo := pid + rapid.Int32Range(0, 1).Draw(t, "gap")
			hi := lo + rapid.Int32Range(1, 3).Draw(t, "len")
			r := pidRun{lo, hi, rapid.Int32Range(0, 1).Draw(t, "t"), rapid.Int32Range(0, 1).Draw(t, "pos")}
			if rapid.Bool().Draw(t, "to b") {
				b = append(b, r)
			} else {
				a = append(a, r)
			}
			pid = hi
		}
		want := mergeRuns(a, b, nil)
		room := rapid.IntRange(0, len(b)+2).Draw(t, "room")
		over := append(make([]pidRun, 0, len(a)+room), a...)
		if got := mergeOver(over, slices.Clone(b)); !slices.Equal(got, want) {
			t.Fatalf("mergeOver(%v, %v) with room %d = %v, want %v", a, b, room, got, want)
		}
		// mergeRuns into an array in which a lies len(b) runs or more
		// from the start, as uniformHomogeneous merges into spare.
		at := len(b) + rapid.IntRange(0, 2).Draw(t, "offset")
		arr := make([]pidRun, at+len(a)+rapid.IntRange(0, 2).Draw(t, "tail"))
		copy(arr[at:], a)
		if got := mergeRuns(arr[at:at+len(a)], slices.Clone(b), arr[:0]); !slices.Equal(got, want) {
			t.Fatalf("mergeRuns(%v, %v) from %d runs into its array = %v, want %v", a, b, at, got, want)
		}
	})
}

// TestUniformDealsMoreRunsThanHeld is a group whose runs held readRuns
// copies in order after the runs as read, and to which the builder deals
// more runs than it holds, all before them by pid: each of a hundred
// members holds the one partition of one of the last hundred of 400
// topics, listed out of order, and takes three of the first 300, one
// run each. Merged into the runs as read, whose room ends where the
// runs held start, the answer would overwrite them before they are
// read; it is held to the owner-array builder.
func TestUniformDealsMoreRunsThanHeld(t *testing.T) {
	g := Group{Topics: map[string]int32{}, TopicIDs: map[string]TopicID{}}
	var names []string
	for k := range 400 {
		name := fmt.Sprintf("topic-%03d", k)
		names = append(names, name)
		g.Topics[name] = 1
		g.TopicIDs[name] = nameTopicID(name)
	}
	for j := range 100 {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%03d", j), Topics: names,
			Owned: []TopicPartition{{names[300+j*37%100], 0}}})
	}
	for _, v := range []KafkaVersion{Kafka41, Kafka40} {
		u := Uniform{Kafka: v}
		sg, err := newServerGroup(g)
		if err != nil {
			t.Fatal(err)
		}
		held, ok := sg.readRuns()
		room := cap(sg.spare) - cap(held) // before the runs held
		if !ok || sg.spare == nil || room != len(held) {
			t.Fatalf("%v: the runs held are not copied after the runs as read (ok %v, spare %v, room %d)", v, ok, sg.spare != nil, room)
		}
		general, gerr := solveOwner(u, g)
		runs, rerr := u.solve(g)
		if gerr != nil || rerr != nil {
			t.Fatalf("%v: %v, %v", v, gerr, rerr)
		}
		if n := len(runs.final) - len(held); n <= room || len(runs.final) > cap(sg.spare) {
			t.Fatalf("%v: %d runs dealt besides %d held, in an array of %d", v, n, len(held), cap(sg.spare))
		}
		if diff := cmp.Diff(general.assignmentWritingAll(), runs.assignment()); diff != "" {
			t.Fatalf("%v: assignments differ (-general +runs):\n%s", v, diff)
		}
	}
}

// TestUniformJavaOrderNotGo holds the runs builder to the owner-array
// one on groups whose topic names sort apart in Java and Go: a name with
// a character beyond the Basic Multilingual Plane comes before one with
// a character of U+E000..U+FFFF in Java (a surrogate) and after it in
// Go. There steps gives Go order as tables, where ASCII names need none;
// the answer names each run's topic by it.
func TestUniformJavaOrderNotGo(t *testing.T) {
	names := []string{"t\U0001F600", "t\uE000", "t\uE000x", "ta"}
	for _, held := range []bool{false, true} {
		g := Group{Topics: map[string]int32{}, TopicIDs: map[string]TopicID{}}
		for k, name := range names {
			g.Topics[name] = int32(2 + k)
			g.TopicIDs[name] = nameTopicID(name)
		}
		for j := range 3 {
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("consumer-%d", j), Topics: names})
		}
		if held { // the first member holds every partition, in Go order
			for _, name := range slices.Sorted(slices.Values(names)) {
				for p := range g.Topics[name] {
					g.Members[0].Owned = append(g.Members[0].Owned, TopicPartition{name, p})
				}
			}
		}
		for _, v := range []KafkaVersion{Kafka41, Kafka40} {
			u := Uniform{Kafka: v}
			general, gerr := solveOwner(u, g)
			runs, rerr := u.solve(g)
			if gerr != nil || rerr != nil {
				t.Fatalf("held %v, %v: %v, %v", held, v, gerr, rerr)
			}
			if after, goRank := runs.steps(); after == nil || goRank == nil {
				t.Fatalf("held %v, %v: no Go order tables for names Java sorts apart", held, v)
			}
			if diff := cmp.Diff(general.assignmentWritingAll(), runs.assignment()); diff != "" {
				t.Fatalf("held %v, %v: assignments differ (-general +runs):\n%s", held, v, diff)
			}
		}
	}
}
