// Command adversary searches for consumer groups that make our Sticky and
// CooperativeSticky assignors spend the most time per partition, and
// measures each family it knows at three sizes beside franz-go's
// balancer on the same group, so that growth is visible.
//
// Families (see families.go) are chains and ladders of overlapping
// subscriptions, many subscription classes, nested subsets, lopsided and
// conflicting claims, claims of deleted partitions, racks that fight
// balance, and seeded random windows. A family with a knob (a window
// width, a density, a seed) is first searched: every knob value runs at
// the middle size and the one costing ours the most time per partition
// is kept. Then every family runs at every size.
//
// Figures: the fastest of several runs of each implementation in CPU
// time (user and system, garbage collection included: on a shared
// machine wall time mostly measures the wait for a core), alternated so
// that both see the same machine (read them as ratios within one run); allocations and bytes of one run of ours (which are
// deterministic); and with -callgrind the instructions of one run of
// ours under valgrind (deterministic, and the figure to read growth
// from), where a run of ours is short enough for valgrind. For sticky, franz-go's
// result beside ours: its sum of squared loads over ours (ours is the
// least possible, so 1 means as balanced) and both one's moves. The exponent a is
// from cost/P growing as M^a between the smallest and the largest size
// measured (P/M is the same at every default size): a <= 0.5 is growth
// within P·√M. S is the number of (member, topic) subscriptions, the
// rest of the input's size.
//
// Usage, from bench/:
//
//	go run ./cmd/adversary                       # everything, ~10 min
//	go run ./cmd/adversary -families 'chain|ladder' -strategies sticky
//	go run ./cmd/adversary -callgrind            # also instruction counts (valgrind)
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/assigncalc/assigncalc/bench/workload"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "adversary:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("adversary", flag.ContinueOnError)
	fs.SetOutput(stderr)
	famRe := fs.String("families", "", "run only the families whose name matches `REGEXP`")
	strategies := fs.String("strategies", workload.Sticky+","+workload.CooperativeSticky, "comma-separated `LIST` of strategies")
	sizes := fs.String("sizes", "125x6250,500x25000,2000x100000", "comma-separated `MxP` sizes, members by partitions, smallest first")
	budget := fs.Duration("budget", 700*time.Millisecond, "CPU time per implementation and group, at most `D`")
	maxReps := fs.Int("reps", 7, "runs per implementation and group, at most `N`")
	franz := fs.Bool("franz", true, "also run franz-go's balancer on every group")
	franzCap := fs.Duration("franz-cap", 20*time.Second, "run franz-go only once on a group where it takes over `D`, and not on the larger sizes of its family")
	knobFlag := fs.Int("knob", -1, "use knob `N` for every family that has knobs instead of searching for the worst")
	callgrind := fs.Bool("callgrind", false, "also count ours' instructions per run under valgrind's callgrind")
	callgrindMax := fs.Duration("callgrind-max", 150*time.Millisecond, "with -callgrind, count only where ours takes at most `D` of CPU a run (valgrind runs some 50 times slower)")
	cpuprofile := fs.String("cpuprofile", "", "with -child: write a CPU profile of the runs to `FILE`")
	childID := fs.String("child", "", "internal: run ours on the group `FAMILY/KNOB/MxP/STRATEGY` -reps times and exit (for callgrind)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *childID != "" {
		if *cpuprofile != "" {
			f, err := os.Create(*cpuprofile)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := pprof.StartCPUProfile(f); err != nil {
				return err
			}
			defer pprof.StopCPUProfile()
		}
		return child(*childID, *maxReps)
	}
	var zs []size
	for _, s := range strings.Split(*sizes, ",") {
		z, err := parseSize(s)
		if err != nil {
			return err
		}
		zs = append(zs, z)
	}
	re, err := regexp.Compile(*famRe)
	if err != nil {
		return fmt.Errorf("-families: %v", err)
	}
	strats := strings.Split(*strategies, ",")
	for _, s := range strats {
		if s != workload.Sticky && s != workload.CooperativeSticky {
			return fmt.Errorf("-strategies: %q: choose from %s, %s", s, workload.Sticky, workload.CooperativeSticky)
		}
	}
	// Groups of 100,000 partitions are built and dropped one after
	// another; a tighter heap keeps the measurements of each from paying
	// for the garbage of the last.
	debug.SetGCPercent(100)
	o := measureOpts{budget: *budget, maxReps: *maxReps, franz: *franz, franzCap: *franzCap}
	mid := zs[len(zs)/2]

	var results []result
	for _, f := range families() {
		if !re.MatchString(f.name) {
			continue
		}
		for _, strategy := range strats {
			knob := 0
			switch {
			case f.knobs != nil && *knobFlag >= 0:
				knob = *knobFlag
			case f.knobs != nil:
				knob = search(f, mid, strategy, o, stderr)
			}
			franzOff := ""
			for _, z := range zs {
				c := config{fam: f, knob: knob, size: z, strategy: strategy}
				oz := o
				if franzOff != "" {
					oz.franz = false
				}
				g := f.build(z.m, z.p, knob)
				r := measure(c, g, oz)
				if franzOff != "" {
					r.franzSkipped = franzOff
				}
				if r.franz > o.franzCap {
					franzOff = fmt.Sprintf("over %v at %s", o.franzCap, z)
				}
				if *callgrind && r.oursErr == nil && r.ours <= *callgrindMax {
					if r.instr, err = instructions(c); err != nil {
						return err
					}
				}
				fmt.Fprintf(stderr, "%-24s %-18s %-13s ours %12v franz-go %12v  %s\n", c.label(), strategy, z, r.ours, r.franz, errs(r))
				results = append(results, r)
			}
		}
	}
	report(stdout, results, zs, *callgrind)
	return nil
}

// search returns the knob of f that costs ours the most time per
// partition at size z (CPU time: the knobs are compared within one run).
func search(f family, z size, strategy string, o measureOpts, log io.Writer) int {
	best, worst := f.knobs[0], time.Duration(-1)
	for _, k := range f.knobs {
		c := config{fam: f, knob: k, size: z, strategy: strategy}
		g := f.build(z.m, z.p, k)
		r := measure(c, g, measureOpts{budget: o.budget / 2, maxReps: 3})
		if r.oursErr != nil {
			fmt.Fprintf(log, "search %s: %v\n", c.label(), r.oursErr)
			continue
		}
		perPart := r.ours / time.Duration(max(1, r.partitions))
		fmt.Fprintf(log, "search %-24s %-18s %v/partition\n", c.label(), strategy, perPart)
		if perPart > worst {
			best, worst = k, perPart
		}
	}
	return best
}

func errs(r result) string {
	var out []string
	if r.oursErr != nil {
		out = append(out, "ours: "+r.oursErr.Error())
	}
	if r.franzErr != nil {
		out = append(out, "franz-go: "+r.franzErr.Error())
	}
	return strings.Join(out, "; ")
}

// report prints, per strategy, one Markdown table of every result, the
// families ordered by the growth of ours' cost per partition, worst
// first.
func report(w io.Writer, results []result, zs []size, withInstr bool) {
	byStrategy := map[string][]result{}
	var order []string
	for _, r := range results {
		if _, ok := byStrategy[r.cfg.strategy]; !ok {
			order = append(order, r.cfg.strategy)
		}
		byStrategy[r.cfg.strategy] = append(byStrategy[r.cfg.strategy], r)
	}
	for _, strategy := range order {
		rs := byStrategy[strategy]
		// Families in the order of their growth exponent, worst first.
		type fam struct {
			label string
			rows  []result
			a, ai float64 // growth exponents of CPU time and of instructions
		}
		var fams []*fam
		for _, r := range rs {
			if len(fams) == 0 || fams[len(fams)-1].label != r.cfg.label() {
				fams = append(fams, &fam{label: r.cfg.label()})
			}
			f := fams[len(fams)-1]
			f.rows = append(f.rows, r)
		}
		for _, f := range fams {
			first, last := f.rows[0], f.rows[len(f.rows)-1]
			f.a = exponent(first.members, first.partitions, float64(first.ours), last.members, last.partitions, float64(last.ours))
			if withInstr {
				f.ai = math.NaN()
				for _, r := range f.rows[1:] {
					if r.instr > 0 {
						f.ai = exponent(first.members, first.partitions, first.instr, r.members, r.partitions, r.instr)
					}
				}
			}
		}
		slices.SortStableFunc(fams, func(x, y *fam) int {
			switch {
			case x.a > y.a:
				return -1
			case x.a < y.a:
				return 1
			}
			return 0
		})
		fmt.Fprintf(w, "\n### %s\n\n", strategy)
		head := "| family | members | partitions | subscriptions | ours | ns/partition | franz-go | franz-go ÷ ours | allocs | bytes |"
		sep := "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		if withInstr {
			head += " instructions | instr/((P+S)·√M) | a (instr) |"
			sep += "---:|---:|---:|"
		}
		if strategy == workload.Sticky {
			head += " franz-go Σload² ÷ ours | moves ours, franz-go |"
			sep += "---:|---:|"
		}
		fmt.Fprintln(w, head+" a (time) |")
		fmt.Fprintln(w, sep+"---:|")
		for _, f := range fams {
			for i, r := range f.rows {
				franz := "—"
				ratio := "—"
				switch {
				case r.franzErr != nil:
					franz = "error"
				case r.franz > 0:
					franz = fmtDur(r.franz)
					ratio = fmt.Sprintf("%.2f", float64(r.franz)/float64(r.ours))
				case r.franzSkipped != "":
					franz = r.franzSkipped
				}
				ours := fmtDur(r.ours)
				if r.oursErr != nil {
					ours = "error: " + r.oursErr.Error()
				}
				line := fmt.Sprintf("| %s | %d | %d | %d | %s | %.0f | %s | %s | %d | %d |", f.label, r.members, r.partitions, r.subs, ours,
					float64(r.ours)/float64(max(1, r.partitions)), franz, ratio, r.oursAllocs, r.oursBytes)
				last := i == len(f.rows)-1
				if withInstr {
					instr, per, ai := "—", "—", ""
					if r.instr > 0 {
						instr = fmt.Sprintf("%.0f", r.instr)
						per = fmt.Sprintf("%.1f", r.instr/(float64(r.partitions+r.subs)*math.Sqrt(float64(r.members))))
					}
					if last {
						ai = fmt.Sprintf("%.2f", f.ai)
					}
					line += fmt.Sprintf(" %s | %s | %s |", instr, per, ai)
				}
				if strategy == workload.Sticky {
					sq, mv := "—", "—"
					if r.franzSq > 0 && r.oursSq > 0 {
						sq = fmt.Sprintf("%.4f", float64(r.franzSq)/float64(r.oursSq))
						mv = fmt.Sprintf("%d, %d", r.oursMoves, r.franzMoves)
					}
					line += fmt.Sprintf(" %s | %s |", sq, mv)
				}
				a := ""
				if last {
					a = fmt.Sprintf("%.2f", f.a)
				}
				fmt.Fprintln(w, line+" "+a+" |")
			}
		}
	}
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}
