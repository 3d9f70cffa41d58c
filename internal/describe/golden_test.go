package describe

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/ with what Parse reads")

// dump writes what Parse read, or its error, one fact a line, for golden
// files a reader can check against the input by eye.
func dump(s *Snapshot, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "group %q\nview %s\n", s.Name, s.View)
	for _, kv := range [][2]string{{"protocol", string(s.Protocol)}, {"strategy", s.Strategy}, {"state", s.State}, {"coordinator", s.Coordinator}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s %s\n", kv[0], kv[1])
		}
	}
	if s.CoordinatorPartition >= 0 {
		fmt.Fprintf(&b, "coordinator partition %d\n", s.CoordinatorPartition)
	}
	for _, m := range s.Members {
		fmt.Fprintf(&b, "member %q", m.ID)
		for _, kv := range [][2]string{{"instance", m.InstanceID}, {"host", m.Host}, {"client", m.ClientID}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, " %s %q", kv[0], kv[1])
			}
		}
		fmt.Fprintf(&b, "\n  owns %s\n", tpList(m.Owned))
		if m.Target != nil || m.CurrentEpoch >= 0 || m.TargetEpoch >= 0 {
			fmt.Fprintf(&b, "  target %s, epochs %d -> %d\n", tpList(m.Target), m.CurrentEpoch, m.TargetEpoch)
		}
	}
	if len(s.Unowned) > 0 {
		fmt.Fprintf(&b, "unowned %s\n", tpList(s.Unowned))
	}
	if len(s.Lag) > 0 {
		var lags []string
		for _, tp := range slices.SortedFunc(maps.Keys(s.Lag), assign.TopicPartition.Compare) {
			lags = append(lags, fmt.Sprintf("%s=%d", tp, s.Lag[tp]))
		}
		fmt.Fprintf(&b, "lag %s\n", strings.Join(lags, " "))
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(&b, "warning %s\n", w)
	}
	return b.String()
}

func tpList(tps []assign.TopicPartition) string {
	if len(tps) == 0 {
		return "nothing"
	}
	var s []string
	for _, tp := range tps {
		s = append(s, tp.String())
	}
	return strings.Join(s, " ")
}

// TestParseGolden reads every paste in testdata/, written in the layouts
// the package documents, and compares what it read with
// testdata/golden/<file>[@group].golden (go test -update rewrites them).
func TestParseGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.*")
	if err != nil {
		t.Fatal(err)
	}
	type run struct{ file, group string }
	var runs []run
	for _, f := range files {
		runs = append(runs, run{filepath.Base(f), ""})
	}
	runs = append(runs,
		run{"all_groups.txt", "billing-app"}, // picked by name
		run{"all_groups.txt", "g11"},         // missing: the tool's error is quoted
		run{"rpk_many.txt", "billing"},       // an empty group
		run{"rpk_many.txt", "orders-app"},
	)
	for _, r := range runs {
		name := r.file
		if r.group != "" {
			name += "@" + r.group
		}
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", r.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got := dump(ParseGroup(f, r.group))
			path := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if got != string(want) {
				t.Errorf("Parse(%s) differs from %s:\n--- want:\n%s--- got:\n%s", r.file, path, want, got)
			}
		})
	}
}
