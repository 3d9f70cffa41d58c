package assign

import (
	"errors"
	"fmt"
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/jvm"
)

// ErrPartitionAssignor is what Kafka's assignors throw as a
// PartitionAssignorException. The inputs that would make them throw are
// refused before as [*InputError]s, so it is returned only if this
// package's reproduction is wrong.
var ErrPartitionAssignor = errors.New("assign: the assignor failed (Kafka's PartitionAssignorException)")

// uniformHomogeneous is UniformHomogeneousAssignmentBuilder: quotas, each
// member in turn keeping what it holds up to its quota, then the free and
// released partitions dealt in chunks to the members below quota. It
// starts from sg.held, the current targets as readRuns read them, and
// sets sg.final, the new targets as runs.
//
// It works on runs of consecutive partitions rather than on an owner
// array over the partitions, as the heterogeneous builder does: targets
// are mostly stretches of consecutive partitions, and so is what the
// builder deals, so neither reading the targets, nor finding what is
// free, nor the answer needs one int32 per partition. When nobody holds
// anything, the answer is the chunks dealt (freshChunks), with no list of
// free partitions either. The loop over owner that this replaced was
// slower, and allocated more, on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform-ranges/churn=fresh,
// on .../churn=leave1 and on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform-ranges/churn=fresh
// (bench/RESULTS.md). It lives on in uniform_homogeneous_test.go as the
// reference that TestUniformRunsMatchOwner, FuzzUniformRuns and
// TestUniformFreshChunks hold this builder to.
func (sg *serverGroup) uniformHomogeneous(v KafkaVersion) error {
	cg := sg.cg
	if len(sg.byPos) == 0 {
		return nil
	}
	topics, err := sg.subscriptionOrder(sg.byPos[0])
	if err != nil || len(topics) == 0 {
		return err // nothing subscribed exists: every target is empty
	}
	total := int32(0)
	for _, t := range topics {
		total += cg.numParts[t]
	}
	if !sg.anyHeld() {
		below, _ := sg.quotas(v, total, nil)
		dealt, ok := sg.freshChunks(topics, below)
		if !ok {
			return errUnassigned
		}
		sg.final = sortRuns(dealt, len(cg.topics))
		return nil
	}
	free := sg.freeFromRuns(topics, sg.held, total)
	unheld := len(free)
	sg.asIs = make([]bool, len(sg.byPos))
	below, free := sg.quotas(v, total, free)
	dealt, n := sg.dealtRuns(free, below)
	if n < len(free) {
		return errUnassigned
	}
	for _, r := range dealt {
		sg.asIs[sg.byPos[r.pos]] = false
	}
	released := slices.Clone(free[unheld:])
	slices.Sort(released)
	dealt = sortRuns(dealt, len(cg.topics))
	// The runs kept are written over the runs held when no run leaves
	// more of itself than it takes room (keptInPlace), as when members
	// give up the ends of their stretches. The answer goes to readRuns'
	// array before them (spare) when they are far enough along it for
	// mergeRuns, else into the room after them (mergeOver).
	kept, own := sg.held, false // own: kept is in an array of its own
	switch {
	case len(released) == 0:
	case keptInPlace(sg.held, released):
		kept = dropPids(sg.held[:0], sg.held, released)
	default:
		kept, own = withoutPids(sg.held, released), true
	}
	if sg.spare != nil && (own || cap(sg.spare)-cap(kept) >= len(dealt)) && cap(sg.spare) >= len(kept)+len(dealt) {
		sg.final = mergeRuns(kept, dealt, sg.spare)
	} else {
		sg.final = mergeOver(kept, dealt)
	}
	sg.held, sg.spare = nil, nil // overwritten
	return nil
}

// errUnassigned is what the homogeneous builders return should they
// deal fewer partitions than there are.
var errUnassigned = fmt.Errorf("%w: partitions were left unassigned", ErrPartitionAssignor)

// quotas visits the members in order, each keeping what it holds up to
// its quota (keepUpTo), and returns the members left below their quota,
// with what they may take, and free with what the members released
// appended; total is the partitions to share.
func (sg *serverGroup) quotas(v KafkaVersion, total int32, free []int32) ([]unfilled, []int32) {
	members := int32(len(sg.byPos))
	var below []unfilled
	if !sg.anyHeld() {
		below = make([]unfilled, 0, members) // every member is
	}
	minQuota, extra := total/members, total%members
	for pos := range members {
		m := sg.byPos[pos]
		quota, plusOne := minQuota, extra > 0
		if plusOne {
			quota++
			if v == Kafka40 {
				extra--
			}
		}
		released := len(free)
		quota, free = sg.keepUpTo(m, quota, free)
		if sg.asIs != nil {
			// A member that releases nothing and is dealt nothing
			// (uniformHomogeneous clears those) keeps its target as it
			// is: handed back when listed in order. One that releases
			// the tail of its list in order is given the rest of it.
			sg.asIs[m] = len(free) == released && sg.heldSorted[m] && len(sg.cg.g.Members[m].Owned) > 0
			if !sg.asIs[m] {
				if k := sg.keptPrefix(m, free[released:]); k > 0 {
					if sg.prefix == nil {
						sg.prefix = make([]int32, members)
					}
					sg.asIs[m], sg.prefix[m] = true, k
				}
			}
		}
		// KAFKA-18688: give the +1 back unless the members left, this
		// one included, are no more than the +1s left.
		if v != Kafka40 && quota > 0 && plusOne && members-pos > extra {
			quota--
			plusOne = false
		}
		if quota > 0 {
			below = append(below, unfilled{pos, quota})
		}
		if v != Kafka40 && plusOne {
			extra--
		}
	}
	return below, free
}

// keptPrefix returns how many leading entries of member m's Owned list
// it keeps when it releases the pids of rel, listed as keepUpTo released
// them: the entries before the last len(rel), when m's target is one
// stretch (oneStretch) and rel are those last entries' pids in order;
// else 0. A member that keeps only a prefix of its list is then given
// that prefix, not a copy: after one member joins
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1,
// each member that gives up a partition gives up the last of its 100 (its
// HashSet's highest bucket), and writing the 99 it keeps again was most
// of what the answer wrote.
//
// rel is what keepUpTo released of m's target, so no longer than it. It
// needs no test of its own for an empty rel or an empty prefix: quotas
// asks only for a member it does not hand back whole, and one that
// released nothing is not handed back whole only when its Owned list is
// empty or out of order, which oneStretch refuses; a member that
// releases its whole stretch keeps 0, which matches every pid and is
// returned as "none".
func (sg *serverGroup) keptPrefix(m int32, rel []int32) int32 {
	base, first, n, ok := sg.oneStretch(m)
	if !ok {
		return 0
	}
	kept := n - int32(len(rel))
	for i, pid := range rel {
		if pid != base+first+kept+int32(i) {
			return 0
		}
	}
	return kept
}

// handBack returns what assignment hands back of member m's Owned list,
// for a member with sg.asIs or heldAsIs set: the leading entries
// sg.prefix names, or all of it. The slice is capped.
func (sg *serverGroup) handBack(m int) []TopicPartition {
	owned := sg.cg.g.Members[m].Owned
	n := len(owned)
	if sg.prefix != nil && sg.prefix[m] > 0 {
		n = int(sg.prefix[m])
	}
	return owned[:n:n]
}

// unfilled is a member, by position, and how many more partitions its
// quota lets it take.
type unfilled struct{ pos, quota int32 }

// keepUpTo keeps up to quota of what member m holds, visiting
// its current target in iteration order, appends what it releases to
// free, and returns the quota left and free. owner already gives m
// everything it holds (it starts as the current targets), so only
// a member holding more than its quota has work to do: the partitions
// it releases stay in owner until they are dealt, as every partition of
// free is.
func (sg *serverGroup) keepUpTo(m, quota int32, free []int32) (int32, []int32) {
	cg := sg.cg
	var held int32 // nil heldBy: nobody holds anything
	if sg.heldBy != nil {
		held = sg.heldBy[m]
	}
	if held <= quota {
		return quota - held, free // everything stays, whatever the order
	}
	if base, first, n, ok := sg.oneStretch(m); ok {
		return 0, releaseFromStretch(base, first, n, n-quota, free)
	}
	topics, parts := sg.targetTopics(m)
	for k, t := range topics {
		if t < 0 {
			continue // not subscribed: dropped
		}
		ps := parts[k]
		if int32(len(ps)) <= quota {
			quota -= int32(len(ps))
			continue
		}
		start := cg.start[t]
		for _, p := range ps[quota:] {
			free = append(free, start+p)
		}
		quota = 0
	}
	return quota, free
}

// oneStretch reports whether member m's current target is one stretch
// of consecutive partitions of one topic within a block of 65536, listed
// in order, and returns the topic's first pid, the stretch's first
// partition and its length. Such a target's HashSet gives every
// partition a bucket of its own (see releaseFromStretch), so keepUpTo
// needs neither targetTopics nor jvm.IntSetOrder for it. It is every
// member's target on
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform-ranges/churn=join1
// and .../shape=uniform-1000x100000/..., where every member releases a
// partition for the member that joins; TestKeepUpToStretch checks it
// against the general path.
func (sg *serverGroup) oneStretch(m int32) (base, first, n int32, ok bool) {
	owned := sg.cg.g.Members[m].Owned
	if sg.heldSorted == nil || !sg.heldSorted[m] || len(owned) == 0 {
		return 0, 0, 0, false
	}
	lo, hi := owned[0], owned[len(owned)-1]
	// heldSorted: topics of cg.topics only, partitions ascending and
	// distinct within a topic, so equal end names mean one topic, and a
	// span of len-1 consecutive partitions.
	if lo.Topic != hi.Topic || int64(hi.Partition)-int64(lo.Partition) != int64(len(owned)-1) || lo.Partition>>16 != hi.Partition>>16 {
		return 0, 0, 0, false
	}
	t := sg.heldTopic[m] // lo's: readRuns found it
	return sg.cg.start[t], lo.Partition, int32(len(owned)), true
}

// releaseFromStretch appends to free the pids (base + partition) of the
// last release partitions, in a new HashSet<Integer>'s iteration order,
// of the n consecutive partitions from first, all in one block of 65536,
// and returns free.
//
// The set's table has the capacity HashSet(Collection) sizes for n, a
// power of two above n (no resize), and partition v goes to bucket
// Spread(v) & mask = (v ^ v>>>16) & mask. Within a block of 65536,
// v>>>16 is one constant, so the n partitions fall in n distinct buckets
// and the set iterates them by bucket. The last release of them are
// those in the highest buckets: walking the buckets down from the top,
// each holds at most one partition of the stretch, the one in the
// stretch with the bucket's low bits.
func releaseFromStretch(base, first, n, release int32, free []int32) []int32 {
	capacity := int32(1)
	for int(capacity) < jvm.SetCapacity(int(n)) {
		capacity <<= 1
	}
	mask := capacity - 1
	high := (first >> 16) & mask // v>>>16 for every v of the stretch
	// With high 0, partition v is in bucket v & mask: a stretch that does
	// not wrap past the top bucket fills buckets f to f+n-1 and none
	// above, which the walk skips. After one member joins
	// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1,
	// 99 members give up the last of 100 partitions from a table of 256
	// buckets, and walked down 156 empty ones each.
	top := mask
	if f := first & mask; high == 0 && f+n-1 <= mask {
		top = f + n - 1
	}
	at := len(free)
	for b := top; b >= 0 && int32(len(free)-at) < release; b-- {
		v := first&^mask | (b^high)&mask // the v >= first&^mask with bucket b
		if v < first {
			v += capacity
		}
		if v < first+n {
			free = append(free, base+v)
		}
	}
	slices.Reverse(free[at:]) // found from the top bucket down
	return free
}

// subscriptionOrder returns the topics member m subscribes to in the
// order Kafka's homogeneous builders iterate them: new HashSet<Uuid> of
// the member's TopicIds view, itself iterating new HashSet<String>(Topics)
// and dropping names missing from the metadata (conventions 2). Topics
// with no partitions take their place in the set but are left out of the
// result.
func (sg *serverGroup) subscriptionOrder(m int32) ([]int32, error) {
	cg := sg.cg
	g := cg.g
	names := g.Members[m].Topics
	// The work in one array: the names' hashes, then the ids' in their
	// place once the names' order is known, and the names' positions in
	// the metadata. The subscription of every member of
	// BenchmarkKIP848/shape=uniform-1000x100000 names a thousand topics.
	n := len(names)
	work := make([]int32, 2*n)
	var nameOrder []int32
	if cg.distinctNames[m] {
		hashes := work[:n]
		for i, name := range names {
			hashes[i] = jvm.StringHash(name)
		}
		nameOrder, sg.orderBuf = jvm.Order32Buf(jvm.SetCapacity(n), hashes, func(a, b int) int { return jvm.CompareStrings(names[a], names[b]) }, sg.orderBuf)
	} else {
		for _, i := range jvm.StringSetOrder(names) {
			nameOrder = append(nameOrder, int32(i))
		}
	}
	// The names' positions in the metadata, found in the order listed,
	// which is mostly sorted, rather than in the set's.
	positions := cg.meta.Positions(names, work[n:n:2*n])
	idHashes := work[:0:n] // the names' hashes are read no more
	// Parallel to idHashes: the topic index, or -1-i for names[i], a
	// topic without partitions.
	topics := make([]int32, 0, len(nameOrder))
	for _, i := range nameOrder {
		k := positions[i]
		if k < 0 {
			continue // not in the metadata: the view skips it
		}
		if t := cg.metaTopic[k]; t >= 0 {
			idHashes = append(idHashes, sg.ids[t].Hash())
			topics = append(topics, t)
			continue
		}
		id, ok := g.TopicIDs[names[i]]
		if !ok {
			return nil, topicError(names[i], ErrNoTopicID)
		}
		idHashes = append(idHashes, jvm.Uuid(id).Hash())
		topics = append(topics, -1-i)
	}
	idOf := func(k int) jvm.Uuid {
		if t := topics[k]; t >= 0 {
			return sg.ids[t]
		}
		return jvm.Uuid(g.TopicIDs[names[-1-topics[k]]])
	}
	// The names are distinct, and so are their ids (CheckTopicIDs): no
	// repeat to look for.
	order, counts := jvm.Order32Buf(jvm.SetCapacity(len(nameOrder)), idHashes, func(a, b int) int { return idOf(a).Compare(idOf(b)) }, sg.orderBuf)
	sg.orderBuf = counts
	out := order[:0] // written behind the read
	for _, k := range order {
		if topics[k] >= 0 {
			out = append(out, topics[k])
		}
	}
	return out, nil
}

// sumHeld returns the partitions held in all, from heldIn.
func sumHeld(heldIn []int32) int32 {
	var n int32
	for _, c := range heldIn {
		n += c
	}
	return n
}

// freeFromRuns returns the pids nobody holds, topic by topic in the
// order of topics and ascending within each, from the held runs sorted
// by pid, with room for those members release.
func (sg *serverGroup) freeFromRuns(topics []int32, runs []pidRun, total int32) []int32 {
	cg := sg.cg
	free := make([]int32, 0, max(0, total-sumHeld(sg.heldIn)))
	for _, t := range topics {
		if sg.heldIn[t] == cg.numParts[t] {
			continue // wholly held: nothing free
		}
		lo, hi := cg.start[t], cg.start[t]+cg.numParts[t]
		i, _ := slices.BinarySearchFunc(runs, lo, func(r pidRun, pid int32) int { return int(r.lo - pid) })
		for pid := lo; pid < hi; {
			if i < len(runs) && runs[i].lo == pid {
				pid = runs[i].hi
				i++
				continue
			}
			end := hi
			if i < len(runs) && runs[i].lo < hi {
				end = runs[i].lo
			}
			for ; pid < end; pid++ {
				free = append(free, pid)
			}
		}
	}
	return free
}

// dealtRuns returns the runs of dealing free, in order, to below: each
// member its quota's worth, or what is left.
func (sg *serverGroup) dealtRuns(free []int32, below []unfilled) (runs []pidRun, dealt int) {
	start := sg.cg.start
	for _, u := range below {
		chunk := free[dealt:min(len(free), dealt+int(u.quota))]
		dealt += len(chunk)
		for i := 0; i < len(chunk); {
			t := topicAt(start, chunk[i])
			j := i + 1
			for j < len(chunk) && chunk[j] == chunk[j-1]+1 && chunk[j] < start[t+1] {
				j++
			}
			runs = append(runs, pidRun{chunk[i], chunk[j-1] + 1, t, u.pos})
			i = j
		}
	}
	return runs, dealt
}

// freshChunks returns the chunks of dealing the partitions of topics, in
// that order, to below, each member its quota's worth: a run for each
// topic a chunk covers. It reports whether every partition was dealt. It
// is what the general loop does with the free list when nobody holds
// anything, with no list of pids; TestUniformFreshChunks checks the two.
func (sg *serverGroup) freshChunks(topics []int32, below []unfilled) ([]pidRun, bool) {
	cg := sg.cg
	runs := make([]pidRun, 0, len(below)+len(topics)) // a run per member, and one more where a chunk crosses topics
	t, p := 0, int32(0)                               // the next partition to deal: p of topics[t]
	for _, u := range below {
		for left := u.quota; left > 0 && t < len(topics); {
			topic := topics[t]
			start, n := cg.start[topic], cg.numParts[topic]
			if k := min(left, n-p); k > 0 {
				runs = append(runs, pidRun{start + p, start + p + k, topic, u.pos})
				p, left = p+k, left-k
			}
			if p == n {
				t, p = t+1, 0
			}
		}
	}
	return runs, t == len(topics)
}

// withoutPids returns runs, sorted by pid, less the pids of drop, sorted:
// runs itself when drop is empty, else a new slice.
func withoutPids(runs []pidRun, drop []int32) []pidRun {
	if len(drop) == 0 {
		return runs
	}
	return dropPids(make([]pidRun, 0, len(runs)+len(drop)), runs, drop)
}

// dropPids appends to out the runs of withoutPids(runs, drop) and
// returns out. out may be runs[:0] when keptInPlace(runs, drop): each
// run is then read before the runs it leaves are written over it or
// over the runs before it.
func dropPids(out, runs []pidRun, drop []int32) []pidRun {
	d := 0
	for _, r := range runs {
		for d < len(drop) && drop[d] < r.lo {
			d++
		}
		for d < len(drop) && drop[d] < r.hi {
			if drop[d] > r.lo {
				out = append(out, pidRun{r.lo, drop[d], r.t, r.pos})
			}
			r.lo = drop[d] + 1
			d++
		}
		if r.lo < r.hi {
			out = append(out, r)
		}
	}
	return out
}

// keptInPlace reports whether withoutPids(runs, drop) may be written
// over runs (dropPids into runs[:0]): whether, for every i, runs[:i+1]
// leave no more than i+1 runs, so that no run is written over before it
// is read. A run that loses pids at its ends only leaves at most itself;
// one that loses a pid inside it leaves two. After one member joins
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=join1,
// 99 members each give up the end of their stretch, and the runs kept
// needed an array of their own. TestKeptInPlace holds it, and dropPids
// over runs, to withoutPids into an array of its own.
func keptInPlace(runs []pidRun, drop []int32) bool {
	d, left := 0, 0 // left: the runs runs[:i+1] leave
	for i, r := range runs {
		for d < len(drop) && drop[d] < r.lo {
			d++
		}
		at := r.lo // the first pid of r not dropped yet
		for ; d < len(drop) && drop[d] < r.hi; d++ {
			if drop[d] > at {
				left++
			}
			at = drop[d] + 1
		}
		if at < r.hi {
			left++
		}
		if left > i+1 {
			return false
		}
	}
	return true
}

// mergeOver is mergeRuns(a, b, nil) written into a's own array when it
// has room for b after a (b must not overlap it), else into a new one.
// The merge runs from the end, so that each run of a is read before the
// slot it is in is written, then runs that touch are joined in a pass
// from the front, as mergeRuns joins them. It serves where sortRuns
// sorted the runs in place, leaving no runs as read to write into: after
// one member leaves
// BenchmarkKIP848/shape=uniform-2000x1000000/strategy=uniform/churn=leave1,
// the answer is the runs held and one more, and an array of its own was
// a run per member. TestMergeOver holds it to mergeRuns.
func mergeOver(a, b []pidRun) []pidRun {
	if cap(a)-len(a) < len(b) {
		return mergeRuns(a, b, nil)
	}
	out := a[:len(a)+len(b)]
	i, j := len(a)-1, len(b)-1
	for k := len(out) - 1; j >= 0; k-- { // k > i while j >= 0: a[i] is read before out[k] is written
		if i >= 0 && a[i].lo > b[j].lo {
			out[k] = a[i]
			i--
		} else {
			out[k] = b[j]
			j--
		}
	}
	n := 0
	for _, r := range out {
		if n > 0 {
			if p := &out[n-1]; p.hi == r.lo && p.t == r.t && p.pos == r.pos {
				p.hi = r.hi
				continue
			}
		}
		out[n] = r
		n++
	}
	return out[:n]
}

// mergeRuns merges a and b, each sorted by pid and disjoint from the
// other, into one list sorted by pid in which runs that touch, of one
// topic and one member, are one, written into buf when it has room for
// both, else into a new one. buf must not overlap b, nor a unless a
// lies in buf's array at least len(b) runs after buf's start: each run
// of a is then read before it is written over, as the output is never
// more than len(b) runs ahead of what it has read of a.
func mergeRuns(a, b, buf []pidRun) []pidRun {
	out := buf[:0]
	if cap(buf) < len(a)+len(b) {
		out = make([]pidRun, 0, len(a)+len(b))
	}
	add := func(r pidRun) {
		if n := len(out); n > 0 {
			if p := &out[n-1]; p.hi == r.lo && p.t == r.t && p.pos == r.pos {
				p.hi = r.hi
				return
			}
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i].lo < b[j].lo {
			add(a[i])
			i++
		} else {
			add(b[j])
			j++
		}
	}
	return out
}

// finalRuns lists sg.final's runs as ownerRuns does owner's: topic by
// topic in Go order, partitions ascending, with counts; but the runs of
// members m for which skip[m] is set (skip may be nil), which count 0.
// Skipping the members whose lists assignment hands back (sg.asIs)
// leaves few runs after one member leaves or joins, where every run was
// listed, then passed over, on
// BenchmarkKIP848/shape=uniform-1000x100000/strategy=uniform/churn=leave1.
func (sg *serverGroup) finalRuns(weigh func(ownerRun) int32, skip []bool) (runs []ownerRun, counts []int32) {
	cg := sg.cg
	_, goRank := sg.steps()
	counts = make([]int32, len(cg.g.Members)+1)
	n := len(sg.final)
	if skip != nil {
		n = 0
		for _, r := range sg.final {
			if !skip[sg.byPos[r.pos]] {
				n++
			}
		}
	}
	runs = make([]ownerRun, 0, n)
	for _, r := range sg.final {
		m := sg.byPos[r.pos]
		if skip != nil && skip[m] {
			continue
		}
		base := cg.start[r.t]
		run := ownerRun{m, rankOf(goRank, r.t), r.lo - base, r.hi - base}
		runs = append(runs, run)
		counts[m+1] += weigh(run)
	}
	// sg.final follows topic indices, Java's order of names; Go's differs
	// only for names beyond the Basic Multilingual Plane.
	byTopic := func(a, b ownerRun) int { return int(a.topic - b.topic) }
	if !slices.IsSortedFunc(runs, byTopic) {
		slices.SortStableFunc(runs, byTopic)
	}
	return runs, counts
}
