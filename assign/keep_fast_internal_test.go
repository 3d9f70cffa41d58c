package assign

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestKeptFastPathMatchesGeneral holds listed's fast path (inOrder,
// which keeps no runs or pids while a list is in order) to listedFrom
// reading every list from its start: the same keptClaims, the same
// verdict on partitions listed twice, with and without the lister of
// every partition. Lists are drawn in order, in runs of topics in
// another order, and anyhow (repeats, partitions and topics that do not
// exist, topics nobody subscribes to); topic names whose Go and Java
// orders differ make the fast path's notion of order Go's.
func TestKeptFastPathMatchesGeneral(t *testing.T) {
	names := []string{"a", "b", "\uff21", "\U00010400", "t-10", "t-9"}
	rapid.Check(t, func(t *rapid.T) {
		g := Group{Topics: map[string]int32{}}
		nt := rapid.IntRange(1, len(names)).Draw(t, "topics")
		var subs []string
		for _, name := range names[:nt] {
			g.Topics[name] = rapid.Int32Range(1, 9).Draw(t, "partitions")
			subs = append(subs, name)
		}
		nm := rapid.IntRange(1, 6).Draw(t, "members")
		for i := range nm {
			var owned []TopicPartition
			for range rapid.IntRange(0, 14).Draw(t, "owned") {
				owned = append(owned, TopicPartition{
					Topic:     rapid.SampledFrom(append(names, "zz")).Draw(t, "topic"),
					Partition: rapid.Int32Range(-1, 10).Draw(t, "partition"),
				})
			}
			switch rapid.IntRange(0, 3).Draw(t, "shape") {
			case 0, 1: // in order, as clients list
				slices.SortFunc(owned, TopicPartition.Compare)
				owned = slices.Compact(owned)
			case 2: // runs of distinct topics, topics in another order
				slices.SortFunc(owned, TopicPartition.Compare)
				owned = slices.Compact(owned)
				owned = runsReversed(owned)
			}
			g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%d", i), Topics: subs, Owned: owned, Generation: 1})
		}
		matchKeptFast(t, g)
	})
}

// matchKeptFast fails t when listed's fast path and listedFrom from the
// start read g's claims differently.
func matchKeptFast(t interface {
	Fatal(...any)
	Fatalf(string, ...any)
}, g Group) {
	for _, every := range []bool{false, true} {
		general, err := compile(g, ownedUnread)
		if err != nil {
			t.Fatal(err)
		}
		general.own = ownedClaims{members: general.g.Members}
		okGeneral := general.readKeptWith(every, readGeneral, false)
		for _, read := range []keptRead{readFast, readTable} { // readFast reads these small groups without the table
			fast, err := compile(g, ownedUnread)
			if err != nil {
				t.Fatal(err)
			}
			fast.own = ownedClaims{members: fast.g.Members}
			okFast := fast.readKeptWith(every, read, false)
			if okFast != okGeneral {
				t.Fatalf("every=%v read=%d: fast path says no repeat %v, general path %v", every, read, okFast, okGeneral)
			}
			for _, kc := range []*keptClaims{fast.kept, general.kept} {
				if kc != nil && len(kc.runs) == 0 {
					kc.runs = nil // the general path leaves an empty slice where runs were truncated
				}
			}
			if !reflect.DeepEqual(fast.kept, general.kept) {
				t.Fatalf("every=%v read=%d: fast path read\n%+v\ngeneral path read\n%+v", every, read, fast.kept, general.kept)
			}
		}
	}
}

// TestKeptFastPathOrder holds the fast path to the general one on lists
// whose topics follow the subscription but not Go's order: 𐐀 comes
// before Ａ in Java's order (topic numbers, the subscription's order) and
// after it in Go's, so a list 𐐀 then Ａ is not in order, though each
// name is the guess after the one before.
func TestKeptFastPathOrder(t *testing.T) {
	names := []string{"a", "\uff21", "\U00010400"}
	for _, owned := range [][]TopicPartition{
		{{"\U00010400", 0}, {"\uff21", 1}},
		{{"\uff21", 0}, {"\U00010400", 1}},
		{{"a", 0}, {"\U00010400", 0}, {"\uff21", 0}},
	} {
		g := Group{Topics: map[string]int32{"a": 2, "\uff21": 2, "\U00010400": 2}}
		g.Members = []Member{
			{ID: "m0", Topics: names, Owned: owned, Generation: 1},
			{ID: "m1", Topics: names, Generation: 1},
		}
		matchKeptFast(t, g)
	}
}

// runsReversed returns owned, a sorted list, with its runs of one topic
// in reverse order.
func runsReversed(owned []TopicPartition) []TopicPartition {
	var out []TopicPartition
	for end := len(owned); end > 0; {
		start := end - 1
		for start > 0 && owned[start-1].Topic == owned[end-1].Topic {
			start--
		}
		out = append(out, owned[start:end]...)
		end = start
	}
	return out
}
