package jvm

import (
	"bufio"
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"
)

// TestOrdersFromJDK holds every emulated order against the orders a real
// JDK printed (testdata/orders.txt).
func TestOrdersFromJDK(t *testing.T) {
	f, err := os.Open("testdata/orders.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var cases, line int
	var input []string
	for sc.Scan() {
		line++
		text := sc.Text()
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case strings.HasPrefix(text, "= "):
			want := strings.Fields(strings.TrimPrefix(text, "= "))
			got := emulate(t, input)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("line %d: %s: order mismatch (-jdk +emulation):\n%s", line, input[0], diff)
			}
			cases++
		default:
			input = strings.Fields(text)
		}
	}
	if cases < 300 {
		t.Fatalf("only %d cases read", cases)
	}
}

// emulate returns the emulated order of the collection a case line
// describes, rendered as Orders.java renders it.
func emulate(t *testing.T, f []string) []string {
	kind, args := f[0], f[1:]
	pick := func(order []int, render func(i int) string) []string {
		out := make([]string, len(order))
		for k, i := range order {
			out[k] = render(i)
		}
		return out
	}
	uuids := func(ss []string) []Uuid {
		us := make([]Uuid, len(ss))
		for i, s := range ss {
			u, err := ParseUuid(s)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			us[i] = u
		}
		return us
	}
	switch kind {
	case "stringmap":
		return pick(StringMapOrder(args), func(i int) string { return args[i] })
	case "stringset":
		return pick(StringSetOrder(args), func(i int) string { return args[i] })
	case "intset":
		vs := make([]int32, len(args))
		for i, a := range args {
			v, err := strconv.ParseInt(a, 10, 32)
			if err != nil {
				t.Fatal(err)
			}
			vs[i] = int32(v)
		}
		return pick(IntSetOrder(vs), func(i int) string { return args[i] })
	case "uuidmap":
		us := uuids(args)
		return pick(UuidMapOrder(us), func(i int) string { return args[i] })
	case "uuidset":
		n, _ := strconv.Atoi(args[0])
		us := uuids(args[1:])
		return pick(UuidSetOrder(n, us), func(i int) string { return args[1+i] })
	}
	t.Fatalf("unknown kind %q", kind)
	return nil
}

// naiveOrder is the reference for HashMap's iteration order when no bucket
// ever becomes a tree, written from the rule alone: a table of buckets,
// each an insertion-ordered list; when the size passes 3/4 of the
// capacity, or a bucket of a table under 64 reaches nine entries, every
// entry is put again, in the old iteration order, into a table twice as
// large. It reports ok = false when some bucket of 64 or more would have
// turned into a tree.
func naiveOrder(initial int, hashes []int32) (order []int, ok bool) {
	capacity := initial
	var table [][]int
	rehash := func(c int, entries []int) {
		table = make([][]int, c)
		for _, e := range entries {
			b := int(uint32(hashes[e]^int32(uint32(hashes[e])>>16)) & uint32(c-1))
			table[b] = append(table[b], e)
		}
	}
	flat := func() []int {
		var all []int
		for _, b := range table {
			all = append(all, b...)
		}
		return all
	}
	rehash(capacity, nil)
	for e := range hashes {
		h := uint32(hashes[e] ^ int32(uint32(hashes[e])>>16))
		b := int(h & uint32(capacity-1))
		table[b] = append(table[b], e)
		if len(table[b]) > 8 {
			if capacity >= 64 {
				return nil, false
			}
			capacity *= 2
			rehash(capacity, flat())
		}
		if e+1 > capacity*3/4 {
			capacity *= 2
			rehash(capacity, flat())
		}
	}
	return flat(), true
}

func TestHashMapMatchesNaiveReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Hashes from a narrow range crowd buckets and trigger the
		// collision-driven resizes of small tables.
		hashes := rapid.SliceOfNDistinct(rapid.OneOf(rapid.Int32Range(0, 300), rapid.Int32()), 1, 200, func(h int32) int32 { return h }).Draw(t, "hashes")
		initial := rapid.SampledFrom([]int{0, 1, 2, 5, 16, 17, 64, 100}).Draw(t, "initial")
		m := NewHashMap(initial, func(a, b int) int { return cmp.Compare(a, b) })
		for _, h := range hashes {
			m.Add(h)
		}
		c := defaultCapacity
		if initial > 0 {
			c = tableSizeFor(initial)
		}
		want, ok := naiveOrder(c, hashes)
		if !ok {
			t.Skip("a tree bin")
		}
		if diff := gocmp.Diff(want, m.Order()); diff != "" {
			t.Fatalf("order mismatch (-naive +emulation):\n%s", diff)
		}
	})
}

// TestIntSetFastPathMatchesTable checks IntSetOrder against the table
// (NewHashMap) on small values with repeats, and on stretches of
// consecutive values anywhere in int32, some crossing a multiple of 65536
// (where h >>> 16 changes), shuffled, with a few values of their own
// added: both sides of inDistinctBuckets.
func TestIntSetFastPathMatchesTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var values []int32
		if rapid.Bool().Draw(t, "small") {
			values = rapid.SliceOfN(rapid.Int32Range(-3, 200), 0, 120).Draw(t, "values")
		} else {
			lo := rapid.OneOf(rapid.Int32(), rapid.Int32Range(65536-300, 65536+10), rapid.Int32Range(-300, 10)).Draw(t, "lo")
			n := rapid.IntRange(1, 300).Draw(t, "n")
			for i := range n {
				if v := int64(lo) + int64(i); v <= math.MaxInt32 {
					values = append(values, int32(v))
				}
			}
			for i := range rapid.IntRange(0, len(values)).Draw(t, "shuffles") {
				j := rapid.IntRange(0, len(values)-1).Draw(t, fmt.Sprint("swap", i))
				values[0], values[j] = values[j], values[0]
			}
			values = append(values, rapid.SliceOfN(rapid.Int32(), 0, 3).Draw(t, "extra")...)
		}
		got := IntSetOrder(values)
		var first []int
		m := NewHashMap(SetCapacity(len(values)), nil)
		seen := map[int32]bool{}
		for i, v := range values {
			if !seen[v] {
				seen[v] = true
				first = append(first, i)
				m.Add(v)
			}
		}
		want := []int{}
		for _, e := range m.Order() {
			want = append(want, first[e])
		}
		if diff := gocmp.Diff(want, got); diff != "" {
			t.Fatalf("IntSetOrder(%v) mismatch (-table +fast):\n%s", values, diff)
		}
	})
}

func TestSetCapacity(t *testing.T) {
	// new HashSet<>(c): max((int) (c.size() / .75f) + 1, 16), then the
	// map's table is the next power of two.
	for _, tc := range []struct{ n, want, table int }{
		{0, 16, 16}, {11, 16, 16}, {12, 17, 32}, {23, 31, 32}, {24, 33, 64}, {48, 65, 128}, {96, 129, 256},
	} {
		if got := SetCapacity(tc.n); got != tc.want {
			t.Errorf("SetCapacity(%d) = %d, want %d", tc.n, got, tc.want)
		}
		if got := tableSizeFor(SetCapacity(tc.n)); got != tc.table {
			t.Errorf("table for %d = %d, want %d", tc.n, got, tc.table)
		}
	}
}

// utf16Compare is the obviously correct reference: encode both strings to
// UTF-16, as Java holds them, and compare code units. Converting a Go
// string to []rune turns each invalid byte into U+FFFD, the documented
// stand-in.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareStringsExamples(t *testing.T) {
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
		if got := CompareStrings(tc.a, tc.b); got != tc.want {
			t.Errorf("CompareStrings(%+q, %+q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := utf16Compare(tc.a, tc.b); got != tc.want {
			t.Errorf("reference utf16Compare(%+q, %+q) = %d, want %d (the table is wrong)", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCompareStringsMatchesUTF16(t *testing.T) {
	// Strings from an alphabet dense in the characters where the orders
	// part ways, plus arbitrary bytes.
	alphabet := []string{"a", "b", "\u00e9", "\ud7ff", "\ue000", "\uff21", "\uffff", "\U00010000", "\U00010400", "\U0001F600", "\xff", "\xe2\x82"}
	str := rapid.OneOf(
		rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(rapid.SampledFrom(alphabet), 0, 6).Draw(t, "parts")
			return strings.Join(parts, "")
		}),
		rapid.String(),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }),
	)
	rapid.Check(t, func(t *rapid.T) {
		a := str.Draw(t, "a")
		b := rapid.OneOf(str, rapid.Just(a), rapid.Just(a+"x")).Draw(t, "b")
		if got, want := CompareStrings(a, b), utf16Compare(a, b); got != want {
			t.Fatalf("CompareStrings(%+q, %+q) = %d, want %d", a, b, got, want)
		}
	})
}

// hashByHand computes String.hashCode from its definition, the sum of
// s[i]*31^(n-1-i) over the UTF-16 units, with explicit powers.
func hashByHand(s string) int32 {
	units := utf16.Encode([]rune(s))
	var sum uint32
	for i, u := range units {
		pow := uint32(1)
		for range len(units) - 1 - i {
			pow *= 31
		}
		sum += uint32(u) * pow
	}
	return int32(sum)
}

func TestStringHash(t *testing.T) {
	// Values printed by Java's "...".hashCode(), well known or checked
	// against hashByHand below.
	known := map[string]int32{
		"":                   0,
		"a":                  97,
		"Aa":                 2112, // the classic collision
		"BB":                 2112,
		"range":              0x0674393d,
		"roundrobin":         -0x07a97f24, // 0xf85680dc
		"sticky":             -0x352ece17, // 0xcad131e9
		"cooperative-sticky": 0x6de45eab,
	}
	for s, want := range known {
		if got := StringHash(s); got != want {
			t.Errorf("StringHash(%q) = %#x, want %#x", s, got, want)
		}
	}
	for _, s := range []string{"range", "日本語", "emoji 😀 here", "\U0010FFFF", "a very long strategy name that overflows many times", "\xff\xfe",
		"\xffabcdefghijklmno", "12345678\xffabcdefg", "1234\xffabcdefg"} { // an invalid byte then ASCII, at a block's start
		if got, want := StringHash(s), hashByHand(s); got != want {
			t.Errorf("StringHash(%q) = %#x, by hand %#x", s, got, want)
		}
	}
	// ASCII runs of every length around the eight- and four-byte steps,
	// the highest ASCII byte included, broken by other runes and invalid
	// bytes anywhere.
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringMatching(`([a-z0-9~\x7f\x00]{0,19}(é|😀|\x{FFFF}|\x{10000})?){0,4}`).Draw(t, "s")
		if rapid.Bool().Draw(t, "bytes") { // invalid UTF-8 too
			b := rapid.SliceOf(rapid.SampledFrom([]byte("az09\x7f\x00\xc3\xa9\xf0\x9f\x98\x80\xff\xed\xa0"))).Draw(t, "b")
			s = string(b)
		}
		if got, want := StringHash(s), hashByHand(s); got != want {
			t.Fatalf("StringHash(%q) = %#x, by hand %#x", s, got, want)
		}
	})
}

func TestUuid(t *testing.T) {
	// Worked by hand: msb = 1, lsb = 1<<32 | 2; x = 1<<32 | 3;
	// (int)(x >> 32) ^ (int)x = 1 ^ 3 = 2.
	u := Uuid{7: 1, 11: 1, 15: 2}
	if got := u.Hash(); got != 2 {
		t.Errorf("Hash = %d, want 2", got)
	}
	// compareTo is signed: a negative msb sorts first.
	neg := Uuid{0: 0x80}
	if neg.Compare(u) != -1 || u.Compare(neg) != 1 || u.Compare(u) != 0 {
		t.Errorf("Compare is not signed on the msb")
	}
	// Kafka's METADATA_TOPIC_ID (0, 1) prints as AAAAAAAAAAAAAAAAAAAAAQ.
	if got := (Uuid{15: 1}).String(); got != "AAAAAAAAAAAAAAAAAAAAAQ" {
		t.Errorf("String = %s", got)
	}
	for _, bad := range []string{"", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAR", "AAAAAAAAAAAAAAAAAAAA+Q", "AAAAAAAAAAAAAAAAAAAAAQ=="} {
		if _, err := ParseUuid(bad); err == nil {
			t.Errorf("ParseUuid(%q) accepted", bad)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		var u Uuid
		copy(u[:], rapid.SliceOfN(rapid.Byte(), 16, 16).Draw(t, "bytes"))
		back, err := ParseUuid(u.String())
		if err != nil || back != u {
			t.Fatalf("round trip of %x: %v, %v", u, back, err)
		}
	})
}

// TestScalaMutableOrder: Scala 2.13's mutable.HashMap orders a bucket by
// improved hash. "A", "Q", "a", "q" hash to 65, 81, 97, 113 (one
// character, so h ^ (h >>> 16) = h): all in bucket 1 of 16, but split
// into buckets 1 (A, a) and 17 (Q, q) of 32. The table grows to 32 before
// the 12th insertion. "Aa" and "BB" (2112 both) keep insertion order.
func TestScalaMutableOrder(t *testing.T) {
	relative := func(keys []string, of ...string) []string {
		var got []string
		for _, i := range ScalaMutableOrder(keys) {
			if slices.Contains(of, keys[i]) {
				got = append(got, keys[i])
			}
		}
		return got
	}
	fill := func(n int) []string {
		keys := []string{"q", "a", "Q", "A"}
		for i := 0; len(keys) < n; i++ {
			keys = append(keys, fmt.Sprintf("filler-%d", i))
		}
		return keys
	}
	tests := []struct {
		keys []string
		want []string
	}{
		{fill(4), []string{"A", "Q", "a", "q"}},
		{fill(11), []string{"A", "Q", "a", "q"}},
		{fill(12), []string{"A", "a", "Q", "q"}},
		{[]string{"BB", "Aa"}, []string{"BB", "Aa"}},
		{[]string{"Aa", "BB"}, []string{"Aa", "BB"}},
	}
	for _, tc := range tests {
		if diff := gocmp.Diff(tc.want, relative(tc.keys, tc.want...)); diff != "" {
			t.Errorf("ScalaMutableOrder(%d keys) mismatch (-want +got):\n%s", len(tc.keys), diff)
		}
	}
}

// champNode is a second, structural model of Scala's CHAMP trie: it
// inserts keys one at a time the way BitmapIndexedMapNode.updated does
// (a key lands inline in a free slot; two keys meeting in one slot move
// into a sub-node, down as far as their digits agree; keys with equal
// hashes share a collision list) and iterates it pre-order, inline
// entries first.
type champNode struct {
	inline [32]int // entry index + 1, 0 when empty
	sub    [32]*champNode
	coll   []int // a collision node's entries, in insertion order
}

func (n *champNode) insert(e int, improved []uint32, shift uint) {
	if shift >= 32 {
		n.coll = append(n.coll, e)
		return
	}
	d := improved[e] >> shift & 31
	switch {
	case n.sub[d] != nil:
		n.sub[d].insert(e, improved, shift+5)
	case n.inline[d] != 0:
		old := n.inline[d] - 1
		n.inline[d] = 0
		n.sub[d] = &champNode{}
		n.sub[d].insert(old, improved, shift+5)
		n.sub[d].insert(e, improved, shift+5)
	default:
		n.inline[d] = e + 1
	}
}

func (n *champNode) walk(visit func(int)) {
	for _, e := range n.coll {
		visit(e)
	}
	for _, e := range n.inline {
		if e != 0 {
			visit(e - 1)
		}
	}
	for _, s := range n.sub {
		if s != nil {
			s.walk(visit)
		}
	}
}

func TestChampOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Hash codes drawn from a small range so that digits collide at
		// several levels, and full collisions happen.
		hashes := rapid.SliceOfN(rapid.Int32Range(-40, 40), 1, 40).Draw(t, "hashes")
		improved := make([]uint32, len(hashes))
		for i, h := range hashes {
			x := uint32(h)
			x = x - x<<9 - 1
			x ^= x >> 14
			x *= 17
			x ^= x >> 10
			improved[i] = x
		}
		root := &champNode{}
		for i := range hashes {
			root.insert(i, improved, 0)
		}
		var want []int
		root.walk(func(e int) { want = append(want, e) })
		if diff := gocmp.Diff(want, ChampOrder(hashes)); diff != "" {
			t.Fatalf("ChampOrder mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestOrderMatchesTable holds Order and Order32, which follow only the capacity, to
// the table HashMap builds, on hash codes crowded enough to resize small
// tables for collisions and to make trees in large ones.
func TestOrderMatchesTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		step := rapid.SampledFrom([]int32{1, 16, 64, 1 << 16}).Draw(t, "step")
		raw := rapid.SliceOfNDistinct(rapid.Int32Range(0, 400), 0, 150, func(h int32) int32 { return h }).Draw(t, "hashes")
		hashes := make([]int32, len(raw))
		for i, h := range raw {
			hashes[i] = h * step
		}
		initial := rapid.SampledFrom([]int{0, 1, 3, 16, 40, 64, 200}).Draw(t, "initial")
		compare := func(a, b int) int { return cmp.Compare(a, b) }
		m := NewHashMap(initial, compare)
		for _, h := range hashes {
			m.Add(h)
		}
		want := m.Order()
		if diff := gocmp.Diff(want, Order(initial, hashes, compare), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Order mismatch (-table +Order):\n%s", diff)
		}
		want32 := make([]int32, len(want))
		for i, e := range want {
			want32[i] = int32(e)
		}
		if diff := gocmp.Diff(want32, Order32(initial, hashes, compare), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("Order32 mismatch (-table +Order32):\n%s", diff)
		}
		// Order32Buf counting in an array of any length holding what an
		// order counted before, then in the array it returns, counted in.
		buf := make([]int32, rapid.IntRange(0, 300).Draw(t, "buf"))
		for i := range buf {
			buf[i] = int32(i%5) - 2
		}
		for round := range 2 {
			order, counts := Order32Buf(initial, hashes, compare, buf)
			if diff := gocmp.Diff(want32, order, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Order32Buf mismatch, round %d (-table +Order32Buf):\n%s", round, diff)
			}
			buf = counts
		}
	})
}

// TestDistinctOrders checks the orders that skip the search for repeats
// against those that search, on distinct keys drawn from few characters,
// so that hash codes collide.
func TestDistinctOrders(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		seen := map[string]bool{}
		var keys []string
		var uuids []Uuid
		for _, k := range rapid.SliceOfN(rapid.StringMatching(`[AaBb]{0,4}`), 0, 60).Draw(t, "keys") {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
				// Uuids whose halves cancel out in the hash, so they collide.
				u := Uuid{}
				copy(u[:], k)
				copy(u[8:], k)
				uuids = append(uuids, u)
			}
		}
		if diff := gocmp.Diff(StringMapOrder(keys), StringMapOrderDistinct(keys)); diff != "" {
			t.Fatalf("StringMapOrderDistinct(%q) (-StringMapOrder +distinct):\n%s", keys, diff)
		}
		if diff := gocmp.Diff(StringSetOrder(keys), StringSetOrderDistinct(keys)); diff != "" {
			t.Fatalf("StringSetOrderDistinct(%q) (-StringSetOrder +distinct):\n%s", keys, diff)
		}
		size := len(uuids) + rapid.IntRange(0, 30).Draw(t, "extra")
		if diff := gocmp.Diff(UuidSetOrder(size, uuids), UuidSetOrderDistinct(size, uuids)); diff != "" {
			t.Fatalf("UuidSetOrderDistinct(%d, %v) (-UuidSetOrder +distinct):\n%s", size, uuids, diff)
		}
	})
}
