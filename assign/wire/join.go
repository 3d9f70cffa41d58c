package wire

import (
	"encoding/binary"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/internal/intern"
)

// GroupFromJoin builds the input of an assignment from what a group leader
// has after JoinGroup: the members with their metadata for the chosen
// protocol (the strategy's name), the partition count of every topic in the
// cluster metadata, and, optionally, the racks of each partition's replicas
// (partitionRacks[topic][partition]; nil when unknown).
//
// What each member owned, and in which generation, is read where Kafka's
// Java assignors read it:
//
//   - "sticky" (eager): from the StickyAssignor user data in the
//     subscription (previous assignment and generation, see
//     [StickyUserData]). Null or empty user data means nothing owned;
//     user data that cannot be read is ignored the same way, and version 0
//     user data has no generation (DefaultGeneration), as in Kafka.
//   - "cooperative-sticky": owned partitions from the subscription (v1+);
//     the generation from the subscription when it carries one (v2+, not
//     negative), otherwise from the CooperativeStickyAssignor user data
//     (DefaultGeneration when that is null or shorter than four bytes).
//   - "range" and "roundrobin": nothing; they do not read ownership.
//   - any other name: owned partitions and generation from the subscription
//     (v1+ and v2+), for custom strategies.
//
// The rack is the subscription's rack_id (v3+); null and "" both mean none.
// A partition claimed twice by one member counts once, as Java's sets
// count it. Metadata that cannot be decoded is a [*MemberError] wrapping a
// [*DecodeError]. GroupFromJoin does not validate the group; the strategy
// does (see [assign.Group.Validate]). The group's Topics and
// PartitionRacks are the maps given, not copies.
//
// # Memory
//
// Topic names are interned against partitions: a name the metadata holds
// is the metadata's own string (the map's key), so decoding allocates no
// string per topic per member; a name the metadata lacks (all of them when
// partitions is nil) gets one string, shared by every member naming it. A
// member whose subscription's bytes equal the member's before it shares
// that member's Topics slice (as clients that subscribe alike send them).
// Every member's Topics and Owned lie in a few arrays for the whole group
// (arrays that double in size: O(log n) allocations, nothing copied);
// Owned takes 24 bytes per 4-byte partition on the wire, and every length
// is checked against the bytes before anything is allocated, so memory
// stays a small multiple of the members' metadata. Members that share a
// slice must not modify it.
func GroupFromJoin(protocol string, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string) (assign.Group, error) {
	g, _, err := decodeJoin(protocol, members, partitions, partitionRacks, false)
	return g, err
}

// groupAndRunsFromJoin is [GroupFromJoin] with every member's owned
// partitions in one [assign.OwnedRuns] slab (4 bytes a partition, one run
// per topic of a member) instead of its Owned list, and its subscription
// as indices into the slab's Names (4 bytes a name) instead of its
// Topics: the same claims, in the same order, deduplicated as
// GroupFromJoin does, and the same names, for [assign.AssignPackedOwned].
func groupAndRunsFromJoin(protocol string, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string) (assign.Group, *assign.OwnedRuns, error) {
	return decodeJoin(protocol, members, partitions, partitionRacks, true)
}

// decodeJoin is GroupFromJoin, with the owned partitions as runs when
// runs is set.
func decodeJoin(protocol string, members []JoinMember, partitions map[string]int32, partitionRacks map[string][][]string, runs bool) (assign.Group, *assign.OwnedRuns, error) {
	d := newJoinDecoder(protocol, partitions, len(members))
	if runs {
		d.runs = &assign.OwnedRuns{RunOff: make([]int32, len(members)+1), Subs: make([][]int32, len(members))}
		for _, jm := range members {
			d.bytesLeft += len(jm.Metadata)
		}
	}
	for i, jm := range members {
		d.current = i
		if err := d.member(i, jm.Metadata); err != nil {
			return assign.Group{}, nil, &MemberError{MemberID: jm.MemberID, Index: i, Err: err}
		}
		d.bytesLeft -= len(jm.Metadata)
	}
	g := assign.Group{
		Members:        make([]assign.Member, len(members)),
		Topics:         partitions,
		PartitionRacks: partitionRacks,
	}
	for i, jm := range members {
		dm := &d.members[i]
		m := &g.Members[i]
		m.ID, m.InstanceID, m.Rack, m.Generation = jm.MemberID, jm.InstanceID, dm.rack, dm.generation
		m.Topics, m.Owned = dm.topics, dm.owned
		if dm.shared {
			m.Topics = g.Members[i-1].Topics
		}
	}
	if d.runs != nil {
		d.runs.Names = d.names.all()
		for i := range d.runs.Subs {
			if d.members[i].shared {
				d.runs.Subs[i] = d.runs.Subs[i-1]
			}
		}
	}
	return g, d.runs, nil
}

// topicTable interns topic names against the leader's metadata: the names
// in Go order, the strings being the keys of the metadata map.
type topicTable struct {
	known intern.Sorted    // the metadata's names
	extra map[string]int32 // names not in the metadata, interned as they come: name => index in all(); nil until one does
	names []string         // the names of extra, in the order they came
}

func newTopicTable(partitions map[string]int32) *topicTable {
	// Sized up front, not slices.Sorted(maps.Keys(partitions)), which
	// grows its slice as it goes: BenchmarkLead's phase=decode.
	names := make([]string, 0, len(partitions))
	for t := range partitions {
		names = append(names, t)
	}
	slices.Sort(names)
	return &topicTable{known: intern.New(names)}
}

// lookup returns the metadata's string for the topic named b and its
// position in Go order, or, when the metadata has no such topic, the
// string made for the first such name (so a leader that does not know the
// metadata yet, as franz-go's, still gets one string per name, not per
// member) and -1. It finds the name with c, the cursor of the list b
// comes from: Kafka's clients sort subscriptions and owned partitions, so
// a sorted list costs a few comparisons of bytes per name and no hashing.
func (tt *topicTable) lookup(b []byte, c *intern.Cursor) (string, int32) {
	name, k := tt.index(b, c)
	if k >= int32(len(tt.known.Names())) {
		return name, -1
	}
	return name, k
}

// index is lookup, with the name's index in all() in place of its
// position: a name the metadata lacks comes after the metadata's.
func (tt *topicTable) index(b []byte, c *intern.Cursor) (string, int32) {
	if k, ok := tt.known.NextBytes(b, c); ok {
		return tt.known.Names()[k], k
	}
	if k, ok := tt.extra[string(b)]; ok {
		return tt.names[k], int32(len(tt.known.Names())) + k
	}
	if tt.extra == nil {
		tt.extra = make(map[string]int32)
	}
	name := string(b)
	k := int32(len(tt.names))
	tt.extra[name] = k
	tt.names = append(tt.names, name)
	return name, int32(len(tt.known.Names())) + k
}

// all returns every name interned: the metadata's, in Go order, then the
// others in the order they came. It shares the metadata's names when there
// are no others.
func (tt *topicTable) all() []string {
	if len(tt.names) == 0 {
		return tt.known.Names()
	}
	return append(slices.Clip(tt.known.Names()), tt.names...)
}

// joinDecoder reads JoinGroup members' subscriptions into a few arrays
// of topic names and of owned partitions for the whole group.
type joinDecoder struct {
	protocol string
	names    *topicTable
	racks    map[string]string // rack names seen, interned

	topics  arena[string]
	subs    arena[int32] // with runs: the members' subscriptions, as indices in names.all()
	owned   arena[assign.TopicPartition]
	members []decodedMember

	lastTopics []byte // the previous member's topics array, as bytes

	// runs, when set, receives the owned partitions instead of owned
	// and the members' owned lists (groupAndRunsFromJoin).
	runs      *assign.OwnedRuns
	runStart  int // the first run of the member being decoded
	current   int // the member being decoded
	bytesLeft int // the metadata bytes of that member and those after it
	// runsSorted says that the member's runs so far list their topics
	// ascending and each run's partitions ascending, with no repeat;
	// lastPos is the position in Go order of its last run's topic, -1
	// when it is not one of the metadata's.
	runsSorted bool
	lastPos    int32
}

// decodedMember is what the decoder keeps of one member.
type decodedMember struct {
	topics     []string
	shared     bool // Topics are the previous member's
	owned      []assign.TopicPartition
	generation int32
	rack       string
}

// arena hands out slices of a few arrays that double in size, so that
// filling it never copies what it holds and takes at most about twice
// the room of what it holds, in O(log n) allocations.
type arena[T any] struct {
	free []T // the unused rest of the current array
	size int // length of the current array
}

// room returns an empty slice with room for n elements after what the
// arena holds.
func (a *arena[T]) room(n int) []T {
	if len(a.free) < n {
		a.size = max(n, 2*a.size, 64)
		a.free = make([]T, a.size)
	}
	return a.free[:0:n]
}

// keep takes the first n elements of the last room into the arena and
// returns them, or nil when n is 0.
func (a *arena[T]) keep(n int) []T {
	if n == 0 {
		return nil
	}
	s := a.free[:n:n]
	a.free = a.free[n:]
	return s
}

func newJoinDecoder(protocol string, partitions map[string]int32, members int) *joinDecoder {
	return &joinDecoder{
		protocol: protocol,
		names:    newTopicTable(partitions),
		members:  make([]decodedMember, members),
	}
}

// member decodes member i's metadata b, a ConsumerProtocolSubscription, as
// [DecodeSubscription] does (the same checks, the same errors), keeping
// what the protocol reads.
func (d *joinDecoder) member(i int, b []byte) error {
	dm := &d.members[i]
	dm.generation = DefaultGeneration
	if d.runs != nil {
		d.runStart, d.runsSorted, d.lastPos = len(d.runs.Runs), true, -1
	}
	sub, err := readSubscription(b, d.lastTopics)
	if err != nil {
		return err
	}
	// Topics the member before sent too are that member's, shared.
	switch {
	case sub.sameTopics:
		dm.shared = true
	case d.runs != nil:
		// Indices, not strings: compile reads them without looking
		// each name up again (BenchmarkRound in bench/, the
		// hetero-1000x2000t shapes, where each member sends a list of
		// its own).
		subs := d.subs.room(sub.numTopics())
		var c intern.Cursor
		for name := range checkedStrings(sub.topics) {
			_, k := d.names.index(name, &c)
			subs = append(subs, k)
		}
		d.runs.Subs[i] = d.subs.keep(len(subs))
		d.lastTopics = sub.topics
	default:
		topics := d.topics.room(sub.numTopics())
		var c intern.Cursor
		for name := range checkedStrings(sub.topics) {
			name, _ := d.names.lookup(name, &c)
			topics = append(topics, name)
		}
		dm.topics = d.topics.keep(len(topics))
		d.lastTopics = sub.topics
	}
	if !sub.rackNull && len(sub.rack) > 0 {
		dm.rack = d.rack(sub.rack)
	}
	var owned []assign.TopicPartition
	switch d.protocol {
	case "range", "roundrobin":
	case "sticky":
		if len(sub.userData) > 0 {
			owned = d.stickyUserData(dm, sub.userData)
			// Unreadable user data: Kafka ignores the previous
			// assignment (StickyAssignor.deserializeTopicPartitionAssignment).
		}
	case "cooperative-sticky":
		owned = d.appendOwned(sub.owned, sub.ownedTotal)
		switch {
		case sub.generation >= 0:
			dm.generation = sub.generation
		case sub.userData != nil:
			if gen, err := DecodeCooperativeUserData(sub.userData); err == nil {
				dm.generation = gen
			}
		}
	default:
		owned = d.appendOwned(sub.owned, sub.ownedTotal)
		dm.generation = sub.generation
	}
	if d.runs != nil {
		d.finishRuns(i)
		return nil
	}
	dm.owned = d.owned.keep(len(dedupeInPlace(owned)))
	return nil
}

// stickyUserData reads StickyAssignor user data, as
// [DecodeStickyUserData] does, into dm; data that cannot be read leaves
// dm owning nothing. It returns the partitions, in the room of d.owned.
func (d *joinDecoder) stickyUserData(dm *decodedMember, b []byte) []assign.TopicPartition {
	r := &reader{src: b, message: "sticky user data", version: -1}
	first, total, err := r.scanTopicPartitions("previous_assignment")
	if err != nil {
		return nil
	}
	owned := d.appendOwned(b[first:r.off], total)
	if r.left() >= 4 {
		dm.generation, _ = r.int32(plain("generation"))
	}
	return owned
}

// appendOwned writes the partitions of a checked [Topic [Partition]]
// list's entries, total in all, into the room of d.owned, and returns
// them.
//
// With d.runs set, it appends them to d.runs instead and returns nil.
func (d *joinDecoder) appendOwned(entries []byte, total int) []assign.TopicPartition {
	if total == 0 {
		return nil
	}
	if d.runs != nil {
		d.appendRuns(entries, total)
		return nil
	}
	return appendTopicPartitions(d.owned.room(total), entries, d.names)
}

// appendRuns appends the partitions of entries, the entries of a list
// scanTopicPartitions checked (total partitions), to d.runs as runs of
// the member being decoded (which start at d.runStart): a topic that follows a run of the same topic
// extends it, so that the runs are the stretches of one topic of the
// list GroupFromJoin decodes (entries without partitions add nothing).
func (d *joinDecoder) appendRuns(entries []byte, total int) {
	o := d.runs
	if o.Parts == nil {
		// The first list: room for as many from every member left, as
		// far as their bytes can hold them (4 bytes a partition, 6 an
		// entry), so that a group whose members own alike grows nothing.
		// slices.Grow alone grew the arrays 1.25x at a time, which
		// allocated several times the runs' size on
		// BenchmarkLead/strategy=sticky/shape=uniform-2000x1000000/churn=leave1
		// (figures in bench/RESULTS.md).
		n := 0 // entries of the list
		for range checkedEntries(entries) {
			n++
		}
		left := len(d.members) - d.current
		o.Parts = make([]int32, 0, min(total*left, d.bytesLeft/4))
		o.Runs = make([]assign.OwnedRun, 0, min(n*left, d.bytesLeft/6))
	}
	o.Parts = slices.Grow(o.Parts, total)
	first := d.runStart
	var c intern.Cursor
	for name, parts := range checkedEntries(entries) {
		np := len(parts) / 4
		if np == 0 {
			continue
		}
		// pos is the topic's position in Go order, -1 when it is not one
		// of the metadata's.
		topic, pos := d.names.lookup(name, &c)
		at := len(o.Parts)
		o.Parts = o.Parts[:at+np] // room grown above
		if !putParts(o.Parts[at:], parts) {
			d.runsSorted = false
		}
		if len(o.Runs) > first && o.Runs[len(o.Runs)-1].Topic == topic {
			d.runsSorted = d.runsSorted && o.Parts[at-1] < o.Parts[at]
			o.Runs[len(o.Runs)-1].End = int32(len(o.Parts))
			continue
		}
		// Topics ascending: the metadata's names by their position in Go
		// order, others by comparison.
		if len(o.Runs) > first {
			prev := o.Runs[len(o.Runs)-1].Topic
			d.runsSorted = d.runsSorted && (pos >= 0 && d.lastPos >= 0 && d.lastPos < pos || (pos < 0 || d.lastPos < 0) && prev < topic)
		}
		d.lastPos = pos
		o.Runs = append(o.Runs, assign.OwnedRun{Topic: topic, End: int32(len(o.Parts))})
	}
}

// putParts decodes the partitions src holds, four bytes each, into dst
// (as long), and reports whether they ascend without a repeat.
func putParts(dst []int32, src []byte) bool {
	ascending := true
	last := int32(-1)
	for j := range dst {
		q := int32(binary.BigEndian.Uint32(src[4*j:]))
		ascending = ascending && q > last
		dst[j], last = q, q
	}
	return ascending
}

// finishRuns closes member i's runs, dropping repeated partitions as
// dedupeInPlace does: runs in [assign.TopicPartition.Compare] order, as
// Kafka's clients send them, cannot repeat one (appendRuns tracks that
// in runsSorted as it writes them); any others are deduplicated as a
// list and laid out again.
func (d *joinDecoder) finishRuns(i int) {
	o := d.runs
	first := d.runStart
	base := int32(0)
	if first > 0 {
		base = o.Runs[first-1].End
	}
	if !d.runsSorted {
		list := make([]assign.TopicPartition, 0, int32(len(o.Parts))-base)
		from := base
		for _, r := range o.Runs[first:] {
			for _, q := range o.Parts[from:r.End] {
				list = append(list, assign.TopicPartition{Topic: r.Topic, Partition: q})
			}
			from = r.End
		}
		list = dedupeInPlace(list)
		o.Runs, o.Parts = o.Runs[:first], o.Parts[:base]
		for k, tp := range list {
			o.Parts = append(o.Parts, tp.Partition)
			if k > 0 && list[k-1].Topic == tp.Topic {
				o.Runs[len(o.Runs)-1].End++
			} else {
				o.Runs = append(o.Runs, assign.OwnedRun{Topic: tp.Topic, End: int32(len(o.Parts))})
			}
		}
	}
	o.RunOff[i+1] = int32(len(o.Runs))
}

// rack returns the interned rack named b.
func (d *joinDecoder) rack(b []byte) string {
	if r, ok := d.racks[string(b)]; ok {
		return r
	}
	if d.racks == nil {
		d.racks = make(map[string]string)
	}
	r := string(b)
	d.racks[r] = r
	return r
}

// dedupeInPlace drops the repeats from list, keeping the first of each,
// as Java's sets count them, and returns the shorter list, at the start of
// list's array. A list sorted as Kafka's clients send it (topics
// ascending, each topic's partitions ascending) cannot repeat one and is
// checked in one pass.
func dedupeInPlace(list []assign.TopicPartition) []assign.TopicPartition {
	if len(list) < 2 || sortedOwned(list) {
		return list
	}
	return append(list[:0], dedupe(list)...)
}

// sortedOwned reports whether tps is sorted by [assign.TopicPartition.Compare]
// without repeats.
func sortedOwned(tps []assign.TopicPartition) bool {
	for k := 1; k < len(tps); k++ {
		a, b := &tps[k-1], &tps[k]
		if a.Topic == b.Topic {
			if a.Partition >= b.Partition {
				return false
			}
		} else if a.Topic > b.Topic {
			return false
		}
	}
	return true
}

// dedupe drops repeated partitions, keeping the first of each.
func dedupe(tps []assign.TopicPartition) []assign.TopicPartition {
	if len(tps) < 2 {
		return tps
	}
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, assign.TopicPartition.Compare)
	if len(slices.Compact(sorted)) == len(tps) {
		return tps
	}
	seen := make(map[assign.TopicPartition]bool, len(tps))
	out := make([]assign.TopicPartition, 0, len(tps))
	for _, tp := range tps {
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	return out
}
