package groupfile

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// TestReadAll reads groups written in every way the contract allows and
// compares them with the groups written out by hand.
func TestReadAll(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Entry
	}{
		{
			name: "the example of DESIGN.md, pretty-printed over many lines",
			in: `{"name": "checkout-service",
 "topics": {"t1": 7, "t2": 3},
 "partitionRacks": {"t1": [["a","b"], ["b"], [], ["c"], ["a"], ["b"], ["c"]]},
 "members": [
   {"id": "c0",
    "instance": "i0",
    "rack": "a",
    "topics": ["t1", "t2"],
    "owned": {"t1": [0, 1]},
    "generation": 3,
    "protocols": ["cooperative-sticky", "range"]}
 ]}`,
			want: []Entry{{
				Name: "checkout-service",
				Line: 1,
				Group: assign.Group{
					Topics:         map[string]int32{"t1": 7, "t2": 3},
					PartitionRacks: map[string][][]string{"t1": {{"a", "b"}, {"b"}, {}, {"c"}, {"a"}, {"b"}, {"c"}}},
					Members: []assign.Member{{
						ID: "c0", InstanceID: "i0", Rack: "a", Topics: []string{"t1", "t2"},
						Owned:      []assign.TopicPartition{{Topic: "t1", Partition: 0}, {Topic: "t1", Partition: 1}},
						Generation: 3,
					}},
				},
				Protocols: [][]string{{"cooperative-sticky", "range"}},
			}},
		},
		{
			name: "JSON lines: optional fields absent or null, generation -1 by default",
			in: `{"topics": {"t": 2}, "members": [{"id": "a", "topics": ["t"]}]}

{"name": null, "topics": {}, "partitionRacks": null, "members": [{"id": "b", "topics": [], "instance": null, "rack": null, "owned": null, "generation": null, "protocols": null}]}
{"topics": {"t": 1}, "members": []}`,
			want: []Entry{
				{Line: 1, Group: assign.Group{
					Topics:  map[string]int32{"t": 2},
					Members: []assign.Member{{ID: "a", Topics: []string{"t"}, Generation: -1}},
				}, Protocols: [][]string{nil}},
				{Line: 3, Group: assign.Group{
					Topics:  map[string]int32{},
					Members: []assign.Member{{ID: "b", Topics: []string{}, Generation: -1}},
				}, Protocols: [][]string{nil}},
				{Line: 4, Group: assign.Group{
					Topics:  map[string]int32{"t": 1},
					Members: []assign.Member{},
				}},
			},
		},
		{
			name: "owned keeps the file's order of topics and partitions",
			in:   `{"topics": {"a": 3, "b": 3}, "members": [{"id": "m", "topics": ["a", "b"], "owned": {"b": [2, 0], "a": [1]}, "generation": 0}]}`,
			want: []Entry{{Line: 1, Group: assign.Group{
				Topics: map[string]int32{"a": 3, "b": 3},
				Members: []assign.Member{{ID: "m", Topics: []string{"a", "b"}, Generation: 0, Owned: []assign.TopicPartition{
					{Topic: "b", Partition: 2}, {Topic: "b", Partition: 0}, {Topic: "a", Partition: 1},
				}}},
			}, Protocols: [][]string{nil}}},
		},
		{
			name: "escapes, surrogate pairs and non-ASCII keys",
			in:   `{"topics": {"t\u00e9\"\\": 1}, "members": [{"id": "\ud801\udc00\t\/", "topics": ["t√©\"\\"], "protocols": []}]}`,
			want: []Entry{{Line: 1, Group: assign.Group{
				Topics:  map[string]int32{"té\"\\": 1},
				Members: []assign.Member{{ID: "\U00010400\t/", Topics: []string{"t√©\"\\"}, Generation: -1}},
			}, Protocols: [][]string{{}}}},
		},
		{
			name: "lone surrogates and invalid UTF-8 become U+FFFD, as in encoding/json",
			in:   "{\"topics\": {}, \"members\": [{\"id\": \"\\ud800x\\udc00\xff\", \"topics\": []}]}",
			want: []Entry{{Line: 1, Group: assign.Group{
				Topics:  map[string]int32{},
				Members: []assign.Member{{ID: "\uFFFDx\uFFFD\uFFFD", Topics: []string{}, Generation: -1}},
			}, Protocols: [][]string{nil}}},
		},
		{
			name: "int32 limits and negative counts are read; the library judges them",
			in:   `{"topics": {"big": 2147483647, "neg": -2147483648}, "members": [{"id": "m", "topics": [], "generation": -5}]}`,
			want: []Entry{{Line: 1, Group: assign.Group{
				Topics:  map[string]int32{"big": 2147483647, "neg": -2147483648},
				Members: []assign.Member{{ID: "m", Topics: []string{}, Generation: -5}},
			}, Protocols: [][]string{nil}}},
		},
		{
			name: "empty input holds no groups",
			in:   " \n\t\r\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadAll(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadAll(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestReadErrors feeds one bad group and checks that the error names the
// fault, its line and column, and wraps the right sentinel. Columns count
// bytes from 1; they were counted by hand in the inputs.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		sentinel error
		want     string // the whole message
	}{
		{
			name:     "unknown top-level field",
			in:       `{"topics": {}, "member": []}`,
			sentinel: ErrUnknownField,
			want:     `groupfile: line 1, column 16: unknown field "member"`,
		},
		{
			name:     "unknown member field, on the second line",
			in:       "{\"topics\": {},\n \"members\": [{\"id\": \"a\", \"topics\": [], \"racks\": \"x\"}]}",
			sentinel: ErrUnknownField,
			want:     `groupfile: line 2, column 40: members[0]: unknown field "racks"`,
		},
		{
			name:     "partition count not an integer",
			in:       `{"topics": {"t1": 1.5}, "members": []}`,
			sentinel: ErrNumber,
			want:     `groupfile: line 1, column 19: topics.t1: not an integer in int32: 1.5`,
		},
		{
			name:     "partition count in exponent form",
			in:       `{"topics": {"t1": 1e3}, "members": []}`,
			sentinel: ErrNumber,
			want:     `groupfile: line 1, column 19: topics.t1: not an integer in int32: 1e3`,
		},
		{
			name:     "partition count beyond int32",
			in:       `{"topics": {"t1": 2147483648}, "members": []}`,
			sentinel: ErrNumber,
			want:     `groupfile: line 1, column 19: topics.t1: not an integer in int32: 2147483648`,
		},
		{
			name:     "partition count as a string",
			in:       `{"topics": {"t 1": "7"}, "members": []}`,
			sentinel: ErrType,
			want:     `groupfile: line 1, column 20: topics["t 1"]: wrong type: want a number, found a string`,
		},
		{
			name:     "owned partition beyond int32",
			in:       `{"topics": {"t": 1}, "members": [{"id": "a", "topics": ["t"], "owned": {"t": [0, -2147483649]}}]}`,
			sentinel: ErrNumber,
			want:     `groupfile: line 1, column 82: members[0].owned.t[1]: not an integer in int32: -2147483649`,
		},
		{
			name:     "owned as a list rather than an object",
			in:       `{"topics": {"t": 1}, "members": [{"id": "a", "topics": ["t"], "owned": [0]}]}`,
			sentinel: ErrType,
			want:     `groupfile: line 1, column 72: members[0].owned: wrong type: want an object, found an array`,
		},
		{
			name:     "duplicate key",
			in:       `{"topics": {"t": 1, "t": 2}, "members": []}`,
			sentinel: ErrDuplicateKey,
			want:     `groupfile: line 1, column 21: topics: duplicate key "t"`,
		},
		{
			name:     "missing members",
			in:       `{"topics": {}}`,
			sentinel: ErrMissingField,
			want:     `groupfile: line 1, column 1: missing field "members"`,
		},
		{
			name:     "members null",
			in:       `{"topics": {}, "members": null}`,
			sentinel: ErrMissingField,
			want:     `groupfile: line 1, column 27: missing field "members"`,
		},
		{
			name:     "member without id",
			in:       `{"topics": {}, "members": [{"topics": []}]}`,
			sentinel: ErrMissingField,
			want:     `groupfile: line 1, column 28: members[0]: missing field "id"`,
		},
		{
			name:     "an array of groups",
			in:       `[{"topics": {}, "members": []}]`,
			sentinel: ErrType,
			want:     `groupfile: line 1, column 1: wrong type: want an object per group, found an array (write many groups as JSON lines, one object per line)`,
		},
		{
			name:     "missing comma, reported where the next key starts",
			in:       "{\"topics\": {}\n  \"members\": []}",
			sentinel: ErrSyntax,
			want:     `groupfile: line 2, column 3: malformed JSON: want ',' or '}', found '"'`,
		},
		{
			name:     "truncated line",
			in:       `{"topics": {"t": 3}, "members": [{"id": "a"`,
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 44: malformed JSON: want ',' or '}', found the end of the input`,
		},
		{
			name:     "unterminated string",
			in:       `{"topics": {"t`,
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 13: malformed JSON: string not terminated`,
		},
		{
			name:     "bare word",
			in:       `{"topics": {"t": seven}, "members": []}`,
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 18: malformed JSON: want a value, found 's'`,
		},
		{
			name:     "trailing comma",
			in:       `{"topics": {"t": 1,}, "members": []}`,
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 20: malformed JSON: want a string key, found '}'`,
		},
		{
			name:     "leading zero",
			in:       `{"topics": {"t": 01}, "members": []}`,
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 19: malformed JSON: want ',' or '}', found '1'`,
		},
		{
			name:     "hostile nesting stops at a bound instead of exhausting the stack",
			in:       `{"topics": {}, "members": [], "x": ` + strings.Repeat("[", 1_000_000),
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 136: malformed JSON: nested more than 100 deep`,
		},
		{
			name:     "control character in a string",
			in:       "{\"topics\": {\"t\n\": 1}, \"members\": []}",
			sentinel: ErrSyntax,
			want:     `groupfile: line 1, column 15: malformed JSON: control character 0x0a in string`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadAll(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("ReadAll(%q) = %+v, want an error", tt.in, got)
			}
			var ferr *Error
			if !errors.As(err, &ferr) {
				t.Fatalf("ReadAll(%q) error %v (%T), want an *Error", tt.in, err, err)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("ReadAll(%q) error %v does not wrap %v", tt.in, err, tt.sentinel)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("ReadAll(%q) error mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestReaderGoesOn checks the batch behaviour the CLI relies on: a group
// with bad content is reported with its name and line, and the groups after
// it are still read; malformed JSON stops the reading.
func TestReaderGoesOn(t *testing.T) {
	in := `{"name": "ok-1", "topics": {"t": 1}, "members": []}
{"members": [{"id": 7}], "name": "bad-member", "topics": {"t": 1}}
{"topics": {"t": 1}, "surprise": true, "members": [], "name": "bad-field"}
{"name": "ok-2", "topics": {"t": 2}, "members": []}
{"name": "broken", "topics": {"t": 2}, "members": [
{"name": "never-read", "topics": {}, "members": []}
`
	type step struct {
		Name  string
		Line  int
		Error string
	}
	want := []step{
		{Name: "ok-1", Line: 1},
		{Name: "bad-member", Line: 2, Error: `groupfile: line 2, column 21: members[0].id: wrong type: want a string, found a number`},
		{Name: "bad-field", Line: 3, Error: `groupfile: line 3, column 22: unknown field "surprise"`},
		{Name: "ok-2", Line: 4},
		{Name: "broken", Line: 5, Error: `groupfile: line 7, column 1: malformed JSON: want ',' or ']', found the end of the input`},
	}
	var got []step
	r := NewReader(strings.NewReader(in))
	for range 10 {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		s := step{Name: e.Name, Line: e.Line}
		if err != nil {
			s.Error = err.Error()
		}
		got = append(got, s)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reader.Next sequence mismatch (-want +got):\n%s", diff)
	}
}
