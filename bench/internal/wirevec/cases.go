package wirevec

import (
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/IBM/sarama"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Case is one message written by a peer. Want is what it holds, written by
// hand from the peer's input (a wire.Subscription, wire.Assignment or
// wire.StickyUserData).
type Case struct {
	Name    string
	Module  string // the peer's module path
	Encoder string
	Message string
	Version int16
	Want    any

	// PeerEncode returns the peer's bytes; nil when the peer has no public
	// encoder for this message (the case then only checks PeerDecode).
	PeerEncode func() ([]byte, error)

	// PeerDecode decodes b, our encoding of Want, with the peer and
	// reports an error unless the peer finds in it what it finds in its
	// own encoding (or, without PeerEncode, what Want holds).
	PeerDecode func(b []byte) error
}

const (
	kmsgModule   = "github.com/twmb/franz-go/pkg/kmsg"
	saramaModule = "github.com/IBM/sarama"
)

func tps(topic string, parts ...int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, p := range parts {
		out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

var equateEmpty = cmpopts.EquateEmpty()

func same(what string, own, ours any) error {
	if diff := cmp.Diff(own, ours, equateEmpty); diff != "" {
		return fmt.Errorf("%s of our bytes differs from its decoding of its own (-own +ours):\n%s", what, diff)
	}
	return nil
}

// Cases returns every case, in a fixed order.
func Cases() []Case {
	var cs []Case
	cs = append(cs, kmsgCases()...)
	cs = append(cs, saramaCases()...)
	return cs
}

func kmsgSubscription(name string, m kmsg.ConsumerMemberMetadata, want wire.Subscription) Case {
	return Case{
		Name: name, Module: kmsgModule, Encoder: "kmsg.ConsumerMemberMetadata.AppendTo",
		Message: "subscription", Version: m.Version, Want: want,
		PeerEncode: func() ([]byte, error) { return m.AppendTo(nil), nil },
		PeerDecode: func(b []byte) error {
			var own, ours kmsg.ConsumerMemberMetadata
			if err := own.ReadFrom(m.AppendTo(nil)); err != nil {
				return err
			}
			if err := ours.ReadFrom(b); err != nil {
				return fmt.Errorf("kmsg.ConsumerMemberMetadata.ReadFrom: %w", err)
			}
			return same("kmsg.ConsumerMemberMetadata.ReadFrom", own, ours)
		},
	}
}

func kmsgAssignment(name string, m kmsg.ConsumerMemberAssignment, want wire.Assignment) Case {
	return Case{
		Name: name, Module: kmsgModule, Encoder: "kmsg.ConsumerMemberAssignment.AppendTo",
		Message: "assignment", Version: m.Version, Want: want,
		PeerEncode: func() ([]byte, error) { return m.AppendTo(nil), nil },
		PeerDecode: func(b []byte) error {
			var own, ours kmsg.ConsumerMemberAssignment
			if err := own.ReadFrom(m.AppendTo(nil)); err != nil {
				return err
			}
			if err := ours.ReadFrom(b); err != nil {
				return fmt.Errorf("kmsg.ConsumerMemberAssignment.ReadFrom: %w", err)
			}
			return same("kmsg.ConsumerMemberAssignment.ReadFrom", own, ours)
		},
	}
}

func kmsgSticky(name string, m kmsg.StickyMemberMetadata, want wire.StickyUserData) Case {
	return Case{
		Name: name, Module: kmsgModule, Encoder: "kmsg.StickyMemberMetadata.AppendTo",
		Message: "sticky", Version: want.Version, Want: want,
		PeerEncode: func() ([]byte, error) { return m.AppendTo(nil), nil },
		PeerDecode: func(b []byte) error {
			var own, ours kmsg.StickyMemberMetadata
			if err := own.ReadFrom(m.AppendTo(nil)); err != nil {
				return err
			}
			if err := ours.ReadFrom(b); err != nil {
				return fmt.Errorf("kmsg.StickyMemberMetadata.ReadFrom: %w", err)
			}
			return same("kmsg.StickyMemberMetadata.ReadFrom", own, ours)
		},
	}
}

func kmsgCases() []Case {
	owned := []kmsg.ConsumerMemberMetadataOwnedPartition{
		{Topic: "orders", Partitions: []int32{0, 2}},
		{Topic: "payments", Partitions: []int32{1}},
	}
	wantOwned := append(tps("orders", 0, 2), tps("payments", 1)...)
	assigned := []kmsg.ConsumerMemberAssignmentTopic{
		{Topic: "orders", Partitions: []int32{0, 1}},
		{Topic: "payments", Partitions: []int32{3}},
	}
	wantAssigned := append(tps("orders", 0, 1), tps("payments", 3)...)
	return []Case{
		kmsgSubscription("kmsg-subscription-v0",
			kmsg.ConsumerMemberMetadata{Version: 0, Topics: []string{"orders", "payments"}, Generation: -1},
			wire.Subscription{Version: 0, Topics: []string{"orders", "payments"}, GenerationID: -1}),
		kmsgSubscription("kmsg-subscription-v0-empty-user-data",
			kmsg.ConsumerMemberMetadata{Version: 0, UserData: []byte{}, Generation: -1},
			wire.Subscription{Version: 0, UserData: []byte{}, GenerationID: -1}),
		// v1 carries neither generation nor rack: kmsg drops them.
		kmsgSubscription("kmsg-subscription-v1",
			kmsg.ConsumerMemberMetadata{Version: 1, Topics: []string{"orders"}, UserData: []byte{1, 2, 3},
				OwnedPartitions: owned, Generation: 9, Rack: ptr("dropped")},
			wire.Subscription{Version: 1, Topics: []string{"orders"}, UserData: []byte{1, 2, 3},
				OwnedPartitions: wantOwned, GenerationID: -1}),
		kmsgSubscription("kmsg-subscription-v2",
			kmsg.ConsumerMemberMetadata{Version: 2, Topics: []string{"orders", "payments"},
				OwnedPartitions: owned, Generation: 7},
			wire.Subscription{Version: 2, Topics: []string{"orders", "payments"},
				OwnedPartitions: wantOwned, GenerationID: 7}),
		kmsgSubscription("kmsg-subscription-v3-rack",
			kmsg.ConsumerMemberMetadata{Version: 3, Topics: []string{"orders"}, UserData: []byte{0, 0, 0, 7},
				OwnedPartitions: owned, Generation: 7, Rack: ptr("use1-az1")},
			wire.Subscription{Version: 3, Topics: []string{"orders"}, UserData: []byte{0, 0, 0, 7},
				OwnedPartitions: wantOwned, GenerationID: 7, RackID: ptr("use1-az1")}),
		kmsgSubscription("kmsg-subscription-v3-no-rack",
			kmsg.ConsumerMemberMetadata{Version: 3, Topics: []string{"t"}, Generation: -1},
			wire.Subscription{Version: 3, Topics: []string{"t"}, GenerationID: -1}),

		kmsgAssignment("kmsg-assignment-v0",
			kmsg.ConsumerMemberAssignment{Version: 0, Topics: assigned},
			wire.Assignment{Version: 0, Partitions: wantAssigned}),
		kmsgAssignment("kmsg-assignment-v1",
			kmsg.ConsumerMemberAssignment{Version: 1, Topics: assigned, UserData: []byte{}},
			wire.Assignment{Version: 1, Partitions: wantAssigned, UserData: []byte{}}),
		kmsgAssignment("kmsg-assignment-v2-empty",
			kmsg.ConsumerMemberAssignment{Version: 2},
			wire.Assignment{Version: 2}),
		kmsgAssignment("kmsg-assignment-v3",
			kmsg.ConsumerMemberAssignment{Version: 3, Topics: assigned, UserData: []byte("hi")},
			wire.Assignment{Version: 3, Partitions: wantAssigned, UserData: []byte("hi")}),

		// kmsg writes version 0 exactly when the generation is -1.
		kmsgSticky("kmsg-sticky-v0",
			kmsg.StickyMemberMetadata{CurrentAssignment: []kmsg.StickyMemberMetadataCurrentAssignment{
				{Topic: "orders", Partitions: []int32{0, 1}}}, Generation: -1},
			wire.StickyUserData{Version: 0, Previous: tps("orders", 0, 1), Generation: -1}),
		kmsgSticky("kmsg-sticky-v1",
			kmsg.StickyMemberMetadata{CurrentAssignment: []kmsg.StickyMemberMetadataCurrentAssignment{
				{Topic: "orders", Partitions: []int32{2}}, {Topic: "payments", Partitions: []int32{0, 1}}}, Generation: 4},
			wire.StickyUserData{Version: 1, Previous: append(tps("orders", 2), tps("payments", 0, 1)...), Generation: 4}),
		kmsgSticky("kmsg-sticky-v1-empty",
			kmsg.StickyMemberMetadata{Generation: 0},
			wire.StickyUserData{Version: 1, Generation: 0}),
	}
}

// sarama's encoders and decoders are unexported; its public request and
// response types reach them. Its assignment and sticky user data are maps,
// so those vectors hold one topic to keep their bytes deterministic.

func saramaEncodeMetadata(m *sarama.ConsumerGroupMemberMetadata) ([]byte, error) {
	var req sarama.JoinGroupRequest
	if err := req.AddGroupProtocolMetadata("range", m); err != nil {
		return nil, err
	}
	return req.OrderedGroupProtocols[0].Metadata, nil
}

func saramaEncodeAssignment(a *sarama.ConsumerGroupMemberAssignment) ([]byte, error) {
	var req sarama.SyncGroupRequest
	if err := req.AddGroupAssignmentMember("m", a); err != nil {
		return nil, err
	}
	return req.GroupAssignments[0].Assignment, nil
}

func saramaSubscription(name string, m sarama.ConsumerGroupMemberMetadata, want wire.Subscription) Case {
	return Case{
		Name: name, Module: saramaModule, Encoder: "sarama.JoinGroupRequest.AddGroupProtocolMetadata",
		Message: "subscription", Version: m.Version, Want: want,
		PeerEncode: func() ([]byte, error) { return saramaEncodeMetadata(&m) },
		PeerDecode: func(b []byte) error {
			ownBytes, err := saramaEncodeMetadata(&m)
			if err != nil {
				return err
			}
			own, err := (&sarama.GroupMemberDescription{MemberMetadata: ownBytes}).GetMemberMetadata()
			if err != nil {
				return err
			}
			ours, err := (&sarama.GroupMemberDescription{MemberMetadata: b}).GetMemberMetadata()
			if err != nil {
				return fmt.Errorf("sarama GetMemberMetadata: %w", err)
			}
			return same("sarama GetMemberMetadata", own, ours)
		},
	}
}

func saramaAssignment(name string, a sarama.ConsumerGroupMemberAssignment, want wire.Assignment) Case {
	return Case{
		Name: name, Module: saramaModule, Encoder: "sarama.SyncGroupRequest.AddGroupAssignmentMember",
		Message: "assignment", Version: a.Version, Want: want,
		PeerEncode: func() ([]byte, error) { return saramaEncodeAssignment(&a) },
		PeerDecode: func(b []byte) error {
			ownBytes, err := saramaEncodeAssignment(&a)
			if err != nil {
				return err
			}
			own, err := (&sarama.GroupMemberDescription{MemberAssignment: ownBytes}).GetMemberAssignment()
			if err != nil {
				return err
			}
			ours, err := (&sarama.GroupMemberDescription{MemberAssignment: b}).GetMemberAssignment()
			if err != nil {
				return fmt.Errorf("sarama GetMemberAssignment: %w", err)
			}
			return same("sarama GetMemberAssignment", own, ours)
		},
	}
}

// saramaStickyPlanKeeps checks that sarama's sticky strategy reads user
// data b as m1's previous claim of orders 2 and 3: with m2 (whose user
// data sarama writes) claiming orders 0 and 1, a sticky plan keeps both.
func saramaStickyPlanKeeps(b []byte) error {
	m2, err := sarama.NewBalanceStrategySticky().AssignmentData("m2", map[string][]int32{"orders": {0, 1}}, 5)
	if err != nil {
		return err
	}
	members := map[string]sarama.ConsumerGroupMemberMetadata{
		"m1": {Topics: []string{"orders"}, UserData: b},
		"m2": {Topics: []string{"orders"}, UserData: m2},
	}
	plan, err := sarama.NewBalanceStrategySticky().Plan(members, map[string][]int32{"orders": {0, 1, 2, 3}})
	if err != nil {
		return fmt.Errorf("sarama sticky Plan: %w", err)
	}
	got := slices.Sorted(slices.Values(plan["m1"]["orders"]))
	if !slices.Equal(got, []int32{2, 3}) {
		return fmt.Errorf("sarama sticky Plan gave m1 %v; want its claim [2 3] kept", plan["m1"])
	}
	return nil
}

func saramaCases() []Case {
	owned := []*sarama.OwnedPartition{
		{Topic: "orders", Partitions: []int32{0, 2}},
		{Topic: "payments", Partitions: []int32{1}},
	}
	wantOwned := append(tps("orders", 0, 2), tps("payments", 1)...)
	return []Case{
		saramaSubscription("sarama-subscription-v0",
			sarama.ConsumerGroupMemberMetadata{Version: 0, Topics: []string{"orders", "payments"}},
			wire.Subscription{Version: 0, Topics: []string{"orders", "payments"}, GenerationID: -1}),
		saramaSubscription("sarama-subscription-v1",
			sarama.ConsumerGroupMemberMetadata{Version: 1, Topics: []string{"orders"}, UserData: []byte{9},
				OwnedPartitions: owned},
			wire.Subscription{Version: 1, Topics: []string{"orders"}, UserData: []byte{9},
				OwnedPartitions: wantOwned, GenerationID: -1}),
		saramaSubscription("sarama-subscription-v2",
			sarama.ConsumerGroupMemberMetadata{Version: 2, Topics: []string{"orders"}, UserData: []byte{},
				OwnedPartitions: owned, GenerationID: 12},
			wire.Subscription{Version: 2, Topics: []string{"orders"}, UserData: []byte{},
				OwnedPartitions: wantOwned, GenerationID: 12}),
		saramaSubscription("sarama-subscription-v3-rack",
			sarama.ConsumerGroupMemberMetadata{Version: 3, Topics: []string{"orders", "payments"},
				OwnedPartitions: owned, GenerationID: 3, RackID: ptr("rack-b")},
			wire.Subscription{Version: 3, Topics: []string{"orders", "payments"},
				OwnedPartitions: wantOwned, GenerationID: 3, RackID: ptr("rack-b")}),
		saramaSubscription("sarama-subscription-v3-empty-rack",
			sarama.ConsumerGroupMemberMetadata{Version: 3, Topics: []string{"t"}, GenerationID: -1, RackID: ptr("")},
			wire.Subscription{Version: 3, Topics: []string{"t"}, GenerationID: -1, RackID: ptr("")}),

		saramaAssignment("sarama-assignment-v0",
			sarama.ConsumerGroupMemberAssignment{Version: 0, Topics: map[string][]int32{"orders": {0, 1, 5}}},
			wire.Assignment{Version: 0, Partitions: tps("orders", 0, 1, 5)}),
		saramaAssignment("sarama-assignment-v1",
			sarama.ConsumerGroupMemberAssignment{Version: 1, Topics: map[string][]int32{"orders": {4}}, UserData: []byte{1}},
			wire.Assignment{Version: 1, Partitions: tps("orders", 4), UserData: []byte{1}}),
		saramaAssignment("sarama-assignment-v2",
			sarama.ConsumerGroupMemberAssignment{Version: 2, Topics: map[string][]int32{}},
			wire.Assignment{Version: 2}),
		saramaAssignment("sarama-assignment-v3",
			sarama.ConsumerGroupMemberAssignment{Version: 3, Topics: map[string][]int32{"payments": {2, 0}}, UserData: []byte{}},
			wire.Assignment{Version: 3, Partitions: tps("payments", 2, 0), UserData: []byte{}}),

		{
			Name: "sarama-sticky-v1", Module: saramaModule, Encoder: "sarama.NewBalanceStrategySticky().AssignmentData",
			Message: "sticky", Version: 1,
			Want: wire.StickyUserData{Version: 1, Previous: tps("orders", 2, 3), Generation: 5},
			PeerEncode: func() ([]byte, error) {
				return sarama.NewBalanceStrategySticky().AssignmentData("m1", map[string][]int32{"orders": {2, 3}}, 5)
			},
			PeerDecode: saramaStickyPlanKeeps,
		},
		{
			// sarama has no public encoder of version 0, but its sticky
			// strategy reads version 0 from older clients.
			Name: "sarama-sticky-v0-decode-only", Module: saramaModule, Encoder: "",
			Message: "sticky", Version: 0,
			Want:       wire.StickyUserData{Version: 0, Previous: tps("orders", 2, 3), Generation: -1},
			PeerDecode: saramaStickyPlanKeeps,
		},
	}
}

// Encode returns our encoding of c.Want at c.Version.
func (c Case) Encode() ([]byte, error) {
	switch w := c.Want.(type) {
	case wire.Subscription:
		return w.MarshalBinary()
	case wire.Assignment:
		return w.MarshalBinary()
	case wire.StickyUserData:
		return w.MarshalBinary()
	}
	return nil, fmt.Errorf("case %s: unknown Want %T", c.Name, c.Want)
}

// Vectors runs every peer encoder and returns the vectors file.
func Vectors() (File, error) {
	f := File{Comment: []string{
		"Golden consumer-protocol bytes written by independent implementations.",
		"Generated by `go run ./cmd/wirevectors` in the bench module; do not edit.",
		"Each vector's decoded structure is written by hand in bench/internal/wirevec, not by assign/wire.",
	}}
	for _, c := range Cases() {
		if c.PeerEncode == nil {
			continue
		}
		b, err := c.PeerEncode()
		if err != nil {
			return File{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		v := Vector{
			Name: c.Name, Peer: c.Module + " " + moduleVersion(c.Module), Encoder: c.Encoder,
			Message: c.Message, Version: c.Version, Hex: hex.EncodeToString(b),
		}
		switch w := c.Want.(type) {
		case wire.Subscription:
			v.Subscription = SubscriptionJSON(w)
		case wire.Assignment:
			v.Assignment = AssignmentJSON(w)
		case wire.StickyUserData:
			v.Sticky = StickyJSON(w)
		}
		f.Vectors = append(f.Vectors, v)
	}
	return f, nil
}

// moduleVersion reads the version of the module at path from the bench
// module's go.mod (test binaries carry no dependency versions in their
// build info). Both the generator and the tests run in bench/.
func moduleVersion(path string) string {
	b, err := os.ReadFile("go.mod")
	if err != nil {
		return "(unknown version)"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	return "(unknown version)"
}
