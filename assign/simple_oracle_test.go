package assign

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/oracle"
)

// This file holds Simple to Kafka's own SimpleAssignor: the goldens in
// testdata/share were printed by Kafka's classes (see its README), and
// TestSimpleOracle, when SHARE_ORACLE names the compiled oracles, runs
// thousands of fresh random groups through Kafka and through us.

// shareVersions are the Kafka branches whose SimpleAssignor the oracle
// runs, in the order SHARE_ORACLE lists their class directories. Their
// builders are byte for byte the same (commit 860853dba2), so one golden
// file holds the answer of all three.
var shareVersions = []string{"4.2", "4.3", "4.4"}

// TestSimpleGoldens checks the answers Kafka's SimpleAssignor printed for
// the random groups of groups.jsonl and the stories of scenarios.jsonl.
func TestSimpleGoldens(t *testing.T) {
	for _, set := range []string{"groups", "scenarios"} {
		t.Run(set, func(t *testing.T) {
			groups := readKIP848Groups(t, filepath.Join("testdata", "share", set+".jsonl"))
			want := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "share", set+".simple.jsonl"))
			if len(want) != len(groups) {
				t.Fatalf("%d answers for %d groups", len(want), len(groups))
			}
			for i, g := range groups {
				checkAgainstOracle(t, Simple{}, g, want[i])
			}
		})
	}
}

// TestSimpleOracle generates SHARE_N (default 2000) random groups and
// checks every answer against Kafka's SimpleAssignor compiled into the
// class directories SHARE_ORACLE lists ("4.2:4.3:4.4"), drawn from seed
// SHARE_SEED (default 932). Groups where Kafka's order rests on identity
// hash codes are counted, not compared: Kafka has no one answer there. With SHARE_WRITE set it (re)writes the
// goldens from the first 300 groups and Kafka 4.4's answers.
func TestSimpleOracle(t *testing.T) {
	dirs := strings.Split(os.Getenv("SHARE_ORACLE"), ":")
	if len(dirs) != len(shareVersions) {
		t.Skip("SHARE_ORACLE not set (see testdata/share/README.md)")
	}
	n := 2000
	if s := os.Getenv("SHARE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(932)
	if s := os.Getenv("SHARE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 32))
	var groups []Group
	var lines bytes.Buffer
	for i := range n {
		name := fmt.Sprintf("g%05d", i)
		g := randomShareGroup(rng, name)
		groups = append(groups, g)
		lines.WriteString(kip848JSON(name, g))
		lines.WriteByte('\n')
	}
	write := os.Getenv("SHARE_WRITE") != ""
	var last []byte
	for v, dir := range dirs {
		out := runSimpleOracle(t, dir, lines.Bytes())
		if last != nil && !bytes.Equal(out, last) {
			t.Errorf("Kafka %s and %s answer differently", shareVersions[v-1], shareVersions[v])
		}
		last = out
		answers := oracle.Parse[oracleAnswer](t, out)
		// The same classes again, every identity hash code 1: where
		// Kafka's order rests on identity hash codes, the two runs may
		// disagree.
		again := oracle.Parse[oracleAnswer](t, runSimpleOracle(t, dir, lines.Bytes(), identityHashOne...))
		agreed, varies := 0, 0
		for i, g := range groups {
			_, tie, _ := simpleAssign(g)
			if !tie && !reflect.DeepEqual(answers[i], again[i]) {
				t.Errorf("%s: Kafka %s's answer varies with identity hash codes, but Simple saw no tie", answers[i].Name, shareVersions[v])
			}
			switch {
			case tie:
				varies++ // Kafka has no one answer to hold Simple to
			case checkAgainstOracle(t, Simple{}, g, answers[i]):
				agreed++
			}
		}
		t.Logf("Kafka %s: %d of %d groups agree; %d more rest on identity hash codes", shareVersions[v], agreed, len(groups)-varies, varies)
	}
	if write {
		for file, data := range map[string][]byte{"groups.jsonl": lines.Bytes(), "groups.simple.jsonl": last} {
			head := bytes.SplitAfterN(data, []byte("\n"), 301)
			if err := os.WriteFile(filepath.Join("testdata", "share", file), bytes.Join(head[:300], nil), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		scenarios, err := os.ReadFile(filepath.Join("testdata", "share", "scenarios.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		out := runSimpleOracle(t, dirs[len(dirs)-1], scenarios)
		if err := os.WriteFile(filepath.Join("testdata", "share", "scenarios.simple.jsonl"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// identityHashOne makes HotSpot give every object identity hash code 1,
// so that Java's tieBreakOrder orders equal keys differently than its
// default (thread-local random) identity hash codes do.
var identityHashOne = []string{"-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2"}

func runSimpleOracle(t *testing.T, dir string, in []byte, jvmFlags ...string) []byte {
	t.Helper()
	return oracle.Run(t, dir, "SimpleOracle", nil, jvmFlags, in)
}

// randomShareGroup draws a group as randomKIP848Group does, then gives
// its members current targets a share group can have: exclusive ones (as
// drawn), overlapping ones drawn member by member, or Kafka's own answer
// of an earlier round after members left, joined, resubscribed or
// partitions were added.
func randomShareGroup(rng *rand.Rand, name string) Group {
	g := randomKIP848Group(rng, name)
	switch rng.IntN(3) {
	case 1: // overlapping targets
		var all []TopicPartition
		for tn, id := range g.TopicIDs {
			_ = id
			n, ok := g.Topics[tn]
			if !ok {
				n = 3 // a deleted topic
			}
			for p := range n {
				all = append(all, TopicPartition{tn, p})
			}
		}
		slices.SortFunc(all, TopicPartition.Compare)
		for i := range g.Members {
			g.Members[i].Owned = nil
			if len(all) == 0 || rng.IntN(4) == 0 {
				continue
			}
			k := rng.IntN(len(all) + 1)
			for _, x := range rng.Perm(len(all))[:k] {
				g.Members[i].Owned = append(g.Members[i].Owned, all[x])
			}
		}
	case 2: // an earlier round's answer, then a change
		for i := range g.Members {
			g.Members[i].Owned = nil
		}
		prev, err := Simple{}.Assign(g)
		if err != nil {
			return g
		}
		for i := range g.Members {
			g.Members[i].Owned = slices.Clone(prev[g.Members[i].ID])
			if rng.IntN(2) == 0 {
				rng.Shuffle(len(g.Members[i].Owned), func(a, b int) {
					o := g.Members[i].Owned
					o[a], o[b] = o[b], o[a]
				})
			}
		}
		switch rng.IntN(4) {
		case 0:
			if len(g.Members) > 1 {
				k := rng.IntN(len(g.Members))
				g.Members = slices.Delete(g.Members, k, k+1)
			}
		case 1:
			for range 1 + rng.IntN(5) {
				g.Members = append(g.Members, Member{ID: fmt.Sprintf("new-%d", rng.IntN(1<<20)), Topics: slices.Clone(g.Members[0].Topics)})
			}
			seen := map[string]bool{}
			g.Members = slices.DeleteFunc(g.Members, func(m Member) bool { d := seen[m.ID]; seen[m.ID] = true; return d })
		case 2:
			k := rng.IntN(len(g.Members))
			g.Members[k].Topics = g.Members[k].Topics[:rng.IntN(len(g.Members[k].Topics)+1)]
		case 3:
			for tn := range g.Topics {
				g.Topics[tn] += int32(rng.IntN(3))
			}
		}
	}
	return g
}
