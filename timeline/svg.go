package timeline

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign"
)

// Layout of the picture, in SVG user units (a pixel when the picture is
// shown at its size). The picture is svgWidth wide and never taller than
// svgMaxHeight, so that it stays readable on a screen whatever the group:
// past what fits, partitions give way to one band (rows) and members to
// one colour (the legend).
const (
	svgWidth     = 1000
	svgMaxHeight = 1990
	svgMargin    = 10 // left and right of the legend, notes and titles
	svgRight     = 20 // right of the time axis
	svgRow       = 14 // one partition's row
	svgBand      = 28 // the row that stands for the partitions not drawn
	svgTitleLine = 16 // one line of a panel's title
	svgHeader    = 12 // a panel's title, besides its lines
	svgAxis      = 26 // a panel's time axis
	svgGap       = 18 // between panels
	svgLine      = 16 // one line of the legend or the notes
	svgTop       = 6  // above the legend
	svgMaxTick   = 10 // at most this many time ticks

	// Up to svgAllMembers members, each has a colour of its own; past it,
	// the svgTopMembers most affected keep theirs and the rest share one:
	// forty colours are about as many as an eye tells apart.
	svgAllMembers = 40
	svgTopMembers = 20

	// svgMaxLabel is the most characters of a member's or partition's
	// label; longer ones are cut, and the whole name is in the tooltip.
	svgMaxLabel = 32

	// svgCharW is a generous width of one character of the 11-unit
	// sans-serif text (DejaVu Sans draws digits 7 wide, most letters
	// narrower), and svgTitleCharW of the 12-unit bold titles: text laid
	// out by them stays inside the room it is given.
	svgCharW      = 7.0
	svgTitleCharW = 8.0
)

// Colours that do not stand for a member.
const (
	svgUnowned = "#e15759" // a partition no member consumes
	svgOthers  = "#8c8c8c" // the members past the svgTopMembers most affected
)

// memberColour returns the i-th member colour, i < svgAllMembers: 14
// hues evenly spaced from orange round to pink, leaving out the reds that
// mean unowned, at three lightnesses. Consecutive colours lie 5 hues
// apart, so the first few, which small groups use, are far apart.
func memberColour(i int) string {
	const hues = 14
	h := 35 + float64(i*5%hues)*285/(hues-1)
	l := []float64{0.50, 0.32, 0.72}[i/hues%3]
	return hslHex(h, 0.62, l)
}

// hslHex writes the colour of hue h (degrees), saturation s and lightness
// l (0 to 1) as #rrggbb.
func hslHex(h, s, l float64) string {
	c := (1 - math.Abs(2*l-1)) * s
	hp := h / 60
	x := c * (1 - math.Abs(math.Mod(hp, 2)-1))
	var r, g, b float64
	switch {
	case hp < 1:
		r, g = c, x
	case hp < 2:
		r, g = x, c
	case hp < 3:
		g, b = c, x
	case hp < 4:
		g, b = x, c
	case hp < 5:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	to255 := func(v float64) int { return int(math.Round((v + m) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", to255(r), to255(g), to255(b))
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

// ErrTooManyPanels is wrapped by [WriteSVG] when the timelines asked for
// cannot be drawn one below the other within the picture's height.
var ErrTooManyPanels = errors.New("too many timelines for one picture")

// WriteSVG draws timelines, one panel each, stacked on one time scale:
// a row per partition with its owners' spans coloured by member, its
// unowned spans in red, and each rebalance as a shaded band marked with
// its generation.
//
// The picture is 1000 units wide and under 2000 tall whatever the group,
// and its legend wraps within it. In a group of more than 40 members the
// 20 most affected (the longest unowned partition-time right before or
// after their spans) keep their colours and the others share one grey;
// when the partitions' rows would not fit, each panel draws the
// partitions unowned longest and one band for the rest, whose red height
// is the share of them unowned. A note under the legend says what was
// left out. No two members drawn share a colour.
//
// It fails, writing nothing, when a timeline is nil or when there are so
// many that not even one partition's row of each fits.
func WriteSVG(w io.Writer, tls ...*Timeline) error {
	for i, tl := range tls {
		if tl == nil {
			return fmt.Errorf("timeline: WriteSVG: timeline %d is nil", i)
		}
	}
	p, err := layout(tls)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	p.draw(&b)
	_, err = w.Write(b.Bytes())
	return err
}

// picture is the layout of one SVG: what is drawn, in which colour, where.
type picture struct {
	tls     []*Timeline
	end     int64             // the time at the right edge
	colours map[string]string // member => colour; members left out are drawn in svgOthers
	members []string          // the members with a colour, sorted
	others  int               // the members without one

	shown []assign.TopicPartition        // the partitions with a row, sorted
	inRow map[assign.TopicPartition]bool // the same, for lookups
	rest  int                            // the partitions in the band; 0 for no band
	all   int                            // every partition of any timeline

	legend []legendItem
	notes  []string   // lines of the note under the legend
	titles [][]string // per panel, the lines of its title
	left   float64    // where the time axis starts
	height int
}

type legendItem struct {
	x, y   float64 // the swatch's top left corner
	colour string
	label  string
	title  string // the tooltip: the whole name
}

// layout decides what the picture shows and where.
func layout(tls []*Timeline) (*picture, error) {
	p := &picture{tls: tls, end: 1, colours: map[string]string{}}
	for _, tl := range tls {
		p.end = max(p.end, tl.End)
	}
	p.pickMembers()

	parts := partitionScores(tls, p.colours)
	p.all = len(parts)
	p.titles = make([][]string, len(tls))
	for i, tl := range tls {
		p.titles[i] = wrap(panelTitle(tl), lineChars(svgTitleCharW))
	}
	// The rows of every partition, if they fit; else the note says so,
	// and the rows of the partitions unowned longest fill the room left,
	// over one band for the rest.
	tps := slices.SortedFunc(maps.Keys(parts), assign.TopicPartition.Compare)
	p.shown = tps
	if p.measure() > svgMaxHeight {
		slices.SortFunc(tps, func(a, b assign.TopicPartition) int {
			sa, sb := parts[a], parts[b]
			return cmp.Or(cmp.Compare(sb.unowned, sa.unowned), cmp.Compare(sb.coloured, sa.coloured), cmp.Compare(sb.owners, sa.owners), a.Compare(b))
		})
		// Among partitions unowned as long, those a member with a colour
		// owned come first: a row of grey says little.
		// Start from what the room allows with the note as it will read,
		// then give up rows while the note's wrapping still overflows.
		p.shown, p.rest = nil, len(tps)
		n := (svgMaxHeight - p.measure()) / (len(tls) * svgRow)
		for ; n >= 1; n-- {
			p.shown, p.rest = tps[:n], len(tps)-n
			if p.measure() <= svgMaxHeight {
				break
			}
		}
		if n < 1 {
			return nil, fmt.Errorf("timeline: WriteSVG: %w: %d timelines do not fit one picture %d units tall; draw fewer at once", ErrTooManyPanels, len(tls), svgMaxHeight)
		}
		p.shown = slices.SortedFunc(slices.Values(tps[:n]), assign.TopicPartition.Compare)
	}
	p.inRow = make(map[assign.TopicPartition]bool, len(p.shown))
	for _, tp := range p.shown {
		p.inRow[tp] = true
	}
	p.height = p.measure()

	longest := 0
	for _, tp := range p.shown {
		longest = max(longest, textWidth(tp.String()))
	}
	if p.rest > 0 {
		longest = max(longest, textWidth(bandLabel(p.rest)))
	}
	p.left = svgMargin + 6 + svgCharW*float64(min(longest, svgMaxLabel))
	return p, nil
}

// measure lays out the legend and the note and returns the picture's
// height with the rows chosen so far.
func (p *picture) measure() int {
	h := p.layoutTop()
	for _, t := range p.titles {
		h += svgHeader + len(t)*svgTitleLine + len(p.shown)*svgRow + svgAxis + svgGap
		if p.rest > 0 {
			h += svgBand
		}
	}
	return h
}

// pickMembers gives the members their colours: every member in a group
// of up to svgAllMembers, else the svgTopMembers most affected.
func (p *picture) pickMembers() {
	affected, spans := memberScores(p.tls)
	all := slices.Sorted(maps.Keys(spans))
	drawn := all
	if len(all) > svgAllMembers {
		drawn = slices.Clone(all)
		slices.SortFunc(drawn, func(a, b string) int {
			return cmp.Or(cmp.Compare(affected[b], affected[a]), cmp.Compare(spans[b], spans[a]), strings.Compare(a, b))
		})
		drawn = drawn[:svgTopMembers]
		slices.Sort(drawn)
	}
	p.members = drawn
	p.others = len(all) - len(drawn)
	for i, m := range drawn {
		p.colours[m] = memberColour(i)
	}
}

// layoutTop lays out the legend and the note under it, and returns the
// height they take.
func (p *picture) layoutTop() int {
	p.legend = p.legend[:0]
	for _, m := range p.members {
		p.legend = append(p.legend, legendItem{colour: p.colours[m], label: cut(m, svgMaxLabel), title: m})
	}
	if p.others > 0 {
		p.legend = append(p.legend, legendItem{colour: svgOthers, label: plural(p.others, "other member", "other members")})
	}
	p.legend = append(p.legend, legendItem{colour: svgUnowned, label: "unowned"})

	x, y := float64(svgMargin), float64(svgTop)
	for i := range p.legend {
		w := 16 + svgCharW*float64(textWidth(p.legend[i].label))
		if x > svgMargin && x+w > svgWidth-svgMargin {
			x, y = svgMargin, y+svgLine
		}
		p.legend[i].x, p.legend[i].y = x, y
		x += w + 12
	}

	var note []string
	if p.others > 0 {
		note = append(note, fmt.Sprintf("%d members: the %d most affected (the longest unowned partition-time right before or after their spans) have colours; the other %d are grey.",
			p.others+len(p.members), len(p.members), p.others))
	}
	if p.rest > 0 {
		note = append(note, fmt.Sprintf("%s: each panel draws the %d unowned longest, one a row, and one band for the other %d, its red height the share of them unowned.",
			plural(p.all, "partition", "partitions"), p.all-p.rest, p.rest))
	}
	p.notes = p.notes[:0]
	for _, n := range note {
		p.notes = append(p.notes, wrap(n, lineChars(svgCharW))...)
	}
	return int(y) + svgLine + len(p.notes)*svgLine + svgTop
}

// draw writes the SVG.
func (p *picture) draw(b *bytes.Buffer) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		svgWidth, p.height, svgWidth, p.height)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", svgWidth, p.height)

	b.WriteString(`<g class="legend">` + "\n")
	for _, it := range p.legend {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="12" height="12" fill="%s"/><text x="%.1f" y="%.1f">%s`,
			it.x, it.y, it.colour, it.x+16, it.y+10, escape(it.label))
		if it.title != "" && it.title != it.label {
			fmt.Fprintf(b, `<title>%s</title>`, escape(it.title))
		}
		b.WriteString("</text>\n")
	}
	b.WriteString("</g>\n")
	y := svgTop + svgLine
	if len(p.legend) > 0 {
		y = int(p.legend[len(p.legend)-1].y) + svgLine
	}
	if len(p.notes) > 0 {
		b.WriteString(`<g class="note" fill="#333">` + "\n")
		for _, n := range p.notes {
			fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`+"\n", svgMargin, y+12, escape(n))
			y += svgLine
		}
		b.WriteString("</g>\n")
	}
	y += svgTop
	for i, tl := range p.tls {
		y = p.drawPanel(b, tl, p.titles[i], y)
	}
	b.WriteString("</svg>\n")
}

// x is where time t falls.
func (p *picture) x(t int64) float64 {
	return p.left + float64(t)*(svgWidth-svgRight-p.left)/float64(p.end)
}

func (p *picture) colour(m string) string {
	if c, ok := p.colours[m]; ok {
		return c
	}
	return svgOthers
}

// drawPanel draws one timeline from y down and returns the y after it.
func (p *picture) drawPanel(b *bytes.Buffer, tl *Timeline, title []string, y int) int {
	b.WriteString(`<g class="panel">` + "\n")
	for _, line := range title {
		y += svgTitleLine
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="12" font-weight="bold">%s</text>`+"\n", svgMargin, y-3, escape(line))
	}
	top := y + svgHeader
	rows := len(p.shown) * svgRow
	if p.rest > 0 {
		rows += svgBand
	}

	lastLabel := math.Inf(-1)
	for _, r := range tl.Rebalances {
		w := max(p.x(r.End)-p.x(r.Start), 1)
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#bbbbbb" fill-opacity="0.35"><title>%s</title></rect>`,
			p.x(r.Start), top, w, rows, escape(fmt.Sprintf("%s-%s: %s (generation %d)", FormatMs(r.Start), FormatMs(r.End), r.Reason, r.Generation)))
		// A label that would overprint the one before is left to the tooltip.
		if p.x(r.Start)-lastLabel >= 18 {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="9" fill="#555">g%d</text>`, p.x(r.Start), top-2, r.Generation)
			lastLabel = p.x(r.Start)
		}
		b.WriteString("\n")
	}

	for i, tp := range p.shown {
		ry := top + i*svgRow
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="end">%s`, p.left-6, ry+svgRow-3, escape(cut(tp.String(), svgMaxLabel)))
		if textWidth(tp.String()) > svgMaxLabel {
			fmt.Fprintf(b, `<title>%s</title>`, escape(tp.String()))
		}
		b.WriteString("</text>")
		part, _ := tl.Partition(tp) // a partition this timeline lacks has an empty row
		for _, o := range part.Owners {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
				p.x(o.From), ry+1, max(p.x(o.To)-p.x(o.From), 0.5), svgRow-2, p.colour(o.Member),
				escape(fmt.Sprintf("%s: %s %s-%s", tp, o.Member, FormatMs(o.From), FormatMs(o.To))))
		}
		for _, u := range part.Unowned {
			fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`,
				p.x(u.From), ry+1, max(p.x(u.To)-p.x(u.From), 0.5), svgRow-2, svgUnowned,
				escape(fmt.Sprintf("%s: unowned %s-%s (%s)", tp, FormatMs(u.From), FormatMs(u.To), FormatMs(u.Len()))))
		}
		b.WriteString("\n")
	}
	if p.rest > 0 {
		p.drawBand(b, tl, top+len(p.shown)*svgRow)
	}

	axis := top + rows
	fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", p.left, axis, svgWidth-svgRight, axis)
	step := tickStep(p.end)
	for t := int64(0); t <= p.end; t += step {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle" font-size="9">%s</text>`+"\n",
			p.x(t), axis, p.x(t), axis+4, p.x(t), axis+15, FormatMs(t))
	}
	b.WriteString("</g>\n")
	return axis + svgAxis + svgGap
}

// drawBand draws the partitions without a row of their own as one band
// from y down: grey where they are consumed, red, from the bottom, as
// high as the share of them unowned at each moment.
func (p *picture) drawBand(b *bytes.Buffer, tl *Timeline, y int) {
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	var total int64
	for _, part := range tl.Partitions {
		if p.inRow[part.TopicPartition] {
			continue
		}
		for _, u := range part.Unowned {
			edges = append(edges, edge{u.From, 1}, edge{u.To, -1})
			total += u.Len()
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	h := float64(svgBand - 2)
	var most, n int
	var bars bytes.Buffer
	for i := 0; i < len(edges); {
		at := edges[i].at
		for ; i < len(edges) && edges[i].at == at; i++ {
			n += edges[i].delta
		}
		most = max(most, n)
		if n > 0 && i < len(edges) {
			// At least a unit high, so that one partition of thousands shows.
			bh := max(h*float64(n)/float64(p.rest), 1)
			fmt.Fprintf(&bars, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`,
				p.x(at), float64(y+1)+h-bh, max(p.x(edges[i].at)-p.x(at), 0.5), bh, svgUnowned)
		}
	}
	label := bandLabel(p.rest)
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="end">%s</text>`, p.left-6, y+svgBand/2+4, escape(label))
	fmt.Fprintf(b, `<rect class="band" x="%.1f" y="%d" width="%.1f" height="%d" fill="#e8e8e8"><title>%s</title></rect>`,
		p.left, y+1, svgWidth-svgRight-p.left, svgBand-2,
		escape(fmt.Sprintf("%s without a row: at most %d unowned at once, %s unowned in all", label, most, FormatPartitionMs(total))))
	b.Write(bars.Bytes())
	b.WriteString("\n")
}

func bandLabel(n int) string { return plural(n, "other partition", "other partitions") }

// panelTitle is the first line of a panel: the strategy and its summary.
func panelTitle(tl *Timeline) string {
	return fmt.Sprintf("%s (%s protocol): %s, longest pause %s, %s unowned",
		cut(tl.Strategy, svgMaxLabel), tl.Protocol, plural(tl.Summary.Rebalances, "rebalance", "rebalances"),
		FormatMs(tl.Summary.MaxUnownedMs), FormatPartitionMs(tl.Summary.UnownedPartitionMs))
}

// partitionScore is how much a partition suffered in all the timelines.
type partitionScore struct {
	unowned  int64 // its unowned time
	owners   int   // its spans of ownership
	coloured int   // those of a member with a colour of its own
}

func partitionScores(tls []*Timeline, colours map[string]string) map[assign.TopicPartition]partitionScore {
	out := map[assign.TopicPartition]partitionScore{}
	for _, tl := range tls {
		for _, part := range tl.Partitions {
			s := out[part.TopicPartition]
			for _, u := range part.Unowned {
				s.unowned += u.Len()
			}
			s.owners += len(part.Owners)
			for _, o := range part.Owners {
				if _, ok := colours[o.Member]; ok {
					s.coloured++
				}
			}
			out[part.TopicPartition] = s
		}
	}
	return out
}

// memberScores returns, for every member that ever owned a partition in
// any of tls, how much it was affected: the unowned time of the gaps
// right before and right after its spans (a member that crashed, revoked
// or waited for a partition), and its number of spans.
func memberScores(tls []*Timeline) (affected map[string]int64, spans map[string]int) {
	affected, spans = map[string]int64{}, map[string]int{}
	for _, tl := range tls {
		for _, part := range tl.Partitions {
			for _, o := range part.Owners {
				spans[o.Member]++
				// The unowned spans are in time order and disjoint, so
				// sorted by From and by To alike.
				if i, ok := slices.BinarySearchFunc(part.Unowned, o.To, func(u Span, t int64) int { return cmp.Compare(u.From, t) }); ok {
					affected[o.Member] += part.Unowned[i].Len()
				}
				if i, ok := slices.BinarySearchFunc(part.Unowned, o.From, func(u Span, t int64) int { return cmp.Compare(u.To, t) }); ok {
					affected[o.Member] += part.Unowned[i].Len()
				}
			}
		}
	}
	return affected, spans
}

// textWidth is the width of s in characters: two for a rune outside
// ASCII, which may be a wide one.
func textWidth(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= utf8.RuneSelf {
			n++
		}
	}
	return n
}

// cut shortens s to at most n characters of width, ending it with "…"
// when it was longer.
func cut(s string, n int) string {
	if textWidth(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		rw := 1
		if r >= utf8.RuneSelf {
			rw = 2
		}
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// wrap breaks s into lines of at most n characters of width at spaces,
// cutting a word longer than a line.
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		word = cut(word, n)
		switch {
		case line == "":
			line = word
		case textWidth(line)+1+textWidth(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
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

// lineChars is how many characters of width charW fit a line across the
// picture.
func lineChars(charW float64) int {
	return int((svgWidth - 2*svgMargin) / charW)
}
