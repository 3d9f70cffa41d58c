package wire

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// Generators draw every field in its interesting shapes: absent, null,
// empty and set, with topic names that repeat so that partition lists have
// runs and repeats of one topic.

func genTopic() *rapid.Generator[string] {
	return rapid.OneOf(rapid.SampledFrom([]string{"", "a", "b", "orders", "ünïcode"}), rapid.String())
}

func genPartitions() *rapid.Generator[[]assign.TopicPartition] {
	return rapid.Custom(func(t *rapid.T) []assign.TopicPartition {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		if n == 0 {
			return nil // decoders return nil for an empty list
		}
		out := make([]assign.TopicPartition, n)
		for i := range out {
			out[i] = assign.TopicPartition{
				Topic:     genTopic().Draw(t, "topic"),
				Partition: rapid.OneOf(rapid.Int32Range(0, 10), rapid.Int32()).Draw(t, "partition"),
			}
		}
		return out
	})
}

func genBytes() *rapid.Generator[[]byte] {
	return rapid.OneOf(rapid.Just([]byte(nil)), rapid.Just([]byte{}), rapid.SliceOfN(rapid.Byte(), 1, 20))
}

func genSubscription() *rapid.Generator[Subscription] {
	return rapid.Custom(func(t *rapid.T) Subscription {
		s := Subscription{
			Version:         rapid.SampledFrom([]int16{AutoVersion, 0, 1, 2, 3, 4, 17, 32767}).Draw(t, "version"),
			UserData:        genBytes().Draw(t, "userData"),
			OwnedPartitions: genPartitions().Draw(t, "owned"),
			GenerationID:    rapid.OneOf(rapid.Just(DefaultGeneration), rapid.Int32()).Draw(t, "generation"),
		}
		if topics := rapid.SliceOfN(genTopic(), 0, 6).Draw(t, "topics"); len(topics) > 0 {
			s.Topics = topics
		}
		if rapid.Bool().Draw(t, "hasRack") {
			s.RackID = ptr(rapid.OneOf(rapid.Just(""), rapid.String()).Draw(t, "rack"))
		}
		return s
	})
}

// carried returns what a subscription encoded at its version holds: every
// field, at the version asked for raised to the lowest that carries every
// field set (AutoVersion counting as 0) and capped at 3. No field is
// dropped.
func carried(s Subscription) Subscription {
	v := max(s.Version, 0)
	if len(s.OwnedPartitions) > 0 {
		v = max(v, 1)
	}
	if s.GenerationID != -1 {
		v = max(v, 2)
	}
	if s.RackID != nil {
		v = 3
	}
	s.Version = min(v, 3)
	return s
}

func TestSubscriptionRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSubscription().Draw(t, "s")
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
		got, err := DecodeSubscription(b)
		if err != nil {
			t.Fatalf("DecodeSubscription(MarshalBinary(s)): %v", err)
		}
		if diff := cmp.Diff(carried(s), got); diff != "" {
			t.Fatalf("DecodeSubscription(MarshalBinary(s)) mismatch (-want +got):\n%s", diff)
		}
		again, err := got.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding the decoded subscription gave %x, %v; want %x", again, err, b)
		}
	})
}

func TestAssignmentRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := Assignment{
			Version:    rapid.SampledFrom([]int16{AutoVersion, 0, 1, 2, 3, 4, 100}).Draw(t, "version"),
			Partitions: genPartitions().Draw(t, "partitions"),
			UserData:   genBytes().Draw(t, "userData"),
		}
		b, err := a.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
		got, err := DecodeAssignment(b)
		if err != nil {
			t.Fatalf("DecodeAssignment(MarshalBinary(a)): %v", err)
		}
		want := a
		want.Version = min(max(a.Version, 0), 3) // AutoVersion writes 0; above 3 writes 3
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("DecodeAssignment(MarshalBinary(a)) mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestStickyUserDataRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := StickyUserData{
			Version:    rapid.SampledFrom([]int16{AutoVersion, 0, 1}).Draw(t, "version"),
			Previous:   genPartitions().Draw(t, "previous"),
			Generation: rapid.OneOf(rapid.Just(DefaultGeneration), rapid.Int32()).Draw(t, "generation"),
		}
		b, err := d.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary: %v", err)
		}
		got, err := DecodeStickyUserData(b)
		if err != nil {
			t.Fatalf("DecodeStickyUserData(MarshalBinary(d)): %v", err)
		}
		want := d // every field kept; version 1 whenever it carries a generation
		want.Version = max(d.Version, 0)
		if d.Generation != -1 {
			want.Version = 1
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("DecodeStickyUserData(MarshalBinary(d)) mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestCooperativeUserDataRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.Int32().Draw(t, "generation")
		b := AppendCooperativeUserData(nil, gen)
		if len(b) != 4 {
			t.Fatalf("AppendCooperativeUserData(%d) = %x; want 4 bytes", gen, b)
		}
		got, err := DecodeCooperativeUserData(b)
		if err != nil || got != gen {
			t.Fatalf("DecodeCooperativeUserData(%x) = %d, %v; want %d", b, got, err, gen)
		}
	})
}

func TestEncodeErrors(t *testing.T) {
	long := string(make([]byte, 1<<15))
	tests := []struct {
		name string
		enc  func() ([]byte, error)
		want error
	}{
		{"subscription version -2", Subscription{Version: -2}.MarshalBinary, ErrUnsupportedVersion},
		{"assignment version -7", Assignment{Version: -7}.MarshalBinary, ErrUnsupportedVersion},
		{"sticky user data version 2", StickyUserData{Version: 2}.MarshalBinary, ErrUnsupportedVersion},
		{"topic of 32768 bytes", Subscription{Topics: []string{long}}.MarshalBinary, ErrTooLong},
		{"rack of 32768 bytes", Subscription{RackID: &long, Version: 3}.MarshalBinary, ErrTooLong},
		{"assigned topic of 32768 bytes", Assignment{Partitions: []assign.TopicPartition{{Topic: long}}}.MarshalBinary, ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.enc()
			if !errors.Is(err, tt.want) {
				t.Errorf("encode = %x, %v; want error %v", b, err, tt.want)
			}
		})
	}
}

// TestHugeDeclaredArrayIsRefusedWithoutAllocating feeds 1 KiB inputs whose
// first length declares about 2 GiB, and checks that each decoder refuses
// them having allocated only its error.
func TestHugeDeclaredArrayIsRefusedWithoutAllocating(t *testing.T) {
	pad := func(b []byte) []byte { return append(b, make([]byte, 1024-len(b))...) }
	inputs := []struct {
		name   string
		b      []byte
		decode func([]byte) error
	}{
		{"subscription with 2^30 topics", pad(unhex(t, "0000 40000000")),
			func(b []byte) error { _, err := DecodeSubscription(b); return err }},
		{"subscription with 2 GiB of user data", pad(unhex(t, "0000 00000000 7fffffff")),
			func(b []byte) error { _, err := DecodeSubscription(b); return err }},
		{"subscription owning 2^29 partitions of one topic", pad(unhex(t, "0001 00000000 ffffffff 00000001 0001 61 20000000")),
			func(b []byte) error { _, err := DecodeSubscription(b); return err }},
		{"assignment of 2^28 topics", pad(unhex(t, "0000 10000000")),
			func(b []byte) error { _, err := DecodeAssignment(b); return err }},
		{"sticky user data of 2^29 partitions", pad(unhex(t, "00000001 0001 61 20000000")),
			func(b []byte) error { _, err := DecodeStickyUserData(b); return err }},
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			if err := in.decode(in.b); !errors.Is(err, ErrTruncated) {
				t.Fatalf("decode error = %v; want ErrTruncated", err)
			}
			allocs := testing.AllocsPerRun(100, func() { _ = in.decode(in.b) })
			if allocs > 8 {
				t.Errorf("refusing took %v allocations per run; want at most 8 (the error)", allocs)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range 100 {
				_ = in.decode(in.b)
			}
			runtime.ReadMemStats(&after)
			perRun := (after.TotalAlloc - before.TotalAlloc) / 100
			t.Logf("refused with %v allocations, %d bytes per run", allocs, perRun)
			if perRun > 1024 {
				t.Errorf("refusing allocated %d bytes per run; want at most 1 KiB", perRun)
			}
		})
	}
}

// TestDecodeAllocatesAFewTimesItsInput decodes large valid messages and
// bounds the bytes allocated by a small multiple of the input.
func TestDecodeAllocatesAFewTimesItsInput(t *testing.T) {
	var parts []assign.TopicPartition
	for p := range 10000 {
		parts = append(parts, assign.TopicPartition{Topic: "t", Partition: int32(p)})
	}
	topics := make([]string, 5000)
	for i := range topics {
		topics[i] = "x"
	}
	sub, _ := Subscription{Version: 3, Topics: topics, OwnedPartitions: parts}.MarshalBinary()
	asg, _ := Assignment{Partitions: parts}.MarshalBinary()
	for _, in := range []struct {
		name   string
		b      []byte
		decode func([]byte) error
	}{
		{"subscription", sub, func(b []byte) error { _, err := DecodeSubscription(b); return err }},
		{"assignment", asg, func(b []byte) error { _, err := DecodeAssignment(b); return err }},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := in.decode(in.b); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		n := after.TotalAlloc - before.TotalAlloc
		t.Logf("decoding a %d-byte %s allocated %d bytes (%.1fx)", len(in.b), in.name, n, float64(n)/float64(len(in.b)))
		if n > 8*uint64(len(in.b)) {
			t.Errorf("decoding a %d-byte %s allocated %d bytes; want at most 8 times the input", len(in.b), in.name, n)
		}
	}
}
