package groupfile

import (
	"encoding/json"
	"strconv"

	"github.com/assigncalc/assigncalc/timeline"
)

// AppendTimeline appends tl as compact JSON, without a newline, to buf:
// the form timeline writes in json and jsonl, one object per strategy.
// Its keys are a public contract:
//
//	{"strategy": "range", "protocol": "classic", "end": 60000,
//	 "rebalances": [{"start": 0, "end": 3000, "reason": "...", "generation": 1}],
//	 "partitions": {"t-0": {"unowned": [[0, 3000]], "owners": [[3000, 60000, "c0"]]}},
//	 "steps": [{"at": 0, "member": "c0", "what": "..."}],
//	 "summary": {"rebalances": 1, "maxUnownedMs": 3000, "unownedPartitionMs": 3000,
//	             "seed": 1, "samples": 1}}
//
// The summary is of the draw of the members' phases "seed" names. With
// d.Samples above 1 it also carries the distribution over the draws:
//
//	"samples": 100, "p50": {"maxUnownedMs": ..., "unownedPartitionMs": ..., "rebalanceMs": ...},
//	"p95": {...}, "max": {...}
//
// where rebalanceMs is over every rebalance of every draw. Under --client
// [AppendTimelineClient] adds "client" and "approximate" after "summary".
// Times are milliseconds. "partitions" keeps tl's order (topic, then
// partition), which a map would lose; a step of the coordinator's own has
// no "member". Lists are [] when empty, never null.
func AppendTimeline(buf []byte, tl *timeline.Timeline, d timeline.Distribution) ([]byte, error) {
	return AppendTimelineClient(buf, tl, d, TimelineClient{})
}

// TimelineClient is the client library whose group leader a timeline's
// strategy reproduces (--client), as [Result] carries it.
type TimelineClient struct {
	Name        string // "" for none: assigncalc's own strategies
	Approximate bool   // the strategy is ours, not shown to equal the client's
}

// AppendTimelineClient is [AppendTimeline], then, when c.Name is not "",
// "client": c.Name and, when c.Approximate, "approximate": true after the
// summary, as [Result] writes them after the rest.
func AppendTimelineClient(buf []byte, tl *timeline.Timeline, d timeline.Distribution, c TimelineClient) ([]byte, error) {
	type rebalance struct {
		Start      int64  `json:"start"`
		End        int64  `json:"end"`
		Reason     string `json:"reason"`
		Generation int32  `json:"generation"`
	}
	type step struct {
		At     int64  `json:"at"`
		Member string `json:"member,omitempty"`
		What   string `json:"what"`
	}
	type point struct {
		MaxUnownedMs       int64 `json:"maxUnownedMs"`
		UnownedPartitionMs int64 `json:"unownedPartitionMs"`
		RebalanceMs        int64 `json:"rebalanceMs"`
	}
	type summary struct {
		Rebalances         int    `json:"rebalances"`
		MaxUnownedMs       int64  `json:"maxUnownedMs"`
		UnownedPartitionMs int64  `json:"unownedPartitionMs"`
		Seed               uint64 `json:"seed"`
		Samples            int    `json:"samples"`
		P50                *point `json:"p50,omitempty"`
		P95                *point `json:"p95,omitempty"`
		Max                *point `json:"max,omitempty"`
	}
	rbs := []rebalance{}
	for _, r := range tl.Rebalances {
		rbs = append(rbs, rebalance{r.Start, r.End, r.Reason, r.Generation})
	}
	steps := []step{}
	for _, s := range tl.Steps {
		steps = append(steps, step{s.At, s.Member, s.What})
	}
	w := jsonAppender{buf: buf}
	w.raw(`{"strategy":`)
	w.value(tl.Strategy)
	w.raw(`,"protocol":`)
	w.value(tl.Protocol.String())
	w.raw(`,"end":`)
	w.buf = strconv.AppendInt(w.buf, tl.End, 10)
	w.raw(`,"rebalances":`)
	w.value(rbs)
	w.raw(`,"partitions":{`)
	for i, p := range tl.Partitions {
		if i > 0 {
			w.raw(",")
		}
		unowned := [][2]int64{}
		for _, u := range p.Unowned {
			unowned = append(unowned, [2]int64{u.From, u.To})
		}
		owners := [][3]any{}
		for _, o := range p.Owners {
			owners = append(owners, [3]any{o.From, o.To, o.Member})
		}
		w.value(p.String())
		w.raw(`:{"unowned":`)
		w.value(unowned)
		w.raw(`,"owners":`)
		w.value(owners)
		w.raw("}")
	}
	w.raw(`},"steps":`)
	w.value(steps)
	w.raw(`,"summary":`)
	sum := summary{Rebalances: tl.Summary.Rebalances, MaxUnownedMs: tl.Summary.MaxUnownedMs,
		UnownedPartitionMs: tl.Summary.UnownedPartitionMs, Seed: d.Seed, Samples: max(d.Samples, 1)}
	if d.Samples > 1 {
		p, u, r := d.LongestPause, d.UnownedPartitionMs, d.RebalanceMs
		sum.P50 = &point{p.P50, u.P50, r.P50}
		sum.P95 = &point{p.P95, u.P95, r.P95}
		sum.Max = &point{p.Max, u.Max, r.Max}
	}
	w.value(sum)
	if c.Name != "" {
		w.raw(`,"client":`)
		w.value(c.Name)
	}
	if c.Approximate {
		w.raw(`,"approximate":true`)
	}
	w.raw("}")
	return w.buf, w.err
}

// jsonAppender appends JSON to buf, keeping the first error.
type jsonAppender struct {
	buf []byte
	err error
}

func (w *jsonAppender) raw(s string) { w.buf = append(w.buf, s...) }

// value appends v's encoding by encoding/json.
func (w *jsonAppender) value(v any) {
	if w.err != nil {
		return
	}
	out, err := json.Marshal(v)
	if err != nil {
		w.err = err
		return
	}
	w.buf = append(w.buf, out...)
}
