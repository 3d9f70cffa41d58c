package javasticky

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/oracle"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// This file holds the emulation to Kafka's own assignors: the goldens in
// testdata were printed by Kafka's StickyAssignor and
// CooperativeStickyAssignor (see testdata/README.md), and TestOracle, when
// JAVASTICKY_ORACLE names the compiled oracle, runs thousands more random
// groups through Kafka and through Assign.

var strategies = []struct {
	name        string
	cooperative bool
}{{"sticky", false}, {"cooperative-sticky", true}}

// answer is one line of the oracle's output.
type answer struct {
	Name       string                        `json:"name"`
	Assignment map[string]map[string][]int32 `json:"assignment"`
	Error      string                        `json:"error"`
	Unfinished bool                          `json:"unfinished"` // past JAVASTICKY_LIMIT
}

func answerOf(a assign.Assignment) map[string]map[string][]int32 {
	out := make(map[string]map[string][]int32, len(a))
	for id, tps := range a {
		byTopic := map[string][]int32{}
		for _, p := range tps {
			byTopic[p.Topic] = append(byTopic[p.Topic], p.Partition)
		}
		out[id] = byTopic
	}
	return out
}

// check compares Assign's answer for g with Kafka's; an error agrees when
// it names the exception Java threw.
func check(t *testing.T, name string, g assign.Group, cooperative bool, want answer) bool {
	t.Helper()
	return checkAt(t, name, g, cooperative, Kafka38, want)
}

// checkAt is check against the assignor of version v.
func checkAt(t *testing.T, name string, g assign.Group, cooperative bool, v Version, want answer) bool {
	t.Helper()
	got, err := Assign(g, cooperative, v)
	if want.Error != "" || err != nil {
		var je *JavaError
		if want.Error != "" && errors.As(err, &je) && strings.HasPrefix(want.Error, je.Exception+":") {
			return true
		}
		t.Errorf("%s %s: error %v, Kafka says %q", name, want.Name, err, want.Error)
		return false
	}
	if diff := cmp.Diff(want.Assignment, answerOf(got)); diff != "" {
		t.Errorf("%s %s: mismatch (-kafka +ours):\n%s", name, want.Name, diff)
		return false
	}
	return true
}

// TestGoldens checks the answers Kafka's assignors printed for the random
// groups of testdata/groups.jsonl.
func TestGoldens(t *testing.T) {
	groups := readGroups(t, filepath.Join("testdata", "groups.jsonl"))
	for _, st := range strategies {
		t.Run(st.name, func(t *testing.T) {
			want := oracle.Read[answer](t, filepath.Join("testdata", st.name+".jsonl"))
			if len(want) != len(groups) {
				t.Fatalf("%d answers for %d groups", len(want), len(groups))
			}
			for i, g := range groups {
				check(t, st.name, g, st.cooperative, want[i])
			}
		})
	}
}

// TestOracle draws JAVASTICKY_N (default 2000) random groups from seed
// JAVASTICKY_SEED (default 26), then JAVASTICKY_TREE_N (default 1000)
// colliding groups of treeGroup on which Java's PartitionMovements sets
// treeify, and checks every answer against Kafka's assignors compiled into
// the class directory JAVASTICKY_ORACLE, of the Kafka release
// JAVASTICKY_KAFKA (default 3.8.0), skipping the groups on which Kafka
// takes longer than JAVASTICKY_LIMIT seconds (default: no limit). With
// JAVASTICKY_WRITE set it (re)writes the goldens from the first 300 random
// groups: for a release of another Version than Kafka38, those of
// testdata/versions.
func TestOracle(t *testing.T) {
	dir := os.Getenv("JAVASTICKY_ORACLE")
	if dir == "" {
		t.Skip("JAVASTICKY_ORACLE not set (see testdata/README.md)")
	}
	v := Kafka38
	if s := os.Getenv("JAVASTICKY_KAFKA"); s != "" {
		var err error
		if v, err = ForRelease(s); err != nil {
			t.Fatal(err)
		}
	}
	golden := func(file string) string { return file }
	if v != Kafka38 {
		golden = func(file string) string { return filepath.Join("versions", versionFile(file, v)) }
	}
	n := 2000
	if s := os.Getenv("JAVASTICKY_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	seed := uint64(26)
	if s := os.Getenv("JAVASTICKY_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	write := os.Getenv("JAVASTICKY_WRITE") != ""
	rng := rand.New(rand.NewPCG(seed, 26))
	var groups []assign.Group
	var lines bytes.Buffer
	for i := range n {
		g := randomGroup(rng)
		groups = append(groups, g)
		lines.WriteString(groupJSON(fmt.Sprintf("g%05d", i), g))
		lines.WriteByte('\n')
	}
	if write {
		oracle.WriteHead(t, filepath.Join("testdata", golden("groups.jsonl")), lines.Bytes(), 300)
	}
	treeN := 1000
	if s := os.Getenv("JAVASTICKY_TREE_N"); s != "" {
		treeN, _ = strconv.Atoi(s)
	}
	var read [2]int
	for i := 0; i < treeN; {
		g := treeGroup(rng, 18)
		var u [2]treeUse
		for k, st := range strategies {
			u[k] = trees(g, st.cooperative)
		}
		if !u[0].made && !u[1].made {
			continue
		}
		for k := range u {
			if u[k].read {
				read[k]++
			}
		}
		groups = append(groups, g)
		lines.WriteString(groupJSON(fmt.Sprintf("tree%05d", i), g))
		lines.WriteByte('\n')
		i++
	}
	t.Logf("%d colliding groups treeify a PartitionMovements set; sticky reads a treeified set on %d, cooperative-sticky on %d", treeN, read[0], read[1])
	for _, st := range strategies {
		out := runOracleRaw(t, dir, st.name, lines.Bytes())
		answers := oracle.Parse[answer](t, out)
		agreed, errs, unfinished := 0, 0, 0
		for i, g := range groups {
			if answers[i].Unfinished {
				unfinished++
				t.Logf("%s %s: Kafka did not finish within JAVASTICKY_LIMIT: %s", st.name, answers[i].Name, groupJSON(answers[i].Name, g))
				continue
			}
			if checkAt(t, st.name, g, st.cooperative, v, answers[i]) {
				agreed++
			}
			if answers[i].Error != "" {
				errs++
			}
		}
		t.Logf("%s at %v: %d of %d groups agree with Kafka (Kafka throws on %d, does not finish %d)", st.name, v, agreed, len(groups), errs, unfinished)
		if write {
			oracle.WriteHead(t, filepath.Join("testdata", golden(st.name+".jsonl")), out, 300)
		}
	}
}

// runOracleRaw pipes lines, groups in the JSON contract, through Kafka's
// assignor of the strategy named and returns its output.
func runOracleRaw(t *testing.T, dir, strategy string, lines []byte) []byte {
	t.Helper()
	args := []string{strategy}
	if limit := os.Getenv("JAVASTICKY_LIMIT"); limit != "" {
		args = append(args, limit) // seconds per group
	}
	return oracle.Run(t, dir, "org.apache.kafka.clients.consumer.Oracle", args, nil, lines)
}

// runOracle is runOracleRaw's answers, one per group.
func runOracle(t *testing.T, dir, strategy string, lines []byte) []answer {
	t.Helper()
	answers := oracle.Parse[answer](t, runOracleRaw(t, dir, strategy, lines))
	if n := bytes.Count(lines, []byte("\n")); len(answers) != n {
		t.Fatalf("oracle: %d answers for %d groups", len(answers), n)
	}
	return answers
}

// randomGroup draws a group meant to reach every rule of both paths:
// identical or differing subscriptions, fresh groups and groups that own
// what an earlier round of the same assignor gave them, then changed
// (members leave or join, subscriptions change), with the anomalies Kafka
// tolerates (stale and tied generations, claims of deleted partitions and
// topics, owned without a generation), static members, racks on some
// members and partitions, and member ids with equal hash codes.
func randomGroup(rng *rand.Rand) assign.Group {
	g := assign.Group{Topics: map[string]int32{}}
	nTopics := 1 + rng.IntN(5)
	if rng.IntN(5) == 0 {
		nTopics += rng.IntN(12)
	}
	var names []string
	for i := range nTopics {
		tn := fmt.Sprintf("t%d", i)
		if rng.IntN(10) == 0 {
			tn = fmt.Sprintf("topic-é%d", i)
		}
		names = append(names, tn)
		if rng.IntN(12) != 0 {
			g.Topics[tn] = int32(1 + rng.IntN(8))
			if rng.IntN(6) == 0 {
				g.Topics[tn] = int32(rng.IntN(40))
			}
		}
	}
	racks := []string{"a", "b", "c"}[:1+rng.IntN(3)]
	if rng.IntN(3) == 0 {
		g.PartitionRacks = map[string][][]string{}
		for _, tn := range slices.Sorted(maps.Keys(g.Topics)) { // a fixed order of draws
			n := g.Topics[tn]
			if rng.IntN(4) == 0 {
				continue
			}
			lists := make([][]string, n)
			for p := range lists {
				for _, r := range racks {
					if rng.IntN(2) == 0 {
						lists[p] = append(lists[p], r)
					}
				}
			}
			g.PartitionRacks[tn] = lists
		}
	}
	nMembers := 1 + rng.IntN(6)
	if rng.IntN(4) == 0 {
		nMembers += rng.IntN(30)
	}
	ids := randomIDs(rng, nMembers+3)
	identical := rng.IntN(2) == 0
	common := randomSubset(rng, names, 1)
	member := func(k int) assign.Member {
		m := assign.Member{ID: ids[k], Generation: -1}
		if rng.IntN(4) == 0 {
			m.InstanceID = fmt.Sprintf("inst-%d", k)
		}
		if g.PartitionRacks != nil && rng.IntN(3) != 0 {
			m.Rack = racks[rng.IntN(len(racks))]
		}
		if identical {
			m.Topics = slices.Clone(common)
			rng.Shuffle(len(m.Topics), func(a, b int) { m.Topics[a], m.Topics[b] = m.Topics[b], m.Topics[a] })
		} else {
			m.Topics = randomSubset(rng, names, 0)
		}
		return m
	}
	for k := range nMembers {
		g.Members = append(g.Members, member(k))
	}
	switch rng.IntN(4) {
	case 0: // fresh
	case 1: // random claims, with anomalies
		randomClaims(rng, &g)
	default: // an earlier round of the same assignor, then a change
		coop := rng.IntN(2) == 0
		if a, err := Assign(g, coop, Kafka38); err == nil {
			gen := int32(1 + rng.IntN(5))
			g = assign.Carry(g, dedupe(a), gen)
		}
		switch rng.IntN(5) {
		case 0: // a member leaves
			if len(g.Members) > 1 {
				k := rng.IntN(len(g.Members))
				g.Members = slices.Delete(g.Members, k, k+1)
			}
		case 1: // members join
			for k := range 1 + rng.IntN(3) {
				g.Members = append(g.Members, member(nMembers+k))
			}
		case 2: // a subscription changes
			k := rng.IntN(len(g.Members))
			g.Members[k].Topics = randomSubset(rng, names, 0)
		case 3: // a stale or unknown generation
			k := rng.IntN(len(g.Members))
			g.Members[k].Generation -= int32(rng.IntN(3)) + 1
		}
		if rng.IntN(4) == 0 { // partitions come or go
			tn := names[rng.IntN(len(names))]
			if n, ok := g.Topics[tn]; ok {
				g.Topics[tn] = max(0, n+int32(rng.IntN(5))-2)
				delete(g.PartitionRacks, tn)
			}
		}
	}
	rng.Shuffle(len(g.Members), func(a, b int) { g.Members[a], g.Members[b] = g.Members[b], g.Members[a] })
	return g
}

func dedupe(a assign.Assignment) assign.Assignment {
	out := assign.Assignment{}
	for id, ps := range a {
		out[id] = slices.Compact(slices.Clone(ps))
	}
	return out
}

// randomClaims gives members claims of existing, shrunk and deleted
// partitions, some claimed twice, at generations that tie or differ.
func randomClaims(rng *rand.Rand, g *assign.Group) {
	var all []assign.TopicPartition
	for _, tn := range slices.Sorted(maps.Keys(g.Topics)) { // a fixed order of draws
		n := g.Topics[tn]
		for p := range n + int32(rng.IntN(2)) {
			all = append(all, assign.TopicPartition{Topic: tn, Partition: p})
		}
	}
	all = append(all, assign.TopicPartition{Topic: "gone", Partition: 0})
	slices.SortFunc(all, assign.TopicPartition.Compare)
	base := int32(rng.IntN(4))
	for i := range g.Members {
		m := &g.Members[i]
		switch rng.IntN(4) {
		case 0:
			m.Generation = -1
		default:
			m.Generation = base + int32(rng.IntN(3))
		}
		for _, p := range all {
			if rng.IntN(len(g.Members)+1) == 0 {
				m.Owned = append(m.Owned, p)
			}
		}
	}
}

func randomIDs(rng *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var ids []string
	for len(ids) < n {
		var id string
		switch rng.IntN(5) {
		case 0:
			id = fmt.Sprintf("c%d", rng.IntN(3*n))
		case 1: // equal String.hashCode: words over {Aa, BB}
			var b strings.Builder
			for range 2 + rng.IntN(4) {
				b.WriteString([]string{"Aa", "BB"}[rng.IntN(2)])
			}
			id = b.String()
		case 2:
			id = []string{"é", "日本", "😀", "Ω", "\uff21"}[rng.IntN(5)] + strconv.Itoa(rng.IntN(4*n))
		default:
			id = fmt.Sprintf("consumer-%d-%08x", rng.IntN(n), rng.Uint32())
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

func randomSubset(rng *rand.Rand, names []string, atLeast int) []string {
	var out []string
	for _, n := range names {
		if rng.IntN(2) == 0 {
			out = append(out, n)
		}
	}
	for len(out) < atLeast {
		out = append(out, names[rng.IntN(len(names))])
	}
	out = slices.Compact(out)
	rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	if rng.IntN(8) == 0 {
		out = append(out, "missing-topic")
	}
	return out
}

// groupJSON writes g in the JSON contract.
func groupJSON(name string, g assign.Group) string {
	type member struct {
		ID         string             `json:"id"`
		Instance   string             `json:"instance,omitempty"`
		Rack       string             `json:"rack,omitempty"`
		Topics     []string           `json:"topics"`
		Owned      map[string][]int32 `json:"owned,omitempty"`
		Generation *int32             `json:"generation,omitempty"`
	}
	type group struct {
		Name           string                `json:"name"`
		Topics         map[string]int32      `json:"topics"`
		PartitionRacks map[string][][]string `json:"partitionRacks,omitempty"`
		Members        []member              `json:"members"`
	}
	out := group{Name: name, Topics: g.Topics, PartitionRacks: g.PartitionRacks, Members: []member{}}
	for _, m := range g.Members {
		jm := member{ID: m.ID, Instance: m.InstanceID, Rack: m.Rack, Topics: m.Topics}
		if jm.Topics == nil {
			jm.Topics = []string{}
		}
		if len(m.Owned) > 0 {
			jm.Owned = map[string][]int32{}
			for _, p := range m.Owned {
				jm.Owned[p.Topic] = append(jm.Owned[p.Topic], p.Partition)
			}
		}
		if m.Generation >= 0 {
			gen := m.Generation
			jm.Generation = &gen
		}
		out.Members = append(out.Members, jm)
	}
	b, err := json.Marshal(out)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// readGroups reads the groups groupJSON wrote.
func readGroups(t *testing.T, file string) []assign.Group {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []assign.Group
	for line := range bytes.Lines(data) {
		var in struct {
			Topics         map[string]int32      `json:"topics"`
			PartitionRacks map[string][][]string `json:"partitionRacks"`
			Members        []struct {
				ID         string             `json:"id"`
				Instance   string             `json:"instance"`
				Rack       string             `json:"rack"`
				Topics     []string           `json:"topics"`
				Owned      map[string][]int32 `json:"owned"`
				Generation *int32             `json:"generation"`
			} `json:"members"`
		}
		if err := json.Unmarshal(line, &in); err != nil {
			t.Fatal(err)
		}
		g := assign.Group{Topics: in.Topics, PartitionRacks: in.PartitionRacks}
		for _, m := range in.Members {
			mem := assign.Member{ID: m.ID, InstanceID: m.Instance, Rack: m.Rack, Topics: m.Topics, Generation: -1}
			if m.Generation != nil {
				mem.Generation = *m.Generation
			}
			for tn, ps := range m.Owned {
				for _, p := range ps {
					mem.Owned = append(mem.Owned, assign.TopicPartition{Topic: tn, Partition: p})
				}
			}
			g.Members = append(g.Members, mem)
		}
		groups = append(groups, g)
	}
	return groups
}
