package assign

import (
	"slices"
	"testing"
	"unicode/utf16"

	"pgregory.net/rapid"
)

// utf16Compare is the obviously correct reference: encode both strings to
// UTF-16, as Java holds them, and compare code units. Converting a Go
// string to []rune turns each invalid byte into U+FFFD, the documented
// stand-in.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestJavaCompareExamples(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "b", -1},
		{"B", "a", -1},    // upper case first, as in ASCII
		{"c0", "c10", -1}, // not numeric: '0' < '1'
		{"c2", "c10", 1},
		{"ab", "abc", -1},
		// U+FF21 (FULLWIDTH A) is one unit 0xFF21; U+10400 is the pair
		// 0xD801 0xDC00. Java: U+10400 < U+FF21. Go byte order says the
		// opposite (0xEF... < 0xF0...).
		{"\U00010400", "\uff21", -1},
		{"x\U00010400", "x\uff21", -1},
		{"\uff21", "\U00010400", 1},
		// Below U+D800 both orders agree.
		{"\U00010400", "\u00e9", 1},
		// Two supplementary characters: code point order.
		{"\U00010400", "\U0001F600", -1},
		// A multi-byte rune differing only in its last byte.
		{"\u00e9", "\u00ea", -1},
		// Invalid UTF-8 counts as U+FFFD, which sorts after U+10400 in Java.
		{"\xff", "\U00010400", 1},
		{"\xff", "\ufffd", 0},
	}
	for _, tc := range tests {
		if got := javaCompare(tc.a, tc.b); got != tc.want {
			t.Errorf("javaCompare(%+q, %+q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := utf16Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("reference utf16Compare(%+q, %+q) = %d, want %d (the table is wrong)", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestJavaCompareMatchesUTF16(t *testing.T) {
	// Strings from an alphabet dense in the characters where the orders
	// part ways, plus arbitrary bytes.
	alphabet := []string{"a", "b", "\u00e9", "\ud7ff", "\ue000", "\uff21", "\uffff", "\U00010000", "\U00010400", "\U0001F600", "\xff", "\xe2\x82"}
	str := rapid.OneOf(
		rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 6).Draw(t, "parts")
			s := ""
			for _, p := range parts {
				s += p
			}
			return s
		}),
		rapid.String(),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		a := str.Draw(t, "a")
		b := rapid.OneOf(str, rapid.Just(a), rapid.Just(a+"x")).Draw(t, "b")
		if got, want := javaCompare(a, b), utf16Compare(a, b); got != want {
			t.Fatalf("javaCompare(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	})
}
