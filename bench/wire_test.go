package bench

import (
	"bytes"
	"os"
	"testing"

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
