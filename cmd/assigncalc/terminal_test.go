package main

import (
	"os"
	"testing"
)

// TestDevNullIsNotATerminal: /dev/null is a character device but not a
// terminal; output sent there takes the format a file gets (plan's jsonl,
// no colour, no progress), as it once did not.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true, want false", os.DevNull)
	}
}
