package timeline

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// Layout of the picture, in SVG user units.
const (
	svgWidth   = 1000 // the whole picture
	svgLeft    = 110  // room for the partition labels
	svgRight   = 20
	svgRow     = 14 // height of one partition's row
	svgHeader  = 28 // a panel's title
	svgAxis    = 26 // a panel's time axis
	svgGap     = 18 // between panels
	svgLegend  = 24 // the member legend at the top
	svgMaxTick = 10 // at most this many time ticks
)

// palette colours the members, in member ID order.
var palette = []string{
	"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948",
	"#9c755f", "#bab0ac", "#1f77b4", "#8cd17d", "#d4a6c8", "#86bcb6",
}

// FormatMs writes a number of milliseconds as Go writes a duration:
// "250ms", "54.6s", "1m30s".
func FormatMs(ms int64) string {
	return (time.Duration(ms) * time.Millisecond).String()
}

// FormatPartitionMs formats a partition-time, the sum over partitions of
// the time each went unowned, in partition-seconds: 88000 is
// "88 partition-seconds" (44 s for 2 partitions, or 88 s for one), 1000
// "1 partition-second".
func FormatPartitionMs(ms int64) string {
	s := strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
	if ms == 1000 {
		return s + " partition-second"
	}
	return s + " partition-seconds"
}

// WriteSVG draws timelines, one panel each, stacked on one time scale:
// a row per partition with its owners' spans coloured by member, its
// unowned spans in red, and each rebalance as a shaded band marked with
// its generation.
func WriteSVG(w io.Writer, tls ...*Timeline) error {
	var end int64 = 1
	var members []string
	for _, tl := range tls {
		end = max(end, tl.End)
		for _, p := range tl.Partitions {
			for _, o := range p.Owners {
				if !slices.Contains(members, o.Member) {
					members = append(members, o.Member)
				}
			}
		}
	}
	slices.Sort(members)
	colour := func(m string) string {
		i, _ := slices.BinarySearch(members, m)
		return palette[i%len(palette)]
	}
	x := func(t int64) float64 {
		return svgLeft + float64(t)*float64(svgWidth-svgLeft-svgRight)/float64(end)
	}

	height := svgLegend
	for _, tl := range tls {
		height += svgHeader + len(tl.Partitions)*svgRow + svgAxis + svgGap
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		svgWidth, height, svgWidth, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, height)

	// The legend: one swatch per member, and the unowned colour.
	lx := float64(svgLeft)
	for _, m := range members {
		fmt.Fprintf(&b, `<rect x="%.1f" y="6" width="12" height="12" fill="%s"/>`, lx, colour(m))
		fmt.Fprintf(&b, `<text x="%.1f" y="16">%s</text>`+"\n", lx+16, escape(m))
		lx += 24 + 7*float64(len(m))
	}
	fmt.Fprintf(&b, `<rect x="%.1f" y="6" width="12" height="12" fill="#e15759"/><text x="%.1f" y="16">unowned</text>`+"\n", lx, lx+16)

	y := svgLegend
	for _, tl := range tls {
		y = drawPanel(&b, tl, y, end, x, colour)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// drawPanel draws one timeline from y down and returns the y after it.
func drawPanel(b *bytes.Buffer, tl *Timeline, y int, end int64, x func(int64) float64, colour func(string) string) int {
	rows := len(tl.Partitions) * svgRow
	top := y + svgHeader
	fmt.Fprintf(b, `<text x="4" y="%d" font-size="13" font-weight="bold">%s (%s protocol): %d rebalances, longest pause %s, %s partition-time unowned</text>`+"\n",
		y+18, escape(tl.Strategy), tl.Protocol, tl.Summary.Rebalances, FormatMs(tl.Summary.MaxUnownedMs), FormatMs(tl.Summary.UnownedPartitionMs))

	for _, r := range tl.Rebalances {
		w := max(x(r.End)-x(r.Start), 1)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#bbbbbb" fill-opacity="0.35"><title>%s</title></rect>`,
			x(r.Start), top, w, rows, escape(fmt.Sprintf("%s-%s: %s (generation %d)", FormatMs(r.Start), FormatMs(r.End), r.Reason, r.Generation)))
		fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="9" fill="#555">g%d</text>`+"\n", x(r.Start), top-2, r.Generation)
	}

	for i, p := range tl.Partitions {
		ry := top + i*svgRow
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, svgLeft-6, ry+svgRow-3, escape(p.String()))
		for _, o := range p.Owners {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
				x(o.From), ry+1, max(x(o.To)-x(o.From), 0.5), svgRow-2, colour(o.Member),
				escape(fmt.Sprintf("%s: %s %s-%s", p, o.Member, FormatMs(o.From), FormatMs(o.To))))
		}
		for _, u := range p.Unowned {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#e15759"><title>%s</title></rect>`,
				x(u.From), ry+1, max(x(u.To)-x(u.From), 0.5), svgRow-2,
				escape(fmt.Sprintf("%s: unowned %s-%s (%s)", p, FormatMs(u.From), FormatMs(u.To), FormatMs(u.Len()))))
		}
		b.WriteString("\n")
	}

	axis := top + rows
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", svgLeft, axis, svgWidth-svgRight, axis)
	step := tickStep(end)
	for t := int64(0); t <= end; t += step {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle" font-size="9">%s</text>`+"\n",
			x(t), axis, x(t), axis+4, x(t), axis+15, FormatMs(t))
	}
	return axis + svgAxis + svgGap
}

// tickStep returns a round step (1, 2 or 5 times a power of ten
// milliseconds) that puts at most svgMaxTick ticks on [0, end].
func tickStep(end int64) int64 {
	for step := int64(1); ; step *= 10 {
		for _, k := range []int64{1, 2, 5} {
			if end/(k*step) < svgMaxTick {
				return k * step
			}
		}
	}
}

func escape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writes to a bytes.Buffer, which does not fail
	return b.String()
}
