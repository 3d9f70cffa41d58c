package assign

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign/internal/oracle"
	"github.com/google/go-cmp/cmp"
)

// TestSimpleIncremental is Kafka's SimpleAssignorTest
// testIncrementalAssignment{Increasing,Decreasing}MembersHomogeneous as
// data: 24 partitions, members M0, M1, ... join one at a time up to 101,
// then leave one at a time, each round holding the answer of the round
// before. Kafka checks that every partition is assigned; VerifyShare also
// checks the sharing bound and that nobody holds a partition twice.
func TestSimpleIncremental(t *testing.T) {
	id, _ := ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	g := Group{Topics: map[string]int32{"t1": 24}, TopicIDs: map[string]TopicID{"t1": id}}
	round := func(step string) {
		a, err := Simple{}.Assign(g)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if err := VerifyShare(g, a); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		for i := range g.Members {
			g.Members[i].Owned = a[g.Members[i].ID]
		}
	}
	for m := range 101 {
		g.Members = append(g.Members, Member{ID: fmt.Sprintf("M%d", m), Topics: []string{"t1"}})
		round(fmt.Sprintf("join M%d", m))
	}
	for len(g.Members) > 1 {
		g.Members = g.Members[1:]
		round(fmt.Sprintf("%d members", len(g.Members)))
	}
}

// TestSimpleValid checks every answer on random groups with VerifyShare,
// except the one way Kafka's answer is not valid (see Simple's doc): a
// heterogeneous group whose current targets hold topics nobody
// subscribes to, which the answer keeps; there the only fault must be
// such a partition.
func TestSimpleValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 1))
	for i := range 1500 {
		g := randomShareGroup(rng, "")
		a, err := Simple{}.Assign(g)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("group %d: %v", i, err)
			}
			continue
		}
		if err := VerifyShare(g, a); err != nil {
			if !sameNameSets(g.Members) && holdsUnsubscribed(g) {
				continue
			}
			t.Fatalf("group %d: %v\n%s", i, err, kip848JSON("", g))
		}
	}
}

// holdsUnsubscribed reports whether some current target holds a topic no
// member subscribes to (or a deleted one).
func holdsUnsubscribed(g Group) bool {
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			if !slices.ContainsFunc(g.Members, func(o Member) bool { return slices.Contains(o.Topics, tp.Topic) && g.Topics[tp.Topic] > 0 }) {
				return true
			}
		}
	}
	return false
}

// TestSimpleKeepsUnsubscribedTopics: the heterogeneous builder keeps a
// deleted topic in a member's target (Kafka's answer, in
// testdata/share/scenarios.simple.jsonl), and VerifyShare names it.
func TestSimpleKeepsUnsubscribedTopics(t *testing.T) {
	y, _ := ParseTopicID("Yp0cT2sWQ7ChA0qyU5Ckdg")
	a, _ := ParseTopicID("AAAAAAAAAAAAAAAAAAAAAg")
	b, _ := ParseTopicID("AAAAAAAAAAAAAAAAAAAAAw")
	g := Group{
		Topics:   map[string]int32{"t0": 2, "t1": 2},
		TopicIDs: map[string]TopicID{"t0": y, "t1": a, "gone": b},
		Members: []Member{
			{ID: "C0", Topics: []string{"t0"}, Owned: []TopicPartition{{"gone", 0}, {"t1", 1}}},
			{ID: "C1", Topics: []string{"t0", "t1"}},
		},
	}
	got, err := Simple{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if want := []TopicPartition{{"gone", 0}, {"t0", 0}}; !slices.Equal(got["C0"], want) {
		t.Errorf("C0 gets %v, Kafka gives %v", got["C0"], want)
	}
	if err := VerifyShare(g, got); err == nil || !errors.Is(err, ErrInvalidAssignment) {
		t.Errorf("VerifyShare = %v, want the deleted topic named", err)
	}
}

// TestVerifyShareFaults: each rule of VerifyShare refuses an assignment
// that breaks only it.
func TestVerifyShareFaults(t *testing.T) {
	g := Group{
		Topics: map[string]int32{"t0": 2, "t1": 1},
		Members: []Member{
			{ID: "a", Topics: []string{"t0"}},
			{ID: "b", Topics: []string{"t0"}},
			{ID: "c", Topics: []string{"t0", "t1"}},
		},
	}
	ok := Assignment{"a": {{"t0", 0}}, "b": {{"t0", 1}}, "c": {{"t0", 0}, {"t1", 0}}}
	if err := VerifyShare(g, ok); err != nil {
		t.Fatalf("valid share assignment refused: %v", err)
	}
	for name, a := range map[string]Assignment{
		"missing member":    {"a": {{"t0", 0}}, "b": {{"t0", 1}}},
		"stranger":          {"a": {{"t0", 0}}, "b": {{"t0", 1}}, "c": {{"t1", 0}}, "x": nil},
		"twice":             {"a": {{"t0", 0}, {"t0", 0}}, "b": {{"t0", 1}}, "c": {{"t1", 0}}},
		"not subscribed":    {"a": {{"t0", 0}, {"t1", 0}}, "b": {{"t0", 1}}, "c": nil},
		"unassigned":        {"a": {{"t0", 0}}, "b": {{"t0", 0}}, "c": {{"t1", 0}}},
		"over-shared":       {"a": {{"t0", 0}}, "b": {{"t0", 0}, {"t0", 1}}, "c": {{"t0", 0}, {"t1", 0}}},
		"no such partition": {"a": {{"t0", 0}, {"t0", 2}}, "b": {{"t0", 1}}, "c": {{"t1", 0}}},
	} {
		if err := VerifyShare(g, a); !errors.Is(err, ErrInvalidAssignment) {
			t.Errorf("%s: VerifyShare = %v, want a fault", name, err)
		}
	}
}

// TestSimpleReportsIdentityTies: the oracle once found three groups on
// which Simple and Kafka disagreed. Each held topics whose ids have equal
// Uuid.hashCode, so partition p of every such topic has one
// TopicIdPartition hash code; eight of them fill a bucket of the map of
// partitions, which becomes a red-black tree ordered, for equal hash codes
// of a class that is not Comparable, by identity hash codes. Kafka's own
// answer then depends on the JVM: identity-ties.simple.jsonl holds two
// answers Kafka 4.4's classes gave to the one group of identity-ties.jsonl
// (minimised from one of the three), in a fresh JVM and with
// -XX:hashCode=2. Simple cannot match both; it must report the tie so that
// the oracle test does not hold it to either, and report none once the
// topic ids' hash codes differ.
func TestSimpleReportsIdentityTies(t *testing.T) {
	g := readKIP848Groups(t, filepath.Join("testdata", "share", "identity-ties.jsonl"))[0]
	kafka := oracle.Read[oracleAnswer](t, filepath.Join("testdata", "share", "identity-ties.simple.jsonl"))
	if len(kafka) != 2 || cmp.Equal(kafka[0], kafka[1]) {
		t.Fatalf("want two different answers of Kafka, have %d", len(kafka))
	}
	a, tie, err := simpleAssign(g)
	if err != nil || !tie {
		t.Fatalf("simpleAssign: tie %v, %v; want a tie reported", tie, err)
	}
	if err := VerifyShare(g, a); err != nil {
		t.Errorf("Simple's answer: %v", err)
	}
	// The same group with ids 0..7 after a fixed prefix: distinct hash codes.
	h := g
	h.TopicIDs = maps.Clone(g.TopicIDs)
	for k, name := range slices.Sorted(maps.Keys(h.TopicIDs)) {
		var id TopicID
		id[0], id[15] = 0x40, byte(k+1)
		h.TopicIDs[name] = id
	}
	if _, tie, err := simpleAssign(h); err != nil || tie {
		t.Errorf("distinct hash codes: tie %v, %v; want none", tie, err)
	}
}
