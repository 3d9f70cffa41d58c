package coordinator_test

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign/coordinator"
)

// TestCoordinatorPartition checks Utils.abs(groupId.hashCode()) % N with
// hashes worked out by hand (the short ones) or with an independent
// Python evaluation of s[0]*31^(n-1) + ... over the UTF-16 code units
// (s.encode("utf-16-be"), masked to 32 bits) for the long ones.
func TestCoordinatorPartition(t *testing.T) {
	tests := []struct {
		group      string
		partitions int32
		hash       int32
		want       int32
	}{
		{"", 50, 0, 0},
		{"a", 50, 97, 47},               // 'a' = 97
		{"ab", 50, 3105, 5},             // 97*31 + 98
		{"ab", 3, 3105, 0},              // 3105 = 3*1035
		{"é", 50, 233, 33},              // U+00E9, one UTF-16 unit
		{"\U0001F600", 50, 1772899, 49}, // U+1F600 = D83D DE00: 0xD83D*31 + 0xDE00 = 1716067 + 56832
		{"checkout-service", 50, 1770869038, 38},
		{"spark-kafka-source", 50, -877681262, 12}, // negative: abs first
		// Both hash to Integer.MIN_VALUE, which Utils.abs maps to 0.
		{"polygenelubricants", 50, -2147483648, 0},
		{"GydZG_", 7, -2147483648, 0},
	}
	for _, tt := range tests {
		if h := coordinator.GroupIDHash(tt.group); h != tt.hash {
			t.Errorf("GroupIDHash(%q) = %d, want %d", tt.group, h, tt.hash)
		}
		got, err := coordinator.CoordinatorPartition(tt.group, tt.partitions)
		if err != nil || got != tt.want {
			t.Errorf("CoordinatorPartition(%q, %d) = %d, %v; want %d", tt.group, tt.partitions, got, err, tt.want)
		}
	}
	for _, n := range []int32{0, -1} {
		if _, err := coordinator.CoordinatorPartition("g", n); !errors.Is(err, coordinator.ErrOffsetsPartitions) {
			t.Errorf("CoordinatorPartition(g, %d) = %v, want ErrOffsetsPartitions", n, err)
		}
	}
}
