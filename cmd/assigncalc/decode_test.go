package main

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// Consumer protocol messages written out by hand from Kafka's schema
// (ConsumerProtocolSubscription.json, ConsumerProtocolAssignment.json):
// int16 version, arrays with an int32 count, strings with an int16 length,
// nullable bytes with an int32 length (-1 = null).
var (
	// v0: topics [t1], user_data null.
	subV0 = "0000" + "00000001" + "0002" + "7431" + "ffffffff"
	// v1: topics [t1], user_data null, owned t1 [0, 1].
	subV1 = "0001" + "00000001" + "0002" + "7431" + "ffffffff" + "00000001" + "0002" + "7431" + "00000002" + "00000000" + "00000001"
	// v3: topics [t1, t2], user_data 2 bytes, no owned, generation 5, rack "a".
	subV3 = "0003" + "00000002" + "0002" + "7431" + "0002" + "7432" + "00000002" + "abcd" + "00000000" + "00000005" + "0001" + "61"
	// v1: topics [t1], user_data 4 bytes (cooperative-sticky's
	// generation 7), owned t1 [0, 1].
	subCoop = "0001" + "00000001" + "0002" + "7431" + "00000004" + "00000007" + "00000001" + "0002" + "7431" + "00000002" + "00000000" + "00000001"
	// v0: topics [t1], user_data 20 bytes: sticky v1 data, previous t1 [0],
	// generation 3.
	subSticky = "0000" + "00000001" + "0002" + "7431" + "00000014" + stickyV1
	// assignment v0: t1 [2], user_data null.
	asgV0 = "0000" + "00000001" + "0002" + "7431" + "00000001" + "00000002" + "ffffffff"
	// sticky user data v1: previous t1 [0], generation 3.
	stickyV1 = "00000001" + "0002" + "7431" + "00000001" + "00000000" + "00000003"
)

// TestDecodeTrailingAndUserData reads what decode says of bytes after the
// known fields (two, 0x0102, after a v3 subscription) and of user data
// inside a subscription, both worked out from the layouts above.
func TestDecodeTrailingAndUserData(t *testing.T) {
	tests := []struct {
		hex  string
		want []string
	}{
		{subV3 + "0102", []string{"trailing         2 bytes after the last field this decoder knows", ": 0102", "encoding         hex"}},
		{subV3, []string{"trailing         none"}},
		{subCoop, []string{"userDataAs       cooperative-sticky: generation 7"}},
		{subSticky, []string{"userDataAs       sticky: previous t1(0), generation 3"}},
		{subV0, []string{"userDataAs       -"}},
	}
	for _, tt := range tests {
		stdout, stderr, status := runCase(cliCase{args: []string{"decode", "subscription", tt.hex}})
		if status != 0 {
			t.Fatalf("decode %s: exit %d, %s", tt.hex, status, stderr)
		}
		for _, w := range tt.want {
			if !strings.Contains(stdout, w) {
				t.Errorf("decode %s:\n%s\nwant it to contain %q", tt.hex, stdout, w)
			}
		}
	}
	stdout, _, _ := runCase(cliCase{args: []string{"decode", "subscription", b64(subV3)}})
	if !strings.Contains(stdout, "encoding         base64") {
		t.Errorf("decode of base64 does not say so:\n%s", stdout)
	}
}

func b64(h string) string {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestDecodeGolden(t *testing.T) {
	runGolden(t, []cliCase{
		{name: "decode_subscription_v0", args: []string{"decode", "subscription", subV0}},
		{name: "decode_subscription_v1_json", args: []string{"decode", "--format", "json", "subscription", subV1}},
		{name: "decode_subscription_v3_jsonl", args: []string{"decode", "--format", "jsonl", "subscription", subV3}},
		{name: "decode_subscription_base64", args: []string{"decode", "subscription", b64(subV3)}},
		{name: "decode_assignment", args: []string{"decode", "assignment", "0x" + asgV0}},
		{name: "decode_sticky", args: []string{"decode", "--format", "jsonl", "sticky", stickyV1}},
		{name: "decode_subscription_csv", args: []string{"decode", "--format", "csv", "subscription", subV1}},
		{name: "decode_cooperative", args: []string{"decode", "cooperative", "00000007"}},
		{name: "decode_stdin_text", args: []string{"decode", "assignment", "-"}, stdin: asgV0 + "\n"},
		{name: "decode_stdin_raw", args: []string{"decode", "--encoding", "raw", "assignment", "-"}, stdin: string(mustHex(asgV0))},
		{name: "decode_truncated", args: []string{"decode", "subscription", subV0[:len(subV0)-2]}, status: 2},
		{name: "decode_truncated_owned", args: []string{"decode", "subscription", subV1[:len(subV1)-8]}, status: 2},
		{name: "decode_not_hex_or_base64", args: []string{"decode", "subscription", "zz!"}, status: 2},
		{name: "decode_unknown_kind", args: []string{"decode", "metadata", subV0}, status: 2},
		{name: "decode_missing_bytes", args: []string{"decode", "subscription"}, status: 2},
		{name: "decode_subscription_trailing", args: []string{"decode", "subscription", subV3 + "0102"}},
		{name: "decode_subscription_cooperative_user_data", args: []string{"decode", "--format", "json", "subscription", subCoop}},
		{name: "decode_subscription_sticky_user_data", args: []string{"decode", "subscription", subSticky}},
		{name: "decode_base64_garbage", args: []string{"decode", "subscription", "zzzz"}, status: 2},
	})
}

func mustHex(h string) []byte {
	b, err := hex.DecodeString(h)
	if err != nil {
		panic(err)
	}
	return b
}

// TestDecodeTruncatedNamesFieldAndOffset: the last byte of the v1
// subscription's second owned partition is cut, so the partitions' count
// (2, needing 8 bytes) exceeds what is left. The error must name the field
// and the offset of that count: 2 (version) + 4 + 4 (topics [t1]) + 4 (null
// user data) + 4 (owned count) + 4 (topic t1) = 22.
func TestDecodeTruncatedNamesFieldAndOffset(t *testing.T) {
	_, stderr, status := runCase(cliCase{args: []string{"decode", "subscription", subV1[:len(subV1)-2]}})
	if status != exitInput {
		t.Errorf("exit status %d, want %d", status, exitInput)
	}
	for _, want := range []string{"owned_partitions[0].partitions", "offset 22"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not contain %q", stderr, want)
		}
	}
}
