package describe

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A paste whose header was cut off is read by its rows alone when exactly
// one layout fits every row: the layouts below, each a list of columns,
// the last taking the rest of the row when it may hold spaces
// (ASSIGNMENT: "t1(0), t2(1)").
var headerlessLayouts = []struct {
	kind    kind
	name    string
	columns string
	rest    bool // the last column takes the rest of the row
}{
	{kindOffsets, "offsets view", "GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID", false},
	{kindOffsets, "offsets view", "TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID", false},
	{kindOffsets, "offsets view", "GROUP TOPIC PARTITION LEADER-EPOCH CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID", false},
	{kindMembers, "members view", "GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT", true},
	{kindMembers, "members view", "GROUP CONSUMER-ID GROUP-INSTANCE-ID HOST CLIENT-ID #PARTITIONS ASSIGNMENT", true},
	{kindKIP1099, "members view of Kafka 4", "GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT", false},
	{kindKIP1099, "members view of Kafka 4", "GROUP CONSUMER-ID GROUP-INSTANCE-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT", false},
}

var (
	parenForm = regexp.MustCompile(`^(-|[^\s(),]+\([0-9,]*\)(, [^\s(),]+\([0-9,]*\))*)$`)
	colonForm = regexp.MustCompile(`^(-|[^\s:;]+:[0-9,]+(;[^\s:;]+:[0-9,]+)*)$`)
)

// fits reports whether the cells of a row fit their columns' contents.
func fits(r row) bool {
	for i, name := range r.names {
		v := r.vals[i]
		ok := true
		switch name {
		case "PARTITION", "LEADER-EPOCH", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CURRENT-EPOCH", "TARGET-EPOCH":
			ok = v == missingValue || isWhole(v)
		case "#PARTITIONS":
			ok = isWhole(v)
		case "ASSIGNMENT":
			ok = parenForm.MatchString(v)
		case "CURRENT-ASSIGNMENT", "TARGET-ASSIGNMENT":
			ok = colonForm.MatchString(v)
		case "HOST":
			ok = v == missingValue || strings.Contains(v, "/")
		}
		if !ok {
			return false
		}
	}
	return !(r.get("PARTITION") == missingValue) || r.get("TOPIC") == missingValue
}

func isWhole(s string) bool {
	_, err := strconv.ParseUint(s, 10, 63)
	return err == nil
}

// inferSection reads rows whose header was cut off, refusing them with
// ErrNoHeader unless one layout, and for each row one of its column
// lists, fits.
func inferSection(lines []line) (*section, error) {
	var kinds []kind
	var names []string
	for _, l := range headerlessLayouts {
		if len(kinds) == 0 || kinds[len(kinds)-1] != l.kind {
			kinds, names = append(kinds, l.kind), append(names, l.name)
		}
	}
	var fitting []int
	var sections []*section
	for i, k := range kinds {
		s := &section{kind: k}
		ok := true
		for _, l := range lines {
			r, n := fitRow(k, l)
			if n != 1 {
				ok = false
				break
			}
			s.rows = append(s.rows, r)
		}
		if ok {
			fitting = append(fitting, i)
			sections = append(sections, s)
		}
	}
	switch len(fitting) {
	case 1:
		return sections[0], nil
	case 0:
		return nil, &Error{Line: lines[0].n, Err: fmt.Errorf("%w, and the rows fit no layout; paste the header line too", ErrNoHeader)}
	}
	var fit []string
	for _, i := range fitting {
		fit = append(fit, names[i])
	}
	return nil, &Error{Line: lines[0].n, Err: fmt.Errorf("%w, and the rows fit several layouts (%s); paste the header line too", ErrNoHeader, strings.Join(fit, ", "))}
}

// fitRow cuts l by the column lists of kind k, returning the row of the
// one that fits and how many fit.
func fitRow(k kind, l line) (row, int) {
	var found row
	n := 0
	words := strings.Fields(l.text)
	for _, lay := range headerlessLayouts {
		if lay.kind != k {
			continue
		}
		cols := strings.Fields(lay.columns)
		if len(words) < len(cols) || (!lay.rest && len(words) != len(cols)) {
			continue
		}
		r := row{n: l.n, names: cols, vals: slices.Clip(words[:len(cols)])}
		if lay.rest {
			r.vals = slices.Clone(r.vals)
			r.vals[len(cols)-1] = strings.Join(words[len(cols)-1:], " ")
		}
		if fits(r) {
			found, n = r, n+1
		}
	}
	return found, n
}
