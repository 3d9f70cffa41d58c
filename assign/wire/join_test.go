package wire

import (
	"errors"
	"runtime"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/assigncalc/assigncalc/assign"
)

// groupFromJoinReference is GroupFromJoin as it was written before it
// interned names: every member decoded on its own with
// DecodeSubscription (a string per topic, a slice per member), then read
// as Kafka's assignor of the protocol's name reads it. The interning
// decoder must give the same group and the same errors.
func groupFromJoinReference(protocol string, members []JoinMember, partitions map[string]int32) (assign.Group, error) {
	g := assign.Group{Members: make([]assign.Member, len(members)), Topics: partitions}
	for i, jm := range members {
		s, err := DecodeSubscription(jm.Metadata)
		if err != nil {
			return assign.Group{}, &MemberError{MemberID: jm.MemberID, Index: i, Err: err}
		}
		m := assign.Member{ID: jm.MemberID, InstanceID: jm.InstanceID, Topics: s.Topics, Generation: DefaultGeneration}
		if s.RackID != nil {
			m.Rack = *s.RackID
		}
		switch protocol {
		case "range", "roundrobin":
		case "sticky":
			if len(s.UserData) > 0 {
				if d, err := DecodeStickyUserData(s.UserData); err == nil {
					m.Owned, m.Generation = d.Previous, d.Generation
				}
			}
		case "cooperative-sticky":
			m.Owned = s.OwnedPartitions
			switch {
			case s.GenerationID >= 0:
				m.Generation = s.GenerationID
			case s.UserData != nil:
				if gen, err := DecodeCooperativeUserData(s.UserData); err == nil {
					m.Generation = gen
				}
			}
		default:
			m.Owned, m.Generation = s.OwnedPartitions, s.GenerationID
		}
		m.Owned = dedupe(m.Owned)
		g.Members[i] = m
	}
	return g, nil
}

// genJoinMembers draws JoinGroup members whose subscriptions name topics
// of the metadata and others, repeat the previous member's topics, own
// partitions sorted, unsorted and repeated, carry sticky or cooperative
// user data, and sometimes are cut short or corrupted.
func genJoinMembers(t *rapid.T, metadata []string) []JoinMember {
	names := append([]string{"unknown", ""}, metadata...)
	topic := rapid.SampledFrom(names)
	n := rapid.IntRange(0, 6).Draw(t, "members")
	var members []JoinMember
	var last Subscription
	for i := range n {
		s := genSubscription().Draw(t, "s")
		s.Topics = rapid.SliceOfN(topic, 0, 5).Draw(t, "topics")
		if i > 0 && rapid.Bool().Draw(t, "sameTopics") {
			s.Topics = last.Topics
		}
		owned := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) assign.TopicPartition {
			return assign.TopicPartition{Topic: topic.Draw(t, "topic"), Partition: rapid.Int32Range(-1, 4).Draw(t, "partition")}
		}), 0, 8).Draw(t, "owned")
		if len(owned) > 0 {
			s.OwnedPartitions = owned
		}
		switch rapid.IntRange(0, 3).Draw(t, "userData") {
		case 0:
			ud, err := StickyUserData{Version: AutoVersion, Previous: owned, Generation: rapid.Int32Range(-1, 3).Draw(t, "gen")}.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			s.UserData = ud
		case 1:
			s.UserData = AppendCooperativeUserData(nil, rapid.Int32Range(-1, 3).Draw(t, "gen"))
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		switch rapid.IntRange(0, 9).Draw(t, "damage") {
		case 0:
			b = b[:rapid.IntRange(0, len(b)).Draw(t, "cut")]
		case 1:
			b[rapid.IntRange(0, len(b)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
		}
		last = s
		members = append(members, JoinMember{MemberID: rapid.StringMatching(`[a-c]`).Draw(t, "id"), Metadata: b})
	}
	return members
}

// TestGroupFromJoinMatchesReference: the interning decoder gives the group
// (and the error) of the reference, for every protocol. The reference's
// decoder, DecodeSubscription, is anchored to the bytes franz-go and
// sarama write (TestPeerVectors).
func TestGroupFromJoinMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		metadata := []string{"a", "b", "orders", "ünïcode"}
		parts := map[string]int32{}
		for _, name := range rapid.SliceOfDistinct(rapid.SampledFrom(metadata), rapid.ID[string]).Draw(t, "metadata") {
			parts[name] = rapid.Int32Range(0, 5).Draw(t, "partitions")
		}
		members := genJoinMembers(t, metadata)
		protocol := rapid.SampledFrom([]string{"range", "roundrobin", "sticky", "cooperative-sticky", "custom"}).Draw(t, "protocol")
		want, wantErr := groupFromJoinReference(protocol, members, parts)
		got, err := GroupFromJoin(protocol, members, parts, nil)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("GroupFromJoin error %v, reference %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("GroupFromJoin(%s) mismatch (-reference +got):\n%s", protocol, diff)
		}
	})
}

// TestGroupFromJoinInterns: names the metadata holds are its own strings,
// members subscribing alike share one Topics slice, and decoding a large
// group allocates a handful of times, not once per topic per member.
func TestGroupFromJoinInterns(t *testing.T) {
	parts := map[string]int32{}
	var topics []string
	for _, name := range []string{"orders", "payments", "refunds"} {
		parts[name] = 100
		topics = append(topics, name)
	}
	var members []JoinMember
	for i := range 200 {
		var owned []assign.TopicPartition
		for _, t := range topics {
			owned = append(owned, assign.TopicPartition{Topic: t, Partition: int32(i % 100)})
		}
		b, err := Subscription{Topics: topics, OwnedPartitions: owned, GenerationID: 3}.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, JoinMember{MemberID: string(rune('a' + i%26)), Metadata: b})
	}
	g, err := GroupFromJoin("cooperative-sticky", members, parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]string{}
	for k := range parts {
		key[k] = k
	}
	for i, m := range g.Members {
		if &m.Topics[0] != &g.Members[0].Topics[0] {
			t.Fatalf("member %d does not share member 0's Topics", i)
		}
		for _, tp := range m.Owned {
			if unsafeStringData(tp.Topic) != unsafeStringData(key[tp.Topic]) {
				t.Fatalf("member %d: owned topic %q is not the metadata's string", i, tp.Topic)
			}
		}
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := GroupFromJoin("cooperative-sticky", members, parts, nil); err != nil {
			t.Fatal(err)
		}
	})
	// The topic table (a slice and a map), the two arrays (grown by
	// doubling), the members' records and the group's members: a few
	// dozen, whatever the number of members.
	if allocs > 40 {
		t.Errorf("GroupFromJoin of 200 members allocated %.0f times; want at most 40", allocs)
	}
	var before, after runtime.MemStats
	total := 0
	for _, m := range members {
		total += len(m.Metadata)
	}
	runtime.ReadMemStats(&before)
	if _, err := GroupFromJoin("cooperative-sticky", members, parts, nil); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 8*uint64(total) {
		t.Errorf("GroupFromJoin of %d bytes of metadata allocated %d bytes; want at most 8 times", total, n)
	}
}

func TestGroupFromJoinHugeCountAllocatesNothing(t *testing.T) {
	// A subscription declaring 2^31-1 topics in 10 bytes is refused before
	// anything is allocated for them.
	b := []byte{0, 0, 0x7f, 0xff, 0xff, 0xff, 0, 1, 'a', 0}
	allocs := testing.AllocsPerRun(10, func() {
		_, err := GroupFromJoin("range", []JoinMember{{MemberID: "m", Metadata: b}}, map[string]int32{"a": 1}, nil)
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("error %v, want ErrTruncated", err)
		}
	})
	if allocs > 12 {
		t.Errorf("refusing the subscription allocated %.0f times; want a few (the error and the table)", allocs)
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

// TestGroupFromJoinInternsWithoutMetadata: a leader that decodes before it
// has the metadata (franz-go's MemberBalancer) still gets one string per
// topic name, shared by the members.
func TestGroupFromJoinInternsWithoutMetadata(t *testing.T) {
	var members []JoinMember
	for i := range 3 {
		topics := []string{"orders", "payments"}
		if i == 1 {
			topics = []string{"orders"}
		}
		b, err := Subscription{Topics: topics, GenerationID: DefaultGeneration}.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		members = append(members, JoinMember{MemberID: string(rune('a' + i)), Metadata: b})
	}
	g, err := GroupFromJoin("range", members, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if unsafeStringData(g.Members[0].Topics[0]) != unsafeStringData(g.Members[1].Topics[0]) || unsafeStringData(g.Members[0].Topics[0]) != unsafeStringData(g.Members[2].Topics[0]) {
		t.Errorf("members name \"orders\" with different strings")
	}
}

// FuzzGroupFromJoin splits arbitrary bytes into a protocol and members'
// metadata (a length byte before each) and holds GroupFromJoin to the
// reference decoder: the same group or the same error, never a panic.
func FuzzGroupFromJoin(f *testing.F) {
	seed := func(protocol byte, subs ...Subscription) {
		in := []byte{protocol}
		for _, s := range subs {
			b, err := s.MarshalBinary()
			if err != nil || len(b) > 255 {
				f.Fatalf("seed: %v, %d bytes", err, len(b))
			}
			in = append(append(in, byte(len(b))), b...)
		}
		f.Add(in)
	}
	owned := []assign.TopicPartition{{Topic: "b", Partition: 1}, {Topic: "a", Partition: 0}, {Topic: "b", Partition: 1}}
	sticky, _ := StickyUserData{Previous: owned, Generation: 3}.MarshalBinary()
	seed(0, Subscription{Topics: []string{"a", "b"}, GenerationID: DefaultGeneration})
	seed(2, Subscription{Topics: []string{"a"}, UserData: sticky}, Subscription{Topics: []string{"a"}, UserData: []byte{0, 0}})
	seed(3, Subscription{Topics: []string{"b", "a", "x"}, OwnedPartitions: owned, GenerationID: 4, RackID: ptr("r")},
		Subscription{Topics: []string{"b", "a", "x"}, UserData: AppendCooperativeUserData(nil, 2), OwnedPartitions: owned[:1], GenerationID: DefaultGeneration})
	protocols := []string{"range", "roundrobin", "sticky", "cooperative-sticky", "custom"}
	parts := map[string]int32{"a": 2, "b": 3, "c": 0}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		protocol := protocols[int(in[0])%len(protocols)]
		var members []JoinMember
		for rest := in[1:]; len(rest) > 0; {
			n := min(int(rest[0]), len(rest)-1)
			members = append(members, JoinMember{MemberID: string(rune('a' + len(members)%26)), Metadata: rest[1 : 1+n]})
			rest = rest[1+n:]
		}
		want, wantErr := groupFromJoinReference(protocol, members, parts)
		got, err := GroupFromJoin(protocol, members, parts, nil)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("GroupFromJoin error %v, reference %v", err, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("GroupFromJoin(%s) mismatch (-reference +got):\n%s", protocol, diff)
		}
	})
}
