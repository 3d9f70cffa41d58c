package assign

import (
	"testing"

	"pgregory.net/rapid"
)

// kip848Valid is TestKIP848Valid's property: every answer of the KIP-848
// assignors passes Verify.
func kip848Valid(t *rapid.T) {
	g := kip848Group(t)
	for _, s := range []Strategy{Uniform{}, Uniform{Kafka: Kafka40}, ServerRange{}} {
		a, err := s.Assign(g)
		if err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
		if err := Verify(g, a); err != nil {
			t.Fatalf("%s: %v", s.Name(), err)
		}
	}
}

func FuzzKIP848(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(kip848Valid))
}
