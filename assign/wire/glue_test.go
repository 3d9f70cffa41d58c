package wire

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

func mustMarshal(t testing.TB, m interface{ MarshalBinary() ([]byte, error) }) []byte {
	t.Helper()
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGroupFromJoin reads the same kinds of subscriptions under each
// strategy name and checks that ownership comes from where Kafka's Java
// assignor of that name reads it.
func TestGroupFromJoin(t *testing.T) {
	stickyV1 := mustMarshal(t, StickyUserData{Version: 1, Previous: tps("t", 0, 1), Generation: 8})
	stickyV0 := mustMarshal(t, StickyUserData{Version: 0, Previous: tps("t", 2), Generation: DefaultGeneration})
	coopGen4 := AppendCooperativeUserData(nil, 4)

	sub := func(s Subscription) []byte { return mustMarshal(t, s) }
	tests := []struct {
		name     string
		protocol string
		meta     []byte
		want     assign.Member // ID "m" and InstanceID "i" are added
	}{{
		name:     "range ignores ownership, reads the rack",
		protocol: "range",
		meta: sub(Subscription{Version: 3, Topics: []string{"t"}, OwnedPartitions: tps("t", 0),
			GenerationID: 3, RackID: ptr("r1"), UserData: stickyV1}),
		want: assign.Member{Topics: []string{"t"}, Rack: "r1", Generation: -1},
	}, {
		name:     "roundrobin: an empty rack is no rack",
		protocol: "roundrobin",
		meta:     sub(Subscription{Version: 3, Topics: []string{"t"}, GenerationID: -1, RackID: ptr("")}),
		want:     assign.Member{Topics: []string{"t"}, Generation: -1},
	}, {
		name:     "sticky reads user data v1, not owned_partitions",
		protocol: "sticky",
		meta:     sub(Subscription{Version: 2, Topics: []string{"t"}, UserData: stickyV1, OwnedPartitions: tps("t", 5), GenerationID: 2}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 0, 1), Generation: 8},
	}, {
		name:     "sticky user data v0 has no generation",
		protocol: "sticky",
		meta:     sub(Subscription{Version: 0, Topics: []string{"t"}, UserData: stickyV0, GenerationID: DefaultGeneration}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 2), Generation: -1},
	}, {
		name:     "sticky without user data owns nothing",
		protocol: "sticky",
		meta:     sub(Subscription{Version: 0, Topics: []string{"t"}, UserData: []byte{}, GenerationID: DefaultGeneration}),
		want:     assign.Member{Topics: []string{"t"}, Generation: -1},
	}, {
		// Kafka's StickyAssignor logs and ignores user data it cannot read.
		name:     "sticky with unreadable user data owns nothing",
		protocol: "sticky",
		meta:     sub(Subscription{Version: 0, Topics: []string{"t"}, UserData: []byte{0, 0, 0, 9, 0}, GenerationID: DefaultGeneration}),
		want:     assign.Member{Topics: []string{"t"}, Generation: -1},
	}, {
		name:     "cooperative-sticky: generation from subscription v2",
		protocol: "cooperative-sticky",
		meta:     sub(Subscription{Version: 2, Topics: []string{"t"}, UserData: coopGen4, OwnedPartitions: tps("t", 1, 0), GenerationID: 6}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 1, 0), Generation: 6},
	}, {
		name:     "cooperative-sticky: generation from user data when the subscription is v1",
		protocol: "cooperative-sticky",
		meta:     sub(Subscription{Version: 1, Topics: []string{"t"}, UserData: coopGen4, OwnedPartitions: tps("t", 3), GenerationID: DefaultGeneration}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 3), Generation: 4},
	}, {
		name:     "cooperative-sticky: a v2 generation of -1 falls back to user data",
		protocol: "cooperative-sticky",
		meta:     sub(Subscription{Version: 2, Topics: []string{"t"}, UserData: coopGen4, GenerationID: -1}),
		want:     assign.Member{Topics: []string{"t"}, Generation: 4},
	}, {
		name:     "cooperative-sticky: short user data means no generation",
		protocol: "cooperative-sticky",
		meta:     sub(Subscription{Version: 1, Topics: []string{"t"}, UserData: []byte{1, 2}, OwnedPartitions: tps("t", 3), GenerationID: DefaultGeneration}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 3), Generation: -1},
	}, {
		name:     "a custom strategy reads the subscription's fields",
		protocol: "my-assignor",
		meta:     sub(Subscription{Version: 2, Topics: []string{"t"}, OwnedPartitions: tps("t", 1), GenerationID: 9}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 1), Generation: 9},
	}, {
		name:     "a partition claimed twice counts once",
		protocol: "cooperative-sticky",
		meta:     sub(Subscription{Version: 2, Topics: []string{"t"}, OwnedPartitions: tps("t", 1, 0, 1), GenerationID: 2}),
		want:     assign.Member{Topics: []string{"t"}, Owned: tps("t", 1, 0), Generation: 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := map[string]int32{"t": 6}
			g, err := GroupFromJoin(tt.protocol, []JoinMember{{MemberID: "m", InstanceID: "i", Metadata: tt.meta}}, parts, nil)
			if err != nil {
				t.Fatalf("GroupFromJoin: %v", err)
			}
			want := assign.Group{Members: []assign.Member{tt.want}, Topics: parts}
			want.Members[0].ID, want.Members[0].InstanceID = "m", "i"
			if diff := cmp.Diff(want, g); diff != "" {
				t.Errorf("GroupFromJoin(%s) mismatch (-want +got):\n%s", tt.protocol, diff)
			}
		})
	}
}

func TestGroupFromJoinRefusesBadMetadata(t *testing.T) {
	good := mustMarshal(t, Subscription{Topics: []string{"t"}})
	members := []JoinMember{{MemberID: "a", Metadata: good}, {MemberID: "b", Metadata: []byte{0, 1, 0, 0, 0, 9}}}
	_, err := GroupFromJoin("range", members, map[string]int32{"t": 1}, nil)
	var me *MemberError
	var de *DecodeError
	if !errors.As(err, &me) || me.MemberID != "b" || me.Index != 1 || !errors.As(err, &de) || !errors.Is(err, ErrTruncated) {
		t.Fatalf("GroupFromJoin error = %v; want a *MemberError for b (at index 1) wrapping a truncated *DecodeError", err)
	}
	want := `wire: member "b" (at index 1): subscription v1: topics: count 9 at offset 2 exceeds the 0 bytes left`
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	if strings.Count(err.Error(), "wire: ") != 1 {
		t.Errorf("error %q repeats its prefix", err)
	}
}

func TestSyncGroupAssignments(t *testing.T) {
	a := assign.Assignment{"c0": tps("a", 0, 2), "c1": nil}
	got, err := SyncGroupAssignments(a, MaxAssignmentVersion)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]byte{
		"c0": unhex(t, "0003 00000001 0001 61 00000002 00000000 00000002 ffffffff"),
		"c1": unhex(t, "0003 00000000 ffffffff"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SyncGroupAssignments mismatch (-want +got):\n%s", diff)
	}
	if _, err := SyncGroupAssignments(a, -3); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("SyncGroupAssignments(version -3) error = %v; want ErrUnsupportedVersion", err)
	}
}

func TestNextSubscription(t *testing.T) {
	assigned := tps("b", 1, "a", 2, "a", 0)
	sorted := tps("a", 0, 2, "b", 1)
	tests := []struct {
		protocol string
		rack     string
		want     Subscription
	}{{
		protocol: "range",
		want:     Subscription{Version: 3, Topics: []string{"a", "b"}, GenerationID: 7},
	}, {
		protocol: "sticky",
		rack:     "r",
		want: Subscription{Version: 3, Topics: []string{"a", "b"}, GenerationID: 7, RackID: ptr("r"),
			// previous_assignment [a [0 2], b [1]], generation 7
			UserData: unhex(t, "00000002 0001 61 00000002 00000000 00000002 0001 62 00000001 00000001 00000007")},
	}, {
		protocol: "cooperative-sticky",
		want: Subscription{Version: 3, Topics: []string{"a", "b"}, GenerationID: 7,
			OwnedPartitions: sorted, UserData: unhex(t, "00000007")},
	}}
	for _, tt := range tests {
		t.Run(tt.protocol, func(t *testing.T) {
			got, err := NextSubscription(tt.protocol, []string{"b", "a"}, assigned, 7, tt.rack)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NextSubscription(%s) mismatch (-want +got):\n%s", tt.protocol, diff)
			}
		})
	}

	// Before its first assignment a Java member sends generation -1; the
	// eager StickyAssignor sends no user data yet, CooperativeSticky sends
	// its generation -1.
	first := []struct {
		protocol string
		want     Subscription
	}{
		{"sticky", Subscription{Version: 3, Topics: []string{"a"}, GenerationID: -1}},
		{"cooperative-sticky", Subscription{Version: 3, Topics: []string{"a"}, GenerationID: -1, UserData: unhex(t, "ffffffff")}},
	}
	for _, tt := range first {
		t.Run(tt.protocol+" first join", func(t *testing.T) {
			got, err := NextSubscription(tt.protocol, []string{"a"}, nil, -1, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("NextSubscription(%s) mismatch (-want +got):\n%s", tt.protocol, diff)
			}
		})
	}
}

// TestStickyStateSurvivesARound checks the two halves of the glue against
// each other: what a member sends after being assigned partitions in a
// generation is what the next leader reads as its ownership, for both
// sticky strategies.
func TestStickyStateSurvivesARound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		protocol := rapid.SampledFrom([]string{"sticky", "cooperative-sticky"}).Draw(t, "protocol")
		n := rapid.IntRange(0, 8).Draw(t, "n")
		seen := map[assign.TopicPartition]bool{}
		var assigned []assign.TopicPartition
		for range n {
			tp := assign.TopicPartition{
				Topic:     rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "topic"),
				Partition: rapid.Int32Range(0, 5).Draw(t, "partition"),
			}
			if !seen[tp] {
				seen[tp] = true
				assigned = append(assigned, tp)
			}
		}
		gen := rapid.Int32Range(0, 1000).Draw(t, "generation")
		s, err := NextSubscription(protocol, []string{"a", "b", "c"}, assigned, gen, "")
		if err != nil {
			t.Fatal(err)
		}
		meta, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		g, err := GroupFromJoin(protocol, []JoinMember{{MemberID: "m", Metadata: meta}}, map[string]int32{"a": 6, "b": 6, "c": 6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := g.Members[0]
		want := make(map[assign.TopicPartition]bool)
		for _, tp := range assigned {
			want[tp] = true
		}
		got := make(map[assign.TopicPartition]bool)
		for _, tp := range m.Owned {
			got[tp] = true
		}
		if diff := cmp.Diff(want, got); diff != "" || m.Generation != gen {
			t.Fatalf("%s: the leader read owned %v in generation %d; the member was assigned %v in %d\n%s",
				protocol, m.Owned, m.Generation, assigned, gen, diff)
		}
	})
}

// TestLeadKeepsStickyPartitionsAcrossRounds plays two rebalances of an
// eager sticky group through the wire, as Java members and a Go leader
// would: C0 and C1 share topic t of six partitions; each then sends its
// next subscription, C2 joins, and the leader's second assignment must
// give each member two partitions, taking C2's only from what C0 and C1
// held (each keeps two of its three).
func TestLeadKeepsStickyPartitionsAcrossRounds(t *testing.T) {
	parts := map[string]int32{"t": 6}
	first := func(id string) JoinMember {
		s, err := NextSubscription("sticky", []string{"t"}, nil, -1, "")
		if err != nil {
			t.Fatal(err)
		}
		return JoinMember{MemberID: id, Metadata: mustMarshal(t, s)}
	}
	round1, err := Lead(assign.Sticky{}, []JoinMember{first("C0"), first("C1")}, parts, nil)
	if err != nil {
		t.Fatalf("round 1: %v", err)
	}
	held := map[string][]assign.TopicPartition{}
	var round2 []JoinMember
	for _, id := range []string{"C0", "C1"} {
		a, err := DecodeAssignment(round1[id])
		if err != nil {
			t.Fatalf("round 1, %s: %v", id, err)
		}
		if len(a.Partitions) != 3 || a.UserData != nil || a.Version != MaxAssignmentVersion {
			t.Fatalf("round 1 gave %s %+v; want 3 partitions, null user data, version 3", id, a)
		}
		held[id] = a.Partitions
		s, err := NextSubscription("sticky", []string{"t"}, a.Partitions, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		round2 = append(round2, JoinMember{MemberID: id, Metadata: mustMarshal(t, s)})
	}
	round2 = append(round2, first("C2"))
	out, err := Lead(assign.Sticky{}, round2, parts, nil)
	if err != nil {
		t.Fatalf("round 2: %v", err)
	}
	for _, id := range []string{"C0", "C1", "C2"} {
		a, err := DecodeAssignment(out[id])
		if err != nil {
			t.Fatalf("round 2, %s: %v", id, err)
		}
		if len(a.Partitions) != 2 {
			t.Errorf("round 2 gave %s %v; want 2 partitions", id, a.Partitions)
		}
		for _, tp := range a.Partitions {
			if id != "C2" && !slices.Contains(held[id], tp) {
				t.Errorf("round 2 gave %s %v, which it did not hold (%v): a needless move", id, tp, held[id])
			}
		}
	}
}
