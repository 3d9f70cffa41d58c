package wire

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
)

// joinOf encodes g's members as a leader receives them for protocol:
// each subscription as Kafka's Java consumer writes it after its last
// assignment ([NextSubscription]), or, with asIs, with the owned
// partitions in the member's own order.
func joinOf(t *rapid.T, protocol string, g assign.Group, asIs bool) []JoinMember {
	var members []JoinMember
	for _, m := range g.Members {
		s, err := NextSubscription(protocol, m.Topics, m.Owned, m.Generation, m.Rack)
		if err != nil {
			t.Fatal(err)
		}
		if asIs && protocol == "cooperative-sticky" {
			s.Topics, s.OwnedPartitions = m.Topics, m.Owned
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, JoinMember{MemberID: m.ID, InstanceID: m.InstanceID, Metadata: b})
	}
	return members
}

// TestLeadIsDecodeAssignEncode: the bytes path (GroupFromJoin,
// AssignPacked, SyncGroupPacked) gives, byte for byte, what decoding,
// Assign and SyncGroupAssignments give, and the same errors, for the
// four strategies.
func TestLeadIsDecodeAssignEncode(t *testing.T) {
	strategies := []assign.Strategy{assign.Range{}, assign.RoundRobin{}, assign.Sticky{}, assign.CooperativeSticky{}}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		s := rapid.SampledFrom(strategies).Draw(t, "strategy")
		join := joinOf(t, s.Name(), g, rapid.Bool().Draw(t, "asIs"))

		got, err := Lead(s, join, g.Topics, g.PartitionRacks)

		var want map[string][]byte
		dg, wantErr := GroupFromJoin(s.Name(), join, g.Topics, g.PartitionRacks)
		if wantErr == nil {
			var a assign.Assignment
			if a, wantErr = s.Assign(dg); wantErr == nil {
				want, wantErr = SyncGroupAssignments(a, MaxAssignmentVersion)
			}
		}
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("%s: Lead error %v, decode+Assign+encode error %v", s.Name(), err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: Lead mismatch (-decode+Assign+encode +Lead):\n%s", s.Name(), diff)
		}
	})
}

// TestSyncGroupPackedVersions: every version writes the same layout with
// its own header, and a negative version is refused.
func TestSyncGroupPackedVersions(t *testing.T) {
	g := assign.Group{
		Topics:  map[string]int32{"a": 3, "b": 2},
		Members: []assign.Member{{ID: "c0", Topics: []string{"a", "b"}}, {ID: "c1", Topics: []string{"a"}}, {ID: "c2"}},
	}
	p, err := assign.AssignPacked(assign.Range{}, g)
	if err != nil {
		t.Fatal(err)
	}
	a, err := assign.Range{}.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []int16{AutoVersion, 0, 1, 3, 7} {
		got, err := SyncGroupPacked(p, v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := SyncGroupAssignments(a, v)
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Len() {
			if diff := cmp.Diff(want[p.MemberID(i)], got[i]); diff != "" {
				t.Errorf("version %d, member %s: mismatch (-SyncGroupAssignments +SyncGroupPacked):\n%s", v, p.MemberID(i), diff)
			}
		}
	}
	if _, err := SyncGroupPacked(p, -3); err == nil {
		t.Error("SyncGroupPacked at version -3: no error")
	}
}
