package wire

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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

// TestRunsFromJoinAreOwned: groupAndRunsFromJoin decodes the claims
// GroupFromJoin decodes, as runs: the same members, the same errors,
// each member's subscription as indices naming its Topics, in order, and
// each member's runs the stretches of one topic of its Owned list (in
// its order, deduplicated alike), for every protocol, on metadata as the
// clients write it, in the members' own order (shuffled, with repeats),
// and with bytes cut short or overwritten.
func TestRunsFromJoinAreOwned(t *testing.T) {
	protocols := []string{"range", "sticky", "cooperative-sticky", "custom"}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		protocol := rapid.SampledFrom(protocols).Draw(t, "protocol")
		if rapid.Bool().Draw(t, "shuffle") {
			g = assigntest.Shuffled(g).Draw(t, "shuffled")
		}
		for i := range g.Members {
			m := &g.Members[i]
			if len(m.Owned) > 0 && rapid.Bool().Draw(t, "repeat") {
				tp := m.Owned[rapid.IntRange(0, len(m.Owned)-1).Draw(t, "which")]
				m.Owned = slices.Insert(slices.Clone(m.Owned), rapid.IntRange(0, len(m.Owned)).Draw(t, "where"), tp)
			}
		}
		join := joinOf(t, protocol, g, rapid.Bool().Draw(t, "asIs"))
		for i := range join {
			md := append([]byte(nil), join[i].Metadata...)
			switch rapid.IntRange(0, 5).Draw(t, "damage") {
			case 0:
				md = md[:rapid.IntRange(0, len(md)).Draw(t, "cut")]
			case 1:
				if len(md) > 0 {
					md[rapid.IntRange(0, len(md)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
				}
			}
			join[i].Metadata = md
		}

		want, wantErr := GroupFromJoin(protocol, join, g.Topics, g.PartitionRacks)
		got, runs, err := groupAndRunsFromJoin(protocol, join, g.Topics, g.PartitionRacks)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("runs error %v, lists error %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if runs == nil || len(runs.Subs) != len(want.Members) {
			t.Fatalf("runs %v for %d members", runs, len(want.Members))
		}
		var owned [][]assign.TopicPartition
		for i := range want.Members {
			owned = append(owned, want.Members[i].Owned)
			want.Members[i].Owned = nil
			// The subscription comes as indices into runs.Names.
			var topics []string
			for _, k := range runs.Subs[i] {
				topics = append(topics, runs.Names[k])
			}
			if !cmp.Equal(want.Members[i].Topics, topics, cmpopts.EquateEmpty()) {
				t.Fatalf("member %d: runs subscribe to %q, Topics is %q", i, topics, want.Members[i].Topics)
			}
			want.Members[i].Topics = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("groups differ but for Owned and Topics (-lists +runs):\n%s", diff)
		}
		if len(runs.RunOff) != len(owned)+1 || runs.RunOff[0] != 0 {
			t.Fatalf("run offsets %v for %d members", runs.RunOff, len(owned))
		}
		for i, o := range owned {
			var fromRuns []assign.TopicPartition
			from := int32(0)
			if runs.RunOff[i] > 0 {
				from = runs.Runs[runs.RunOff[i]-1].End
			}
			for k, r := range runs.Runs[runs.RunOff[i]:runs.RunOff[i+1]] {
				if k > 0 && runs.Runs[int(runs.RunOff[i])+k-1].Topic == r.Topic {
					t.Fatalf("member %d: two runs of %q in a row", i, r.Topic)
				}
				for _, q := range runs.Parts[from:r.End] {
					fromRuns = append(fromRuns, assign.TopicPartition{Topic: r.Topic, Partition: q})
				}
				from = r.End
			}
			if !cmp.Equal(o, fromRuns, cmpopts.EquateEmpty()) {
				t.Fatalf("member %d: runs list %v, Owned is %v", i, fromRuns, o)
			}
		}
	})
}
