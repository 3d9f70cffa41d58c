// Package fuzz holds the native Go fuzz targets of assigncalc. Seed corpora
// live in testdata/fuzz/<target>/; .ci/run runs every target briefly.
package fuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzReadGroups feeds arbitrary bytes to the group file reader. It must
// never panic; input that encoding/json finds malformed must give an
// error; and every group it reads must survive a write and a second read
// unchanged.
func FuzzReadGroups(f *testing.F) {
	for _, seed := range []string{
		``,
		`{"topics": {"t1": 7}, "members": [{"id": "c0", "topics": ["t1"]}]}`,
		`{"name": "n", "topics": {"t": 4}, "partitionRacks": {"t": [["a"], ["b"], [], ["a", "b"]]}, "members": [{"id": "c0", "instance": "i", "rack": "a", "topics": ["t"], "owned": {"t": [0, 1]}, "generation": 3, "protocols": ["range"]}]}`,
		`{"topics": {"t": 1.5}, "members": []}`,
		`{"topics": {"t": 1}, "members": [{"id": "\ud800", "topics": []}]}` + "\n" + `[1, 2]`,
		`{"topics": {"t": 1}, "members": [`,
		`{"topics": {"orders-eu": 2, "x": 1}, "members": [{"id": "c0", "topicRegex": "orders-.*"}, {"id": "c1", "topics": ["x"], "topicRegex": "(?i)X|a{2,5}"}]}`,
		`{"topics": {"t": 1}, "members": [{"id": "c0", "topicRegex": "a)|(b"}]}`,
	} {
		f.Add([]byte(seed))
	}
	if file, err := os.Open("../testdata/groups.jsonl"); err == nil {
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			f.Add(bytes.Clone(sc.Bytes()))
		}
		file.Close()
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		r := groupfile.NewReader(bytes.NewReader(data))
		allOK := true
		for n := 0; ; n++ {
			if n > len(data)+1 {
				t.Fatalf("Reader.Next returned more groups (%d) than there are bytes", n)
			}
			e, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				allOK = false
				var ferr *groupfile.Error
				if !errors.As(err, &ferr) {
					t.Fatalf("Reader.Next error %v (%T), want a *groupfile.Error", err, err)
				}
				if ferr.Line < 1 || ferr.Column < 1 {
					t.Fatalf("Reader.Next error %v has no position", err)
				}
				continue
			}
			var buf bytes.Buffer
			if err := groupfile.WriteGroup(&buf, e); err != nil {
				t.Fatalf("WriteGroup of a group just read: %v", err)
			}
			again, err := groupfile.ReadAll(&buf)
			if err != nil || len(again) != 1 {
				t.Fatalf("ReadAll(WriteGroup(e)) = %d groups, %v; want 1 group (written: %s)", len(again), err, buf.String())
			}
			e.Line, again[0].Line = 0, 0
			if diff := cmp.Diff(e, again[0]); diff != "" {
				t.Fatalf("group read, written and read again mismatch (-want +got):\n%s", diff)
			}
			// A pattern the reader accepts compiles; resolving it against
			// the group's topics gives an error, never a panic, and keeps
			// every explicit topic.
			if res, err := assign.ResolveTopicRegex(e.Group); err != nil {
				if !errors.Is(err, assign.ErrTopicRegex) {
					t.Fatalf("ResolveTopicRegex: %v, want nil or ErrTopicRegex", err)
				}
			} else {
				for i, m := range res.Members {
					if m.TopicRegex != "" || len(m.Topics) < len(e.Group.Members[i].Topics) {
						t.Fatalf("member %d resolved to %+v from %+v", i, m, e.Group.Members[i])
					}
				}
			}
		}

		// encoding/json as an independent judge of syntax.
		dec := json.NewDecoder(bytes.NewReader(data))
		jsonOK := true
		for {
			var v any
			if err := dec.Decode(&v); err == io.EOF {
				break
			} else if err != nil {
				jsonOK = false
				break
			}
		}
		if allOK && !jsonOK {
			t.Fatalf("input %q read without error, but encoding/json finds it malformed", data)
		}
	})
}

// FuzzReadResults feeds arbitrary bytes to the result reader that
// assigncalc check uses. It must never panic, and every result it reads
// must survive a write and a second read unchanged.
func FuzzReadResults(f *testing.F) {
	for _, seed := range []string{
		``,
		`{"name": "g", "strategy": "range", "assignment": {"c0": {"t": [0, 1]}, "c1": {}}}`,
		`{"name": "g", "strategy": "cooperative-sticky", "assignment": {"a": {}}, "target": {"a": {"t": [0]}}, "revoked": {}, "pending": {"a": {"t": [0]}}}`,
		`{"name": "g", "strategy": "sticky", "error": "assign: duplicate member ID"}`,
		`{"strategy": "range", "assignment": null}`,
		`{"strategy": "range", "assignment": {"a": {"t": [1e3]}}}`,
	} {
		f.Add([]byte(seed))
	}
	if data, err := os.ReadFile("../testdata/kafka-java-range-roundrobin.jsonl"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		results, err := groupfile.ReadResults(bytes.NewReader(data))
		if err != nil {
			var ferr *groupfile.Error
			if !errors.As(err, &ferr) {
				t.Fatalf("ReadResults error %v (%T), want a *groupfile.Error", err, err)
			}
			return
		}
		var buf bytes.Buffer
		for _, r := range results {
			if err := groupfile.WriteResult(&buf, r); err != nil {
				t.Fatalf("WriteResult of a result just read: %v", err)
			}
		}
		again, err := groupfile.ReadResults(&buf)
		if err != nil {
			t.Fatalf("ReadResults(WriteResult(...)): %v (written: %s)", err, buf.String())
		}
		// The writer lists every member in the cooperative fields, with {}
		// for those a field leaves out: the same content.
		dropEmpty := func(rs []groupfile.Result) {
			for _, r := range rs {
				if c := r.Cooperative; c != nil {
					for _, a := range []assign.Assignment{c.Target, c.Revoked, c.Pending} {
						for id, ps := range a {
							if len(ps) == 0 {
								delete(a, id)
							}
						}
					}
				}
			}
		}
		dropEmpty(results)
		dropEmpty(again)
		opts := []cmp.Option{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b error) bool {
			return a == nil && b == nil || a != nil && b != nil && a.Error() == b.Error()
		})}
		if diff := cmp.Diff(results, again, opts...); diff != "" {
			t.Fatalf("results read, written and read again mismatch (-want +got):\n%s", diff)
		}
	})
}
