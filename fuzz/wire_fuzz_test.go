package fuzz

import (
	"errors"
	"testing"

	"github.com/assigncalc/assigncalc/assign/wire"
	"github.com/google/go-cmp/cmp"
)

// The wire fuzz targets feed arbitrary bytes to each decoder of
// assign/wire. Whatever the bytes, the decoder must not panic and must
// either refuse them with a *wire.DecodeError or return a value that
// encodes to bytes decoding to the same value. Seeds are the golden vectors
// franz-go and sarama wrote (testdata/fuzz/FuzzX/, from
// bench/cmd/wirevectors).

func refusedProperly(t *testing.T, b []byte, err error) {
	var de *wire.DecodeError
	if !errors.As(err, &de) {
		t.Fatalf("decoding %x: error %v (%T) is not a *wire.DecodeError", b, err, err)
	}
	if de.Offset < 0 || de.Offset > len(b) {
		t.Fatalf("decoding %x: error %v has offset %d outside the input", b, err, de.Offset)
	}
}

func FuzzDecodeSubscription(f *testing.F) {
	f.Add([]byte{0, 3, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := wire.DecodeSubscription(b)
		if err != nil {
			refusedProperly(t, b, err)
			return
		}
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding %+v decoded from %x: %v", s, b, err)
		}
		again, err := wire.DecodeSubscription(enc)
		if err != nil {
			t.Fatalf("decoding the re-encoding %x of %x: %v", enc, b, err)
		}
		// A version above the highest known one is written as that one.
		s.Version = min(s.Version, wire.MaxSubscriptionVersion)
		if diff := cmp.Diff(s, again); diff != "" {
			t.Fatalf("subscription %x re-encoded as %x decodes differently (-first +again):\n%s", b, enc, diff)
		}
	})
}

func FuzzDecodeAssignment(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := wire.DecodeAssignment(b)
		if err != nil {
			refusedProperly(t, b, err)
			return
		}
		enc, err := a.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding %+v decoded from %x: %v", a, b, err)
		}
		again, err := wire.DecodeAssignment(enc)
		if err != nil {
			t.Fatalf("decoding the re-encoding %x of %x: %v", enc, b, err)
		}
		a.Version = min(a.Version, wire.MaxAssignmentVersion)
		if diff := cmp.Diff(a, again); diff != "" {
			t.Fatalf("assignment %x re-encoded as %x decodes differently (-first +again):\n%s", b, enc, diff)
		}
	})
}

func FuzzDecodeStickyUserData(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := wire.DecodeStickyUserData(b)
		if err != nil {
			refusedProperly(t, b, err)
			return
		}
		enc, err := d.MarshalBinary()
		if err != nil {
			t.Fatalf("re-encoding %+v decoded from %x: %v", d, b, err)
		}
		again, err := wire.DecodeStickyUserData(enc)
		if err != nil {
			t.Fatalf("decoding the re-encoding %x of %x: %v", enc, b, err)
		}
		if diff := cmp.Diff(d, again); diff != "" {
			t.Fatalf("sticky user data %x re-encoded as %x decodes differently (-first +again):\n%s", b, enc, diff)
		}
	})
}
