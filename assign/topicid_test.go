package assign_test

import (
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
