package groupfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

func tps(spec ...any) []assign.TopicPartition {
	var out []assign.TopicPartition
	for i := 0; i < len(spec); i += 2 {
		out = append(out, assign.TopicPartition{Topic: spec[i].(string), Partition: int32(spec[i+1].(int))})
	}
	return out
}

// TestAppendResult checks the output contract of DESIGN.md byte for byte:
// key order, member order as in the group, {} for members that get
// nothing, sorted topics and partitions, and the error form.
func TestAppendResult(t *testing.T) {
	tests := []struct {
		name string
		in   Result
		want string
	}{
		{
			name: "the example of DESIGN.md",
			in: Result{
				Name: "checkout-service", Strategy: "range", Members: []string{"c0", "c1"},
				Assignment: assign.Assignment{"c0": tps("t1", 0, "t1", 1, "t1", 2), "c1": nil},
			},
			want: `{"name":"checkout-service","strategy":"range","assignment":{"c0":{"t1":[0,1,2]},"c1":{}}}`,
		},
		{
			name: "members in the group's order, not sorted; partitions sorted even when given unsorted",
			in: Result{
				Strategy: "roundrobin", Members: []string{"z", "a", "M"},
				Assignment: assign.Assignment{"a": tps("t2", 1, "t1", 4, "t2", 0), "z": tps("t1", 0), "M": {}},
			},
			want: `{"name":"","strategy":"roundrobin","assignment":{"z":{"t1":[0]},"a":{"t1":[4],"t2":[0,1]},"M":{}}}`,
		},
		{
			name: "members missing from the assignment get {}, extra ones follow sorted",
			in: Result{
				Strategy: "range", Members: []string{"b", "a"},
				Assignment: assign.Assignment{"y": tps("t", 1), "x": nil, "a": tps("t", 0)},
			},
			want: `{"name":"","strategy":"range","assignment":{"b":{},"a":{"t":[0]},"x":{},"y":{"t":[1]}}}`,
		},
		{
			name: "statistics after the assignment, standard deviation rounded",
			in: Result{
				Name: "s", Strategy: "range", Members: []string{"c0", "c1", "c2"},
				Assignment: assign.Assignment{"c0": tps("t1", 0, "t1", 1, "t1", 2), "c1": tps("t1", 3, "t1", 4), "c2": tps("t1", 5, "t1", 6)},
				Stats:      &Stats{Members: 3, Partitions: 7, Min: 2, Max: 3, Spread: 1, StdDev: 0.47140452079103, Idle: 0},
			},
			want: `{"name":"s","strategy":"range","assignment":{"c0":{"t1":[0,1,2]},"c1":{"t1":[3,4]},"c2":{"t1":[5,6]}},"stats":{"members":3,"partitions":7,"min":2,"max":3,"spread":1,"stddev":0.4714,"idle":0}}`,
		},
		{
			name: "a cooperative round: target, revocations and what is pending, every member listed",
			in: Result{
				Strategy: "cooperative-sticky", Members: []string{"c0", "c1"},
				Assignment: assign.Assignment{"c0": tps("t", 0, "t", 1, "t", 2), "c1": nil},
				Cooperative: &Cooperative{
					Target:  assign.Assignment{"c0": tps("t", 0, "t", 1, "t", 2), "c1": tps("t", 3, "t", 4, "t", 5)},
					Revoked: assign.Assignment{"c0": tps("t", 3, "t", 4, "t", 5)},
					Pending: assign.Assignment{"c1": tps("t", 3, "t", 4, "t", 5)},
				},
			},
			want: `{"name":"","strategy":"cooperative-sticky","assignment":{"c0":{"t":[0,1,2]},"c1":{}},` +
				`"target":{"c0":{"t":[0,1,2]},"c1":{"t":[3,4,5]}},"revoked":{"c0":{"t":[3,4,5]},"c1":{}},"pending":{"c0":{},"c1":{"t":[3,4,5]}}}`,
		},
		{
			name: "a failed group",
			in:   Result{Name: "g", Strategy: "sticky", Err: errors.New(`assign: member "c1" (at index 1): duplicate member ID`)},
			want: `{"name":"g","strategy":"sticky","error":"assign: member \"c1\" (at index 1): duplicate member ID"}`,
		},
		{
			name: "keys that need escaping",
			in: Result{
				Name: "<&>", Strategy: "range", Members: []string{"a\"b", "\n", "é"},
				Assignment: assign.Assignment{"a\"b": tps("t\\", 0)},
			},
			want: `{"name":"\u003c\u0026\u003e","strategy":"range","assignment":{"a\"b":{"t\\":[0]},"\n":{},"é":{}}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AppendResult(nil, tt.in)
			if err != nil {
				t.Fatalf("AppendResult: %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("AppendResult(%+v) mismatch (-want +got):\n%s", tt.in, diff)
			}
			if !json.Valid(got) {
				t.Errorf("AppendResult(%+v) = %s: not valid JSON", tt.in, got)
			}
		})
	}
}

// TestAppendResultInvalidUTF8 checks that a member ID JSON cannot carry is
// refused rather than silently changed.
func TestAppendResultInvalidUTF8(t *testing.T) {
	_, err := AppendResult(nil, Result{Strategy: "range", Members: []string{"a\xff"}})
	if !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("AppendResult with member ID %q: error %v, want %v", "a\xff", err, ErrInvalidUTF8)
	}
}

// TestResultMemberIDsRoundTrip checks that any member ID (any valid UTF-8
// string, with control characters, quotes, non-BMP runes) reads back from
// the written result unchanged, through encoding/json as an independent
// reader, together with its partitions.
func TestResultMemberIDsRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ids := rapid.SliceOfDistinct(rapid.String(), rapid.ID[string]).Draw(t, "ids")
		a := make(assign.Assignment)
		for i, id := range ids {
			if i%2 == 0 {
				a[id] = tps(id, i)
			}
		}
		line, err := AppendResult(nil, Result{Strategy: "range", Members: ids, Assignment: a})
		if err != nil {
			t.Fatalf("AppendResult: %v", err)
		}
		var got struct {
			Assignment map[string]map[string][]int32
		}
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("json.Unmarshal(%s): %v", line, err)
		}
		want := make(map[string]map[string][]int32)
		for i, id := range ids {
			want[id] = map[string][]int32{}
			if i%2 == 0 {
				want[id][id] = []int32{int32(i)}
			}
		}
		if diff := cmp.Diff(want, got.Assignment); diff != "" {
			t.Errorf("assignment read back mismatch (-want +got):\n%s", diff)
		}
		// The member order of the object is the order given.
		dec := json.NewDecoder(bytes.NewReader(line))
		var keys []string
		depth := 0
		inAssignment := false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('{'), json.Delim('['):
				depth++
				continue
			case json.Delim('}'), json.Delim(']'):
				depth--
				continue
			}
			if s, ok := tok.(string); ok && depth == 1 && s == "assignment" {
				inAssignment = true
				continue
			}
			if s, ok := tok.(string); ok && depth == 2 && inAssignment {
				keys = append(keys, s)
			}
		}
		if len(ids) > 0 {
			if diff := cmp.Diff(ids, keys); diff != "" {
				t.Errorf("member order mismatch (-want +got):\n%s", diff)
			}
		}
	})
}

// normalize makes two groups comparable after a round trip through the
// file: the file groups a member's claims by topic, so their order can
// only be compared sorted.
func normalize(e Entry) Entry {
	e.Line = 0
	for i := range e.Group.Members {
		m := &e.Group.Members[i]
		m.Owned = slices.Clone(m.Owned)
		slices.SortStableFunc(m.Owned, func(a, b assign.TopicPartition) int { return strings.Compare(a.Topic, b.Topic) })
	}
	return e
}

// TestGroupRoundTrip writes random groups (odd names, racks, ownership,
// static members, protocols) and reads them back.
func TestGroupRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		e := Entry{Name: rapid.String().Draw(t, "name"), Group: g}
		for range g.Members {
			var protos []string
			if rapid.Bool().Draw(t, "hasProtocols") {
				protos = rapid.SliceOf(rapid.SampledFrom([]string{"range", "roundrobin", "sticky", "cooperative-sticky", ""})).Draw(t, "protocols")
			}
			e.Protocols = append(e.Protocols, protos)
		}
		var buf bytes.Buffer
		if err := WriteGroup(&buf, e); err != nil {
			t.Fatalf("WriteGroup: %v", err)
		}
		got, err := ReadAll(&buf)
		if err != nil {
			t.Fatalf("ReadAll(%s): %v", buf.String(), err)
		}
		if len(got) != 1 {
			t.Fatalf("ReadAll read %d groups, want 1", len(got))
		}
		opts := cmpopts.EquateEmpty()
		if diff := cmp.Diff(normalize(e), normalize(got[0]), opts); diff != "" {
			t.Errorf("group read back mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestReadWriteRead checks that what the reader reads, the writer writes
// back such that the reader reads the same again, on the hand-written
// inputs of TestReadAll.
func TestReadWriteRead(t *testing.T) {
	in := `{"name": "x", "topics": {"t1": 3, "b": 0}, "partitionRacks": {"t1": [["a"], [], ["b", "a"]]}, "members": [{"id": "c0", "instance": "i", "rack": "a", "topics": ["t1", "t1", "nope"], "owned": {"t1": [2, 0], "b": [9]}, "generation": 4, "protocols": ["range"]}, {"id": "c1", "topics": [], "protocols": []}]}`
	first, err := ReadAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, e := range first {
		if err := WriteGroup(&buf, e); err != nil {
			t.Fatal(err)
		}
	}
	second, err := ReadAll(&buf)
	if err != nil {
		t.Fatalf("ReadAll(%s): %v", buf.String(), err)
	}
	if diff := cmp.Diff(first, second); diff != "" {
		t.Errorf("read, write, read mismatch (-want +got):\n%s", diff)
	}
}

func ExampleWriteResult() {
	g := assign.Group{
		Topics: map[string]int32{"t1": 3},
		Members: []assign.Member{
			{ID: "c1", Topics: []string{"t1"}},
			{ID: "c0", Topics: []string{"t1"}},
		},
	}
	a := assign.Assignment{"c0": tps("t1", 0, "t1", 1, "t1", 2), "c1": nil}
	var buf bytes.Buffer
	_ = WriteResult(&buf, Result{Name: "demo", Strategy: "range", Members: MemberIDs(g), Assignment: a})
	fmt.Print(buf.String())
	// Output:
	// {"name":"demo","strategy":"range","assignment":{"c1":{},"c0":{"t1":[0,1,2]}}}
}

// TestAssignmentMembersRepeatedAndExtra: an assignment is written in its
// member list's order with each member once, members it lacks as {},
// then its members the list lacks in Go string order, whether the four
// assignments of a cooperative result share the list or not.
func TestAssignmentMembersRepeatedAndExtra(t *testing.T) {
	one := assign.Assignment{"b": {{Topic: "t", Partition: 1}}, "z": {{Topic: "t", Partition: 2}}, "x": nil, "a": {{Topic: "t", Partition: 0}}}
	other := assign.Assignment{"c": {{Topic: "t", Partition: 3}}}
	members := []string{"b", "c", "b", "a", "c"}
	const wantOne = `{"b":{"t":[1]},"c":{},"a":{"t":[0]},"x":{},"z":{"t":[2]}}`
	const wantOther = `{"b":{},"c":{"t":[3]},"a":{}}`
	var w writer
	for _, c := range []struct {
		members []string
		a       assign.Assignment
		want    string
	}{{members, one, wantOne}, {members, other, wantOther}, {slices.Clone(members), one, wantOne}, {[]string{"z"}, one, `{"z":{"t":[2]},"a":{"t":[0]},"b":{"t":[1]},"x":{}}`}} {
		w.buf = w.buf[:0]
		w.assignment(c.members, c.a)
		if string(w.buf) != c.want {
			t.Errorf("assignment(%q, %v) = %s; want %s", c.members, c.a, w.buf, c.want)
		}
	}
}

// TestAppendJSONString: the writer's strings are json.Marshal's, byte for
// byte, on every byte value alone and beside printable text, on UTF-8
// beyond ASCII, and on random strings over a small alphabet that mixes
// plain bytes with every kind json.Marshal escapes.
func TestAppendJSONString(t *testing.T) {
	cases := []string{"", "orders", "consumer-1-5f0c6a1e", "a b", "é", "日本", "\u2028", "<&>", `"\`, "\x7f", "\x00"}
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "x"+string([]byte{byte(c)})+"y")
	}
	alphabet := []string{"a", "Z", "0", "-", ".", "_", " ", "\"", "\\", "<", ">", "&", "\n", "\t", "\x01", "\x7f", "é", "\u2029"}
	rng := rand.New(rand.NewPCG(30, 11))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("appendJSONString(%q) = %s; want x%s", s, got, want)
		}
	}
}
