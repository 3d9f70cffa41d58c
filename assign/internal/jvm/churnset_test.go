package jvm

import (
	"testing"

	"pgregory.net/rapid"
)

// TestTopicPartitionHash checks TopicPartitionHash against values worked
// by hand from TopicPartition.hashCode's formula, 31 * (31 + partition) +
// topic.hashCode(): "t0".hashCode() is 116*31 + 48 = 3644.
func TestTopicPartitionHash(t *testing.T) {
	for _, c := range []struct {
		topic     string
		partition int32
		want      int32
	}{
		{"t0", 0, 961 + 3644},
		{"t0", 3, 31*34 + 3644},
		{"", 7, 31 * 38},
	} {
		if got := TopicPartitionHash(StringHash(c.topic), c.partition); got != c.want {
			t.Errorf("TopicPartitionHash(%q, %d) = %d, want %d", c.topic, c.partition, got, c.want)
		}
	}
}

// naiveChurnTable is the reference for ChurnSet: Java's table written out,
// buckets as insertion-ordered lists; an add appends to its bucket, a
// remove deletes from it, and a resize puts every entry again, in the old
// iteration order, into a table twice as large.
type naiveChurnTable struct {
	table  [][]int32 // bucket => keys
	size   int
	hashes map[int32]int32
	tree   bool
}

func (n *naiveChurnTable) bucket(k int32, c int) int {
	h := Spread(n.hashes[k])
	return int(uint32(h) & uint32(c-1))
}

func (n *naiveChurnTable) resize() {
	old := n.table
	n.table = make([][]int32, 2*len(old))
	for _, b := range old {
		for _, k := range b {
			i := n.bucket(k, len(n.table))
			n.table[i] = append(n.table[i], k)
		}
	}
}

func (n *naiveChurnTable) add(k int32) {
	if n.table == nil {
		n.table = make([][]int32, 16)
	}
	i := n.bucket(k, len(n.table))
	for _, e := range n.table[i] {
		if e == k {
			return
		}
	}
	n.table[i] = append(n.table[i], k)
	if len(n.table[i]) >= 9 {
		if len(n.table) < 64 {
			n.resize()
		} else {
			n.tree = true
		}
	}
	n.size++
	if n.size > len(n.table)*3/4 {
		n.resize()
	}
}

func (n *naiveChurnTable) remove(k int32) {
	if n.table == nil {
		return
	}
	i := n.bucket(k, len(n.table))
	for j, e := range n.table[i] {
		if e == k {
			n.table[i] = append(n.table[i][:j], n.table[i][j+1:]...)
			n.size--
			return
		}
	}
}

func (n *naiveChurnTable) first() (int32, bool) {
	for _, b := range n.table {
		if len(b) > 0 {
			return b[0], true
		}
	}
	return 0, false
}

func TestChurnSetMatchesNaiveTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Keys from a narrow range with hashes that crowd buckets reach
		// the collision-driven resizes of small tables.
		crowd := rapid.Bool().Draw(t, "crowd")
		ref := &naiveChurnTable{hashes: map[int32]int32{}}
		var s ChurnSet[int32]
		for i := range rapid.IntRange(1, 300).Draw(t, "ops") {
			k := rapid.Int32Range(0, 120).Draw(t, "key")
			h := k * 7919
			if crowd {
				h = k << 10 // equal low bits: one bucket of tables up to 1024
			}
			ref.hashes[k] = h
			if rapid.IntRange(0, 2).Draw(t, "op") == 0 {
				s.Remove(k)
				ref.remove(k)
			} else {
				s.Add(k, h)
				ref.add(k)
			}
			if ref.tree {
				return // the naive table has no tree bins: TestChurnSetFromJDK holds those
			}
			want, wok := ref.first()
			got, gok := s.First()
			if want != got || wok != gok || s.Len() != ref.size {
				t.Fatalf("op %d: First() = %d, %v (len %d), want %d, %v (len %d)", i, got, gok, s.Len(), want, wok, ref.size)
			}
		}
	})
}

// TestChurnSetIdentityHash: keys whose hashes share their low six bits
// fill bucket 0 of every table up to 64 buckets; the ninth and tenth adds
// double the table (16 to 32 to 64 buckets), the eleventh turns the bucket
// into a tree. Two distinct keys of equal hash in that tree are ordered by
// System.identityHashCode, which ChurnSet must report; eleven distinct
// hashes must not be.
func TestChurnSetIdentityHash(t *testing.T) {
	for _, c := range []struct {
		name string
		dup  bool
	}{{"distinct hashes", false}, {"two equal hashes", true}} {
		var s ChurnSet[int]
		for k := range 11 {
			h := int32(k << 6)
			if c.dup && k == 10 {
				h = 0 // key 0's hash
			}
			s.Add(k, h)
		}
		if s.IdentityHash != c.dup {
			t.Errorf("%s: IdentityHash = %v, want %v", c.name, s.IdentityHash, c.dup)
		}
	}
}
