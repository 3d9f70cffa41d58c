package jvm

import (
	"fmt"
	"testing"
	"unicode/utf8"
)

// stringHash4 is StringHash as it was before it took eight bytes at a
// time: four, then a rune at a time. BenchmarkStringHash measures the
// two side by side.
func stringHash4(s string) int32 {
	var h int32
	i := 0
	for ; i+4 <= len(s); i += 4 {
		c0, c1, c2, c3 := s[i], s[i+1], s[i+2], s[i+3]
		if c0|c1|c2|c3 >= utf8.RuneSelf {
			break
		}
		h = h*(31*31*31*31) + int32(c0)*(31*31*31) + int32(c1)*(31*31) + int32(c2)*31 + int32(c3)
	}
	for _, r := range s[i:] {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + (0xD800 + r>>10)
			h = 31*h + (0xDC00 + r&0x3FF)
			continue
		}
		h = 31*h + r
	}
	return h
}

// BenchmarkStringHash hashes the thousand member IDs and the thousand
// topic names the KIP-848 assignors hash on every call of
// BenchmarkKIP848/shape=uniform-1000x100000 in package assign.
func BenchmarkStringHash(b *testing.B) {
	var keys []string
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("consumer-%05d", i), fmt.Sprintf("topic-%05d", i))
	}
	for _, impl := range []struct {
		name string
		hash func(string) int32
	}{{"eight", StringHash}, {"four", stringHash4}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			var sink int32
			for b.Loop() {
				for _, k := range keys {
					sink += impl.hash(k)
				}
			}
			if sink == 1 {
				b.Log(sink) // keeps the sum live
			}
		})
	}
}
