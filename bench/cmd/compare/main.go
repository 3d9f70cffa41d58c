// Command compare prints, as Markdown, the quality of every implementation
// of every strategy (ours and the Go peers franz-go, sarama and kafka-go)
// on the workloads of bench/workload: validity, partitions per member,
// balance, partitions moved after churn against a lower bound, and for
// cooperative-sticky what the first round withholds; then, per shape,
// KIP-848's uniform (Kafka 4.1) beside our sticky on the same groups:
// where uniform moves more than the lower bound, and the topics it
// leaves unspread.
//
// Usage, from bench/:
//
//	go run ./cmd/compare                 # the small shapes
//	go run ./cmd/compare -big            # also uniform-1000x100000 and uniform-2000x1000000
//	go run ./cmd/compare -shapes hetero -strategies sticky,cooperative-sticky
//	go run ./cmd/compare -bench new.txt  # tables of `go test -bench Assign` output instead
//
// Timings printed are of one run each, for orientation only; the
// benchmarks (go test -bench Assign) are the measurements.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/assigncalc/assigncalc/bench/workload"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	big := fs.Bool("big", false, "also run the two biggest shapes (uniform-1000x100000, uniform-2000x1000000)")
	shapes := fs.String("shapes", "", "run only the specs whose name matches `REGEXP`")
	strategies := fs.String("strategies", "", "comma-separated `LIST` of strategies (default all)")
	skip := fs.String("skip", workload.SlowPeers, "skip `IMPL/STRATEGY@SPEC,...` (peers too slow to wait for); empty runs all")
	kip848 := fs.Bool("kip848", true, "after each shape's table, Kafka's server-side uniform beside our sticky on the same groups: moves against the lower bound, topics left unspread")
	bench := fs.String("bench", "", "instead, print tables of the benchmark output in `FILE` (- for stdin): medians, ratios to ours, targets")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *bench != "" {
		in := os.Stdin
		if *bench != "-" {
			f, err := os.Open(*bench)
			if err != nil {
				return err
			}
			defer f.Close()
			in = f
		}
		w := bufio.NewWriter(stdout)
		defer w.Flush()
		return benchTables(in, w)
	}
	re, err := regexp.Compile(*shapes)
	if err != nil {
		return err
	}
	filter := workload.Filter{}
	if *strategies != "" {
		filter.Strategies = strings.Split(*strategies, ",")
	}
	skips := workload.ParseSkips(*skip)

	w := bufio.NewWriter(stdout)
	defer w.Flush()
	header(w)
	for _, spec := range workload.Specs() {
		if (spec.Big() && !*big) || !re.MatchString(spec.Name()) {
			continue
		}
		f := filter
		f.Impl = func(strategy, impl string) bool { return !skips.Skip(impl, strategy, spec) }
		f.Progress = func(strategy, impl, shape string) {
			fmt.Fprintf(stderr, "%s:   %s %s %s\n", time.Now().Format(time.TimeOnly), strategy, impl, shape)
		}
		fmt.Fprintf(stderr, "%s: %s ...\n", time.Now().Format(time.TimeOnly), spec.Name())
		rows, err := workload.Compare(spec, f)
		if err != nil {
			return err
		}
		table(w, spec, rows, skips)
		if *kip848 {
			fmt.Fprintf(stderr, "%s: %s: uniform beside sticky ...\n", time.Now().Format(time.TimeOnly), spec.Name())
			if err := kip848Table(w, spec); err != nil {
				return err
			}
		}
		w.Flush()
	}
	return nil
}

func header(w io.Writer) {
	fmt.Fprintf(w, "Machine: %d CPUs (runtime.NumCPU), %s; %s %s/%s\n\n", runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if bi, ok := debug.ReadBuildInfo(); ok {
		fmt.Fprintf(w, "Versions:")
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/twmb/franz-go", "github.com/IBM/sarama", "github.com/segmentio/kafka-go":
				fmt.Fprintf(w, " %s %s;", d.Path, d.Version)
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w)
	}
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "CPU model unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "CPU model unknown"
}

func table(w io.Writer, spec workload.Spec, rows []*workload.Row, skips workload.Skips) {
	fmt.Fprintf(w, "### %s (%d members, %d partitions)\n\n", spec.Name(), spec.C, spec.Partitions())
	fmt.Fprintln(w, "| strategy | shape | impl | valid | min | max | spread | balanced | same twice | moved | bound | withheld | withheld 2nd | rounds | one run |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		valid := "yes"
		switch {
		case r.Err != nil:
			valid = "error: " + r.Err.Error()
		case r.Invalid != nil:
			valid = "NO: " + r.Invalid.Error()
		case r.Unsafe != nil:
			valid = "UNSAFE: " + r.Unsafe.Error()
		}
		balanced := "-"
		if r.OK() {
			switch {
			case !r.BalanceChecked:
				balanced = "not checked"
			case r.Unbalanced != nil:
				balanced = "NO"
			default:
				balanced = "yes"
			}
		}
		repeat := ""
		if r.RepeatChecked {
			repeat = "yes"
			if !r.Repeatable {
				repeat = "NO"
			}
		}
		withheld, withheld2, rounds := "", "", ""
		if r.Strategy == workload.CooperativeSticky {
			withheld, withheld2, rounds = fmt.Sprint(r.Withheld), fmt.Sprint(r.Withheld2), fmt.Sprint(r.Rounds)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Strategy, r.Shape, r.Impl, valid, r.Min, r.Max, r.Spread, balanced, repeat,
			dash(r.Moved), dash(r.Bound), withheld, withheld2, rounds, r.Elapsed.Round(time.Microsecond))
	}
	for _, s := range skips.For(spec) {
		fmt.Fprintf(w, "| %s | %s (all) | %s | skipped: too slow at this size | | | | | | | | | | | |\n", s.Strategy, spec.Name(), s.Impl)
	}
	fmt.Fprintln(w)
}

func dash(n int) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}
