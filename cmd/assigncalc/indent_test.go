package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// TestAppendIndentedIsIndent holds appendIndented to json.Indent on
// compact JSON: results as plan and the preview write them (empty
// objects and lists, errors, strings with quotes, backslashes, braces and
// non-ASCII) and random values encoding/json writes compact.
func TestAppendIndentedIsIndent(t *testing.T) {
	var srcs [][]byte
	for _, r := range []groupfile.Result{
		{Name: `g "1" {x}`, Strategy: "range", Members: []string{"c0", `c\1`, "ü"},
			Assignment: assign.Assignment{"c0": {{Topic: "t,:[]", Partition: 0}, {Topic: "t,:[]", Partition: 12}}, "ü": nil}},
		{Name: "e", Strategy: "sticky", Err: assign.ErrInvalidAssignment},
		{Strategy: "uniform", Assignment: assign.Assignment{}},
	} {
		line, err := groupfile.AppendResult(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, line)
	}
	rng := rand.New(rand.NewPCG(30, 2))
	var value func(depth int) any
	value = func(depth int) any {
		switch k := rng.IntN(8); {
		case depth > 3 || k == 0:
			return []any{nil, true, false, -1.5e-7, 42, "", `"\`, "a\u2028<b>&", "é"}[rng.IntN(9)]
		case k < 4:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[string(rune('a'+rng.IntN(5)))+`"`] = value(depth + 1)
			}
			return m
		default:
			var l []any
			for range rng.IntN(4) {
				l = append(l, value(depth+1))
			}
			return l
		}
	}
	for range 300 {
		b, err := json.Marshal(value(0))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b)
	}
	for _, src := range srcs {
		var want bytes.Buffer
		if err := json.Indent(&want, src, "  ", "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndented([]byte("x"), src, "  ", "  "); string(got) != "x"+want.String() {
			t.Fatalf("appendIndented(%s) =\n%s\nwant\n%s", src, got[1:], want.Bytes())
		}
	}
}
