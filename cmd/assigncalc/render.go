package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// This file holds every tablewriter setting and every piece of terminal
// styling of assigncalc, so that all tables look alike.

// align of a column.
type align int8

const (
	left align = iota
	right
)

// table is a plain text table in the style of kafka-consumer-groups.sh
// --describe: upper-case headers, columns separated by two spaces, no
// borders.
type table struct {
	header []string
	aligns []align // per column; missing ones are left
	rows   [][]string
}

func (t *table) add(row ...string) { t.rows = append(t.rows, row) }

// render writes t to w. Trailing spaces are trimmed from every line.
func (t *table) render(w io.Writer) error {
	var buf bytes.Buffer
	aligns := make([]tw.Align, len(t.header))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
		if i < len(t.aligns) && t.aligns[i] == right {
			aligns[i] = tw.AlignRight
		}
	}
	pad := tw.CellPadding{Global: tw.Padding{Left: "", Right: "  ", Overwrite: true}}
	tbl := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off, ShowHeader: tw.Off, ShowFooter: tw.Off},
				Lines:      tw.Lines{ShowTop: tw.Off, ShowBottom: tw.Off, ShowHeaderLine: tw.Off, ShowFooterLine: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{PerColumn: aligns},
				Padding:    pad,
			},
			Row: tw.CellConfig{
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
				Alignment:  tw.CellAlignment{PerColumn: aligns},
				Padding:    pad,
			},
		}),
		tablewriter.WithTrimSpace(tw.Off),
	)
	tbl.Header(t.header)
	if err := tbl.Bulk(t.rows); err != nil {
		return err
	}
	if err := tbl.Render(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// writeCSV writes a header and rows as CSV.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// compact writes partitions in Kafka's notation, "t1(0-2,5) t2(7)" (the
// tool's topic(0,1,2), with runs of three or more consecutive partitions
// as a range): the one partition notation of every command. Consecutive
// partitions of one topic share one entry; sorted lists give one per
// topic.
func compact(tps []assign.TopicPartition) string {
	var b strings.Builder
	for i := 0; i < len(tps); {
		topic := tps[i].Topic
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(topic)
		b.WriteByte('(')
		first := true
		for i < len(tps) && tps[i].Topic == topic {
			j := i
			for j+1 < len(tps) && tps[j+1].Topic == topic && tps[j+1].Partition == tps[j].Partition+1 {
				j++
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			switch {
			case j-i >= 2:
				fmt.Fprintf(&b, "%d-%d", tps[i].Partition, tps[j].Partition)
				i = j + 1
			default:
				b.WriteString(strconv.Itoa(int(tps[i].Partition)))
				i++
			}
		}
		b.WriteByte(')')
	}
	return b.String()
}

// topicCounts writes how many partitions of each topic tps holds,
// "t1: 40, t2: 12", for a cell too narrow for the partitions themselves.
func topicCounts(tps []assign.TopicPartition) string {
	var parts []string
	for i := 0; i < len(tps); {
		j := i
		for j < len(tps) && tps[j].Topic == tps[i].Topic {
			j++
		}
		parts = append(parts, fmt.Sprintf("%s: %d", tps[i].Topic, j-i))
		i = j
	}
	return strings.Join(parts, ", ")
}

// fit returns tps in compact notation when that fits in n runes, else
// the count of every topic: the cell grows past n rather than hide a
// topic.
func fit(tps []assign.TopicPartition, n int) string {
	if s := compact(tps); len([]rune(s)) <= n {
		return s
	}
	return topicCounts(tps)
}

// truncate shortens s to at most n runes, saying how much was cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// barWidth is the length of the longest bar.
const barWidth = 30

// bar draws count as a horizontal bar scaled so that max fills barWidth
// (one block per partition when max is small). With colour, bars of
// members above the mean are yellow and idle members' are red.
func bar(count, max int, mean float64, colour bool) string {
	if max <= 0 {
		return ""
	}
	n := count
	if max > barWidth {
		n = (count*barWidth + max - 1) / max
	}
	s := strings.Repeat("█", n)
	if count == 0 {
		s = "·"
	}
	if !colour {
		return s
	}
	switch {
	case count == 0:
		return "\x1b[31m" + s + "\x1b[0m"
	case float64(count) > mean+0.5:
		return "\x1b[33m" + s + "\x1b[0m"
	}
	return "\x1b[32m" + s + "\x1b[0m"
}

// formatStdDev prints a standard deviation with two decimals.
func formatStdDev(x float64) string {
	return strconv.FormatFloat(x, 'f', 2, 64)
}
