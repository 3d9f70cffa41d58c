package groupfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/assigncalc/assigncalc/assign"
)

// TestTopicRegexRoundTrip: a member's "topicRegex" is read into
// Member.TopicRegex, with or without "topics" beside it, and written back
// as it was given, not as the topics it resolves to.
func TestTopicRegexRoundTrip(t *testing.T) {
	in := `{"topics": {"orders-eu": 2, "payments": 1}, "members": [` +
		`{"id": "c0", "topics": [], "topicRegex": "orders-.*"},` +
		`{"id": "c1", "topics": ["payments"], "topicRegex": "orders-(eu|us)"},` +
		`{"id": "c2", "topics": ["payments"], "topicRegex": null}]}`
	got, err := ReadAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []assign.Member{
		{ID: "c0", TopicRegex: "orders-.*", Generation: -1},
		{ID: "c1", Topics: []string{"payments"}, TopicRegex: "orders-(eu|us)", Generation: -1},
		{ID: "c2", Topics: []string{"payments"}, Generation: -1},
	}
	if diff := cmp.Diff(want, got[0].Group.Members); diff != "" {
		t.Fatalf("members read mismatch (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	if err := WriteGroup(&buf, got[0]); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`{"id":"c0","topicRegex":"orders-.*"}`, `"topicRegex":"orders-(eu|us)"`} {
		if !strings.Contains(buf.String(), s) {
			t.Errorf("WriteGroup wrote %s, want it to hold %s", buf.String(), s)
		}
	}
	again, err := ReadAll(&buf)
	if err != nil {
		t.Fatalf("ReadAll(%s): %v", buf.String(), err)
	}
	for i := range want {
		if again[0].Group.Members[i].TopicRegex != want[i].TopicRegex {
			t.Errorf("member %d read back with TopicRegex %q, want %q", i, again[0].Group.Members[i].TopicRegex, want[i].TopicRegex)
		}
	}
}

// TestTopicRegexErrors: a pattern Go cannot compile is refused at its
// place in the file, and a member with neither "topics" nor a pattern
// still misses "topics".
func TestTopicRegexErrors(t *testing.T) {
	_, err := ReadAll(strings.NewReader(`{"topics": {}, "members": [{"id": "c0", "topicRegex": "orders-("}]}`))
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, assign.ErrTopicRegex) || fe.Path != "members[0].topicRegex" || !strings.Contains(err.Error(), `"orders-("`) {
		t.Errorf("bad pattern: got %v, want an *Error at members[0].topicRegex wrapping assign.ErrTopicRegex and quoting the pattern", err)
	}
	if es, err := ReadAll(strings.NewReader(`{"topics": {}, "members": [{"id": "c0", "topicRegex": "x"}]}`)); err != nil || es[0].Group.Members[0].TopicRegex != "x" {
		t.Errorf("a pattern without \"topics\": got %v, want it read", err)
	}
	_, err = ReadAll(strings.NewReader(`{"topics": {}, "members": [{"id": "c0", "topicRegex": ""}]}`))
	if !errors.Is(err, ErrMissingField) {
		t.Errorf("empty pattern and no topics: got %v, want ErrMissingField", err)
	}
}
