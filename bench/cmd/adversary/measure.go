package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"time"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/bench/workload"
	"github.com/assigncalc/assigncalc/internal/benchmem"
)

// A size is one step of a family's growth: members and partitions.
type size struct{ m, p int }

func (s size) String() string { return fmt.Sprintf("%dx%d", s.m, s.p) }

func parseSize(s string) (size, error) {
	var z size
	if _, err := fmt.Sscanf(s, "%dx%d", &z.m, &z.p); err != nil || z.m < 2 || z.p < 1 {
		return z, fmt.Errorf("size %q: want MEMBERSxPARTITIONS, at least 2 members and 1 partition", s)
	}
	return z, nil
}

// A config is one group to measure: a family at a knob and a size, under
// one strategy.
type config struct {
	fam      family
	knob     int
	size     size
	strategy string
}

func (c config) id() string {
	return fmt.Sprintf("%s/%d/%s/%s", c.fam.name, c.knob, c.size, c.strategy)
}

func (c config) label() string {
	if c.fam.knobs == nil {
		return c.fam.name
	}
	return fmt.Sprintf("%s(%d)", c.fam.name, c.knob)
}

// result is what one config measured.
type result struct {
	cfg        config
	partitions int // in the group, as built
	members    int
	subs       int // (member, topic) subscriptions

	ours, franz  time.Duration // fastest run; franz 0 when not run
	franzSkipped string        // why franz-go did not run, if it did not
	oursAllocs   uint64        // mallocs per run (deterministic)
	oursBytes    uint64        // bytes allocated per run (deterministic)
	instr        float64       // instructions per run under callgrind; 0 when not counted
	// Quality, for sticky (a cooperative first round withholds what
	// moves): sum of squared loads, which ours minimises, and partitions
	// moved away from a claimant still in the group; -1 when unknown.
	oursSq, franzSq, oursMoves, franzMoves int
	oursErr, franzErr                      error
}

// impls returns ours and franz-go for strategy.
func impls(strategy string) (ours, franz workload.Impl) {
	for _, im := range workload.Impls(strategy, false) {
		switch im.Name {
		case workload.Ours:
			ours = im
		case workload.FranzGo:
			franz = im
		}
	}
	return ours, franz
}

// measureOpts are the knobs of a measurement.
type measureOpts struct {
	budget   time.Duration // CPU time per implementation and config
	maxReps  int
	franz    bool
	franzCap time.Duration // a franz-go run longer than this is not repeated
}

// measure runs ours and franz-go on the group of c, alternating so that
// both see the same machine, and keeps each one's fastest run. Our
// result is verified; allocations are counted on one run of ours.
func measure(c config, g assign.Group, o measureOpts) result {
	r := result{cfg: c, members: len(g.Members), oursSq: -1, franzSq: -1, oursMoves: -1, franzMoves: -1}
	for _, n := range g.Topics {
		r.partitions += int(n)
	}
	for _, m := range g.Members {
		r.subs += len(m.Topics)
	}
	oursIm, franzIm := impls(c.strategy)
	op, err := oursIm.Prepare(g)
	if err != nil {
		r.oursErr = err
		return r
	}
	var fp *workload.Prepared
	if o.franz {
		if fp, err = franzIm.Prepare(g); err != nil {
			r.franzErr = err
			fp = nil
		}
	} else {
		r.franzSkipped = "not run"
	}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := op.Run(); err != nil {
		r.oursErr = err
		return r
	}
	runtime.ReadMemStats(&after)
	r.oursAllocs, r.oursBytes = after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
	if a, _ := op.Result(); true {
		if oursIm.Cooperative {
			r.oursErr = assign.VerifyCooperative(g, a)
		} else {
			r.oursErr = assign.Verify(g, a)
		}
		if r.oursErr != nil {
			return r
		}
		if !oursIm.Cooperative {
			r.oursSq, r.oursMoves = quality(g, a)
		}
	}
	var spentOurs, spentFranz time.Duration
	for reps := 0; reps < o.maxReps; reps++ {
		busy := false
		if spentOurs < o.budget {
			busy = true
			d := timed(op.Run)
			spentOurs += d
			if r.ours == 0 || d < r.ours {
				r.ours = d
			}
		}
		if fp != nil && spentFranz < o.budget && (reps == 0 || r.franz < o.franzCap) {
			busy = true
			runtime.GC()
			var err error
			d := timed(func() error { err = fp.Run(); return err })
			if err != nil {
				r.franzErr = err
				fp = nil
				continue
			}
			spentFranz += d
			if r.franz == 0 || d < r.franz {
				r.franz = d
			}
		}
		if !busy {
			break
		}
	}
	if fp != nil && r.franz > 0 && !franzIm.Cooperative {
		if a, err := fp.Result(); err == nil {
			r.franzSq, r.franzMoves = quality(g, a)
		}
	}
	return r
}

// quality returns the sum of squared loads of a and the partitions it
// moves away from claimants still in g.
func quality(g assign.Group, a assign.Assignment) (sumSq, moves int) {
	for _, ps := range a {
		sumSq += len(ps) * len(ps)
	}
	owned, err := assign.Owned(g)
	if err != nil {
		return sumSq, -1
	}
	return sumSq, assign.Moved(owned, a)
}

// timed returns the CPU time (user and system, all threads: the
// garbage collector's too) that f takes. On this machine, shared by
// many processes, wall time mostly measures waiting for a core.
func timed(f func() error) time.Duration {
	t := cpuTime()
	f()
	return cpuTime() - t
}

func cpuTime() time.Duration { return benchmem.ProcessCPU() }

// collected matches callgrind's summary line on stderr.
var collected = regexp.MustCompile(`Collected : (\d+)`)

// instructions counts the instructions ours executes per run on c's
// group, deterministically: the program runs itself under callgrind in
// child mode with 1 and with 3 runs, and the difference is halved, so
// that building the group cancels out.
func instructions(c config) (float64, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	count := func(reps int) (float64, error) {
		cmd := exec.Command("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
			self, "-child", c.id(), "-reps", strconv.Itoa(reps))
		cmd.Env = append(os.Environ(), "GOGC=off", "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("callgrind %s: %v: %s", c.id(), err, lastLine(stderr.String()))
		}
		m := collected.FindStringSubmatch(stderr.String())
		if m == nil {
			return 0, fmt.Errorf("callgrind %s: no instruction count in its output", c.id())
		}
		return strconv.ParseFloat(m[1], 64)
	}
	one, err := count(1)
	if err != nil {
		return 0, err
	}
	three, err := count(3)
	if err != nil {
		return 0, err
	}
	return (three - one) / 2, nil
}

func lastLine(s string) string {
	s = string(bytes.TrimSpace([]byte(s)))
	if i := bytes.LastIndexByte([]byte(s), '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// child runs ours reps times on the group of id: what callgrind counts.
func child(id string, reps int) error {
	c, err := parseID(id)
	if err != nil {
		return err
	}
	g := c.fam.build(c.size.m, c.size.p, c.knob)
	ours, _ := impls(c.strategy)
	p, err := ours.Prepare(g)
	if err != nil {
		return err
	}
	for range reps {
		if err := p.Run(); err != nil {
			return err
		}
	}
	return nil
}

func parseID(id string) (config, error) {
	var c config
	var name, sz, strategy string
	parts := bytes.Split([]byte(id), []byte("/"))
	if len(parts) != 4 {
		return c, fmt.Errorf("child %q: want FAMILY/KNOB/MxP/STRATEGY", id)
	}
	name, sz, strategy = string(parts[0]), string(parts[2]), string(parts[3])
	knob, err := strconv.Atoi(string(parts[1]))
	if err != nil {
		return c, fmt.Errorf("child %q: knob: %v", id, err)
	}
	found := false
	for _, f := range families() {
		if f.name == name {
			c.fam, found = f, true
		}
	}
	if !found {
		return c, fmt.Errorf("child %q: no family %q", id, name)
	}
	if c.size, err = parseSize(sz); err != nil {
		return c, err
	}
	c.knob, c.strategy = knob, strategy
	return c, nil
}

// exponent returns a with cost/P growing as M^a between two results of
// one family: log(c2/c1) / log(M2/M1), c the cost per partition.
func exponent(m1, p1 int, c1 float64, m2, p2 int, c2 float64) float64 {
	if c1 <= 0 || c2 <= 0 || m1 == m2 {
		return math.NaN()
	}
	return math.Log((c2/float64(p2))/(c1/float64(p1))) / math.Log(float64(m2)/float64(m1))
}
