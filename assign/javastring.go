package assign

import (
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// javaCompare compares a and b as Java's String.compareTo does (see
// [jvm.CompareStrings], where the rule lives).
func javaCompare(a, b string) int { return jvm.CompareStrings(a, b) }

// javaStringHash is Java's String.hashCode (see [jvm.StringHash]).
func javaStringHash(s string) int32 { return jvm.StringHash(s) }

// ascii reports whether every name is ASCII: Java orders ASCII strings
// as Go does, so strings.Compare may stand in for javaCompare.
func ascii(names ...string) bool {
	for _, name := range names {
		for i := range len(name) {
			if name[i] >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}
