package describe

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestMayBeHeader: a line mayBeHeader lets through as a row is one read
// would not have taken for a header, an rpk block line or an unknown
// layout had it cut the line as a header. Lines are drawn from column
// names, rpk's keys and words of rows, in any case and order; the
// headers of every layout behind a word of a row are checked as well.
func TestMayBeHeader(t *testing.T) {
	for _, text := range []string{
		"app GROUP TOPIC PARTITION CONSUMER-ID HOST CLIENT-ID",
		"app TOPIC PARTITION MEMBER-ID",
		"app GROUP CONSUMER-ID #PARTITIONS CURRENT-ASSIGNMENT",
		"app GROUP CONSUMER-ID #PARTITIONS",
		"app GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE",
	} {
		if !mayBeHeader(text) {
			t.Errorf("%q: mayBeHeader false; headerKind reads kind %d", text, headerKind(header(text)))
		}
	}
	words := []string{"GROUP", "TOPIC", "PARTITION", "#PARTITIONS", "CONSUMER-ID", "MEMBER-ID", "OWNER",
		"HOST", "CLIENT-ID", "ASSIGNMENT", "CURRENT-ASSIGNMENT", "COORDINATOR", "(ID)", "STATE",
		"ASSIGNMENT-STRATEGY", "BALANCER", "MEMBERS", "TOTAL-LAG", "ERROR", "LAG",
		"app", "orders", "0", "12", "-", "/10.0.0.1", "consumer-1-0a1b", "t1(0,1)", "t1:0,1", "partition", "Group", "x#"}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom(words), 1, 8).Draw(t, "words")
		text := strings.Repeat(" ", rapid.IntRange(0, 2).Draw(t, "indent")) + strings.Join(parts, "  ")
		if mayBeHeader(text) {
			return
		}
		cols := header(text)
		if k := headerKind(cols); k != kindNone {
			t.Fatalf("%q: mayBeHeader false, but it is a header of kind %d", text, k)
		}
		if cols.names[0] == "GROUP" || rpkKeys[cols.names[0]] || looksHeader(cols) {
			t.Fatalf("%q: mayBeHeader false, but read would treat it as a header", text)
		}
	})
}
