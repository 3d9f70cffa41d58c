package bench

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
	"github.com/assigncalc/assigncalc/bench/internal/wirevec"
	"github.com/google/go-cmp/cmp"
)

// TestWireAgainstPeers checks assign/wire against franz-go's kmsg and
// sarama in both directions: we decode what they write into the structure
// written by hand in wirevec, our encoding of that structure is their bytes
// exactly, and they decode our bytes as they decode their own.
func TestWireAgainstPeers(t *testing.T) {
	for _, c := range wirevec.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			ours, err := c.Encode()
			if err != nil {
				t.Fatalf("our encoding: %v", err)
			}
			if c.PeerEncode != nil {
				theirs, err := c.PeerEncode()
				if err != nil {
					t.Fatalf("%s: %v", c.Encoder, err)
				}
				var got any
				switch c.Message {
				case "subscription":
					got, err = wire.DecodeSubscription(theirs)
				case "assignment":
					got, err = wire.DecodeAssignment(theirs)
				case "sticky":
					got, err = wire.DecodeStickyUserData(theirs)
				}
				if err != nil {
					t.Fatalf("decoding %s's %x: %v", c.Encoder, theirs, err)
				}
				if diff := cmp.Diff(c.Want, got); diff != "" {
					t.Errorf("decode(%s) mismatch (-want +got):\n%s", c.Encoder, diff)
				}
				if !bytes.Equal(ours, theirs) {
					t.Errorf("our encoding differs from %s's:\n ours   %x\n theirs %x", c.Encoder, ours, theirs)
				}
			}
			if err := c.PeerDecode(ours); err != nil {
				t.Errorf("the peer decoding our %x: %v", ours, err)
			}
		})
	}
}

// TestWireVectorsUpToDate checks that assign/wire/testdata/vectors.json is
// what the peers in go.mod write today. After upgrading a peer, run
// `go run ./cmd/wirevectors`.
func TestWireVectorsUpToDate(t *testing.T) {
	f, err := wirevec.Vectors()
	if err != nil {
		t.Fatal(err)
	}
	want, err := wirevec.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../assign/wire/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("assign/wire/testdata/vectors.json is stale; run `go run ./cmd/wirevectors` in bench/ (-file +now):\n%s", cmp.Diff(string(got), string(want)))
	}
}

// TestCooperativeUserDataAgainstSarama checks the generation that
// cooperative-sticky members keep in their user data: sarama's bytes are
// ours, and sarama's cooperative leader reads the subscriptions that
// wire.NextSubscription builds as the owners' claims.
func TestCooperativeUserDataAgainstSarama(t *testing.T) {
	for _, gen := range []int32{-1, 0, 7, 1 << 30} {
		s := sarama.NewBalanceStrategyCooperativeSticky()
		s.(sarama.OnAssignmentBalanceStrategy).OnAssignment(nil, gen)
		theirs, err := s.(sarama.SubscriptionUserDataBalanceStrategy).SubscriptionUserData([]string{"orders"})
		if err != nil {
			t.Fatal(err)
		}
		if ours := wire.AppendCooperativeUserData(nil, gen); !bytes.Equal(ours, theirs) {
			t.Errorf("generation %d: our user data %x, sarama's %x", gen, ours, theirs)
		}
		if got, err := wire.DecodeCooperativeUserData(theirs); err != nil || got != gen {
			t.Errorf("DecodeCooperativeUserData(%x) = %d, %v; want %d", theirs, got, err, gen)
		}
	}

	members := map[string]sarama.ConsumerGroupMemberMetadata{}
	claims := map[string][]assign.TopicPartition{
		"m1": {{Topic: "orders", Partition: 2}, {Topic: "orders", Partition: 3}},
		"m2": {{Topic: "orders", Partition: 0}, {Topic: "orders", Partition: 1}},
	}
	for id, owned := range claims {
		sub, err := wire.NextSubscription("cooperative-sticky", []string{"orders"}, owned, 5, "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := sub.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		meta, err := (&sarama.GroupMemberDescription{MemberMetadata: b}).GetMemberMetadata()
		if err != nil {
			t.Fatalf("sarama decoding our subscription %x: %v", b, err)
		}
		members[id] = *meta
	}
	plan, err := sarama.NewBalanceStrategyCooperativeSticky().Plan(members, map[string][]int32{"orders": {0, 1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := sarama.BalanceStrategyPlan{"m1": {"orders": {2, 3}}, "m2": {"orders": {0, 1}}}
	for _, m := range plan {
		for _, ps := range m {
			slices.Sort(ps)
		}
	}
	if diff := cmp.Diff(want, plan); diff != "" {
		t.Errorf("sarama's cooperative plan over our subscriptions mismatch (-want +got):\n%s", diff)
	}
}
