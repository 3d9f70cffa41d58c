package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/assigncalc/assigncalc/bench/workload"
)

// sample is one benchmark's measurements: unit => values, one per run.
type sample map[string][]float64

func (s sample) median(unit string) (float64, bool) {
	vs := slices.Clone(s[unit])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2], true
	}
	return (vs[n/2-1] + vs[n/2]) / 2, true
}

type benchKey struct{ strategy, impl, shape string }

// readBench reads `go test -bench Assign` output: lines such as
//
//	BenchmarkAssign/strategy=sticky/impl=ours/shape=uniform-10x100-2  3  1234 ns/op  0 spread  7920 B/op  41 allocs/op
func readBench(r io.Reader) (map[benchKey]sample, error) {
	out := make(map[benchKey]sample)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "BenchmarkAssign/") {
			continue
		}
		name := fields[0]
		if i := strings.LastIndexByte(name, '-'); i >= 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i] // the -GOMAXPROCS suffix
			}
		}
		var k benchKey
		for _, part := range strings.Split(name, "/")[1:] {
			key, value, _ := strings.Cut(part, "=")
			switch key {
			case "strategy":
				k.strategy = value
			case "impl":
				k.impl = value
			case "shape":
				k.shape = value
			}
		}
		s := out[k]
		if s == nil {
			s = make(sample)
			out[k] = s
		}
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", sc.Text(), err)
			}
			s[fields[i+1]] = append(s[fields[i+1]], v)
		}
	}
	return out, sc.Err()
}

// benchTables prints, per strategy, the median ns/op, B/op and allocs/op
// of every implementation on every shape and each peer's ratio to ours,
// then where we stand against the targets.
func benchTables(r io.Reader, w io.Writer) error {
	data, err := readBench(r)
	if err != nil {
		return err
	}
	var shapes []string
	seen := make(map[string]bool)
	for k := range data {
		if !seen[k.shape] {
			seen[k.shape] = true
			shapes = append(shapes, k.shape)
		}
	}
	order := shapeOrder()
	sort.Slice(shapes, func(i, j int) bool { return order(shapes[i]) < order(shapes[j]) })
	impls := []string{workload.Ours, workload.FranzGo, workload.Sarama, workload.KafkaGo, workload.KafkaGoOurs, workload.WriteOutput}

	for _, strategy := range workload.StrategyNames {
		fmt.Fprintf(w, "### %s\n\n", strategy)
		fmt.Fprintln(w, "Medians. Ratios are the implementation's figure divided by ours: above 1, ours is faster or smaller.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| shape | impl | ns/op | B/op | allocs/op | time ÷ ours | B ÷ ours | spread | moves/op | withheld/op |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, shape := range shapes {
			ours := data[benchKey{strategy, workload.Ours, shape}]
			for _, impl := range impls {
				s := data[benchKey{strategy, impl, shape}]
				if s == nil {
					continue
				}
				ns, _ := s.median("ns/op")
				bs, _ := s.median("B/op")
				allocs, _ := s.median("allocs/op")
				tRatio, bRatio := "", ""
				if ours != nil && impl != workload.Ours {
					ons, _ := ours.median("ns/op")
					obs, _ := ours.median("B/op")
					tRatio = ratio(ns, ons)
					bRatio = ratio(bs, obs)
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n",
					shape, impl, group(ns), group(bs), allocs, tRatio, bRatio,
					metric(s, "spread"), metric(s, "moves/op"), metric(s, "withheld/op"))
			}
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintln(w, "### Targets")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| target | shape | ours | best peer | ratio | met |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|")
	for _, strategy := range []string{workload.Sticky, workload.CooperativeSticky} {
		for _, shape := range shapes {
			if !strings.HasPrefix(shape, "uniform-1000x100000") && !strings.HasPrefix(shape, "uniform-2000x1000000") {
				continue
			}
			ours := data[benchKey{strategy, workload.Ours, shape}]
			if ours == nil {
				continue
			}
			ons, _ := ours.median("ns/op")
			obs, _ := ours.median("B/op")
			bestT, bestTImpl, bestB, bestBImpl := 0.0, "", 0.0, ""
			for _, impl := range impls[1:] {
				s := data[benchKey{strategy, impl, shape}]
				if s == nil {
					continue
				}
				ns, _ := s.median("ns/op")
				bs, _ := s.median("B/op")
				if bestTImpl == "" || ns < bestT {
					bestT, bestTImpl = ns, impl
				}
				if bestBImpl == "" || bs < bestB {
					bestB, bestBImpl = bs, impl
				}
			}
			if bestTImpl == "" {
				continue
			}
			fmt.Fprintf(w, "| %s: ≥ 2x faster than the fastest peer | %s | %s ns | %s ns (%s) | %s | %s |\n",
				strategy, shape, group(ons), group(bestT), bestTImpl, ratio(bestT, ons), yes(bestT >= 2*ons))
			fmt.Fprintf(w, "| %s: no more bytes than any peer | %s | %s B | %s B (%s) | %s | %s |\n",
				strategy, shape, group(obs), group(bestB), bestBImpl, ratio(bestB, obs), yes(obs <= bestB))
		}
	}
	for _, strategy := range []string{workload.Range, workload.RoundRobin} {
		for _, shape := range shapes {
			ours := data[benchKey{strategy, workload.Ours, shape}]
			floor := data[benchKey{strategy, workload.WriteOutput, shape}]
			if ours == nil || floor == nil {
				continue
			}
			ons, _ := ours.median("ns/op")
			fns, _ := floor.median("ns/op")
			fmt.Fprintf(w, "| %s: within 2x of writing the output | %s | %s ns | %s ns (write-output) | %s | %s |\n",
				strategy, shape, group(ons), group(fns), ratio(ons, fns), yes(ons <= 2*fns))
		}
	}
	fmt.Fprintln(w)
	return nil
}

// shapeOrder ranks shape names as workload.Specs lists them, fresh first.
func shapeOrder() func(string) int {
	rank := make(map[string]int)
	for i, spec := range workload.Specs() {
		for c, churn := range []workload.Churn{workload.Fresh, workload.Leave1, workload.Replace10, workload.Join1} {
			rank[workload.Shape{Spec: spec, Churn: churn}.Name()] = i*10 + c
		}
	}
	return func(name string) int {
		if r, ok := rank[name]; ok {
			return r
		}
		return 1 << 30
	}
}

func metric(s sample, unit string) string {
	if v, ok := s.median(unit); ok {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

func ratio(a, b float64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", a/b)
}

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// group formats n with thousands separators.
func group(n float64) string {
	s := strconv.FormatFloat(n, 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
