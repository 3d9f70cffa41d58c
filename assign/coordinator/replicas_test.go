package coordinator_test

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign/coordinator"
	"github.com/google/go-cmp/cmp"
)

// TestReplicaRacks checks the round-robin placement on values worked out
// by hand: partition p starts at rack p mod len(racks) and its other
// replicas take the racks after it, wrapping around.
func TestReplicaRacks(t *testing.T) {
	abc := []string{"a", "b", "c"}
	tests := []struct {
		name      string
		from, end int32
		racks     []string
		replicas  int
		want      [][]string
	}{
		{"new topic, two replicas on three racks", 0, 4, abc, 2,
			[][]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "b"}}},
		{"added partitions start where their number says", 5, 7, abc, 3,
			[][]string{{"c", "a", "b"}, {"a", "b", "c"}}},
		{"more replicas than racks: one per rack", 1, 2, abc, 5,
			[][]string{{"b", "c", "a"}}},
		{"one rack", 0, 2, []string{"a"}, 3,
			[][]string{{"a"}, {"a"}}},
		{"no racks: no replica lists to fill", 0, 2, nil, 3,
			[][]string{nil, nil}},
		{"no replicas", 0, 1, abc, 0,
			[][]string{nil}},
		{"no partitions", 3, 3, abc, 2,
			[][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := coordinator.ReplicaRacks(tt.from, tt.end, tt.racks, tt.replicas)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReplicaRacks(%d, %d, %q, %d) mismatch (-want +got):\n%s", tt.from, tt.end, tt.racks, tt.replicas, diff)
			}
		})
	}
}
