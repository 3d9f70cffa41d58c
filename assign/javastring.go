package assign

import "unicode/utf8"

// javaCompare compares a and b as Java's String.compareTo does: by UTF-16
// code units. It differs from Go's byte order only when the first runes that
// differ are one supplementary character (U+10000 and up, two UTF-16 units
// starting with a surrogate in U+D800..U+DBFF) and one character in
// U+E000..U+FFFF: Java puts the supplementary character first, Go last.
//
// Bytes that are not valid UTF-8 compare as U+FFFD, the character Java's
// decoder substitutes for them, one per invalid byte as Go decodes them.
func javaCompare(a, b string) int {
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
	return javaCompare(a[i+na:], b[i+nb:])
}

// firstUTF16Unit returns the first UTF-16 code unit of r.
func firstUTF16Unit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}
