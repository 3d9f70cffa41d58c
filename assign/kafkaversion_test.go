package assign

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/oracle"
)

// TestKafkaVersionNames checks that every release reads back as itself,
// that patch releases name their minor release (4.0's patches after 4.0.0
// being 4.1's assignor), and that the zero value is the newest.
func TestKafkaVersionNames(t *testing.T) {
	var zero KafkaVersion
	if zero != Kafka44 || (Uniform{}).Kafka != Kafka44 || (ServerRange{}).KafkaVersion() != Kafka44 {
		t.Errorf("zero value is %v, want 4.4", zero)
	}
	for _, v := range []KafkaVersion{Kafka40, Kafka41, Kafka42, Kafka43, Kafka44} {
		got, err := ParseKafkaVersion(v.String())
		if err != nil || got != v {
			t.Errorf("ParseKafkaVersion(%q) = %v, %v", v.String(), got, err)
		}
	}
	for in, want := range map[string]KafkaVersion{"4.2.0": Kafka42, "4.2.1": Kafka42, "4.3.2": Kafka43, " 4.4.0": Kafka44, "4.0.3": Kafka41} {
		if got, err := ParseKafkaVersion(in); err != nil || got != want {
			t.Errorf("ParseKafkaVersion(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, v := range []KafkaVersion{-1, 5, 100} {
		if s := v.String(); !strings.HasPrefix(s, "KafkaVersion(") {
			t.Errorf("KafkaVersion(%d).String() = %q", int8(v), s)
		}
		if _, err := (Uniform{Kafka: v}).Assign(Group{}); !errors.Is(err, ErrUnknownKafkaVersion) {
			t.Errorf("Uniform{Kafka: %d}: %v, want ErrUnknownKafkaVersion", int8(v), err)
		}
	}
}

// TestKafkaVersionsShareOneAssignor holds Kafka41 to Kafka44 to the
// answers Kafka 4.1's classes printed: Kafka 4.2, 4.3 and 4.4's classes
// print the same files byte for byte (TestKIP848OracleNewer, and
// testdata/kip848/README.md), their builders' code being the same.
func TestKafkaVersionsShareOneAssignor(t *testing.T) {
	for _, set := range []struct{ groups, prefix string }{{"groups.jsonl", ""}, {"scenarios.jsonl", "scenarios."}} {
		groups := readKIP848Groups(t, filepath.Join("testdata", "kip848", set.groups))
		for _, v := range []KafkaVersion{Kafka42, Kafka43, Kafka44} {
			for _, s := range []Strategy{Uniform{Kafka: v}, ServerRange{Kafka: v}} {
				file := set.prefix + strings.TrimPrefix(s.Name(), "server-") + "-4.1.jsonl"
				t.Run(v.String()+"/"+file, func(t *testing.T) {
					want := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "kip848", file))
					for i, g := range groups {
						checkAgainstOracle(t, s, g, want[i])
					}
				})
			}
		}
	}
}

// TestKIP848OracleNewer runs the KIP-848 oracle built from Kafka 4.2, 4.3
// and 4.4 (KIP848_NEWER lists the three class directories, made by
// testdata/kip848/oracle/build.sh): on the committed groups their answers
// must be the 4.1 goldens byte for byte, and on KIP848_N (default 2000)
// fresh random groups (seed KIP848_SEED, default 848) ours for that
// version.
func TestKIP848OracleNewer(t *testing.T) {
	dirs := strings.Split(os.Getenv("KIP848_NEWER"), ":")
	versions := []KafkaVersion{Kafka42, Kafka43, Kafka44}
	if len(dirs) != len(versions) {
		t.Skip("KIP848_NEWER not set (see testdata/kip848/README.md)")
	}
	n := 2000
	if s := os.Getenv("KIP848_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(848)
	if s := os.Getenv("KIP848_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 4))
	var groups []Group
	var lines bytes.Buffer
	for i := range n {
		g := randomKIP848Group(rng, fmt.Sprintf("g%05d", i))
		groups = append(groups, g)
		lines.WriteString(kip848JSON(fmt.Sprintf("g%05d", i), g) + "\n")
	}
	run := func(dir, assignor string, in []byte) []byte {
		return oracle.Run(t, dir, "Oracle", []string{assignor}, nil, in)
	}
	for k, v := range versions {
		for _, assignor := range []string{"uniform", "range"} {
			for _, set := range []struct{ groups, prefix string }{{"groups.jsonl", ""}, {"scenarios.jsonl", "scenarios."}} {
				in, err := os.ReadFile(filepath.Join("testdata", "kip848", set.groups))
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join("testdata", "kip848", set.prefix+assignor+"-4.1.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(run(dirs[k], assignor, in), want) {
					t.Errorf("Kafka %s's %s answers %s unlike Kafka 4.1's", v, assignor, set.groups)
				}
			}
			s := map[string]Strategy{"uniform": Uniform{Kafka: v}, "range": ServerRange{Kafka: v}}[assignor]
			answers := oracle.Parse[oracleAnswer](t, run(dirs[k], assignor, lines.Bytes()))
			agreed := 0
			for i, g := range groups {
				if checkAgainstOracle(t, s, g, answers[i]) {
					agreed++
				}
			}
			t.Logf("Kafka %s %s: %d of %d groups agree", v, assignor, agreed, len(groups))
		}
	}
}
