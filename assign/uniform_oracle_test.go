package assign

import (
	"bytes"
	"encoding/json"
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

	"github.com/google/go-cmp/cmp"
)

// This file holds the KIP-848 assignors to Kafka's own: the goldens in
// testdata/kip848 were printed by Kafka's assignors (see its README), and
// TestKIP848Oracle, when KIP848_ORACLE names the compiled oracles, runs
// thousands of fresh random groups through Kafka and through us.

// kip848Run names one oracle run: a strategy and the golden file of its
// answers.
type kip848Run struct {
	strategy Strategy
	file     string // under testdata/kip848
	oracle   string // the oracle's argument
	classes  int    // index into KIP848_ORACLE's directories: 0 = 4.1, 1 = 4.0
}

var kip848Runs = []kip848Run{
	{Uniform{Kafka: Kafka41}, "uniform-4.1.jsonl", "uniform", 0},
	{Uniform{Kafka: Kafka40}, "uniform-4.0.jsonl", "uniform", 1},
	{ServerRange{Kafka: Kafka41}, "range-4.1.jsonl", "range", 0},
	{ServerRange{Kafka: Kafka40}, "range-4.0.jsonl", "range", 1},
}

// oracleAnswer is one line of the oracle's output.
type oracleAnswer struct {
	Name       string                        `json:"name"`
	Assignment map[string]map[string][]int32 `json:"assignment"`
	Error      string                        `json:"error"`
}

func answerOf(a Assignment) map[string]map[string][]int32 {
	out := make(map[string]map[string][]int32, len(a))
	for id, tps := range a {
		byTopic := map[string][]int32{}
		for _, tp := range tps {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
		}
		out[id] = byTopic
	}
	return out
}

// TestKIP848Goldens checks the answers Kafka's assignors printed for the
// random groups of groups.jsonl and for the stories of scenarios.jsonl
// (Kafka's own assignor test scenarios and the issue's, written as data:
// fresh groups, joins, leaves, subscription changes, partitions added, a
// topic deleted, static members, the 4.0 and 4.1 difference).
func TestKIP848Goldens(t *testing.T) {
	for _, set := range []struct{ groups, prefix string }{{"groups.jsonl", ""}, {"scenarios.jsonl", "scenarios."}} {
		groups := readKIP848Groups(t, filepath.Join("testdata", "kip848", set.groups))
		for _, run := range kip848Runs {
			t.Run(set.prefix+run.file, func(t *testing.T) {
				want := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "kip848", set.prefix+run.file))
				if len(want) != len(groups) {
					t.Fatalf("%d answers for %d groups", len(want), len(groups))
				}
				for i, g := range groups {
					checkAgainstOracle(t, run.strategy, g, want[i])
				}
			})
		}
	}
}

func checkAgainstOracle(t *testing.T, s Strategy, g Group, want oracleAnswer) bool {
	t.Helper()
	got, err := s.Assign(g)
	if want.Error != "" || err != nil {
		t.Errorf("%s %s: error %v, Kafka says %q", s.Name(), want.Name, err, want.Error)
		return false
	}
	if diff := cmp.Diff(want.Assignment, answerOf(got)); diff != "" {
		t.Errorf("%s %s: mismatch (-kafka +ours):\n%s", s.Name(), want.Name, diff)
		return false
	}
	return true
}

// TestKIP848Oracle generates KIP848_N (default 2000) random groups and
// checks every answer against Kafka's assignors, compiled into the class
// directories KIP848_ORACLE lists ("4.1-classes:4.0-classes"), drawn
// from seed KIP848_SEED (default 848). With KIP848_WRITE set it
// (re)writes the goldens from the first 300 groups.
func TestKIP848Oracle(t *testing.T) {
	dirs := strings.Split(os.Getenv("KIP848_ORACLE"), ":")
	if len(dirs) != 2 {
		t.Skip("KIP848_ORACLE not set (see testdata/kip848/README.md)")
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
		lines.WriteString(kip848JSON(fmt.Sprintf("g%05d", i), g))
		lines.WriteByte('\n')
	}
	write := os.Getenv("KIP848_WRITE") != ""
	if write {
		oracle.WriteHead(t, filepath.Join("testdata", "kip848", "groups.jsonl"), lines.Bytes(), 300)
	}
	for _, run := range kip848Runs {
		out := oracle.Run(t, dirs[run.classes], "Oracle", []string{run.oracle}, nil, lines.Bytes())
		answers := oracle.Parse[oracleAnswer](t, out)
		agreed := 0
		for i, g := range groups {
			if checkAgainstOracle(t, run.strategy, g, answers[i]) {
				agreed++
			}
		}
		t.Logf("%s: %d of %d groups agree with Kafka", run.file, agreed, len(groups))
		if write {
			oracle.WriteHead(t, filepath.Join("testdata", "kip848", run.file), out, 300)
		}
	}
}

// randomKIP848Group draws a group meant to reach every rule: member IDs
// that share hash buckets or are not ASCII, static members, topics missing
// from the metadata or without partitions, topic ids with equal hash
// codes, homogeneous and heterogeneous subscriptions, current targets that
// are balanced, unbalanced, stale, or hold deleted topics.
func randomKIP848Group(rng *rand.Rand, name string) Group {
	g := Group{Topics: map[string]int32{}, TopicIDs: map[string]TopicID{}}
	nTopics := 1 + rng.IntN(6)
	if rng.IntN(5) == 0 {
		nTopics += rng.IntN(20)
	}
	var names []string
	xor := rng.Uint64()
	for i := range nTopics {
		tn := fmt.Sprintf("t%d", i)
		if rng.IntN(8) == 0 {
			tn = fmt.Sprintf("topic-é%d", i)
		}
		names = append(names, tn)
		if rng.IntN(10) != 0 {
			n := int32(1 + rng.IntN(12))
			if rng.IntN(6) == 0 {
				n = int32(rng.IntN(70))
			}
			g.Topics[tn] = n
			g.TopicIDs[tn] = randomTopicID(rng, xor)
		}
	}
	var deleted []string
	for i := range rng.IntN(3) {
		dn := fmt.Sprintf("gone%d", i)
		deleted = append(deleted, dn)
		g.TopicIDs[dn] = randomTopicID(rng, xor)
	}

	nMembers := 1 + rng.IntN(8)
	switch rng.IntN(6) {
	case 0:
		nMembers += rng.IntN(40)
	case 1:
		nMembers += rng.IntN(150)
	}
	if rng.IntN(100) == 0 { // big: tables of 1024 buckets and more
		nMembers += rng.IntN(1500)
	}
	ids := randomMemberIDs(rng, nMembers)
	homogeneous := rng.IntN(2) == 0
	common := randomSubset(rng, names, 1)
	for i, id := range ids {
		m := Member{ID: id}
		if rng.IntN(3) == 0 {
			m.InstanceID = fmt.Sprintf("inst-%d-%d", rng.IntN(1000), i)
		}
		if homogeneous {
			m.Topics = slices.Clone(common)
			rng.Shuffle(len(m.Topics), func(a, b int) { m.Topics[a], m.Topics[b] = m.Topics[b], m.Topics[a] })
			if rng.IntN(10) == 0 {
				m.Topics = append(m.Topics, m.Topics[0]) // a repeat
			}
		} else {
			m.Topics = randomSubset(rng, names, 0)
		}
		g.Members = append(g.Members, m)
	}

	// Current targets: an exclusive assignment of some partitions, dealt
	// round robin (balanced) or at random, to subscribers or not.
	if rng.IntN(5) != 0 {
		var all []TopicPartition
		for _, tn := range append(slices.Clone(names), deleted...) {
			n, ok := g.Topics[tn]
			if !ok {
				if _, isDeleted := g.TopicIDs[tn]; !isDeleted {
					continue
				}
				n = int32(1 + rng.IntN(5))
			}
			for p := range n {
				all = append(all, TopicPartition{tn, p})
			}
		}
		rng.Shuffle(len(all), func(a, b int) { all[a], all[b] = all[b], all[a] })
		keep := len(all)
		if rng.IntN(2) == 0 {
			keep = rng.IntN(len(all) + 1)
		}
		balanced := rng.IntN(2) == 0
		holders := len(g.Members)
		if rng.IntN(3) == 0 && holders > 1 {
			holders-- // the last member is new
		}
		for k, tp := range all[:keep] {
			i := rng.IntN(holders)
			if balanced {
				i = k % holders
			}
			g.Members[i].Owned = append(g.Members[i].Owned, tp)
		}
		for i := range g.Members {
			o := g.Members[i].Owned
			if rng.IntN(2) == 0 {
				slices.SortFunc(o, TopicPartition.Compare)
			}
		}
	}
	return g
}

// randomTopicID returns a random id, or one of hash code x's class (msb ^
// lsb = xor), so that ids share hash codes.
func randomTopicID(rng *rand.Rand, xor uint64) TopicID {
	var id TopicID
	for {
		hi, lo := rng.Uint64(), rng.Uint64()
		if rng.IntN(3) == 0 {
			lo = hi ^ xor
		}
		for k := range 8 {
			id[k] = byte(hi >> (56 - 8*k))
			id[8+k] = byte(lo >> (56 - 8*k))
		}
		if id != (TopicID{}) && id != (TopicID{15: 1}) {
			return id
		}
	}
}

func randomMemberIDs(rng *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var ids []string
	for len(ids) < n {
		var id string
		switch rng.IntN(6) {
		case 0:
			id = fmt.Sprintf("c%d", rng.IntN(3*n))
		case 1: // equal String.hashCode: words over {Aa, BB}
			var b strings.Builder
			for range 2 + rng.IntN(4) {
				b.WriteString([]string{"Aa", "BB"}[rng.IntN(2)])
			}
			id = b.String()
		case 2:
			id = fmt.Sprintf("consumer-%d-%08x", rng.IntN(n), rng.Uint32())
		case 3:
			id = []string{"é", "日本", "😀", "Ω", "\uff21"}[rng.IntN(5)] + strconv.Itoa(rng.IntN(4*n))
		default:
			// Kafka's own member IDs are Uuid strings.
			var u TopicID
			for k := range u {
				u[k] = byte(rng.Uint32())
			}
			id = u.String()
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
	rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
	if rng.IntN(6) == 0 {
		out = append(out, "missing-topic")
	}
	return out
}

// kip848JSON writes g in the JSON contract, with each member's owned
// topics in the order they first appear in Owned, each topic's partitions
// in the order listed.
func kip848JSON(name string, g Group) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b strings.Builder
	b.WriteString(`{"name":` + q(name) + `,"topics":{`)
	for k, tn := range slices.Sorted(maps.Keys(g.Topics)) {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s:%d", q(tn), g.Topics[tn])
	}
	b.WriteString(`},"topicIds":{`)
	for k, tn := range slices.Sorted(maps.Keys(g.TopicIDs)) {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(q(tn) + ":" + q(g.TopicIDs[tn].String()))
	}
	b.WriteString(`},"members":[`)
	for k, m := range g.Members {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + q(m.ID))
		if m.InstanceID != "" {
			b.WriteString(`,"instance":` + q(m.InstanceID))
		}
		b.WriteString(`,"topics":[`)
		for j, tn := range m.Topics {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(q(tn))
		}
		b.WriteString("]")
		if len(m.Owned) > 0 {
			b.WriteString(`,"owned":{`)
			var order []string
			parts := map[string][]string{}
			for _, tp := range m.Owned {
				if _, ok := parts[tp.Topic]; !ok {
					order = append(order, tp.Topic)
				}
				parts[tp.Topic] = append(parts[tp.Topic], strconv.Itoa(int(tp.Partition)))
			}
			for j, tn := range order {
				if j > 0 {
					b.WriteByte(',')
				}
				b.WriteString(q(tn) + ":[" + strings.Join(parts[tn], ",") + "]")
			}
			b.WriteString("}")
		}
		b.WriteString("}")
	}
	b.WriteString("]}")
	return b.String()
}

// readKIP848Groups reads groups kip848JSON wrote, keeping the order of
// each member's owned topics.
func readKIP848Groups(t *testing.T, file string) []Group {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type member struct {
		ID       string          `json:"id"`
		Instance string          `json:"instance"`
		Topics   []string        `json:"topics"`
		Owned    json.RawMessage `json:"owned"`
	}
	type group struct {
		Topics   map[string]int32  `json:"topics"`
		TopicIDs map[string]string `json:"topicIds"`
		Members  []member          `json:"members"`
	}
	var groups []Group
	for line := range bytes.Lines(data) {
		var in group
		if err := json.Unmarshal(line, &in); err != nil {
			t.Fatal(err)
		}
		g := Group{Topics: in.Topics, TopicIDs: map[string]TopicID{}}
		for tn, s := range in.TopicIDs {
			id, err := ParseTopicID(s)
			if err != nil {
				t.Fatal(err)
			}
			g.TopicIDs[tn] = id
		}
		for _, m := range in.Members {
			mem := Member{ID: m.ID, InstanceID: m.Instance, Topics: m.Topics}
			if len(m.Owned) > 0 {
				dec := json.NewDecoder(bytes.NewReader(m.Owned))
				dec.Token() // {
				for dec.More() {
					tok, _ := dec.Token()
					var ps []int32
					if err := dec.Decode(&ps); err != nil {
						t.Fatal(err)
					}
					for _, p := range ps {
						mem.Owned = append(mem.Owned, TopicPartition{tok.(string), p})
					}
				}
			}
			g.Members = append(g.Members, mem)
		}
		groups = append(groups, g)
	}
	return groups
}
