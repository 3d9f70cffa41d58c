package assign

import (
	"slices"

	"github.com/assigncalc/assigncalc/assign/internal/intern"
)

// Packed is an assignment in the form a group leader encodes: for each
// member of the group, in the order of Group.Members, the topics it gets
// in [TopicPartition.Compare] order, each with its partitions ascending,
// all in a few arrays for the whole group. [AssignPacked] computes it
// straight from the strategies' integer owners, without the [Assignment]
// map and its 24-byte [TopicPartition] per partition, for callers that
// only write the answer out (package wire encodes SyncGroup assignments
// from it). A Packed is read-only; its slices must not be modified.
type Packed struct {
	ids    []string    // member index => member ID
	topics []string    // topic index => name
	runOff []int32     // member index => its runs: runs[runOff[m]:runOff[m+1]]
	runs   []packedRun // every member's topics, member by member
	parts  []int32     // every run's partitions, run by run
}

// packedRun is one topic of one member's assignment: topics[topic] and
// its partitions parts[start:end]. It holds no pointer, so that the
// garbage collector need not scan the runs.
type packedRun struct{ topic, start, end int32 }

// Len returns the number of members.
func (p *Packed) Len() int { return len(p.ids) }

// MemberID returns the ID of member i, the i-th of Group.Members.
func (p *Packed) MemberID(i int) string { return p.ids[i] }

// Topics returns the number of topics of which member i gets partitions.
func (p *Packed) Topics(i int) int { return int(p.runOff[i+1] - p.runOff[i]) }

// Topic returns the k-th topic of which member i gets partitions, in Go
// string order, and those partitions, ascending.
func (p *Packed) Topic(i, k int) (string, []int32) {
	r := &p.runs[int(p.runOff[i])+k]
	return p.topics[r.topic], p.parts[r.start:r.end:r.end]
}

// Assignment returns p as an [Assignment].
func (p *Packed) Assignment() Assignment {
	a := make(Assignment, len(p.ids))
	backing := make([]TopicPartition, len(p.parts))
	at := 0
	for i, id := range p.ids {
		first := at
		for k := range p.Topics(i) {
			topic, parts := p.Topic(i, k)
			for _, q := range parts {
				backing[at] = TopicPartition{topic, q}
				at++
			}
		}
		var list []TopicPartition
		if at > first {
			list = backing[first:at:at]
		}
		a[id] = list
	}
	return a
}

// AssignPacked computes s's assignment of g as a [Packed]: the same
// answer as s.Assign(g) (differential tests hold it to that for every
// strategy), in the leader's form. For Range, RoundRobin, Sticky and
// CooperativeSticky it is built from the strategy's own integer owners;
// for any other strategy from s.Assign(g), keeping each list's order and
// the group's members (an ID of the Assignment that is not a member is
// left out).
func AssignPacked(s Strategy, g Group) (*Packed, error) {
	return assignPacked(s, g, nil)
}

// AssignPackedOwned is [AssignPacked] for a group whose members' Owned
// lists come as one slab of runs, owned (the members' own Owned lists
// must then be empty): the same answer as AssignPacked of the group with
// each member's Owned the partitions of its runs, in order, and the same
// errors (differential tests hold it to both), without a 24-byte
// [TopicPartition] per owned partition. When owned carries the
// subscriptions ([OwnedRuns.Subs]; the members' Topics must then be
// empty), the answer and errors are those of the group with each
// member's Topics the names its indices give. Package wire decodes
// JoinGroup metadata into this form for [wire.Lead]. owned must describe its
// arrays; [ErrOwnedRuns] says how it does not. A nil owned is nobody
// owning anything.
func AssignPackedOwned(s Strategy, g Group, owned *OwnedRuns) (*Packed, error) {
	return assignPacked(s, g, owned)
}

// assignPacked is AssignPacked with the claims from owned when it is not
// nil (see compileOwned).
func assignPacked(s Strategy, g Group, owned *OwnedRuns) (*Packed, error) {
	p, ok := s.(compiledStrategy)
	if !ok {
		return assignOwn(s, g, owned)
	}
	self, use, run := p.compiled()
	if self != s {
		// s embeds one of ours and may answer otherwise: a wrapper's
		// Assign is what it means, not the promoted algorithm. A pointer
		// to one of ours comes here too, and is answered by its Assign.
		return assignOwn(s, g, owned)
	}
	cg, err := compileWith(g, use, owned)
	if err != nil {
		return nil, err
	}
	cg.pack = &Packed{}
	if _, err := run(cg); err != nil {
		return nil, err
	}
	return cg.pack, nil
}

// compiledStrategy is a strategy of this package that runs on the
// compiled group: itself (a type that embeds it promotes the method, and
// must not be taken for it), how it reads the members' claims, and its
// algorithm.
type compiledStrategy interface {
	compiled() (Strategy, ownedRead, func(*compiledGroup) (Assignment, error))
}

// assignOwn is assignPacked for a strategy that does not run on the
// compiled group (the caller's own, the server-side assignors): it reads
// Owned lists, so it gets them, and its answer is packed.
func assignOwn(s Strategy, g Group, owned *OwnedRuns) (*Packed, error) {
	if owned != nil {
		if err := owned.checkGiven(g.Members); err != nil {
			return nil, err
		}
		lists := owned.ownedLists(len(g.Members))
		g.Members = slices.Clone(g.Members)
		for i := range g.Members {
			g.Members[i].Owned = lists[i]
			if owned.Subs != nil {
				g.Members[i].Topics = owned.topics(i)
			}
		}
	}
	a, err := s.Assign(g)
	if err != nil {
		return nil, err
	}
	return packAssignment(g, a), nil
}

// packAssignment packs a, member by member in the order of g.Members, a
// run per stretch of one topic in each list.
func packAssignment(g Group, a Assignment) *Packed {
	p := &Packed{ids: make([]string, len(g.Members))}
	for i := range g.Members {
		p.ids[i] = g.Members[i].ID
	}
	index := make(map[string]int32)
	p.packLists(func(m int) []TopicPartition { return a[p.ids[m]] }, func(name string) int32 {
		t, ok := index[name]
		if !ok {
			t = int32(len(p.topics))
			index[name] = t
			p.topics = append(p.topics, name)
		}
		return t
	})
	return p
}

// packListsOf is packLists for a compiled group's lists, whose topics are
// its topics: each member's list names them in Go order, so they are
// found with one [intern.Cursor] a member in the metadata's names, which
// are in Go order too.
func (cg *compiledGroup) packListsOf(list func(m int) []TopicPartition) {
	p := cg.pack
	p.ids, p.topics = cg.memberIDs(), cg.topics
	var c intern.Cursor
	p.packLists(func(m int) []TopicPartition { c = intern.Cursor{}; return list(m) }, func(name string) int32 {
		if k, ok := cg.meta.Next(name, &c); ok && cg.metaTopic[k] >= 0 {
			return cg.metaTopic[k]
		}
		// Not one of cg's topics (every list comes from cg, so this does
		// not happen): given an index of its own.
		p.topics = append(p.topics[:len(p.topics):len(p.topics)], name)
		return int32(len(p.topics) - 1)
	})
}

// packLists fills p's runs and partitions from each member's list,
// list(m) for member index m, a run per stretch of one topic; topic(name)
// returns a topic's index in p.topics.
func (p *Packed) packLists(list func(m int) []TopicPartition, topic func(name string) int32) {
	n := len(p.ids)
	p.runOff = make([]int32, n+1)
	total, runs := 0, 0
	for m := range n {
		l := list(m)
		total += len(l)
		for k := range l {
			if k == 0 || l[k].Topic != l[k-1].Topic {
				runs++
			}
		}
	}
	p.runs = make([]packedRun, 0, runs)
	p.parts = make([]int32, 0, total)
	for m := range n {
		l := list(m)
		for k, tp := range l {
			if k == 0 || tp.Topic != l[k-1].Topic {
				at := int32(len(p.parts))
				p.runs = append(p.runs, packedRun{topic: topic(tp.Topic), start: at, end: at})
			}
			p.parts = append(p.parts, tp.Partition)
			p.runs[len(p.runs)-1].end++
		}
		p.runOff[m+1] = int32(len(p.runs))
	}
}

// packOwners fills cg.pack from the owner of every partition, as
// [compiledGroup.assignmentOf] takes it: a member index (with members
// non-nil, an index into members, which holds member indices) or -1,
// less the partitions marked in skip. Two passes over the partitions,
// topics in Go order, both on owner values (members is read once per
// value, not per partition): one counts each value's partitions and
// runs, one writes them where the counts put them, so nothing is sorted
// or grown. A run ends where the next one starts (runs and partitions
// are both laid out member by member), which a pass over the runs fills
// in.
//
// Counting on owner values in one struct per value, in loops of their
// own (tallyTopic, placeTopic), and leaving the ends to the last pass,
// is what makes the packing of a large fresh round cheap:
// BenchmarkLead/strategy=cooperative-sticky/shape=uniform-2000x1000000/
// churn=fresh/phase=assign in package wire (figures in bench/RESULTS.md).
func (cg *compiledGroup) packOwners(owner []int32, skip []bool, members []int32) {
	n := len(cg.g.Members)
	p := cg.pack
	p.ids, p.topics = cg.memberIDs(), cg.topics
	order := cg.goOrder()
	tl := make([]tally, n)
	for k, t := range order {
		stamp := int32(k) + 1
		first, end := cg.start[t], cg.start[t+1]
		var sk []bool
		if skip != nil {
			sk = skip[first:end:end]
		}
		tallyTopic(tl, owner[first:end:end], sk, stamp)
	}
	// Offsets by member index: p.runOff, and where each member's
	// partitions start; then each value's tally becomes its member's.
	p.runOff = make([]int32, n+1)
	partOff := make([]int32, n+1)
	for v := range tl {
		m := int32(v)
		if members != nil {
			m = members[v]
		}
		p.runOff[m+1], partOff[m+1] = tl[v].runs, tl[v].parts
	}
	for m := range n {
		p.runOff[m+1] += p.runOff[m]
		partOff[m+1] += partOff[m]
	}
	for v := range tl {
		m := int32(v)
		if members != nil {
			m = members[v]
		}
		tl[v] = tally{parts: partOff[m], runs: p.runOff[m]}
	}
	p.runs = make([]packedRun, p.runOff[n])
	p.parts = make([]int32, partOff[n])
	runs, parts := p.runs, p.parts
	for k, t := range order {
		stamp := int32(k) + 1
		first, end := cg.start[t], cg.start[t+1]
		var sk []bool
		if skip != nil {
			sk = skip[first:end:end]
		}
		placeTopic(tl, owner[first:end:end], sk, stamp, t, runs, parts)
	}
	for i := range runs {
		if i+1 < len(runs) {
			runs[i].end = runs[i+1].start
		} else {
			runs[i].end = int32(len(parts))
		}
	}
}

// tally is what packOwners knows of an owner value: its partitions and
// runs, then where its next ones go, and the stamp (1 + the position in
// Go order) of the last topic it was seen in.
type tally struct{ parts, runs, stamp int32 }

// tallyTopic counts the partitions and runs of one topic, own its
// partitions' owners and sk (nil for none) those to skip. The loops are
// written twice, without and with sk, and test v < 0 and v's bounds in
// one unsigned comparison: the per-partition loops of packOwners are most
// of the packing's work (BenchmarkLead in package wire, phase=assign).
func tallyTopic(tl []tally, own []int32, sk []bool, stamp int32) {
	if sk == nil {
		for _, v := range own {
			if uint32(v) >= uint32(len(tl)) {
				continue // -1: nobody
			}
			c := &tl[v]
			c.parts++
			if c.stamp != stamp {
				c.stamp = stamp
				c.runs++
			}
		}
		return
	}
	for q, v := range own {
		if uint32(v) >= uint32(len(tl)) || sk[q] {
			continue
		}
		c := &tl[v]
		c.parts++
		if c.stamp != stamp {
			c.stamp = stamp
			c.runs++
		}
	}
}

// placeTopic writes the partitions and runs of topic t, own its
// partitions' owners and sk those to skip, where tl says; written twice
// as tallyTopic is.
func placeTopic(tl []tally, own []int32, sk []bool, stamp, t int32, runs []packedRun, parts []int32) {
	if sk == nil {
		for q, v := range own {
			if uint32(v) >= uint32(len(tl)) {
				continue
			}
			c := &tl[v]
			if c.stamp != stamp {
				c.stamp = stamp
				runs[c.runs] = packedRun{topic: t, start: c.parts}
				c.runs++
			}
			parts[c.parts] = int32(q)
			c.parts++
		}
		return
	}
	for q, v := range own {
		if uint32(v) >= uint32(len(tl)) || sk[q] {
			continue
		}
		c := &tl[v]
		if c.stamp != stamp {
			c.stamp = stamp
			runs[c.runs] = packedRun{topic: t, start: c.parts}
			c.runs++
		}
		parts[c.parts] = int32(q)
		c.parts++
	}
}

// memberIDs returns the members' IDs, by member index.
func (cg *compiledGroup) memberIDs() []string {
	ids := make([]string, len(cg.g.Members))
	for m := range cg.g.Members {
		ids[m] = cg.g.Members[m].ID
	}
	return ids
}
