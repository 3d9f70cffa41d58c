package groupfile

import (
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestPreviewForm pins the preview's json: its figures come after the
// result's keys, in the order of Preview's fields; a field the table has
// no column for is absent, while a zero or an empty list the table shows
// is written; "owned" lists the members in the group's order, with {}
// for one that owns nothing; and a Preview with every field absent
// leaves the result as AppendResult writes it (not `...,}`).
func TestPreviewForm(t *testing.T) {
	g := assign.Group{
		Topics: map[string]int32{"t": 2},
		Members: []assign.Member{
			{ID: "b", Topics: []string{"t"}, Owned: []assign.TopicPartition{{Topic: "t", Partition: 1}, {Topic: "t", Partition: 0}}, Generation: 1},
			{ID: "a", Topics: []string{"t"}, Generation: -1},
		},
	}
	r := Result{Name: "g", Strategy: "uniform", Members: MemberIDs(g),
		Assignment: assign.Assignment{"b": {{Topic: "t", Partition: 0}}, "a": {{Topic: "t", Partition: 1}}}}
	moved, bound, cross := 1, 1, 0
	unspread := []string{}
	lag, top := int64(7), int64(5)
	p := Preview{
		Moved: &moved, Unspread: &unspread, MoveBound: &bound, CrossRack: &cross,
		MemberFigures: []MemberFigures{{ID: "b", Rack: "r1", Count: 1, CrossRack: &cross, Lag: &lag, MaxLag: &top}, {ID: "a", Count: 1, CrossRack: &cross}},
		Coordinator:   &GroupCoordinator{Broker: "kafka", Partition: 5, Partitions: 50},
		Owned:         OwnedOf(g),
		Assumed:       []string{"x"},
	}
	got, err := AppendPreview(nil, r, p)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"g","strategy":"uniform","assignment":{"b":{"t":[0]},"a":{"t":[1]}},` +
		`"moved":1,"unspread":[],"moveBound":1,"crossRack":0,` +
		`"memberFigures":[{"id":"b","rack":"r1","count":1,"crossRack":0,"lag":7,"maxLag":5},{"id":"a","count":1,"crossRack":0}],` +
		`"coordinator":{"broker":"kafka","partition":5,"partitions":50},` +
		`"owned":{"b":{"t":[0,1]},"a":{}},"assumed":["x"]}`
	if string(got) != want {
		t.Errorf("AppendPreview:\n got %s\nwant %s", got, want)
	}

	plain, err := AppendResult(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err = AppendPreview(nil, r, Preview{})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(plain) {
		t.Errorf("an empty Preview changed the result:\n got %s\nwant %s", got, plain)
	}

	st, err := Stats{Members: 3, Partitions: 7, Min: 2, Max: 3, Spread: 1, StdDev: 0.47140452079103, Idle: 0}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"members":3,"partitions":7,"min":2,"max":3,"spread":1,"stddev":0.4714,"idle":0}`; string(st) != want {
		t.Errorf("Stats: got %s, want %s", st, want)
	}
	if OwnedOf(assign.Group{Members: []assign.Member{{ID: "a"}}}) != nil {
		t.Error("OwnedOf a group owning nothing: want nil, so that owned is absent")
	}
}
