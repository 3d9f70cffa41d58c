package assign

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// stretchByEntry is stretch one entry at a time, as it was written
// before it compared four at a time: the reference TestStretch holds it
// to.
func stretchByEntry(run []TopicPartition, data *byte, size int) int {
	next := run[0].Partition
	for j, tp := range run {
		if unsafe.StringData(tp.Topic) != data || len(tp.Topic) != size || tp.Partition != next {
			return j
		}
		next++
	}
	return len(run)
}

// TestStretch compares stretch with stretchByEntry on runs that break at
// every place an unrolled loop can get wrong: in each of the four slots
// of a block and in the tail, by a partition out of step (one up, one
// down, far off, negative, or differing only in the high bits), by the
// same name in other bytes, by a name sharing the bytes but shorter,
// and by another topic.
func TestStretch(t *testing.T) {
	topic := "topic-00042"
	other := strings.Clone(topic)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		first := rapid.Int32Range(-3, 1<<20).Draw(t, "first")
		run := make([]TopicPartition, n)
		for i := range run {
			run[i] = TopicPartition{topic, first + int32(i)}
		}
		breaks := rapid.IntRange(0, 2).Draw(t, "breaks")
		for range breaks {
			at := rapid.IntRange(0, n-1).Draw(t, "at")
			switch rapid.IntRange(0, 7).Draw(t, "how") {
			case 0:
				run[at].Partition++
			case 1:
				run[at].Partition--
			case 2:
				run[at].Partition += 1 << 20
			case 3:
				run[at].Partition = -1
			case 4:
				run[at].Partition ^= -1 << 31
			case 5:
				run[at].Topic = other // equal bytes, other memory
			case 6:
				run[at].Topic = topic[:len(topic)-1]
			case 7:
				run[at].Topic = "topic-00043"
			}
		}
		data, size := unsafe.StringData(topic), len(topic)
		if rapid.Bool().Draw(t, "size off") {
			size-- // the caller's name is a prefix of the entries'
		}
		if got, want := stretch(run, data, size), stretchByEntry(run, data, size); got != want {
			t.Fatalf("stretch(%v) = %d, want %d", run, got, want)
		}
	})
}

// BenchmarkStretch scans an Owned list of 100,000 entries, one topic's
// partitions at a time in stretches of 100, as readRuns does on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1:
// stretch (impl=four) beside the scan it replaced (impl=entry).
func BenchmarkStretch(b *testing.B) {
	names := make([]string, 1000)
	run := make([]TopicPartition, 0, 100*len(names))
	for k := range names {
		names[k] = strings.Clone("topic-00000")
		for p := range int32(100) {
			run = append(run, TopicPartition{names[k], p})
		}
	}
	for _, impl := range []struct {
		name string
		scan func([]TopicPartition, *byte, int) int
	}{{"four", stretch}, {"entry", stretchByEntry}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			for b.Loop() {
				for k := 0; k < len(run); {
					k += impl.scan(run[k:], unsafe.StringData(run[k].Topic), len(run[k].Topic))
				}
			}
		})
	}
}

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
