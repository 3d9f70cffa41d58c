package assign_test

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// TestWithDerivedTopicIDs: ids are filled for the metadata's topics and held
// topics without one, the same for the same name whatever else the group
// holds, distinct, and never one already given.
func TestWithDerivedTopicIDs(t *testing.T) {
	given, _ := assign.ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	g := assign.Group{
		Topics:   map[string]int32{"b": 1, "a": 2, "given": 1},
		TopicIDs: map[string]assign.TopicID{"given": given},
		Members:  []assign.Member{{ID: "m", Owned: []assign.TopicPartition{{Topic: "deleted", Partition: 0}}}},
	}
	out, derived := g.WithDerivedTopicIDs()
	if diff := cmp.Diff([]string{"a", "b", "deleted"}, derived); diff != "" {
		t.Fatalf("derived mismatch (-want +got):\n%s", diff)
	}
	if len(g.TopicIDs) != 1 {
		t.Errorf("WithDerivedTopicIDs changed its argument's map")
	}
	seen := map[assign.TopicID]bool{}
	for _, name := range []string{"a", "b", "deleted", "given"} {
		id, ok := out.TopicIDs[name]
		if !ok || seen[id] || id == (assign.TopicID{}) {
			t.Errorf("id of %q: %v (present %v, repeated %v)", name, id, ok, seen[id])
		}
		seen[id] = true
	}
	alone, _ := assign.Group{Topics: map[string]int32{"a": 9}}.WithDerivedTopicIDs()
	if alone.TopicIDs["a"] != out.TopicIDs["a"] {
		t.Errorf("the id of a depends on the rest of the group")
	}
	if err := assign.CheckTopicIDs(out); err != nil {
		t.Error(err)
	}
}

// TestCheckTopicIDsSharedFingerprint: CheckTopicIDs first looks for
// repeats by an 8-byte fold of each id (keys.Seen), which two distinct
// ids can share; such a group is valid, and only a real repeat is
// refused. The first two ids below fold alike: the low half of a is 1,
// and b's high half, 1<<35 little-endian, rotated left by 29, is 1.
func TestCheckTopicIDsSharedFingerprint(t *testing.T) {
	a, b := assign.TopicID{0: 1}, assign.TopicID{12: 1 << 3}
	g := assign.Group{
		Topics:   map[string]int32{"a": 1, "b": 1},
		TopicIDs: map[string]assign.TopicID{"a": a, "b": b},
	}
	if err := assign.CheckTopicIDs(g); err != nil {
		t.Errorf("ids %v and %v: %v", a, b, err)
	}
	g.TopicIDs["c"] = b
	if err := assign.CheckTopicIDs(g); !errors.Is(err, assign.ErrDuplicateTopicID) {
		t.Errorf("a repeated id: %v, want ErrDuplicateTopicID", err)
	}
}
