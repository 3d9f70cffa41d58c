package main

import (
	"encoding/json"
	"testing"

	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/google/go-cmp/cmp"
)

func TestCoordinatorGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "coordinator_table", args: []string{"coordinator", "checkout-service", "a", "polygenelubricants"}},
		{name: "coordinator_json", args: []string{"coordinator", "--format", "json", "checkout-service"}},
		{name: "coordinator_csv", args: []string{"coordinator", "--partitions", "3", "--format", "csv", "ab", "a"}},
		{name: "coordinator_no_group", args: []string{"coordinator"}, status: 2},
		{name: "coordinator_zero_partitions", args: []string{"coordinator", "--partitions", "0", "g"}, status: 2},
	})
}

// TestCoordinatorByHand: Utils.abs(groupId.hashCode()) % N with hashes
// computed by hand: "ab" is 97*31 + 98 = 3105; "😀" (U+1F600) is the
// UTF-16 pair D83D DE00, 55357*31 + 56832 = 1772899; "polygenelubricants"
// hashes to Integer.MIN_VALUE (a well-known Java example), which
// Utils.abs maps to 0.
func TestCoordinatorByHand(t *testing.T) {
	tests := []struct {
		args []string
		want groupfile.Coordinator
	}{
		{[]string{"ab"}, groupfile.Coordinator{Group: "ab", HashCode: 3105, Partition: 5, Partitions: 50}},
		{[]string{"--partitions", "7", "ab"}, groupfile.Coordinator{Group: "ab", HashCode: 3105, Partition: 4, Partitions: 7}}, // 3105 = 7*443 + 4
		{[]string{"\U0001F600"}, groupfile.Coordinator{Group: "\U0001F600", HashCode: 1772899, Partition: 49, Partitions: 50}},
		{[]string{"polygenelubricants"}, groupfile.Coordinator{Group: "polygenelubricants", HashCode: -2147483648, Partition: 0, Partitions: 50}},
	}
	for _, tt := range tests {
		args := append([]string{"coordinator", "--format", "jsonl"}, tt.args...)
		stdout, stderr, status := runCase(cliCase{args: args})
		if status != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, status, stderr)
		}
		var got groupfile.Coordinator
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q mismatch (-want +got):\n%s", args, diff)
		}
	}
}
