package assign

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// TestSimpleMemberOrder is the property that the order in which members
// are listed changes Simple's answer only through what it changes in
// Kafka: the iteration order of the member map, a HashMap<String, ...>
// filled in the listed order, which gives each member its index. Members
// whose IDs share no bucket iterate by bucket whatever the listed order;
// IDs that share a bucket iterate in the order they were put. So a
// shuffle that leaves the map's order as it was must leave the answer as
// it was. (A shuffle that changes the map's order may change the answer,
// as it changes Kafka's; it must still be answered.)
func TestSimpleMemberOrder(t *testing.T) {
	same, differ := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		g := randomShareGroup(rand.New(rand.NewPCG(seed, 932)), "g")
		want, err := Simple{}.Assign(g)
		if err != nil {
			t.Skip("Kafka refuses the group too:", err)
		}
		perm := rapid.Permutation(g.Members).Draw(t, "members")
		h := g
		h.Members = perm
		got, err := Simple{}.Assign(h)
		if err != nil {
			t.Fatalf("shuffled: %v", err)
		}
		if mapOrder(g) != mapOrder(h) {
			differ++
			return
		}
		same++
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("members shuffled within the map's order: Simple mismatch (-listed +shuffled):\n%s", diff)
		}
	})
	if same == 0 {
		t.Error("no shuffle kept the member map's order: the property was never checked")
	}
	t.Logf("%d shuffles kept the member map's order, %d changed it", same, differ)
}

// mapOrder is the iteration order of g's member IDs in a HashMap put in
// the listed order, as one string.
func mapOrder(g Group) string {
	ids := make([]string, len(g.Members))
	for i, m := range g.Members {
		ids[i] = m.ID
	}
	var out []string
	for _, k := range jvm.StringMapOrder(ids) {
		out = append(out, ids[k])
	}
	return strings.Join(out, "\x00")
}

// TestSummarizeSharing checks the statistics of sharing on answers whose
// sharing is known without running Simple's code: two partitions for five
// members are each shared by ceil(5/2) = 3 members (VerifyShare's bound,
// and 2×3 = 6 assignments are all there are), a hand-written share
// assignment, and a classic answer that shares nothing.
func TestSummarizeSharing(t *testing.T) {
	g := Group{Topics: map[string]int32{"t0": 2}, TopicIDs: map[string]TopicID{"t0": mustTopicID(t, "Yp0cT2sWQ7ChA0qyU5Ckdg")}}
	for _, id := range []string{"C0", "C1", "C2", "C3", "C4"} {
		g.Members = append(g.Members, Member{ID: id, Topics: []string{"t0"}})
	}
	a, err := Simple{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(g, a)
	if want := map[TopicPartition]int{{"t0", 0}: 3, {"t0", 1}: 3}; !cmp.Equal(s.Shared, want) || s.MaxSharing != 3 || s.Partitions != 6 {
		t.Errorf("five members on two partitions: Shared %v, MaxSharing %d, Partitions %d; want %v, 3, 6", s.Shared, s.MaxSharing, s.Partitions, want)
	}

	hand := Assignment{"C0": {{"t0", 0}, {"t0", 1}}, "C1": {{"t0", 0}}, "C2": {{"t0", 0}}, "C3": {{"t0", 7}}}
	s = Summarize(g, hand)
	if want := map[TopicPartition]int{{"t0", 0}: 3}; !cmp.Equal(s.Shared, want) || s.MaxSharing != 3 {
		t.Errorf("hand-written: Shared %v, MaxSharing %d; want %v, 3 (t0-7 is no partition of g)", s.Shared, s.MaxSharing, want)
	}

	classic, err := Range{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	if s := Summarize(g, classic); len(s.Shared) != 0 || s.MaxSharing != 1 {
		t.Errorf("range: Shared %v, MaxSharing %d; want none, 1", s.Shared, s.MaxSharing)
	}
	if s := Summarize(g, Assignment{}); len(s.Shared) != 0 || s.MaxSharing != 0 {
		t.Errorf("nothing assigned: Shared %v, MaxSharing %d; want none, 0", s.Shared, s.MaxSharing)
	}
}

// TestLookupShare checks that Lookup knows the share assignor by its name
// in group.share.assignors and lists it when refusing a name.
func TestLookupShare(t *testing.T) {
	s, err := Lookup(" simple ")
	if err != nil || s != (Simple{}) {
		t.Errorf(`Lookup("simple") = %v, %v`, s, err)
	}
	if !slices.Contains(ShareStrategies(), Strategy(Simple{})) {
		t.Error("ShareStrategies lacks Simple")
	}
	if _, err := Lookup("simpler"); !errors.Is(err, ErrUnknownStrategy) || !strings.Contains(err.Error(), ", simple,") {
		t.Errorf(`Lookup("simpler"): %v, want ErrUnknownStrategy naming simple`, err)
	}
}
