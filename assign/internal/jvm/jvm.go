// Package jvm reproduces the accidents of the Java and Scala runtimes that
// Kafka's answers depend on, so that the rest of assign can compute exactly
// what a JVM computes without running one:
//
//   - String.hashCode and String.compareTo, over UTF-16 code units, as
//     every Java version since 1.2 defines them ([StringHash],
//     [CompareStrings]);
//   - the iteration order of java.util.HashMap and java.util.HashSet as
//     implemented from JDK 8 (JEP 180's tree bins) through JDK 21, for
//     maps that only grow ([HashMap], [Order], [StringMapOrder],
//     [StringSetOrder], [IntSetOrder], [UuidMapOrder], [UuidSetOrder],
//     and the Distinct forms, for keys the caller knows to be distinct);
//   - Integer.hashCode (the value) and the hashCode and compareTo of
//     Kafka's org.apache.kafka.common.Uuid as of Kafka 2.8 to 4.1
//     ([Uuid]);
//   - Kafka's TopicPartition.hashCode ([TopicPartitionHash]) and the first
//     element of a java.util.HashSet that is added to and removed from
//     ([ChurnSet]), which Kafka's Java sticky assignors read;
//   - the iteration order of Scala 2.13's mutable.HashMap and of its
//     immutable.HashMap, a CHAMP trie ([ScalaMutableOrder], [ChampOrder]),
//     which Kafka's Scala group coordinator (up to 3.x) counted votes in.
//
// Nothing here is a general collection library: each emulation computes an
// order, by insertion index, and nothing else. Strings that are not valid
// UTF-8 are taken as Java would decode them, each invalid byte becoming
// U+FFFD.
//
// The tests check every order against a deliberately naive reference of
// the same rule and against orders printed by a real JDK (testdata/), never
// against this package's own output.
package jvm

import "unicode/utf8"

// StringHash is Java's String.hashCode: s[0]*31^(n-1) + ... + s[n-1] over
// the UTF-16 code units, in 32-bit two's complement arithmetic.
//
// Four ASCII bytes at a time, h*31^4 plus the four bytes' terms, while
// they last: the four terms do not wait for each other, where a byte at a
// time waits for the multiplication before. Member IDs and topic names
// are hashed once per call of the KIP-848 assignors (the member map's
// and the subscription set's orders), a few thousand on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1.
// TestStringHash checks it against the definition.
func StringHash(s string) int32 {
	var h int32
	i := 0
	for ; i+4 <= len(s); i += 4 {
		c0, c1, c2, c3 := s[i], s[i+1], s[i+2], s[i+3]
		if c0|c1|c2|c3 >= utf8.RuneSelf {
			break
		}
		h = h*(31*31*31*31) + int32(c0)*(31*31*31) + int32(c1)*(31*31) + int32(c2)*31 + int32(c3)
	}
	for _, r := range s[i:] { // an invalid byte arrives as U+FFFD
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

// CompareStrings compares a and b as Java's String.compareTo does: by
// UTF-16 code units. It differs from Go's byte order only when the first
// runes that differ are one supplementary character (U+10000 and up, two
// UTF-16 units starting with a surrogate in U+D800..U+DBFF) and one
// character in U+E000..U+FFFF: Java puts the supplementary character
// first, Go last.
func CompareStrings(a, b string) int {
	// Skip the common prefix, then back up to the start of a rune.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && (i < len(a) && !utf8.RuneStart(a[i]) || i < len(b) && !utf8.RuneStart(b[i])) {
		i--
	}
	switch {
	case i == len(a) && i == len(b):
		return 0
	case i == len(a):
		return -1
	case i == len(b):
		return 1
	}
	ra, na := utf8.DecodeRuneInString(a[i:])
	rb, nb := utf8.DecodeRuneInString(b[i:])
	ua, ub := firstUTF16Unit(ra), firstUTF16Unit(rb)
	switch {
	case ua < ub:
		return -1
	case ua > ub:
		return 1
	}
	// Same first unit: both are supplementary with the same high surrogate
	// (low surrogates then follow code point order), or equal runes that
	// differ only in invalid encodings, which Java also sees as equal here.
	switch {
	case ra < rb:
		return -1
	case ra > rb:
		return 1
	}
	return CompareStrings(a[i+na:], b[i+nb:])
}

// firstUTF16Unit returns the first UTF-16 code unit of r.
func firstUTF16Unit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}
