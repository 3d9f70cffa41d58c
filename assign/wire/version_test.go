package wire

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
)

// TestSubscriptionZeroVersionKeepsFields: a Subscription's Version is the
// lowest version to write, never one that drops a field that is set.
// Before, Subscription{} had Version 0, so a caller who filled
// OwnedPartitions and GenerationID and forgot Version: AutoVersion got v0
// bytes without them, and a cooperative leader then revoked everything.
func TestSubscriptionZeroVersionKeepsFields(t *testing.T) {
	rack := "r1"
	owned := []assign.TopicPartition{{Topic: "t", Partition: 0}}
	for _, tc := range []struct {
		name string
		s    Subscription
		want int16 // version written
	}{
		{"zero value with a generation writes v2", Subscription{Topics: []string{"t"}}, 2},
		{"nothing beyond v0 set writes v0", Subscription{Topics: []string{"t"}, GenerationID: DefaultGeneration}, 0},
		{"owned partitions raise v0 to v1", Subscription{OwnedPartitions: owned, GenerationID: DefaultGeneration}, 1},
		{"owned partitions and generation raise v0 to v2", Subscription{OwnedPartitions: owned, GenerationID: 7}, 2},
		{"a rack raises v0 to v3", Subscription{GenerationID: DefaultGeneration, RackID: &rack}, 3},
		{"a rack raises v1 to v3", Subscription{Version: 1, GenerationID: DefaultGeneration, RackID: &rack}, 3},
		{"AutoVersion is the zero value", Subscription{Version: AutoVersion, OwnedPartitions: owned, GenerationID: DefaultGeneration}, 1},
		{"a higher version than needed is kept", Subscription{Version: 3, GenerationID: DefaultGeneration}, 3},
		{"versions above the highest known write it", Subscription{Version: 9, GenerationID: DefaultGeneration}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.s.MarshalBinary()
			if err != nil {
				t.Fatalf("MarshalBinary: %v", err)
			}
			got, err := DecodeSubscription(b)
			if err != nil {
				t.Fatalf("DecodeSubscription: %v", err)
			}
			if got.Version != tc.want {
				t.Errorf("wrote version %d, want %d", got.Version, tc.want)
			}
			if len(got.OwnedPartitions) != len(tc.s.OwnedPartitions) || got.GenerationID != tc.s.GenerationID || (got.RackID == nil) != (tc.s.RackID == nil) {
				t.Errorf("decoded %+v, want the fields of %+v", got, tc.s)
			}
		})
	}
}

func TestSubscriptionNegativeVersionRefused(t *testing.T) {
	_, err := Subscription{Version: -2}.MarshalBinary()
	if !errors.Is(err, ErrUnsupportedVersion) {
		t.Fatalf("MarshalBinary at version -2: %v, want ErrUnsupportedVersion", err)
	}
}

// TestStickyUserDataZeroVersionKeepsGeneration: the same rule for the
// StickyAssignor user data, whose version 0 has no generation.
func TestStickyUserDataZeroVersionKeepsGeneration(t *testing.T) {
	prev := []assign.TopicPartition{{Topic: "t", Partition: 3}}
	for _, tc := range []struct {
		name    string
		d       StickyUserData
		want    int16
		wantGen int32
	}{
		{"zero value: generation 0 writes v1", StickyUserData{Previous: prev}, 1, 0},
		{"a generation raises v0 to v1", StickyUserData{Previous: prev, Generation: 5}, 1, 5},
		{"DefaultGeneration writes v0", StickyUserData{Previous: prev, Generation: DefaultGeneration}, 0, DefaultGeneration},
		{"v1 asked for is kept", StickyUserData{Version: 1, Generation: DefaultGeneration}, 1, DefaultGeneration},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.d.MarshalBinary()
			if err != nil {
				t.Fatalf("MarshalBinary: %v", err)
			}
			got, err := DecodeStickyUserData(b)
			if err != nil {
				t.Fatalf("DecodeStickyUserData: %v", err)
			}
			if got.Version != tc.want || got.Generation != tc.wantGen || len(got.Previous) != len(tc.d.Previous) {
				t.Errorf("decoded %+v, want version %d generation %d and %d partitions", got, tc.want, tc.wantGen, len(tc.d.Previous))
			}
		})
	}
	if _, err := (StickyUserData{Version: 2}).MarshalBinary(); !errors.Is(err, ErrUnsupportedVersion) {
		t.Errorf("version 2: %v, want ErrUnsupportedVersion", err)
	}
}
