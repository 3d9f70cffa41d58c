package assign

import "github.com/assigncalc/assigncalc/assign/internal/jvm"

// javaCompare compares a and b as Java's String.compareTo does (see
// [jvm.CompareStrings], where the rule lives).
func javaCompare(a, b string) int { return jvm.CompareStrings(a, b) }

// javaStringHash is Java's String.hashCode (see [jvm.StringHash]).
func javaStringHash(s string) int32 { return jvm.StringHash(s) }
