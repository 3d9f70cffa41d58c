package jvm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

var updateChurn = flag.Bool("update", false, "rewrite testdata/churnset.golden from the JDK's answers (needs java on PATH)")

// churnSequences are the add/remove sequences TestChurnSetFromJDK replays,
// drawn from a fixed seed. Keys crowd one to three buckets of a table of
// 64 to 256 buckets, with a few strays anywhere (negative hashes and high
// bits that Spread folds in included), so that buckets treeify, grow
// trees, lose entries until the tree is too small, and split on resize
// (the coverage of churnset.go's tree code from this test alone is
// complete but for what Java's code also never reaches from
// HashSet.add and remove).
// Hashes are distinct within a sequence: equal hashes in one tree are
// ordered by identity hash codes, which no golden can hold.
func churnSequences() []string {
	r := rand.New(rand.NewPCG(26, 1))
	seqs := make([]string, 2000)
	for i := range seqs {
		bits := 6 + r.IntN(3)
		hot := make([]uint32, 1+r.IntN(3))
		for j := range hot {
			hot[j] = uint32(r.IntN(1 << bits))
		}
		// One in four grows past 48 elements with a tree in place, so that
		// resizes split trees.
		grow := i%4 == 0
		keys, steps, adds := 10+r.IntN(90), 40+r.IntN(120), 3
		if grow {
			keys, steps, adds = 60+r.IntN(140), 100+r.IntN(200), 4
		}
		hashes := make([]int32, keys)
		seen := map[int32]bool{}
		for k := range hashes {
			for {
				s := r.Uint32()
				if r.IntN(5) > 0 {
					s = s<<bits | hot[r.IntN(len(hot))]
				}
				h := int32(s ^ s>>16) // Spread is its own inverse
				if !seen[h] {
					seen[h] = true
					hashes[k] = h
					break
				}
			}
		}
		var b strings.Builder
		present := map[int]bool{}
		var in []int
		for step := range steps {
			if step > 0 {
				b.WriteByte(' ')
			}
			if len(in) == 0 || r.IntN(5) < adds {
				k := r.IntN(keys)
				fmt.Fprintf(&b, "+%d:%d", k, hashes[k])
				if !present[k] {
					present[k] = true
					in = append(in, k)
				}
				continue
			}
			j := r.IntN(len(in))
			k := in[j]
			if r.IntN(10) == 0 {
				k = r.IntN(keys) // perhaps absent
			}
			fmt.Fprintf(&b, "-%d", k)
			if present[k] {
				delete(present, k)
				for x, y := range in {
					if y == k {
						in = append(in[:x], in[x+1:]...)
						break
					}
				}
			}
		}
		seqs[i] = b.String()
	}
	return seqs
}

// replayChurn runs one sequence on a ChurnSet and renders its orders as
// testdata/ChurnSet.java does.
func replayChurn(t *testing.T, seq string) string {
	var s ChurnSet[int]
	var out strings.Builder
	hashes := map[int]int32{}
	for i, step := range strings.Fields(seq) {
		if i > 0 {
			out.WriteByte(' ')
		}
		if id, h, ok := strings.Cut(step[1:], ":"); ok {
			k, _ := strconv.Atoi(id)
			v, _ := strconv.ParseInt(h, 10, 32)
			hashes[k] = int32(v)
			s.Add(k, int32(v))
		} else {
			k, _ := strconv.Atoi(step[1:])
			s.Remove(k)
		}
		if s.IdentityHash {
			t.Fatalf("sequence %q: equal hashes met in a tree", seq)
		}
		order := s.Order()
		if len(order) != s.Len() {
			t.Fatalf("Order() has %d elements, Len() = %d", len(order), s.Len())
		}
		if f, ok := s.First(); ok != (len(order) > 0) || ok && f != order[0] {
			t.Fatalf("First() = %d, %v, Order() = %v", f, ok, order)
		}
		if len(order) == 0 {
			out.WriteByte('_')
		}
		for j, k := range order {
			if j > 0 {
				out.WriteByte(',')
			}
			out.WriteString(strconv.Itoa(k))
		}
	}
	return out.String()
}

func digest(line string) string {
	d := sha256.Sum256([]byte(line))
	return hex.EncodeToString(d[:8])
}

// TestChurnSetFromJDK replays random add/remove sequences on ChurnSet and
// holds its iteration order after every step against a real
// java.util.HashSet's. With java on PATH it runs testdata/ChurnSet.java on
// the sequences and compares order by order; without, it compares with
// testdata/churnset.golden, one digest (SHA-256, first 8 bytes) per
// sequence of the line ChurnSet.java printed for it under OpenJDK 17.0.15
// (the lines run to megabytes; -update rewrites the digests).
func TestChurnSetFromJDK(t *testing.T) {
	seqs := churnSequences()
	golden, err := os.ReadFile("testdata/churnset.golden")
	if err != nil && !*updateChurn {
		t.Fatal(err)
	}
	want := strings.Fields(string(golden))
	if java, err := exec.LookPath("java"); err == nil {
		cmd := exec.Command(java, "testdata/ChurnSet.java")
		cmd.Stdin = strings.NewReader(strings.Join(seqs, "\n") + "\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("java testdata/ChurnSet.java: %v\n%s", err, stderr.String())
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<24)
		var jdk []string
		for sc.Scan() {
			jdk = append(jdk, sc.Text())
		}
		if len(jdk) != len(seqs) {
			t.Fatalf("java printed %d lines for %d sequences", len(jdk), len(seqs))
		}
		for i, line := range jdk {
			if got := replayChurn(t, seqs[i]); got != line {
				g, w := strings.Fields(got), strings.Fields(line)
				for j := range min(len(g), len(w)) {
					if g[j] != w[j] {
						st := strings.Fields(seqs[i])
						t.Fatalf("sequence %d, step %d (%s): ChurnSet iterates %s, Java %s\nsteps: %s", i, j, st[j], g[j], w[j], strings.Join(st[:j+1], " "))
					}
				}
				t.Fatalf("sequence %d: ChurnSet %q, Java %q", i, got, line)
			}
		}
		if *updateChurn {
			var b strings.Builder
			for _, line := range jdk {
				b.WriteString(digest(line) + "\n")
			}
			if err := os.WriteFile("testdata/churnset.golden", []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		for i, line := range jdk {
			if i >= len(want) || digest(line) != want[i] {
				t.Fatalf("sequence %d: java's answer differs from testdata/churnset.golden (JDK version? rerun with -update)", i)
			}
		}
	} else if *updateChurn {
		t.Fatal("-update needs java on PATH")
	}
	if len(want) != len(seqs) {
		t.Fatalf("testdata/churnset.golden holds %d digests for %d sequences", len(want), len(seqs))
	}
	for i, seq := range seqs {
		if got := digest(replayChurn(t, seq)); got != want[i] {
			t.Fatalf("sequence %d: ChurnSet's orders differ from the JDK's (digest %s, golden %s): %s", i, got, want[i], seq)
		}
	}
}
