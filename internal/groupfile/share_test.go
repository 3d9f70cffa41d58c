package groupfile

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// TestShareOf: every partition of a subscribed topic is listed, held or
// not, with its holders in the group's order; a partition held of a
// topic nobody subscribes to is listed too (Kafka's heterogeneous
// builder can leave one in a target); the JSON follows the Result's keys.
func TestShareOf(t *testing.T) {
	g := assign.Group{
		Topics: map[string]int32{"a": 2, "b": 1, "old": 1},
		Members: []assign.Member{
			{ID: "m2", Topics: []string{"a", "b"}},
			{ID: "m1", Topics: []string{"a"}},
		},
	}
	tp := func(topic string, p int32) assign.TopicPartition {
		return assign.TopicPartition{Topic: topic, Partition: p}
	}
	a := assign.Assignment{"m1": {tp("a", 0), tp("old", 0)}, "m2": {tp("a", 0), tp("b", 0)}}
	got := ShareOf(g, a, "4.3")
	want := Share{Protocol: "share", Kafka: "4.3", MaxSharing: 2, Sharing: []PartitionSharing{
		{Topic: "a", Partition: 0, Count: 2, Members: []string{"m2", "m1"}},
		{Topic: "a", Partition: 1, Count: 0, Members: []string{}},
		{Topic: "b", Partition: 0, Count: 1, Members: []string{"m2"}},
		{Topic: "old", Partition: 0, Count: 1, Members: []string{"m1"}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ShareOf mismatch (-want +got):\n%s", diff)
	}
	counts, parts := got.SharedBy()
	if diff := cmp.Diff([]int{0, 1, 2}, counts); diff != "" {
		t.Errorf("SharedBy counts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]assign.TopicPartition{{tp("a", 1)}, {tp("b", 0), tp("old", 0)}, {tp("a", 0)}}, parts); diff != "" {
		t.Errorf("SharedBy partitions mismatch (-want +got):\n%s", diff)
	}
	line, err := AppendShare(nil, Result{Name: "g", Strategy: "simple", Members: []string{"m2", "m1"}, Assignment: a}, Share{Protocol: "share", Kafka: "4.3", MaxSharing: 1,
		Sharing: []PartitionSharing{{Topic: "b", Partition: 0, Count: 1, Members: []string{"m2"}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantLine := `{"name":"g","strategy":"simple","assignment":{"m2":{"a":[0],"b":[0]},"m1":{"a":[0],"old":[0]}},` +
		`"protocol":"share","kafka":"4.3","maxSharing":1,"sharing":[{"topic":"b","partition":0,"count":1,"members":["m2"]}]}`
	if string(line) != wantLine {
		t.Errorf("AppendShare:\n got %s\nwant %s", line, wantLine)
	}
}
