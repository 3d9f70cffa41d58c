package wire

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
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
	d := newJoinDecoder(protocol, partitions, len(members))
	for i, jm := range members {
		if err := d.member(i, jm.Metadata); err != nil {
			return assign.Group{}, &MemberError{MemberID: jm.MemberID, Index: i, Err: err}
		}
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
	return g, nil
}

// topicTable interns topic names against the leader's metadata: the names
// in Go order, the strings being the keys of the metadata map.
type topicTable struct {
	names []string          // Go order
	index map[string]int32  // name => position in names
	extra map[string]string // names not in the metadata, interned as they come; nil until one does
}

func newTopicTable(partitions map[string]int32) *topicTable {
	names := make([]string, 0, len(partitions))
	for t := range partitions {
		names = append(names, t)
	}
	slices.Sort(names)
	index := make(map[string]int32, len(names))
	for k, t := range names {
		index[t] = int32(k)
	}
	return &topicTable{names: names, index: index}
}

// guesses is how many names after the one found before intern compares
// before it hashes: members that subscribe to most topics, not all, skip
// a few between two of theirs.
const guesses = 4

// intern returns the metadata's string for the topic named b, or, when
// the metadata has no such topic, the string made for the first such name
// (so a leader that does not know the metadata yet, as franz-go's, still
// gets one string per name, not per member). It tries the guesses names from
// *guess first, the position after the name found before: Kafka's clients
// sort subscriptions and owned partitions, so a sorted list costs a few
// comparisons of bytes per name (most end at the length) and no hashing.
func (tt *topicTable) intern(b []byte, guess *int32) string {
	for k := *guess; k < min(*guess+guesses, int32(len(tt.names))); k++ {
		if tt.names[k] == string(b) {
			*guess = k + 1
			return tt.names[k]
		}
	}
	if k, ok := tt.index[string(b)]; ok {
		*guess = k + 1
		return tt.names[k]
	}
	if name, ok := tt.extra[string(b)]; ok {
		return name
	}
	if tt.extra == nil {
		tt.extra = make(map[string]string)
	}
	name := string(b)
	tt.extra[name] = name
	return name
}

// joinDecoder reads JoinGroup members' subscriptions into a few arrays
// of topic names and of owned partitions for the whole group.
type joinDecoder struct {
	protocol string
	names    *topicTable
	racks    map[string]string // rack names seen, interned

	topics  arena[string]
	owned   arena[assign.TopicPartition]
	members []decodedMember

	lastTopics []byte // the previous member's topics array, as bytes
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
	r := &reader{src: b, message: "subscription", version: -1}
	v, err := r.int16(plain("version"))
	if err != nil {
		return err
	}
	if v < 0 {
		return r.fail(plain("version"), 0, ErrUnsupportedVersion, "version %d at offset 0 is negative", v)
	}
	r.version = v

	// Topics: when the bytes repeat the member before's topics array,
	// which was checked, they are that same array: shared, not checked
	// again. Otherwise checked, then interned.
	at := r.off
	if last := d.lastTopics; last != nil && len(b)-at >= len(last) && bytes.Equal(b[at:at+len(last)], last) {
		dm.shared = true
		r.off += len(last)
	} else {
		n, err := r.count(plain("topics"), 2)
		if err != nil {
			return err
		}
		for k := range n {
			if _, _, err := r.stringBytes(field{"topics", k, ""}, false); err != nil {
				return err
			}
		}
		raw := b[at:r.off]
		topics := d.topics.room(n)
		guess := int32(0)
		for p := 4; p < len(raw); {
			l := int(binary.BigEndian.Uint16(raw[p:]))
			topics = append(topics, d.names.intern(raw[p+2:p+2+l], &guess))
			p += 2 + l
		}
		dm.topics = d.topics.keep(len(topics))
		d.lastTopics = raw
	}

	userData, err := r.bytesView(plain("user_data"))
	if err != nil {
		return err
	}
	var ownedFirst, ownedTotal int
	if v >= 1 {
		if ownedFirst, ownedTotal, err = r.scanTopicPartitions("owned_partitions"); err != nil {
			return err
		}
	}
	ownedEntries := b[ownedFirst:r.off]
	generation := DefaultGeneration
	if v >= 2 {
		if generation, err = r.int32(plain("generation_id")); err != nil {
			return err
		}
	}
	if v >= 3 {
		rack, null, err := r.stringBytes(plain("rack_id"), true)
		if err != nil {
			return err
		}
		if !null && len(rack) > 0 {
			dm.rack = d.rack(rack)
		}
	}

	var owned []assign.TopicPartition
	switch d.protocol {
	case "range", "roundrobin":
	case "sticky":
		if len(userData) > 0 {
			owned = d.stickyUserData(dm, userData)
			// Unreadable user data: Kafka ignores the previous
			// assignment (StickyAssignor.deserializeTopicPartitionAssignment).
		}
	case "cooperative-sticky":
		owned = d.appendOwned(ownedEntries, ownedTotal)
		switch {
		case generation >= 0:
			dm.generation = generation
		case userData != nil:
			if gen, err := DecodeCooperativeUserData(userData); err == nil {
				dm.generation = gen
			}
		}
	default:
		owned = d.appendOwned(ownedEntries, ownedTotal)
		dm.generation = generation
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
func (d *joinDecoder) appendOwned(entries []byte, total int) []assign.TopicPartition {
	if total == 0 {
		return nil
	}
	return appendTopicPartitions(d.owned.room(total), entries, d.names)
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
