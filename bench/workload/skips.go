package workload

import "strings"

// SlowPeers lists the peer runs too slow to wait for on a 2-core machine,
// as IMPL/STRATEGY@SPEC entries separated by commas (see [ParseSkips]).
// Benchmarks and the compare command skip them unless told otherwise,
// and say so. Sarama's sticky assignors took 3.5 minutes (sticky) and
// 3.2 minutes (cooperative-sticky, first round) on hetero-1000x2000t
// (64,952 partitions), and 1.2 s on uniform-100x10000, growing faster
// than the square of the partition count.
const SlowPeers = "sarama/sticky@hetero-1000x2000t,sarama/cooperative-sticky@hetero-1000x2000t," +
	"sarama/sticky@uniform-1000x100000,sarama/cooperative-sticky@uniform-1000x100000," +
	"sarama/sticky@uniform-2000x1000000,sarama/cooperative-sticky@uniform-2000x1000000"

// Skip names one implementation of one strategy on one spec.
type Skip struct{ Impl, Strategy, Spec string }

// Skips is a list of runs to leave out.
type Skips []Skip

// ParseSkips reads "impl/strategy@spec,..." as written in [SlowPeers].
// Malformed entries are ignored.
func ParseSkips(s string) Skips {
	var out Skips
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		is, spec, ok := strings.Cut(e, "@")
		if !ok {
			continue
		}
		impl, strategy, ok := strings.Cut(is, "/")
		if !ok {
			continue
		}
		out = append(out, Skip{Impl: impl, Strategy: strategy, Spec: spec})
	}
	return out
}

// Skip reports whether impl's strategy is to be left out on spec.
func (ss Skips) Skip(impl, strategy string, spec Spec) bool {
	for _, s := range ss {
		if s.Impl == impl && s.Strategy == strategy && s.Spec == spec.Name() {
			return true
		}
	}
	return false
}

// For returns the skips of spec.
func (ss Skips) For(spec Spec) []Skip {
	var out []Skip
	for _, s := range ss {
		if s.Spec == spec.Name() {
			out = append(out, s)
		}
	}
	return out
}
