package javasticky

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/oracle"
)

// The releases of each Version, read from the tags of apache/kafka: the
// AbstractStickyAssignor of 3.5.0 and 3.5.1 is one file; 3.5.2 took
// KAFKA-14639 and KAFKA-15106 (as 3.6.0 did); 3.7.1 took KAFKA-15170 and
// KAFKA-16277 (as 3.8.0 did).
func TestForRelease(t *testing.T) {
	for _, c := range []struct {
		release string
		want    Version
	}{
		{"3.5", Kafka35}, {"3.5.0", Kafka35}, {"3.5.1", Kafka35},
		{"3.5.2", Kafka36}, {"3.6", Kafka36}, {"3.6.0", Kafka36}, {"3.6.1", Kafka36}, {"3.6.2", Kafka36},
		{"3.7", Kafka36}, {"3.7.0", Kafka36},
		{"3.7.1", Kafka38}, {"3.7.2", Kafka38}, {"3.8.0", Kafka38}, {"3.8.1", Kafka38}, {"3.9.1", Kafka38},
		{"4.0", Kafka38}, {"4.0.0", Kafka38}, {"4.1.1", Kafka38}, {"4.2.0", Kafka38}, {"10.0", Kafka38},
	} {
		got, err := ForRelease(c.release)
		if err != nil || got != c.want {
			t.Errorf("ForRelease(%q) = %v, %v; want %v", c.release, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "3", "3.4.2", "2.8", "3.x", "3.6.1.1", "3.-6", "3.+6", "3..1", "v3.6", "1000.0"} {
		if v, err := ForRelease(bad); err == nil || !strings.HasPrefix(err.Error(), "javasticky: ") {
			t.Errorf("ForRelease(%q) = %v, %v; want an error", bad, v, err)
		}
	}
}

// goldenVersions are the versions testdata/versions holds answers of, for
// the same groups, from the oracle built at the release named.
var goldenVersions = []struct {
	v       Version
	release string
}{{Kafka35, "3.5.0"}, {Kafka36, "3.6.0"}, {Kafka38, "3.7.1"}}

// versionFile is file's name under testdata/versions for v: the groups
// are shared, the answers named by version.
func versionFile(file string, v Version) string {
	if file == "groups.jsonl" {
		return file
	}
	return strings.TrimSuffix(file, ".jsonl") + "." + v.String() + ".jsonl"
}

// TestVersionGoldens checks every version's answers on the random groups
// of testdata/versions, printed by Kafka's classes of each release (see
// testdata/README.md), and that each version answers some group
// differently from the next: else the selector would be needless.
func TestVersionGoldens(t *testing.T) {
	groups := readGroups(t, filepath.Join("testdata", "versions", "groups.jsonl"))
	for _, st := range strategies {
		var prev []answer
		for _, gv := range goldenVersions {
			want := oracle.Read[answer](t, filepath.Join("testdata", "versions", versionFile(st.name+".jsonl", gv.v)))
			if len(want) != len(groups) {
				t.Fatalf("%s at %v: %d answers for %d groups", st.name, gv.v, len(want), len(groups))
			}
			for i, g := range groups {
				checkAt(t, st.name+" at "+gv.v.String(), g, st.cooperative, gv.v, want[i])
			}
			if prev != nil && reflect.DeepEqual(prev, want) {
				t.Errorf("%s: Kafka answers every group alike before %v and at it", st.name, gv.v)
			}
			prev = want
		}
	}
}

// TestKafkaTestsVersions checks Kafka's own test scenarios of
// testdata/kafka-tests.jsonl against the oracle of each older release
// where its answer differs from 3.8's (kafka-tests.STRATEGY.VERSION.jsonl;
// where no such file exists the oracle answered as 3.8's, which
// TestKafkaTests checks, and this test checks that we do too).
func TestKafkaTestsVersions(t *testing.T) {
	groups := readGroups(t, filepath.Join("testdata", "kafka-tests.jsonl"))
	for _, st := range strategies {
		for _, v := range []Version{Kafka35, Kafka36} {
			file := filepath.Join("testdata", "kafka-tests."+st.name+"."+v.String()+".jsonl")
			if _, err := os.Stat(file); err != nil {
				file = filepath.Join("testdata", "kafka-tests."+st.name+".jsonl")
			}
			want := oracle.Read[answer](t, file)
			if len(want) != len(groups) {
				t.Fatalf("%s: %d answers for %d groups", file, len(want), len(groups))
			}
			for i, g := range groups {
				t.Run(st.name+"/"+v.String()+"/"+want[i].Name, func(t *testing.T) {
					checkAt(t, st.name, g, st.cooperative, v, want[i])
				})
			}
		}
	}
}
