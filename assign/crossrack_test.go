package assign_test

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// TestCrossRack: t's partition p has its one replica on rack a for even p
// and b for odd p; u has no rack information. a0 (rack a) holds t-0, t-1
// and u-0: t-1 is read across racks, u-0 is unknown. b0 (rack b) holds
// t-2: across. n0 has no rack. Rack c holds no replica.
func TestCrossRack(t *testing.T) {
	g := assign.Group{
		Topics:         map[string]int32{"t": 4, "u": 1},
		PartitionRacks: map[string][][]string{"t": {{"a"}, {"b"}, {"a"}, {"b"}}},
		Members: []assign.Member{
			{ID: "a0", Rack: "a", Topics: []string{"t", "u"}},
			{ID: "b0", Rack: "b", Topics: []string{"t"}},
			{ID: "n0", Topics: []string{"t"}},
			{ID: "c0", Rack: "c", Topics: []string{"t"}},
		},
	}
	a := assign.Assignment{"a0": tps("t", 0, 1), "b0": tps("t", 2), "n0": tps("t", 3), "c0": nil}
	a["a0"] = append(a["a0"], assign.TopicPartition{Topic: "u", Partition: 0})
	want := map[string]int{"a0": 1, "b0": 1, "n0": 0, "c0": 0}
	if diff := cmp.Diff(want, assign.CrossRack(g, a)); diff != "" {
		t.Errorf("CrossRack mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c"}, assign.RacksWithoutReplicas(g)); diff != "" {
		t.Errorf("RacksWithoutReplicas mismatch (-want +got):\n%s", diff)
	}
	g.PartitionRacks = nil
	if got := assign.RacksWithoutReplicas(g); got != nil {
		t.Errorf("RacksWithoutReplicas without rack information = %v, want nil", got)
	}
}
