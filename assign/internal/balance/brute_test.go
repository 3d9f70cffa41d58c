package balance

import (
	"errors"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// tinyProblem draws a problem small enough to enumerate: up to 4 members,
// 3 topics and 8 partitions in all, with random subscriptions, claims by
// subscribers, previous owners and racks.
func tinyProblem(t *rapid.T) *Problem {
	n := rapid.IntRange(1, 4).Draw(t, "members")
	T := rapid.IntRange(1, 3).Draw(t, "topics")
	p := &Problem{Parts: make([]int32, T), Subs: make([][]int32, n)}
	left := 8
	for i := range T {
		k := rapid.IntRange(0, left).Draw(t, "parts")
		p.Parts[i] = int32(k)
		left -= k
	}
	identical := rapid.Bool().Draw(t, "identical")
	for m := range n {
		for i := range T {
			if identical && m > 0 {
				p.Subs[m] = slices.Clone(p.Subs[0])
				break
			}
			if rapid.IntRange(0, 2).Draw(t, "sub") > 0 {
				p.Subs[m] = append(p.Subs[m], int32(i))
			}
		}
	}
	drawHistory(t, p, func(_ int32, subs []int32) int32 {
		if len(subs) > 0 && rapid.IntRange(0, 2).Draw(t, "claimed") > 0 {
			return rapid.SampledFrom(subs).Draw(t, "claim")
		}
		return -1
	})
	// A topic nobody subscribes to cannot be assigned; drop its partitions
	// as the adapter drops such topics.
	for ti := range T {
		anyone := false
		for m := range n {
			anyone = anyone || subscribes(p.Subs[m], int32(ti))
		}
		if !anyone && p.Parts[ti] > 0 {
			return tinyProblem(t)
		}
	}
	return p
}

// drawGroup draws a group of heterogeneous subscriptions: up to
// maxMembers members, up to maxTopics topics of up to maxParts partitions,
// each member subscribing to each topic with probability num/den, and a
// random member adopting a topic nobody subscribes to (the adapter drops
// such topics; Solve refuses them).
func drawGroup(t *rapid.T, maxMembers, maxTopics, maxParts, num, den int) *Problem {
	n := rapid.IntRange(1, maxMembers).Draw(t, "members")
	T := rapid.IntRange(1, maxTopics).Draw(t, "topics")
	p := &Problem{Parts: make([]int32, T), Subs: make([][]int32, n)}
	for i := range T {
		p.Parts[i] = int32(rapid.IntRange(0, maxParts).Draw(t, "parts"))
	}
	for m := range n {
		for i := range T {
			if rapid.IntRange(0, den-1).Draw(t, "sub") < num {
				p.Subs[m] = append(p.Subs[m], int32(i))
			}
		}
	}
	for i := range T {
		anyone := false
		for m := range n {
			anyone = anyone || subscribes(p.Subs[m], int32(i))
		}
		if !anyone {
			m := rapid.IntRange(0, n-1).Draw(t, "adopter")
			p.Subs[m] = append(p.Subs[m], int32(i))
			slices.Sort(p.Subs[m])
		}
	}
	return p
}

// drawHistory fills p.Claim, p.Prev and, half the time, racks (p.Rack,
// one replica per pid). For each pid, claim draws its claimant from the
// subscribers subs of its topic t (or returns -1), and one time in four
// a previous owner is drawn among them.
func drawHistory(t *rapid.T, p *Problem, claim func(t int32, subs []int32) int32) {
	n := len(p.Subs)
	start := Start(p.Parts)
	total := start[len(p.Parts)]
	p.Claim = make([]int32, total)
	p.Prev = make([]int32, total)
	withRacks := rapid.Bool().Draw(t, "racks")
	if withRacks {
		p.Rack = make([]int32, n)
		p.Replicas = make([][]int32, total)
		for m := range n {
			p.Rack[m] = int32(rapid.IntRange(-1, 2).Draw(t, "rack"))
		}
	}
	for ti := range p.Parts {
		var subs []int32
		for m := range n {
			if subscribes(p.Subs[m], int32(ti)) {
				subs = append(subs, int32(m))
			}
		}
		for pid := start[ti]; pid < start[ti+1]; pid++ {
			p.Claim[pid], p.Prev[pid] = claim(int32(ti), subs), -1
			if len(subs) > 0 && rapid.IntRange(0, 3).Draw(t, "prev") == 0 {
				p.Prev[pid] = rapid.SampledFrom(subs).Draw(t, "prevOwner")
			}
			if withRacks {
				p.Replicas[pid] = []int32{int32(rapid.IntRange(0, 2).Draw(t, "replica"))}
			}
		}
	}
}

// identicalProblem draws members that all subscribe to every topic, with
// up to maxParts partitions per topic and neither claims nor racks.
func identicalProblem(t *rapid.T, maxMembers, maxTopics, maxParts int) *Problem {
	n := rapid.IntRange(1, maxMembers).Draw(t, "members")
	T := rapid.IntRange(1, maxTopics).Draw(t, "topics")
	p := &Problem{Parts: make([]int32, T), Subs: make([][]int32, n)}
	all := make([]int32, T)
	for i := range T {
		p.Parts[i] = int32(rapid.IntRange(0, maxParts).Draw(t, "parts"))
		all[i] = int32(i)
	}
	for m := range n {
		p.Subs[m] = all
	}
	return p
}

// pids returns the first pid of each topic of p, and the number of pids.
func pids(p *Problem) (start []int32, total int) {
	start = Start(p.Parts)
	return start, int(start[len(p.Parts)])
}

// bruteForce enumerates every valid assignment and returns the least sum
// of squared loads, and the fewest moves among assignments reaching it.
func bruteForce(p *Problem) (sumSq, moves int) {
	_, total := pids(p)
	var subsOf [][]int32 // pid => members that may hold it
	for ti := range p.Parts {
		var subs []int32
		for m := range p.Subs {
			if slices.Contains(p.Subs[m], int32(ti)) {
				subs = append(subs, int32(m))
			}
		}
		for range p.Parts[ti] {
			subsOf = append(subsOf, subs)
		}
	}
	load := make([]int, len(p.Subs))
	bestSq, bestMoves := -1, -1
	var walk func(pid, mv int)
	walk = func(pid, mv int) {
		if pid == total {
			sq := 0
			for _, l := range load {
				sq += l * l
			}
			if bestSq < 0 || sq < bestSq || sq == bestSq && mv < bestMoves {
				bestSq, bestMoves = sq, mv
			}
			return
		}
		for _, m := range subsOf[pid] {
			load[m]++
			d := 0
			if c := p.Claim[pid]; c >= 0 && c != m {
				d = 1
			}
			walk(pid+1, mv+d)
			load[m]--
		}
	}
	walk(0, 0)
	return bestSq, bestMoves
}

func measure(p *Problem, owner []int32) (sumSq, moves int) {
	load := make([]int, len(p.Subs))
	for pid, m := range owner {
		load[m]++
		if c := p.Claim[pid]; c >= 0 && c != m {
			moves++
		}
	}
	for _, l := range load {
		sumSq += l * l
	}
	return sumSq, moves
}

// sameCost fails t unless owner, the answer of got, has the sum of
// squared loads and the moves of want's answer, wantSq and wantMoves.
func sameCost(t *rapid.T, p *Problem, got string, owner []int32, want string, wantSq, wantMoves int) {
	t.Helper()
	if gotSq, gotMoves := measure(p, owner); gotSq != wantSq || gotMoves != wantMoves {
		t.Fatalf("%s: sum of squares %d, moves %d; %s: %d, %d (owners %v)", got, gotSq, gotMoves, want, wantSq, wantMoves, owner)
	}
}

func validOwners(t fataler, p *Problem, owner []int32) {
	start := Start(p.Parts)
	if len(owner) != int(start[len(p.Parts)]) {
		t.Fatalf("got %d owners, want %d", len(owner), start[len(p.Parts)])
	}
	for pid, m := range owner {
		if m < 0 || int(m) >= len(p.Subs) || !slices.Contains(p.Subs[m], topicOf(start, int32(pid))) {
			t.Fatalf("pid %d given to member %d, which cannot hold it", pid, m)
		}
	}
}

// fataler is what validOwners needs of a *testing.T or a *rapid.T.
type fataler interface{ Fatalf(string, ...any) }

// TestSolveMatchesBruteForce checks Solve against exhaustive search on
// tiny problems: the same least sum of squared loads (balance) and the
// same fewest moves (stickiness).
func TestSolveMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tinyProblem(t)
		wantSq, wantMoves := bruteForce(p)
		owner, err := Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		validOwners(t, p, owner)
		sameCost(t, p, "Solve", owner, "brute force", wantSq, wantMoves)
	})
}

// TestGeneralMatchesBruteForceOnIdentical runs the general path on
// identical subscriptions too, which Solve would send to the fast path.
func TestGeneralMatchesBruteForceOnIdentical(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tinyProblem(t)
		start, total := pids(p)
		if total == 0 {
			return
		}
		wantSq, wantMoves := bruteForce(p)
		owner, err := general(p, start, total)
		if err != nil {
			t.Fatal(err)
		}
		validOwners(t, p, owner)
		sameCost(t, p, "general", owner, "brute force", wantSq, wantMoves)
	})
}

// TestPlaceHeapsMatchScan: the heaps place makes for big topics choose
// exactly what scanning every subscriber chooses.
func TestPlaceHeapsMatchScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tinyProblem(t)
		start, total := pids(p)
		if total == 0 {
			return
		}
		scan, err := generalOpts(p, start, total, options{heapAbove: 1 << 30})
		if err != nil {
			t.Fatal(err)
		}
		heap, err := generalOpts(p, start, total, options{heapAbove: 0})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(scan, heap) {
			t.Fatalf("owners with scans %v, with heaps %v", scan, heap)
		}
	})
}

// TestSolveRefusesMalformed: Solve reports a malformed problem (the
// adapter's bug, never user input) as ErrInternal instead of answering.
func TestSolveRefusesMalformed(t *testing.T) {
	tests := []struct {
		name string
		p    Problem
	}{
		{"claim by a non-subscriber", Problem{Parts: []int32{1, 1}, Subs: [][]int32{{0}, {1}}, Claim: []int32{1, -1}}},
		{"previous owner out of range", Problem{Parts: []int32{1}, Subs: [][]int32{{0}}, Prev: []int32{3}}},
		{"topic without subscriber", Problem{Parts: []int32{2, 1}, Subs: [][]int32{{0}}}},
		{"subscriptions out of order", Problem{Parts: []int32{1, 1}, Subs: [][]int32{{1, 0}}}},
		{"short claims", Problem{Parts: []int32{2}, Subs: [][]int32{{0}}, Claim: []int32{0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if owner, err := Solve(&tc.p); !errors.Is(err, ErrInternal) {
				t.Errorf("Solve = %v, %v; want ErrInternal", owner, err)
			}
		})
	}
}

// TestFastMatchesGeneral: on identical subscriptions too big to
// enumerate, the closed form and the min-cost flow, two independent
// methods, agree on balance and moves.
func TestFastMatchesGeneral(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := identicalProblem(t, 12, 4, 40)
		n := len(p.Subs)
		start, total := pids(p)
		if total == 0 {
			return
		}
		p.Claim = make([]int32, total)
		p.Prev = make([]int32, total)
		for pid := range total {
			p.Claim[pid] = int32(rapid.IntRange(-1, n-1).Draw(t, "claim"))
			p.Prev[pid] = int32(rapid.IntRange(-3, n-1).Draw(t, "prev"))
			p.Prev[pid] = max(p.Prev[pid], -1)
		}
		fastOwner := fast(p, start, total)
		validOwners(t, p, fastOwner)
		generalOwner, err := general(p, start, total)
		if err != nil {
			t.Fatal(err)
		}
		gs, gm := measure(p, generalOwner)
		sameCost(t, p, "fast path", fastOwner, "general", gs, gm)
	})
}

// TestFreshShortcut: the closed form for a fresh group without racks
// deals exactly as the round-robin it replaces.
func TestFreshShortcut(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := identicalProblem(t, 20, 5, 50)
		start, total := pids(p)
		closed, dealt := fastWith(p, start, total, true), fastWith(p, start, total, false)
		if !slices.Equal(closed, dealt) {
			t.Fatalf("closed form %v, round-robin %v", closed, dealt)
		}
	})
}

// referenceFlow solves a problem as a textbook min-cost flow on the
// explicit graph source -> partition -> member -> sink, with the k-th
// unit into a member's sink arcs costing big*(2k-1) (so that a member
// with load l costs big*l^2) and a partition going to a member other
// than its claimant costing 1. Successive shortest paths with
// Bellman-Ford, nothing shared with the code under test. It returns the
// sum of squared loads and the moves of the optimum.
func referenceFlow(p *Problem) (sumSq, moves int) {
	start := Start(p.Parts)
	P := int(start[len(p.Parts)])
	n := len(p.Subs)
	big := P + 1
	type arc struct{ to, cap, cost, rev int }
	nodes := 2 + P + n
	src, sink := 0, 1
	graph := make([][]arc, nodes)
	addArc := func(u, v, c int) {
		graph[u] = append(graph[u], arc{v, 1, c, len(graph[v])})
		graph[v] = append(graph[v], arc{u, 0, -c, len(graph[u]) - 1})
	}
	for ti := range p.Parts {
		for pid := int(start[ti]); pid < int(start[ti+1]); pid++ {
			addArc(src, 2+pid, 0)
			for m := range n {
				if slices.Contains(p.Subs[m], int32(ti)) {
					c := 0
					if cl := p.Claim[pid]; cl >= 0 && int(cl) != m {
						c = 1
					}
					addArc(2+pid, 2+P+m, c)
				}
			}
		}
	}
	for m := range n {
		for k := 1; k <= P; k++ {
			addArc(2+P+m, sink, big*(2*k-1))
		}
	}
	total := 0
	for range P {
		dist := make([]int, nodes)
		prevNode, prevArc := make([]int, nodes), make([]int, nodes)
		for i := range dist {
			dist[i] = 1 << 60
		}
		dist[src] = 0
		for changed := true; changed; {
			changed = false
			for u := range nodes {
				if dist[u] == 1<<60 {
					continue
				}
				for i, a := range graph[u] {
					if a.cap > 0 && dist[u]+a.cost < dist[a.to] {
						dist[a.to], prevNode[a.to], prevArc[a.to] = dist[u]+a.cost, u, i
						changed = true
					}
				}
			}
		}
		for v := sink; v != src; v = prevNode[v] {
			a := &graph[prevNode[v]][prevArc[v]]
			a.cap--
			graph[v][a.rev].cap++
		}
		total += dist[sink]
	}
	// total = big*sum(load^2) + moves, with moves < big.
	return total / big, total % big
}

// TestReferenceFlowMatchesBruteForce anchors referenceFlow, the
// reference of the tests on problems too big to enumerate, to exhaustive
// search: the same least sum of squared loads and fewest moves.
func TestReferenceFlowMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := tinyProblem(t)
		wantSq, wantMoves := bruteForce(p)
		if gotSq, gotMoves := referenceFlow(p); gotSq != wantSq || gotMoves != wantMoves {
			t.Fatalf("referenceFlow: sum of squares %d, moves %d; brute force %d, %d", gotSq, gotMoves, wantSq, wantMoves)
		}
	})
}

// TestSolveMatchesReferenceFlow compares Solve with the textbook flow on
// heterogeneous problems too big to enumerate; referenceFlow shares no
// code with Solve and is itself anchored to exhaustive search on tiny
// problems (TestReferenceFlowMatchesBruteForce).
func TestSolveMatchesReferenceFlow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := drawGroup(t, 7, 5, 8, 1, 3)
		n := len(p.Subs)
		drawHistory(t, p, func(_ int32, subs []int32) int32 {
			if m := int32(rapid.IntRange(-1, n-1).Draw(t, "claim")); slices.Contains(subs, m) {
				return m
			}
			return -1
		})
		owner, err := Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		validOwners(t, p, owner)
		wantSq, wantMoves := referenceFlow(p)
		sameCost(t, p, "Solve", owner, "reference flow", wantSq, wantMoves)
	})
}
