package describe

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"pgregory.net/rapid"
)

// TestSnapshotKeepsNoPaste reads every paste in testdata/ and checks that
// no string of the snapshot points into the paste: rows are cut from it
// without copies, and a snapshot holding one cut would keep the whole
// paste alive.
func TestSnapshotKeepsNoPaste(t *testing.T) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data := string(raw)
		for _, group := range []string{"", "billing-app", "orders-app"} {
			s, err := parse(data, group)
			if err != nil {
				continue // the goldens hold what is refused
			}
			for what, v := range snapshotStrings(s) {
				if inside(v, data) {
					t.Errorf("%s@%s: %s %q points into the paste", filepath.Base(f), group, what, v)
				}
			}
		}
	}
}

// snapshotStrings yields every string a snapshot holds, named.
func snapshotStrings(s *Snapshot) func(func(string, string) bool) {
	return func(yield func(string, string) bool) {
		all := [][2]string{{"name", s.Name}, {"strategy", s.Strategy}, {"state", s.State}, {"coordinator", s.Coordinator}}
		for _, m := range s.Members {
			all = append(all, [2]string{"member", m.ID}, [2]string{"instance", m.InstanceID}, [2]string{"host", m.Host}, [2]string{"client", m.ClientID})
			for _, tp := range m.Owned {
				all = append(all, [2]string{"owned topic", tp.Topic})
			}
			for _, tp := range m.Target {
				all = append(all, [2]string{"target topic", tp.Topic})
			}
		}
		for _, tp := range s.Unowned {
			all = append(all, [2]string{"unowned topic", tp.Topic})
		}
		for tp := range s.Lag {
			all = append(all, [2]string{"lag topic", tp.Topic})
		}
		for _, n := range s.Notices {
			all = append(all, [2]string{"notice", n})
		}
		for _, r := range s.Remarks {
			all = append(all, [2]string{"remark", r})
		}
		for _, kv := range all {
			if !yield(kv[0], kv[1]) {
				return
			}
		}
	}
}

// inside reports whether v's bytes lie in data's.
func inside(v, data string) bool {
	if v == "" || data == "" {
		return false
	}
	p, from := uintptr(unsafe.Pointer(unsafe.StringData(v))), uintptr(unsafe.Pointer(unsafe.StringData(data)))
	return p >= from && p < from+uintptr(len(data))
}

// TestFieldsMatchesStrings holds fields to strings.Fields on random lines
// of ASCII, Unicode spaces and other runes, appended after what dst held.
func TestFieldsMatchesStrings(t *testing.T) {
	alphabet := []rune{'a', 'Z', '-', '/', '0', ' ', '\t', '\r', '\v', '\f', '\n', 0x85, 0xa0, 0x2003, 0x3000, 'é', '界'}
	rapid.Check(t, func(t *rapid.T) {
		runes := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 40).Draw(t, "line")
		line := string(runes)
		dst := rapid.SliceOfN(rapid.StringMatching(`[a-z]{0,3}`), 0, 3).Draw(t, "dst")
		got := fields(append([]string(nil), dst...), line)
		want := append(append([]string(nil), dst...), strings.Fields(line)...)
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("fields(%q) = %q, want %q", line, got, want)
		}
	})
}

// TestCSVRecordMatchesReader holds csvRecord to encoding/csv on random
// lines of fields, commas, quotes and spaces: the same fields, or an
// error both ways.
func TestCSVRecordMatchesReader(t *testing.T) {
	alphabet := []rune{'a', '7', ',', ' ', '\t', '\r', '"', '-', 'é'}
	rapid.Check(t, func(t *rapid.T) {
		line := string(rapid.SliceOfN(rapid.SampledFrom(alphabet), 1, 30).Draw(t, "line"))
		got, gotErr := csvRecord(line)
		want, wantErr := csv.NewReader(strings.NewReader(line)).Read()
		if (gotErr != nil) != (wantErr != nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Fatalf("csvRecord(%q) error %v, encoding/csv %v", line, gotErr, wantErr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("csvRecord(%q) = %q, encoding/csv %q", line, got, want)
		}
	})
}
