package main

import (
	"encoding/json"
	"os"
	"strings"
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
		{name: "coordinator_redpanda_table", args: []string{"coordinator", "orders-app", "my-group", "--broker", "redpanda"}},
		{name: "coordinator_redpanda_csv", args: []string{"coordinator", "--broker", "redpanda", "--partitions", "50", "--format", "csv", "orders-app"}},
		{name: "coordinator_bad_broker", args: []string{"coordinator", "--broker", "pulsar", "g"}, status: 2},
		{name: "describe_rpk_preview", args: []string{"--from-describe", describeData + "rpk_one.txt", "--compare", "cooperative-sticky,range", "--strategy", "cooperative-sticky"}},
	})
}

// TestCoordinatorRedpanda: item 3 of issue 28. The partitions are those
// of TestRedpandaPartition (assign/coordinator), computed by a separate
// implementation: orders-app is at 10 of 16 and 10 of 50, my-group at 4
// of 16. The preview of an rpk paste places its coordinator so too, and
// says when rpk showed another partition.
func TestCoordinatorRedpanda(t *testing.T) {
	out, _, status := runCase(cliCase{args: []string{"coordinator", "orders-app", "--broker", "redpanda", "--format", "json"}})
	var got groupfile.RedpandaCoordinator
	if err := json.Unmarshal([]byte(out), &got); status != 0 || err != nil {
		t.Fatalf("status %d, %v: %s", status, err, out)
	}
	want := groupfile.RedpandaCoordinator{Group: "orders-app", Broker: "redpanda", XXHash64: "0f949c5c3f3c2d49", Partition: 10, Partitions: 16}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("coordinator --broker redpanda (-want +got):\n%s", diff)
	}
	paste, err := os.ReadFile(describeData + "rpk_one.txt")
	if err != nil {
		t.Fatal(err)
	}
	for shown, want := range map[string]string{
		"10": "coordinator: partition 10 of __consumer_offsets (Redpanda: of 16, the default group_topic_partitions)\n",
		"3":  "coordinator: partition 10 of __consumer_offsets (Redpanda: of 16, the default group_topic_partitions; rpk showed partition 3, so the cluster sets another group_topic_partitions)\n",
	} {
		in := strings.Replace(string(paste), "__consumer_offsets/10", "__consumer_offsets/"+shown, 1)
		out, stderr, status := runCase(cliCase{args: []string{"--from-describe", "-"}, stdin: in})
		if status != 0 || !strings.Contains(out, want) {
			t.Errorf("rpk paste showing partition %s: status %d, stderr %q, output\n%s\nwant the line %q", shown, status, stderr, out, want)
		}
	}
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
