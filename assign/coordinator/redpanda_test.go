package coordinator

import (
	"errors"
	"testing"
)

// TestRedpandaPartition: the vectors were computed by an implementation
// of XXH64 written separately, in Python, from the xxHash specification
// (itself checked against the specification's XXH64("") =
// 0xef46db3751d8e999 and XXH64("abc") = 0x44bc2cf5ad770999), and of the
// jump consistent hash from Lamping and Veach's paper.
func TestRedpandaPartition(t *testing.T) {
	tests := []struct {
		group string
		hash  uint64
		// partitions over 1, 16 (Redpanda's default), 50 and 1000
		p1, p16, p50, p1000 int32
	}{
		{"", 0xef46db3751d8e999, 0, 7, 40, 332},
		{"abc", 0x44bc2cf5ad770999, 0, 14, 24, 722},
		{"my-group", 0xafb53c4e3c095338, 0, 4, 20, 211},
		{"checkout-service", 0x1e76d783a40cadad, 0, 11, 23, 111},
		{"orders-app", 0x0f949c5c3f3c2d49, 0, 10, 10, 953},
		{"a-group-id-longer-than-thirty-two-bytes-to-stripe", 0x64de76edc0013e73, 0, 4, 4, 759}, // XXH64's 32-byte stripes
		{"größe", 0xe6bebd6647f502a5, 0, 14, 30, 518},                                           // hashed as UTF-8 bytes
	}
	for _, tt := range tests {
		if h := RedpandaGroupHash(tt.group); h != tt.hash {
			t.Errorf("RedpandaGroupHash(%q) = %#x, want %#x", tt.group, h, tt.hash)
		}
		for n, want := range map[int32]int32{1: tt.p1, 16: tt.p16, 50: tt.p50, 1000: tt.p1000} {
			got, err := RedpandaPartition(tt.group, n)
			if err != nil || got != want {
				t.Errorf("RedpandaPartition(%q, %d) = %d, %v; want %d", tt.group, n, got, err, want)
			}
		}
	}
	if _, err := RedpandaPartition("g", 0); !errors.Is(err, ErrOffsetsPartitions) {
		t.Errorf("RedpandaPartition with 0 partitions: %v, want ErrOffsetsPartitions", err)
	}
}

// TestJumpHashByHand: worked by hand. Key 0 steps to key 1, whose top 31
// bits are 0, so the next jump is to (0+1) * 2^31 / 1 = 2^31: beyond any
// int32 count of buckets, and the key stays in bucket 0.
func TestJumpHashByHand(t *testing.T) {
	for _, n := range []int32{1, 2, 16, 1 << 30, 1<<31 - 1} {
		if got := jumpHash(0, n); got != 0 {
			t.Errorf("jumpHash(0, %d) = %d, want 0", n, got)
		}
	}
}

// TestJumpHashMonotone: the property the hash is chosen for: growing the
// topic from n to n+1 partitions either keeps a group where it was or
// moves it to the new partition n.
func TestJumpHashMonotone(t *testing.T) {
	for k := range uint64(2000) {
		key := k * 0x9e3779b97f4a7c15
		prev := jumpHash(key, 1)
		for n := int32(2); n <= 64; n++ {
			p := jumpHash(key, n)
			if p != prev && p != n-1 {
				t.Fatalf("key %#x: %d partitions put it at %d, %d at %d", key, n-1, prev, n, p)
			}
			prev = p
		}
	}
}
