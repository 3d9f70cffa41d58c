package assign

import (
	"slices"
	"testing"
	"unicode/utf16"

	"pgregory.net/rapid"
)

// TestSortKafkaOrder holds sortKafkaOrder, whose small ASCII groups take
// an insertion sort of their own, to Kafka's member order written out
// naively: members with a group.instance.id first, by it, then the others
// by member ID, both compared as Java compares strings, by UTF-16 code
// units. Groups are up to twice the insertion sort's bound, with ASCII
// and non-ASCII names, static and dynamic members.
func TestSortKafkaOrder(t *testing.T) {
	javaKey := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	rapid.Check(t, func(t *rapid.T) {
		alphabet := []rune("ab9Z-")
		if rapid.Bool().Draw(t, "non-ASCII") {
			alphabet = append(alphabet, '\uff21', '\U00010400')
		}
		name := rapid.StringOfN(rapid.SampledFrom(alphabet), 1, 4, -1)
		n := rapid.IntRange(0, 2*shortList).Draw(t, "members")
		ids := rapid.SliceOfNDistinct(name, n, n, func(s string) string { return s }).Draw(t, "ids")
		instances := rapid.SliceOfNDistinct(name, n, n, func(s string) string { return s }).Draw(t, "instances")
		members := make([]Member, n)
		for i := range members {
			members[i].ID = ids[i]
			if rapid.Bool().Draw(t, "static") {
				members[i].InstanceID = instances[i]
			}
		}
		got := make([]int32, n)
		for i := range got {
			got[i] = int32(i)
		}
		want := slices.Clone(got)
		sortKafkaOrder(members, got)
		slices.SortFunc(want, func(a, b int32) int {
			ma, mb := members[a], members[b]
			if (ma.InstanceID != "") != (mb.InstanceID != "") {
				if ma.InstanceID != "" {
					return -1
				}
				return 1
			}
			if ma.InstanceID != "" {
				return slices.Compare(javaKey(ma.InstanceID), javaKey(mb.InstanceID))
			}
			return slices.Compare(javaKey(ma.ID), javaKey(mb.ID))
		})
		if !slices.Equal(got, want) {
			t.Fatalf("sortKafkaOrder(%q) = %v, want %v", members, got, want)
		}
	})
}
