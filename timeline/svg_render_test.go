package timeline_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
)

// svgNode is an element of a parsed SVG, enough to read back what was drawn.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n svgNode) num(t *testing.T, name string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(n.attr(name), 64)
	if err != nil {
		t.Fatalf("<%s %s=%q>: %v", n.XMLName.Local, name, n.attr(name), err)
	}
	return v
}

// group returns the children of the <g class=class> elements of root.
func (n svgNode) group(class string) []svgNode {
	var out []svgNode
	for _, c := range n.Nodes {
		if c.XMLName.Local == "g" && c.attr("class") == class {
			out = append(out, c.Nodes...)
		}
	}
	return out
}

// walk calls f on n and every element under it.
func (n svgNode) walk(f func(svgNode)) {
	f(n)
	for _, c := range n.Nodes {
		c.walk(f)
	}
}

// dejaVuEm is the widest advance, in ems, of the characters our labels
// use in DejaVu Sans (its digits and most lower-case letters; "m" and "w"
// are wider but rare in member IDs), the sans-serif a Linux browser picks.
const dejaVuEm = 0.64

// bigGroup plays a crash and a join in a group of n members (the joiner
// one of them) over 2n partitions of two topics, under range and
// cooperative-sticky.
func bigGroup(t *testing.T, n int) []*timeline.Timeline {
	t.Helper()
	var members []timeline.Member
	for i := range n - 1 {
		m := member(fmt.Sprintf("consumer-%03d", i))
		m.Topics = []string{"orders", "payments"}
		members = append(members, m)
	}
	var tls []*timeline.Timeline
	for _, s := range []assign.Strategy{assign.Range{}, assign.CooperativeSticky{}} {
		tls = append(tls, simulate(t, timeline.Scenario{
			Members:  members,
			Topics:   map[string]int32{"orders": int32(n), "payments": int32(n)},
			Strategy: s,
			Events: []timeline.Event{
				{At: 10_000, Kind: timeline.Crash, Member: "consumer-001"},
				{At: 90_000, Kind: timeline.Join, Member: "consumer-new", Config: members[0].Config},
			},
		}))
	}
	return tls
}

// TestSVGRendered draws groups of 3, 40, 41 and 500 members, renders each
// picture to PNG with a pure-Go rasterizer and checks it: the canvas is
// under 2,000 pixels each way, the legend lies inside it, the members
// drawn each have a colour no other has (read from the SVG, and seen in
// the pixels of each legend swatch), and past 40 members only the 20 most
// affected keep a colour, with a note. The PNGs (and SVGs) go to
// $ASSIGNCALC_SVG_OUT when set, for a person to look at, else to a
// temporary directory.
//
// The rasterizer draws shapes but not text, so text is checked in the
// SVG: its width measured by DejaVu Sans's widest common advance.
func TestSVGRendered(t *testing.T) {
	dir := os.Getenv("ASSIGNCALC_SVG_OUT")
	if dir == "" {
		dir = t.TempDir()
	}
	for _, tc := range []struct {
		members int
		drawn   int  // members with a colour of their own
		note    bool // whether the note says some members are grey
	}{
		{members: 3, drawn: 3},
		{members: 40, drawn: 40},
		{members: 41, drawn: 20, note: true},
		{members: 500, drawn: 20, note: true},
	} {
		t.Run(fmt.Sprintf("members=%d", tc.members), func(t *testing.T) {
			tls := bigGroup(t, tc.members)
			var buf bytes.Buffer
			if err := timeline.WriteSVG(&buf, tls...); err != nil {
				t.Fatal(err)
			}
			name := filepath.Join(dir, fmt.Sprintf("members-%d", tc.members))
			if err := os.WriteFile(name+".svg", buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var root svgNode
			if err := xml.Unmarshal(buf.Bytes(), &root); err != nil {
				t.Fatalf("not well-formed XML: %v", err)
			}
			w, h := root.num(t, "width"), root.num(t, "height")
			if w >= 2000 || h >= 2000 {
				t.Errorf("canvas %gx%g, want under 2000 each way", w, h)
			}

			img := render(t, buf.Bytes())
			if b := img.Bounds(); b.Dx() != int(w) || b.Dy() != int(h) {
				t.Errorf("rendered %dx%d, the SVG says %gx%g", b.Dx(), b.Dy(), w, h)
			}
			f, err := os.Create(name + ".png")
			if err != nil {
				t.Fatal(err)
			}
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			f.Close()
			t.Logf("wrote %s.png", name)

			checkLegend(t, root, img, w, tc.drawn)
			notes := root.group("note")
			hasNote := false
			for _, n := range notes {
				hasNote = hasNote || strings.Contains(n.Text, "most affected")
			}
			if hasNote != tc.note {
				t.Errorf("note about members %v, want %v", hasNote, tc.note)
			}
			// Every text of the note lies inside the canvas.
			for _, n := range notes {
				if right := n.num(t, "x") + dejaVuEm*11*float64(len([]rune(n.Text))); right > w {
					t.Errorf("note line %q ends at %.0f, past the canvas (%g)", n.Text, right, w)
				}
			}
		})
	}
}

// checkLegend checks that the legend lies inside the canvas, that its
// member swatches are as many as the members drawn, each of a colour of
// its own, distinct from the unowned red, that the pixels of each swatch
// have that colour, and that every span drawn in the panels has a colour
// of the legend.
func checkLegend(t *testing.T, root svgNode, img image.Image, w float64, drawn int) {
	t.Helper()
	legend := root.group("legend")
	fills := map[string]string{} // colour => label
	var texts []svgNode
	for _, n := range legend {
		switch n.XMLName.Local {
		case "rect":
			x, y := n.num(t, "x"), n.num(t, "y")
			if x < 0 || x+n.num(t, "width") > w {
				t.Errorf("legend swatch at x=%g outside the canvas", x)
			}
			fill := n.attr("fill")
			if prev, ok := fills[fill]; ok {
				t.Errorf("colour %s in the legend twice (%s and another)", fill, prev)
			}
			fills[fill] = fill
			// The rasterizer's pixel at the swatch's centre has its colour.
			px := color.NRGBAModel.Convert(img.At(int(x)+6, int(y)+6)).(color.NRGBA)
			if got := fmt.Sprintf("#%02x%02x%02x", px.R, px.G, px.B); got != fill {
				t.Errorf("swatch of %s rendered %s", fill, got)
			}
		case "text":
			texts = append(texts, n)
			if right := n.num(t, "x") + dejaVuEm*11*float64(len([]rune(n.Text))); n.num(t, "x") < 0 || right > w {
				t.Errorf("legend label %q spans to %.0f, outside the canvas (%g)", n.Text, right, w)
			}
		}
	}
	// Members' swatches: all but "unowned" and "N other members".
	own := 0
	for _, n := range texts {
		if n.Text != "unowned" && !strings.HasSuffix(n.Text, "other members") {
			own++
		}
	}
	if own != drawn {
		t.Errorf("%d members in the legend, want %d", own, drawn)
	}
	if len(fills) != len(texts) {
		t.Errorf("%d swatches for %d labels", len(fills), len(texts))
	}
	// Distinct colours, and far enough apart to tell: no two closer than
	// a threshold in the "redmean" approximation of perceived distance.
	cols := make([]string, 0, len(fills))
	for c := range fills {
		cols = append(cols, c)
	}
	for i := range cols {
		for j := range i {
			if d := redmean(t, cols[i], cols[j]); d < 40 {
				t.Errorf("colours %s and %s are %.0f apart, too close to tell", cols[i], cols[j], d)
			}
		}
	}
	// Every owner's span has a colour of the legend.
	root.walk(func(n svgNode) {
		if n.XMLName.Local == "rect" && strings.Contains(n.attr("fill"), "#") && n.attr("fill") != "#bbbbbb" && n.attr("fill") != "#e8e8e8" {
			if _, ok := fills[n.attr("fill")]; !ok {
				t.Errorf("a span drawn in %s, which the legend does not explain", n.attr("fill"))
			}
		}
	})
}

// redmean is a cheap approximation of the perceived distance between two
// #rrggbb colours (0 to about 765).
func redmean(t *testing.T, a, b string) float64 {
	t.Helper()
	rgb := func(s string) (r, g, b float64) {
		v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
		if err != nil {
			t.Fatalf("colour %q: %v", s, err)
		}
		return float64(v >> 16), float64(v >> 8 & 0xff), float64(v & 0xff)
	}
	r1, g1, b1 := rgb(a)
	r2, g2, b2 := rgb(b)
	rm := (r1 + r2) / 2
	dr, dg, db := r1-r2, g1-g2, b1-b2
	return math.Sqrt((2+rm/256)*dr*dr + 4*dg*dg + (2+(255-rm)/256)*db*db)
}

// render rasterizes an SVG at its own size.
func render(t *testing.T, svg []byte) *image.RGBA {
	t.Helper()
	icon, err := oksvg.ReadIconStream(bytes.NewReader(svg), oksvg.IgnoreErrorMode)
	if err != nil {
		t.Fatalf("oksvg: %v", err)
	}
	w, h := int(icon.ViewBox.W), int(icon.ViewBox.H)
	icon.SetTarget(0, 0, float64(w), float64(h))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	icon.Draw(rasterx.NewDasher(w, h, &boxScanner{dst: img}), 1)
	return img
}

// boxScanner is a rasterx.Scanner that rasterizes each path within its
// own bounding box. rasterx's ScannerGV rasterizes the whole image for
// every path, which for a picture of thousands of small rectangles takes
// seconds.
type boxScanner struct {
	dst   *image.RGBA
	src   image.Image
	path  []fixed.Point26_6 // the points, with a move marked by moves
	moves []int             // indices in path where a subpath starts
}

func (s *boxScanner) Start(a fixed.Point26_6) {
	s.moves = append(s.moves, len(s.path))
	s.path = append(s.path, a)
}
func (s *boxScanner) Line(b fixed.Point26_6)  { s.path = append(s.path, b) }
func (s *boxScanner) Clear()                  { s.path, s.moves = s.path[:0], s.moves[:0] }
func (s *boxScanner) SetBounds(int, int)      { s.Clear() }
func (s *boxScanner) SetWinding(bool)         {} // our SVG has only rectangles and lines
func (s *boxScanner) SetClip(image.Rectangle) {}
func (s *boxScanner) GetPathExtent() fixed.Rectangle26_6 {
	r := fixed.Rectangle26_6{Min: fixed.Point26_6{X: math.MaxInt32, Y: math.MaxInt32}, Max: fixed.Point26_6{X: math.MinInt32, Y: math.MinInt32}}
	for _, p := range s.path {
		r.Min.X, r.Min.Y = min(r.Min.X, p.X), min(r.Min.Y, p.Y)
		r.Max.X, r.Max.Y = max(r.Max.X, p.X), max(r.Max.Y, p.Y)
	}
	return r
}
func (s *boxScanner) SetColor(c any) {
	if c, ok := c.(color.Color); ok {
		s.src = image.NewUniform(c)
	}
}
func (s *boxScanner) Draw() {
	if len(s.path) == 0 || s.src == nil {
		return
	}
	e := s.GetPathExtent()
	box := image.Rect(e.Min.X.Floor(), e.Min.Y.Floor(), e.Max.X.Ceil(), e.Max.Y.Ceil()).Intersect(s.dst.Bounds())
	if box.Empty() {
		return
	}
	r := vector.NewRasterizer(box.Dx(), box.Dy())
	next := 0
	for i, p := range s.path {
		x, y := float32(p.X)/64-float32(box.Min.X), float32(p.Y)/64-float32(box.Min.Y)
		if next < len(s.moves) && s.moves[next] == i {
			if i > 0 {
				r.ClosePath()
			}
			r.MoveTo(x, y)
			next++
			continue
		}
		r.LineTo(x, y)
	}
	r.ClosePath()
	r.Draw(s.dst, box, s.src, image.Point{})
}
