package assign

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
	"github.com/assigncalc/assigncalc/assign/internal/oracle"
)

// treeBinGroup builds a homogeneous group whose holder set of one
// partition becomes a red-black tree and then loses members in
// revokeOverfilledMembers, the case Simple replays with jvm.ChurnSet.
// 1000 members share the 100 partitions of t ten ways, each desiring one.
// The members at map positions 0, 64, ..., 64·14 (fifteen indices that
// agree modulo 64) all hold X; the first `lose` of them also hold Y, the
// partition after X in their HashSet<TopicIdPartition>, so each holds one
// too many and gives up X. X's holder set, a HashSet<Integer> filled in
// index order, holds eleven indices in one bucket by the eleventh add
// (after two doublings forced by the crowded bucket, 16 to 64), becomes a
// tree, and each removal moves its new root to the front of the bucket.
// X is then held by 15 − lose members, more than ten: the first ones in
// the set's order give it up.
//
// With hetero, one more member subscribes to topic u alone, which makes
// the group heterogeneous: the builder works topic by topic, its holder
// sets the same HashSet<Integer>, and a member's partitions of t are a
// HashSet<Integer> of partition numbers, which iterates t-0 before t-1.
func treeBinGroup(t *testing.T, c treeBinCase) (g Group, holders, removed []int32) {
	t.Helper()
	const members, partitions = 1000, 100
	g = Group{Topics: map[string]int32{"t": partitions}, TopicIDs: map[string]TopicID{"t": nameTopicID("t")}}
	for j := range members {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("m%04d", j), Topics: []string{"t"}})
	}
	if c.hetero {
		g.Topics["u"], g.TopicIDs["u"] = 1, nameTopicID("u")
		g.Members = append(g.Members, Member{ID: "h", Topics: []string{"u"}})
	}
	sg, err := newSimpleGroup(g)
	if err != nil {
		t.Fatal(err)
	}
	// X and Y: of t-0 and t-1, the one a two-element HashSet iterates
	// first is X.
	hash := func(p int32) int32 { return 31*sg.hash[0] + p }
	x, y := int32(0), int32(1)
	if !c.hetero && jvm.Order(0, []int32{hash(0), hash(1)}, nil)[0] == 1 {
		x, y = 1, 0
	}
	for k := range 15 {
		idx := int32(64 * k)
		m := &g.Members[sg.byPos[idx]]
		if m.ID == "h" {
			t.Fatalf("member h is at index %d, among the holders of X", idx)
		}
		m.Owned = []TopicPartition{{"t", x}}
		if k < c.lose {
			m.Owned = append(m.Owned, TopicPartition{"t", y})
			removed = append(removed, idx)
		}
		holders = append(holders, idx)
	}
	return g, holders, removed
}

// treeBinCase is one group of treebin.jsonl: how many tree members give
// up X, and whether the group is heterogeneous.
type treeBinCase struct {
	lose   int
	hetero bool
}

// treeBinCases are treebin.jsonl's groups, line by line.
var treeBinCases = []treeBinCase{{lose: 1}, {lose: 2}, {lose: 3}, {lose: 2, hetero: true}}

// TestSimpleTreeBinRemoval holds Simple to Kafka's SimpleAssignor on
// treeBinGroup, whose answer depends on a holder set that is a tree
// bucket when revokeOverfilledMembers removes from it (Java moves the new
// root to the front of the bucket). testdata/share/treebin.simple.jsonl
// is Kafka 4.4's answer (see the README). The test first shows,
// independently of Simple, that the group reaches that case: replayed,
// the set became a tree and its order after the removals is not the
// insertion order less the removed members.
func TestSimpleTreeBinRemoval(t *testing.T) {
	groups := readKIP848Groups(t, filepath.Join("testdata", "share", "treebin.jsonl"))
	want := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "share", "treebin.simple.jsonl"))
	if len(groups) != len(treeBinCases) || len(want) != len(groups) {
		t.Fatalf("%d groups and %d answers; want %d of each", len(groups), len(want), len(treeBinCases))
	}
	// Eleven indices agreeing modulo 64 are the fewest that make a tree
	// (Simple's doc): ten leave a list in a table of 64.
	for n, tree := range map[int]bool{10: false, 11: true} {
		var set jvm.ChurnSet[int32]
		for k := range n {
			set.Add(int32(64*k), int32(64*k))
		}
		if set.Treeified != tree {
			t.Errorf("%d indices agreeing modulo 64: treeified %v, want %v", n, set.Treeified, tree)
		}
	}
	for i, c := range treeBinCases {
		g, holders, removed := treeBinGroup(t, c)
		var set jvm.ChurnSet[int32]
		for _, j := range holders {
			set.Add(j, j)
		}
		for _, j := range removed {
			set.Remove(j)
		}
		insertion := slices.DeleteFunc(slices.Clone(holders), func(j int32) bool { return slices.Contains(removed, j) })
		if !set.Treeified || slices.Equal(set.Order(), insertion) {
			t.Errorf("%+v: treeified %v, order %v; want a tree whose order is not the insertion order %v", c, set.Treeified, set.Order(), insertion)
		}
		if kip848JSON("", g) != kip848JSON("", groups[i]) {
			t.Errorf("%+v: treebin.jsonl line %d is not treeBinGroup's group", c, i+1)
		}
		checkAgainstOracle(t, Simple{}, groups[i], want[i])
	}
}

// TestWriteTreeBinGroups writes treebin.jsonl when SHARE_WRITE_TREEBIN is
// set; its answers come from the oracle (see the README).
func TestWriteTreeBinGroups(t *testing.T) {
	if os.Getenv("SHARE_WRITE_TREEBIN") == "" {
		t.Skip("SHARE_WRITE_TREEBIN not set")
	}
	var out []byte
	for _, c := range treeBinCases {
		g, _, _ := treeBinGroup(t, c)
		name := fmt.Sprintf("treebin-lose%d", c.lose)
		if c.hetero {
			name += "-hetero"
		}
		out = append(out, kip848JSON(name, g)+"\n"...)
	}
	if err := os.WriteFile(filepath.Join("testdata", "share", "treebin.jsonl"), out, 0o644); err != nil {
		t.Fatal(err)
	}
}
