package groupfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign"
)

// Result is the answer for one group and one strategy, written as one JSON
// object:
//
//	{"name": "checkout-service", "strategy": "range",
//	 "assignment": {"c0": {"t1": [0, 1, 2]}, "c1": {}}}
//
// or, when the group could not be assigned:
//
//	{"name": "checkout-service", "strategy": "range", "error": "..."}
type Result struct {
	Name     string // the group's label, "" when it has none
	Strategy string // the strategy's Kafka name

	// Members lists the member IDs in the order the assignment is written:
	// the group's member order. Members of Assignment missing from it
	// follow in Go string order; members of it missing from Assignment are
	// written with {}.
	Members []string

	// Assignment is what each member receives.
	Assignment assign.Assignment

	// Stats, when not nil, is written as "stats" after the assignment.
	Stats *Stats

	// Cooperative, when not nil, is written as "target", "revoked" and
	// "pending" after the statistics, each listing every member like
	// "assignment".
	Cooperative *Cooperative

	// Client, when not "", is written as "client" after the rest: the
	// client library whose leader the strategy reproduces (--client).
	Client string

	// Approximate, when set, is written as "approximate": true: the
	// strategy is ours, not shown to equal the client's own.
	Approximate bool

	// Faults, when not empty, is written as "faults": what the checkers
	// find wrong with an answer reproduced from a client (Java's sticky
	// assignors may leave a group unbalanced or give a partition twice).
	Faults []string

	// Err, when not nil, is written as "error" instead of "assignment".
	Err error
}

// Cooperative is the rest of a cooperative rebalance, beyond this round's
// assignment (see [assign.CooperativePlan]).
type Cooperative struct {
	Target  assign.Assignment // where the group is heading
	Revoked assign.Assignment // what each member gives up this round
	Pending assign.Assignment // what each member gets in the follow-up round
}

// Stats summarises an assignment in a [Result], from [assign.Stats].
// StdDev is written rounded to four decimals.
type Stats struct {
	Members    int
	Partitions int
	Min, Max   int
	Spread     int
	StdDev     float64
	Idle       int
}

// StatsOf converts s, computed by [assign.Summarize].
func StatsOf(s assign.Stats) *Stats {
	return &Stats{Members: s.Members, Partitions: s.Partitions, Min: s.Min, Max: s.Max, Spread: s.Spread, StdDev: s.StdDev, Idle: s.Idle}
}

// ErrInvalidUTF8 is returned, wrapped with the string quoted, by
// [AppendResult] and [AppendGroup] for a string that is not valid UTF-8:
// JSON cannot carry it unchanged.
var ErrInvalidUTF8 = errors.New("groupfile: string is not valid UTF-8")

// MemberIDs returns the IDs of g's members in order, for [Result.Members].
func MemberIDs(g assign.Group) []string {
	ids := make([]string, len(g.Members))
	for i, m := range g.Members {
		ids[i] = m.ID
	}
	return ids
}

// WriteResult writes r to w as one line of compact JSON.
func WriteResult(w io.Writer, r Result) error {
	buf, err := AppendResult(nil, r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(buf, '\n'))
	return err
}

// AppendResult appends r as compact JSON, without a newline, to buf.
// Keys come in a fixed order (name, strategy, then assignment or error);
// the assignment's members in the order of r.Members, each member's topics
// and partitions sorted.
func AppendResult(buf []byte, r Result) ([]byte, error) {
	w := writer{buf: buf}
	w.raw(`{"name":`)
	w.str(r.Name)
	w.raw(`,"strategy":`)
	w.str(r.Strategy)
	if r.Err != nil {
		w.raw(`,"error":`)
		w.str(r.Err.Error())
		w.raw("}")
		return w.buf, w.err
	}
	w.raw(`,"assignment":`)
	w.assignment(r.Members, r.Assignment)
	if st := r.Stats; st != nil {
		w.raw(`,"stats":`)
		w.buf = appendStats(w.buf, st)
	}
	if c := r.Cooperative; c != nil {
		w.raw(`,"target":`)
		w.assignment(r.Members, c.Target)
		w.raw(`,"revoked":`)
		w.assignment(r.Members, c.Revoked)
		w.raw(`,"pending":`)
		w.assignment(r.Members, c.Pending)
	}
	if r.Client != "" {
		w.raw(`,"client":`)
		w.str(r.Client)
	}
	if r.Approximate {
		w.raw(`,"approximate":true`)
	}
	if len(r.Faults) > 0 {
		w.raw(`,"faults":`)
		w.strs(r.Faults)
	}
	w.raw("}")
	return w.buf, w.err
}

// WriteGroup writes e to w as one line of compact JSON in the group file
// format, such that reading it back gives e again (Line aside).
func WriteGroup(w io.Writer, e Entry) error {
	buf, err := AppendGroup(nil, e)
	if err != nil {
		return err
	}
	_, err = w.Write(append(buf, '\n'))
	return err
}

// AppendGroup appends e as compact JSON in the group file format to buf.
// Optional fields are written only when set; map keys are sorted.
func AppendGroup(buf []byte, e Entry) ([]byte, error) {
	w := writer{buf: buf}
	g := e.Group
	w.raw("{")
	if e.Name != "" {
		w.raw(`"name":`)
		w.str(e.Name)
		w.raw(",")
	}
	w.raw(`"topics":{`)
	for i, t := range slices.Sorted(maps.Keys(g.Topics)) {
		if i > 0 {
			w.raw(",")
		}
		w.str(t)
		w.raw(":")
		w.int(g.Topics[t])
	}
	w.raw("}")
	if g.PartitionRacks != nil {
		w.raw(`,"partitionRacks":{`)
		for i, t := range slices.Sorted(maps.Keys(g.PartitionRacks)) {
			if i > 0 {
				w.raw(",")
			}
			w.str(t)
			w.raw(":[")
			for p, racks := range g.PartitionRacks[t] {
				if p > 0 {
					w.raw(",")
				}
				w.strs(racks)
			}
			w.raw("]")
		}
		w.raw("}")
	}
	if g.TopicIDs != nil {
		w.raw(`,"topicIds":{`)
		for i, t := range slices.Sorted(maps.Keys(g.TopicIDs)) {
			if i > 0 {
				w.raw(",")
			}
			w.str(t)
			w.raw(":")
			w.str(g.TopicIDs[t].String())
		}
		w.raw("}")
	}
	w.raw(`,"members":[`)
	for i, m := range g.Members {
		if i > 0 {
			w.raw(",")
		}
		w.raw(`{"id":`)
		w.str(m.ID)
		if m.InstanceID != "" {
			w.raw(`,"instance":`)
			w.str(m.InstanceID)
		}
		if m.Rack != "" {
			w.raw(`,"rack":`)
			w.str(m.Rack)
		}
		if len(m.Topics) > 0 || m.TopicRegex == "" { // a pattern alone needs no "topics"
			w.raw(`,"topics":`)
			w.strs(m.Topics)
		}
		if m.TopicRegex != "" {
			w.raw(`,"topicRegex":`)
			w.str(m.TopicRegex)
		}
		if len(m.Owned) > 0 {
			w.raw(`,"owned":`)
			w.owned(m.Owned)
		}
		if m.Generation != -1 {
			w.raw(`,"generation":`)
			w.int(m.Generation)
		}
		if i < len(e.Protocols) && e.Protocols[i] != nil {
			w.raw(`,"protocols":`)
			w.strs(e.Protocols[i])
		}
		if i < len(e.Clients) && e.Clients[i] != "" {
			w.raw(`,"client":`)
			w.str(e.Clients[i])
		}
		w.raw("}")
	}
	w.raw("]}")
	return w.buf, w.err
}

// writer appends JSON to buf, remembering the first error.
type writer struct {
	buf []byte
	err error

	// members is the list of members assignment last wrote in, listed
	// its set and distinct the list without repeats.
	members, distinct []string
	listed            map[string]bool
}

func (w *writer) raw(s string) { w.buf = append(w.buf, s...) }

func (w *writer) int(n int32) { w.buf = strconv.AppendInt(w.buf, int64(n), 10) }

// str appends s as a JSON string. encoding/json escapes <, > and & too,
// which is valid JSON and reads back unchanged.
func (w *writer) str(s string) {
	if !utf8.ValidString(s) && w.err == nil {
		w.err = fmt.Errorf("%w: %q (JSON cannot carry it unchanged)", ErrInvalidUTF8, s)
	}
	w.buf = appendJSONString(w.buf, s)
}

// appendJSONString appends s as encoding/json writes it. Names are
// nearly always printable ASCII that needs no escape, which it copies
// between quotes; anything else goes through json.Marshal, so the output
// is json.Marshal's byte for byte (TestAppendJSONString). Marshalling
// every name was a fifth of plan's time on many small groups.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

func (w *writer) strs(ss []string) {
	w.raw("[")
	for i, s := range ss {
		if i > 0 {
			w.raw(",")
		}
		w.str(s)
	}
	w.raw("]")
}

// assignment appends {"member": {"topic": [p, ...]}, ...} with the members
// in the order of members, then those of a missing from it in Go string
// order; members absent from a get {}.
func (w *writer) assignment(members []string, a assign.Assignment) {
	w.raw("{")
	if w.listed == nil || !sameSlice(w.members, members) {
		// Once per list of members, not per assignment: a cooperative
		// result writes four assignments over one list (issue 30).
		w.members, w.distinct = members, members
		w.listed = make(map[string]bool, len(members))
		for k, id := range members {
			switch {
			case !w.listed[id]:
				w.listed[id] = true
				if len(w.distinct) < k { // after a repeat
					w.distinct = append(w.distinct, id)
				}
			case len(w.distinct) == len(members): // the first repeat
				w.distinct = slices.Clone(members[:k])
			}
		}
	}
	first := true
	member := func(id string, list []assign.TopicPartition) {
		if !first {
			w.raw(",")
		}
		first = false
		w.str(id)
		w.raw(":")
		w.partitions(list)
	}
	found := 0 // members of a among the listed ones
	for _, id := range w.distinct {
		list, ok := a[id]
		if ok {
			found++
		}
		member(id, list)
	}
	if found < len(a) {
		var extra []string
		for id := range a {
			if !w.listed[id] {
				extra = append(extra, id)
			}
		}
		slices.Sort(extra)
		for _, id := range extra {
			member(id, a[id])
		}
	}
	w.raw("}")
}

// sameSlice reports whether a and b are one slice.
func sameSlice(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// partitions appends {"topic": [p, ...], ...} with topics and partitions
// sorted, whatever the order of tps.
func (w *writer) partitions(tps []assign.TopicPartition) {
	if !slices.IsSortedFunc(tps, assign.TopicPartition.Compare) {
		tps = slices.Clone(tps)
		slices.SortFunc(tps, assign.TopicPartition.Compare)
	}
	w.grouped(tps)
}

// owned appends claims grouped by topic in the order topics first appear,
// keeping the order of partitions within a topic.
func (w *writer) owned(tps []assign.TopicPartition) {
	var topics []string
	byTopic := make(map[string][]int32)
	for _, tp := range tps {
		if _, ok := byTopic[tp.Topic]; !ok {
			topics = append(topics, tp.Topic)
		}
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	w.raw("{")
	for i, t := range topics {
		if i > 0 {
			w.raw(",")
		}
		w.str(t)
		w.raw(":[")
		for k, p := range byTopic[t] {
			if k > 0 {
				w.raw(",")
			}
			w.int(p)
		}
		w.raw("]")
	}
	w.raw("}")
}

// grouped appends sorted partitions as {"topic": [p, ...]}.
func (w *writer) grouped(tps []assign.TopicPartition) {
	w.raw("{")
	for i, tp := range tps {
		switch {
		case i == 0:
			w.str(tp.Topic)
			w.raw(":[")
		case tp.Topic != tps[i-1].Topic:
			w.raw("],")
			w.str(tp.Topic)
			w.raw(":[")
		default:
			w.raw(",")
		}
		w.int(tp.Partition)
	}
	if len(tps) > 0 {
		w.raw("]")
	}
	w.raw("}")
}
