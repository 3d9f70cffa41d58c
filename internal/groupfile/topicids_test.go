package groupfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// TestTopicIDs reads "topicIds", keeps the order of owned topics and
// partitions (the KIP-848 assignors depend on it), and writes both back.
func TestTopicIDs(t *testing.T) {
	in := `{"topics": {"t1": 4, "t2": 2}, "topicIds": {"t1": "Yp0cT2sWQ7ChA0qyU5Ckdg", "gone": "AAAAAAAAAAAAAAAAAAAAAg"},
 "members": [{"id": "c0", "topics": ["t2", "t1"], "owned": {"t2": [1, 0], "gone": [5], "t1": [3, 0]}}]}`
	got, err := ReadAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	t1, _ := assign.ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	gone := assign.TopicID{15: 2} // AAAA...Ag: fifteen zero bytes, then 2
	want := assign.Group{
		Topics:   map[string]int32{"t1": 4, "t2": 2},
		TopicIDs: map[string]assign.TopicID{"t1": t1, "gone": gone},
		Members: []assign.Member{{ID: "c0", Topics: []string{"t2", "t1"}, Generation: -1, Owned: []assign.TopicPartition{
			{Topic: "t2", Partition: 1}, {Topic: "t2", Partition: 0}, {Topic: "gone", Partition: 5},
			{Topic: "t1", Partition: 3}, {Topic: "t1", Partition: 0},
		}}},
	}
	if diff := cmp.Diff(want, got[0].Group); diff != "" {
		t.Fatalf("ReadAll mismatch (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := WriteGroup(&buf, got[0]); err != nil {
		t.Fatal(err)
	}
	const wantOut = `{"topics":{"t1":4,"t2":2},"topicIds":{"gone":"AAAAAAAAAAAAAAAAAAAAAg","t1":"Yp0cT2sWQ7ChA0qyU5Ckdg"},` +
		`"members":[{"id":"c0","topics":["t2","t1"],"owned":{"t2":[1,0],"gone":[5],"t1":[3,0]}}]}` + "\n"
	if buf.String() != wantOut {
		t.Errorf("WriteGroup =\n%s\nwant\n%s", buf.String(), wantOut)
	}
}

func TestTopicIDErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"topics": {}, "members": [], "topicIds": {"orders": "nope"}}`,
			`groupfile: line 1, column 54: topicIds.orders: not a Kafka topic id (22 characters of URL-safe base64, as kafka-topics.sh prints TopicId): "nope"`},
		{`{"topics": {}, "members": [], "topicIds": {"orders": "AAAAAAAAAAAAAAAAAAAAAR"}}`,
			`groupfile: line 1, column 54: topicIds.orders: not a Kafka topic id (22 characters of URL-safe base64, as kafka-topics.sh prints TopicId): "AAAAAAAAAAAAAAAAAAAAAR"`},
	} {
		_, err := ReadAll(strings.NewReader(tc.in))
		if !errors.Is(err, ErrTopicID) || err.Error() != tc.want {
			t.Errorf("ReadAll(%s) = %v, want %s", tc.in, err, tc.want)
		}
	}
}
