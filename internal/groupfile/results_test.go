package groupfile

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestResultsRoundTrip writes results of every kind and reads them back.
func TestResultsRoundTrip(t *testing.T) {
	in := []Result{
		{Name: "g", Strategy: "range", Members: []string{"z", "a"}, Assignment: assign.Assignment{"z": tps("t", 1, "u", 0), "a": nil},
			Stats: &Stats{Members: 2, Partitions: 2, Min: 0, Max: 2, Spread: 2, StdDev: 1, Idle: 1}},
		{Strategy: "cooperative-sticky", Members: []string{"c0", "c1"},
			Assignment: assign.Assignment{"c0": tps("t", 0), "c1": nil},
			Cooperative: &Cooperative{
				Target:  assign.Assignment{"c0": tps("t", 0), "c1": tps("t", 1)},
				Revoked: assign.Assignment{"c0": tps("t", 1), "c1": nil},
				Pending: assign.Assignment{"c0": nil, "c1": tps("t", 1)},
			}},
		{Name: "bad", Strategy: "sticky", Err: resultError("assign: duplicate member ID")},
	}
	var buf bytes.Buffer
	for _, r := range in {
		if err := WriteResult(&buf, r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadResults(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]Result, len(in))
	copy(want, in)
	for i := range want {
		want[i].Stats = nil // not read back: the reader reads what it checks
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("ReadResults(WriteResult(...)) mismatch (-want +got):\n%s", diff)
	}
}

// TestReadResultsKafkaFile reads the answers of Kafka's Java client: two
// per group, members in the groups' order.
func TestReadResultsKafkaFile(t *testing.T) {
	f, err := os.Open("../../testdata/kafka-java-range-roundrobin.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadResults(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 32 {
		t.Fatalf("read %d results, want 32", len(got))
	}
	first := got[0]
	want := Result{Name: "hand-range-static-order", Strategy: "range", Members: []string{"a", "b", "c", "B"},
		Assignment: assign.Assignment{"a": tps("t", 2), "b": tps("t", 0, "t", 1), "c": tps("t", 4), "B": tps("t", 3)}}
	if diff := cmp.Diff(want, first); diff != "" {
		t.Errorf("first result mismatch (-want +got):\n%s", diff)
	}
}

func TestReadResultsErrors(t *testing.T) {
	tests := []struct {
		in       string
		sentinel error
		want     string
	}{
		{`{"name": "x", "assignment": {}}`, ErrMissingField, `groupfile: line 1, column 1: missing field "strategy"`},
		{"\n  {\"strategy\": \"range\"}", ErrMissingField, `groupfile: line 2, column 3: missing field "assignment" (or "error")`},
		{`{"strategy": "range", "assignment": {"a": {}, "a": {}}}`, ErrDuplicateKey, `groupfile: line 1, column 1: assignment: duplicate key "a"`},
		{`{"strategy": "range", "assignment": {"a": {"t": [1.5]}}}`, ErrType, ""},
		{`{"strategy": "range", "assignment": {"a": {"t": [4294967296]}}}`, ErrType, ""},
		{`{"strategy": "range", "assignment": {}} x`, ErrSyntax, ""},
	}
	for _, tt := range tests {
		_, err := ReadResults(strings.NewReader(tt.in))
		if !errors.Is(err, tt.sentinel) {
			t.Errorf("ReadResults(%q) error %v, want %v", tt.in, err, tt.sentinel)
			continue
		}
		if tt.want != "" && err.Error() != tt.want {
			t.Errorf("ReadResults(%q) error %q, want %q", tt.in, err, tt.want)
		}
	}
}
