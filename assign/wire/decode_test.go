package wire

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// unhex turns a hex string with spaces (one group per field, written by hand
// from Kafka's schemas) into bytes.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatalf("bad hex %q: %v", s, err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

func tps(topicParts ...any) []assign.TopicPartition {
	var out []assign.TopicPartition
	var topic string
	for _, x := range topicParts {
		switch x := x.(type) {
		case string:
			topic = x
		case int:
			out = append(out, assign.TopicPartition{Topic: topic, Partition: int32(x)})
		}
	}
	return out
}

func TestDecodeSubscription(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want Subscription
	}{{
		name: "v0 one topic, null user data",
		hex:  "0000 00000001 0001 74 ffffffff",
		want: Subscription{Version: 0, Topics: []string{"t"}, GenerationID: -1},
	}, {
		name: "v0 empty user data is not null",
		hex:  "0000 00000000 00000000",
		want: Subscription{Version: 0, UserData: []byte{}, GenerationID: -1},
	}, {
		name: "v1 owned partitions of two topics",
		hex:  "0001 00000001 0001 61 00000002 beef 00000002 0001 61 00000002 00000000 00000003 0001 62 00000001 00000007",
		want: Subscription{Version: 1, Topics: []string{"a"}, UserData: []byte{0xbe, 0xef},
			OwnedPartitions: tps("a", 0, 3, "b", 7), GenerationID: -1},
	}, {
		name: "v2 generation",
		hex:  "0002 00000000 ffffffff 00000000 0000002a",
		want: Subscription{Version: 2, GenerationID: 42},
	}, {
		name: "v3 rack and everything",
		hex:  "0003 00000002 0001 61 0001 62 00000000 00000001 0001 61 00000002 00000000 00000001 00000005 0002 7231",
		want: Subscription{Version: 3, Topics: []string{"a", "b"}, UserData: []byte{},
			OwnedPartitions: tps("a", 0, 1), GenerationID: 5, RackID: ptr("r1")},
	}, {
		name: "v3 null rack",
		hex:  "0003 00000000 ffffffff 00000000 ffffffff ffff",
		want: Subscription{Version: 3, GenerationID: -1},
	}, {
		name: "v3 empty rack is not null",
		hex:  "0003 00000000 ffffffff 00000000 ffffffff 0000",
		want: Subscription{Version: 3, GenerationID: -1, RackID: ptr("")},
	}, {
		name: "a topic entry without partitions adds nothing",
		hex:  "0001 00000000 ffffffff 00000002 0001 61 00000000 0001 62 00000001 00000009",
		want: Subscription{Version: 1, OwnedPartitions: tps("b", 9), GenerationID: -1},
	}, {
		// Kafka's forward compatibility: version 9 is read as version 3
		// and whatever a newer client appended is ignored.
		name: "unknown version 9 read as v3, trailing fields ignored",
		hex:  "0009 00000001 0001 74 ffffffff 00000000 00000003 0001 7a 01020304 05",
		want: Subscription{Version: 9, Topics: []string{"t"}, GenerationID: 3, RackID: ptr("z")},
	}, {
		name: "trailing bytes after a known version are ignored, as Kafka does",
		hex:  "0000 00000000 ffffffff dead",
		want: Subscription{Version: 0, GenerationID: -1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeSubscription(unhex(t, tt.hex))
			if err != nil {
				t.Fatalf("DecodeSubscription: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeSubscription(%s) mismatch (-want +got):\n%s", tt.hex, diff)
			}
		})
	}
}

func TestDecodeAssignment(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want Assignment
	}{{
		name: "v0 nothing assigned, null user data",
		hex:  "0000 00000000 ffffffff",
		want: Assignment{Version: 0},
	}, {
		name: "v3 two topics and user data",
		hex:  "0003 00000002 0001 61 00000001 00000002 0001 62 00000002 00000000 00000001 00000001 ff",
		want: Assignment{Version: 3, Partitions: tps("a", 2, "b", 0, 1), UserData: []byte{0xff}},
	}, {
		name: "a topic repeated in two entries keeps wire order",
		hex:  "0001 00000002 0001 61 00000001 00000002 0001 61 00000001 00000000 ffffffff",
		want: Assignment{Version: 1, Partitions: tps("a", 2, "a", 0)},
	}, {
		name: "unknown version 4 with a trailing field",
		hex:  "0004 00000000 00000000 0000",
		want: Assignment{Version: 4, UserData: []byte{}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeAssignment(unhex(t, tt.hex))
			if err != nil {
				t.Fatalf("DecodeAssignment: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeAssignment(%s) mismatch (-want +got):\n%s", tt.hex, diff)
			}
		})
	}
}

func TestDecodeStickyUserData(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		want StickyUserData
	}{{
		name: "v0: no generation after the list",
		hex:  "00000001 0001 74 00000002 00000000 00000001",
		want: StickyUserData{Version: 0, Previous: tps("t", 0, 1), Generation: -1},
	}, {
		name: "v1: generation after the list",
		hex:  "00000001 0001 74 00000001 00000003 00000007",
		want: StickyUserData{Version: 1, Previous: tps("t", 3), Generation: 7},
	}, {
		// Kafka reads v1, fails for want of four bytes, and falls back to
		// v0, which ignores what is left.
		name: "three bytes after the list: v0",
		hex:  "00000000 010203",
		want: StickyUserData{Version: 0, Generation: -1},
	}, {
		name: "bytes after the generation are ignored",
		hex:  "00000000 00000002 ffff",
		want: StickyUserData{Version: 1, Generation: 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeStickyUserData(unhex(t, tt.hex))
			if err != nil {
				t.Fatalf("DecodeStickyUserData: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DecodeStickyUserData(%s) mismatch (-want +got):\n%s", tt.hex, diff)
			}
		})
	}
}

func TestDecodeCooperativeUserData(t *testing.T) {
	gen, err := DecodeCooperativeUserData(unhex(t, "00000010 ff"))
	if err != nil || gen != 16 {
		t.Errorf("DecodeCooperativeUserData(00000010ff) = %d, %v; want 16, nil", gen, err)
	}
	_, err = DecodeCooperativeUserData(unhex(t, "000000"))
	var de *DecodeError
	if !errors.As(err, &de) || de.Field != "generation" || de.Offset != 0 || !errors.Is(err, ErrTruncated) {
		t.Errorf("DecodeCooperativeUserData(000000) error = %v; want a truncated generation at offset 0", err)
	}
}

// TestDecodeErrors feeds broken bytes and checks that each is refused with
// the field, offset and kind of problem counted by hand from the schema.
func TestDecodeErrors(t *testing.T) {
	type want struct {
		Field  string
		Offset int
		Err    error
	}
	tests := []struct {
		name    string
		message string // subscription, assignment, sticky
		hex     string
		want    want
	}{
		{"empty input", "subscription", "", want{"version", 0, ErrTruncated}},
		{"half a version", "assignment", "00", want{"version", 0, ErrTruncated}},
		{"negative version", "subscription", "ffff 00000000 ffffffff", want{"version", 0, ErrUnsupportedVersion}},
		{"negative assignment version", "assignment", "8000", want{"version", 0, ErrUnsupportedVersion}},
		{"null topics", "subscription", "0000 ffffffff", want{"topics", 2, ErrUnexpectedNull}},
		{"negative topic count", "subscription", "0000 fffffffe", want{"topics", 2, ErrNegativeLength}},
		{"topic count beyond the input", "subscription", "0000 00000004 0001 61 0001 62", want{"topics", 2, ErrTruncated}},
		{"third topic missing", "subscription", "0000 00000003 0001 61 0001 62", want{"topics[2]", 12, ErrTruncated}},
		{"truncated topic count", "subscription", "0000 0000", want{"topics", 2, ErrTruncated}},
		{"topic longer than the input", "subscription", "0000 00000001 0005 6162", want{"topics[0]", 6, ErrTruncated}},
		{"null topic", "subscription", "0000 00000001 ffff", want{"topics[0]", 6, ErrUnexpectedNull}},
		{"negative topic length", "subscription", "0000 00000002 0000 fffe", want{"topics[1]", 8, ErrNegativeLength}},
		{"missing user data", "subscription", "0000 00000000", want{"user_data", 6, ErrTruncated}},
		{"negative user data length", "subscription", "0000 00000000 fffffffe", want{"user_data", 6, ErrNegativeLength}},
		{"user data longer than the input", "subscription", "0000 00000000 00000010 00", want{"user_data", 6, ErrTruncated}},
		{"v1 without owned partitions", "subscription", "0001 00000000 ffffffff", want{"owned_partitions", 10, ErrTruncated}},
		{"null owned partitions", "subscription", "0001 00000000 ffffffff ffffffff", want{"owned_partitions", 10, ErrUnexpectedNull}},
		{"owned partition count beyond the input", "subscription", "0001 00000000 ffffffff 00000001 0001 61 00000002 00000000", want{"owned_partitions[0].partitions", 17, ErrTruncated}},
		{"null owned topic", "subscription", "0001 00000000 ffffffff 00000001 ffff 00000000", want{"owned_partitions[0].topic", 14, ErrUnexpectedNull}},
		{"v2 without generation", "subscription", "0002 00000000 ffffffff 00000000 0000", want{"generation_id", 14, ErrTruncated}},
		{"v3 without rack", "subscription", "0003 00000000 ffffffff 00000000 ffffffff", want{"rack_id", 18, ErrTruncated}},
		{"v3 negative rack length", "subscription", "0003 00000000 ffffffff 00000000 ffffffff fffe", want{"rack_id", 18, ErrNegativeLength}},
		{"v3 rack longer than the input", "subscription", "0003 00000000 ffffffff 00000000 ffffffff 0003 6162", want{"rack_id", 18, ErrTruncated}},
		{"assigned partition count beyond the input", "assignment", "0000 00000001 0001 61 00000002 00000007", want{"assigned_partitions[0].partitions", 9, ErrTruncated}},
		{"negative assigned partition count", "assignment", "0000 00000001 0001 61 80000000", want{"assigned_partitions[0].partitions", 9, ErrNegativeLength}},
		{"second assigned topic truncated", "assignment", "0000 00000002 0001 61 00000000 0006 62 ffffffff", want{"assigned_partitions[1].topic", 13, ErrTruncated}},
		{"assignment without user data", "assignment", "0000 00000000", want{"user_data", 6, ErrTruncated}},
		{"null assigned partitions", "assignment", "0000 ffffffff ffffffff", want{"assigned_partitions", 2, ErrUnexpectedNull}},
		{"empty sticky user data", "sticky", "", want{"previous_assignment", 0, ErrTruncated}},
		{"sticky count beyond the input", "sticky", "00000001 0001", want{"previous_assignment", 0, ErrTruncated}},
		{"sticky topic beyond the input", "sticky", "00000001 0009 61 00000000", want{"previous_assignment[0].topic", 4, ErrTruncated}},
		{"sticky null previous assignment", "sticky", "ffffffff 00000001", want{"previous_assignment", 0, ErrUnexpectedNull}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := unhex(t, tt.hex)
			var err error
			switch tt.message {
			case "subscription":
				_, err = DecodeSubscription(b)
			case "assignment":
				_, err = DecodeAssignment(b)
			case "sticky":
				_, err = DecodeStickyUserData(b)
			}
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("decode %s(%s) error = %v; want a *DecodeError", tt.message, tt.hex, err)
			}
			got := want{de.Field, de.Offset, de.Err}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("decode %s(%s) error %q mismatch (-want +got):\n%s", tt.message, tt.hex, err, diff)
			}
		})
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	// A v1 subscription of topic "orders" with four bytes of user data,
	// whose only owned topic "inventory" declares 2^31-1 partitions at
	// offset 37 with three partitions' worth of bytes after it.
	b := unhex(t, "0001 00000001 0006 6f7264657273 00000004 01020304 00000001 0009 696e76656e746f7279 7fffffff 00000000 00000001 00000002")
	_, err := DecodeSubscription(b)
	want := "wire: subscription v1: owned_partitions[0].partitions: count 2147483647 at offset 37 exceeds the 12 bytes left"
	if err == nil || err.Error() != want {
		t.Errorf("DecodeSubscription error = %v\nwant %s", err, want)
	}
	if !errors.Is(err, ErrTruncated) {
		t.Errorf("errors.Is(%v, ErrTruncated) = false", err)
	}
	_, err = DecodeSubscription(nil)
	if want := "wire: subscription: version: need 2 bytes at offset 0, 0 left"; err == nil || err.Error() != want {
		t.Errorf("DecodeSubscription(nil) error = %v\nwant %s", err, want)
	}
}
