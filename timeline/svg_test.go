package timeline_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// TestSVGWellFormed draws an eager and a cooperative timeline of one
// crash and checks that the picture is well-formed XML, that each panel
// labels every partition, and that it draws one red span per unowned span.
func TestSVGWellFormed(t *testing.T) {
	var tls []*timeline.Timeline
	for _, s := range []assign.Strategy{assign.Range{}, assign.CooperativeSticky{}} {
		tls = append(tls, simulate(t, timeline.Scenario{
			Members:  []timeline.Member{member("c0"), member("c1"), member("c<&>")},
			Topics:   map[string]int32{"t": 5, "u": 2},
			Strategy: s,
			Events:   []timeline.Event{{At: 11_000, Kind: timeline.Crash, Member: "c1"}},
		}))
	}
	var buf bytes.Buffer
	if err := timeline.WriteSVG(&buf, tls...); err != nil {
		t.Fatal(err)
	}
	labels := map[string]int{} // text => times shown
	red, root := 0, ""
	dec := xml.NewDecoder(&buf)
	var text strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			text.Reset()
			for _, a := range tok.Attr {
				if tok.Name.Local == "rect" && a.Name.Local == "fill" && a.Value == "#e15759" {
					red++
				}
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			if tok.Name.Local == "text" {
				labels[text.String()]++
			}
		}
	}
	if root != "svg" {
		t.Errorf("root element %q, want svg", root)
	}
	wantRed := 1 // the legend's swatch
	for _, tl := range tls {
		for _, p := range tl.Partitions {
			wantRed += len(p.Unowned)
		}
	}
	for _, tp := range []string{"t-0", "t-1", "t-2", "t-3", "t-4", "u-0", "u-1"} {
		if labels[tp] != len(tls) {
			t.Errorf("partition %s labelled %d times, want once per panel (%d)", tp, labels[tp], len(tls))
		}
	}
	if labels["c<&>"] != 1 {
		t.Errorf("member c<&> in the legend %d times, want 1 (escaped)", labels["c<&>"])
	}
	if wantRed < 3 || red != wantRed {
		t.Errorf("%d red spans, want %d (one per unowned span and the legend's)", red, wantRed)
	}
}

// TestWriteSVGTooManyPanels: more timelines than one picture's height can
// hold are refused with ErrTooManyPanels, which the command line reports
// as bad input.
func TestWriteSVGTooManyPanels(t *testing.T) {
	tl, err := timeline.Simulate(timeline.Scenario{Topics: map[string]int32{"t": 2}, Members: []timeline.Member{{ID: "c0"}}, Strategy: assign.Range{}, Until: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	tls := make([]*timeline.Timeline, 400)
	for i := range tls {
		tls[i] = tl
	}
	if err := timeline.WriteSVG(io.Discard, tls...); !errors.Is(err, timeline.ErrTooManyPanels) {
		t.Errorf("WriteSVG(400 timelines) = %v, want ErrTooManyPanels", err)
	}
	if err := timeline.WriteSVG(io.Discard, tl); err != nil {
		t.Errorf("WriteSVG(one timeline) = %v", err)
	}
}
