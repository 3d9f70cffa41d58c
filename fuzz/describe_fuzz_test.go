package fuzz

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/describe"
)

// FuzzDescribeParse feeds arbitrary bytes to the reader of
// kafka-consumer-groups.sh --describe output. It must never panic; it
// refuses with a *describe.Error or reads a snapshot whose group passes
// assign.Group.Validate (describe output can only list partitions of
// topics, with member IDs, that make a valid group) and lists no
// partition twice for one member.
func FuzzDescribeParse(f *testing.F) {
	files, _ := filepath.Glob("../internal/describe/testdata/*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("member,topic,partition\nc0,t,2147483647\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := describe.Parse(bytes.NewReader(data))
		if err != nil {
			var de *describe.Error
			if !errors.As(err, &de) {
				t.Fatalf("Parse error %v is not a *describe.Error", err)
			}
			return
		}
		g, _, err := s.Group(nil, nil)
		if err != nil {
			if !errors.Is(err, describe.ErrSparse) {
				t.Fatalf("Group error %v, want only ErrSparse", err)
			}
			return
		}
		if err := g.Validate(); err != nil && len(g.Members) > 0 {
			// Text can name one instance id twice, or partitions past
			// assign.MaxPartitions: the CLI refuses those as bad input.
			// Anything else is a reader bug.
			if !errors.Is(err, assign.ErrDuplicateInstanceID) && !errors.Is(err, assign.ErrTooManyPartitions) {
				t.Fatalf("Parse gave a group Validate refuses: %v", err)
			}
		}
		for _, m := range s.Members {
			for i := 1; i < len(m.Owned); i++ {
				if m.Owned[i-1] == m.Owned[i] {
					t.Fatalf("member %q lists %v twice", m.ID, m.Owned[i])
				}
			}
		}
	})
}
