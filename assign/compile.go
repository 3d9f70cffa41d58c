package assign

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/assigncalc/assigncalc/assign/internal/keys"
)

// compiledGroup is a validated group with names interned to dense integers. Topic
// indices follow Java's string order of the topic names; member indices
// follow Group.Members. Strategies work on it and turn back to strings only
// when they build the [Assignment].
type compiledGroup struct {
	g *Group

	topics   []string    // topic index => name; the subscribed topics that exist with >0 partitions, in Java string order
	numParts []int32     // topic index => partition count
	start    []int32     // topic index => number of its partition 0 when partitions are numbered topic by topic; the last entry is the total
	meta     sortedNames // every topic of the metadata, Go order
	topicOf  []int32     // position in meta => topic index, or -1 when not subscribed or empty
	byGoName []int32     // topic indices in Go string order of the names; see goOrder

	subs [][]int32 // member index => subscribed topic indices, ascending, deduplicated; shared between members, never modify

	// distinctNames[m] reports that member m's Topics names topics of
	// the metadata with partitions, none twice.
	distinctNames []bool

	// own is the members' Owned lists as runs (see [OwnedRuns]), what
	// compileOwned reads the claims from; nil when nobody owns anything,
	// and with ownedUnread.
	own *OwnedRuns

	// ownedPids[ownedOff[m]:ownedOff[m+1]] lists the partitions member m
	// claims that still exist, numbered as in start, in input order.
	// Claims of topics nobody subscribes to are dropped; claims of topics
	// the member itself no longer subscribes to are kept (cooperative
	// assignment must know the member still holds them). ownedOff is nil
	// when nobody owns anything, and unless ownedRead asks for the lists.
	ownedOff  []int32
	ownedPids []int32

	// With ownedResolved, claims resolves every claim (see claims.go).
	// It is nil when nobody owns anything, and with the other uses.
	claims *claimTable

	// With ownedKeptIfLossless, kept replaces claims when no claim
	// can be lost; see [keptClaims].
	kept *keptClaims

	// kafkaOrder lists member indices in the order Kafka's MemberInfo
	// sorts them: static members first by group.instance.id, then dynamic
	// members by member.id, both in Java's string order.
	kafkaOrder []int32

	// Racks, interned. memberRack[m] is -1 when the member has no rack.
	// partRacks[t] is nil when the topic's replica racks are unknown;
	// otherwise partRacks[t][p] lists the rack indices of p's replicas.
	// Both are nil when no rack is named at all.
	rackNames  []string
	memberRack []int32
	partRacks  [][][]int32

	// pack, when set, asks for the answer as a [Packed] instead of an
	// [Assignment]: the output functions (output.go, keepAndDeal) then
	// fill it and return a nil Assignment. [AssignPacked] sets it.
	pack *Packed
}

// rank is a member's position in Kafka's member order (see kafkaOrder),
// which numbers the members of the sticky solver and of every array "by
// rank" (claimTable, the solver's owners). A member index, a position in
// Group.Members, is a plain int32: kafkaOrder maps a rank to a member
// index, and ranks the other way.
type rank int32

// ranks returns each member's rank, by member index.
func (cg *compiledGroup) ranks() []rank {
	rk := make([]rank, len(cg.kafkaOrder))
	for r, m := range cg.kafkaOrder {
		rk[m] = rank(r)
	}
	return rk
}

// compile validates g and interns it; use says what to make of Owned.
func compile(g Group, use ownedRead) (*compiledGroup, error) {
	return compileWith(g, use, nil)
}

// compileWith is compile with the members' claims read from owned
// instead of their Owned lists when owned is not nil
// ([AssignPackedOwned]); see compileOwned.
func compileWith(g Group, use ownedRead, owned *OwnedRuns) (*compiledGroup, error) {
	cg := &compiledGroup{g: &g}

	// Members: IDs, instance IDs. The first member at fault is reported,
	// for the first of its faults in this order.
	empty := -1
	for i := range g.Members {
		if g.Members[i].ID == "" {
			empty = i
			break
		}
	}
	dupID := firstRepeat(g.Members, func(m *Member) string { return m.ID })
	dupInstance := firstRepeat(g.Members, func(m *Member) string { return m.InstanceID })
	if i := firstOf(empty, dupID, dupInstance); i >= 0 {
		m := &g.Members[i]
		switch i {
		case empty:
			return nil, memberError(i, m, ErrEmptyMemberID)
		case dupID:
			return nil, memberError(i, m, ErrDuplicateMemberID)
		default:
			return nil, memberError(i, m, fmt.Errorf("%w %q", ErrDuplicateInstanceID, m.InstanceID))
		}
	}

	// Metadata: every topic, subscribed or not, must be sane.
	byName := make([]namedCount, 0, len(g.Topics))
	for t, n := range g.Topics {
		byName = append(byName, namedCount{name: t, n: n})
	}
	meta := make([]string, len(byName))
	metaParts := make([]int32, len(byName)) // parallel to meta
	for k, i := range nameOrder(byName) {
		t := byName[i]
		if t.name == "" {
			return nil, topicError(t.name, ErrEmptyTopicName)
		}
		if t.n < 0 {
			return nil, topicError(t.name, fmt.Errorf("%w %d", ErrNegativePartitions, t.n))
		}
		meta[k], metaParts[k] = t.name, t.n
	}
	for _, t := range slices.Sorted(maps.Keys(g.PartitionRacks)) {
		n, ok := g.Topics[t]
		if !ok {
			return nil, topicError(t, ErrRacksUnknownTopic)
		}
		if got := len(g.PartitionRacks[t]); got != int(n) {
			return nil, topicError(t, fmt.Errorf("%w: %d rack lists for %d partitions", ErrRackCount, got, n))
		}
	}

	if err := cg.compileSubs(meta, metaParts); err != nil {
		return nil, err
	}
	cg.kafkaOrder = make([]int32, len(g.Members))
	for i := range cg.kafkaOrder {
		cg.kafkaOrder[i] = int32(i)
	}
	compareIDs := strings.Compare // Java's order of ASCII strings
	for i := range g.Members {
		if !ascii(g.Members[i].ID, g.Members[i].InstanceID) {
			compareIDs = javaCompare
			break
		}
	}
	slices.SortFunc(cg.kafkaOrder, func(a, b int32) int {
		return compareKafkaMembers(&g.Members[a], &g.Members[b], compareIDs)
	})
	cg.internRacks()
	if err := cg.compileOwned(use, owned); err != nil {
		return nil, err
	}
	return cg, nil
}

// compileSubs finds the topics someone subscribes to that exist with
// partitions (cg.topics, in Java order, with numParts, start, meta,
// topicOf and byGoName) and every member's subscription as ascending
// topic indices (cg.subs). meta is the metadata's topic names in Go
// order, metaParts their partition counts.
//
// Names are looked up once per distinct subscription: members that share
// their Topics with the member before them (as clients that build every
// member alike do) share its subscription too, at the cost of comparing
// string headers. Names are found by sortedNames.positions.
func (cg *compiledGroup) compileSubs(meta []string, metaParts []int32) error {
	g := cg.g
	cg.meta = newSortedNames(meta)
	// Subscriptions as positions in meta first, all in one array.
	distinct := 0
	var last []string
	for i := range g.Members {
		if i == 0 || !sameStrings(g.Members[i].Topics, last) {
			distinct += len(g.Members[i].Topics)
			last = g.Members[i].Topics
		}
	}
	backing := make([]int32, 0, distinct)
	used := make([]bool, len(meta))
	cg.subs = make([][]int32, len(g.Members))
	shared := make([]bool, len(g.Members)) // member => its subscription is the one before it
	cg.distinctNames = make([]bool, len(g.Members))
	var positions []int32
	for i := range g.Members {
		topics := g.Members[i].Topics
		if i > 0 && sameStrings(topics, last) {
			shared[i] = true
			continue
		}
		last = topics
		first := len(backing)
		cg.distinctNames[i] = true // until a name is missing or empty
		positions = cg.meta.positions(topics, positions[:0])
		for _, k := range positions {
			if k < 0 {
				cg.distinctNames[i] = false
				continue // not in the metadata: skipped, as Kafka does
			}
			if metaParts[k] > 0 {
				backing = append(backing, k)
				used[k] = true
			} else {
				cg.distinctNames[i] = false
			}
		}
		cg.subs[i] = backing[first:len(backing):len(backing)]
	}

	// Topics in Java order: Go's order but for names with characters
	// beyond the Basic Multilingual Plane (or bytes that are not UTF-8),
	// so this sort finds them nearly sorted, and ASCII names need none.
	byGo := make([]int32, 0, len(meta)) // positions in meta of the topics, Go order
	for k := range meta {
		if used[k] {
			byGo = append(byGo, int32(k))
		}
	}
	byJava := byGo
	if !ascii(meta...) {
		byJava = slices.Clone(byGo)
		slices.SortFunc(byJava, func(a, b int32) int { return javaCompare(meta[a], meta[b]) })
	}
	cg.topics = make([]string, len(byJava))
	cg.numParts = make([]int32, len(byJava))
	cg.start = make([]int32, len(byJava)+1)
	cg.topicOf = make([]int32, len(meta))
	for k := range cg.topicOf {
		cg.topicOf[k] = -1
	}
	total := 0
	for ti, k := range byJava {
		cg.topics[ti] = meta[k]
		cg.topicOf[k] = int32(ti)
		cg.numParts[ti] = metaParts[k]
		total += int(metaParts[k])
		if total > MaxPartitions {
			return topicError(meta[k], fmt.Errorf("%w: the subscribed topics hold more than %d", ErrTooManyPartitions, MaxPartitions))
		}
		cg.start[ti+1] = int32(total)
	}
	cg.byGoName = make([]int32, len(byGo))
	for i, k := range byGo {
		cg.byGoName[i] = cg.topicOf[k]
	}

	// Positions to topic indices, ascending, without repeats; each
	// distinct subscription once.
	for i, sub := range cg.subs {
		if shared[i] {
			cg.subs[i] = cg.subs[i-1] // read-only from here on
			cg.distinctNames[i] = cg.distinctNames[i-1]
			continue
		}
		for j, k := range sub {
			sub[j] = cg.topicOf[k]
		}
		if !slices.IsSorted(sub) {
			slices.Sort(sub)
		}
		n := len(sub)
		if sub = slices.Compact(sub); len(sub) == 0 {
			sub = nil
		}
		if len(sub) < n {
			cg.distinctNames[i] = false // a name repeated
		}
		cg.subs[i] = slices.Clip(sub)
	}
	return nil
}

// goSteps returns, for each topic, the next topic in Go order (-1 for the
// last) and its position in Go order. A sorted list of partitions often
// goes from a topic to the next one in Go order (a member usually owns
// some of every topic): compile tries it with a string comparison before
// looking the name up. Trying more costs more than the lookup when
// members own few partitions of many topics.
func (cg *compiledGroup) goSteps() (after, goRank []int32) {
	order := cg.goOrder()
	after = make([]int32, len(order))
	goRank = make([]int32, len(order))
	for k, t := range order {
		after[t], goRank[t] = -1, int32(k)
		if k+1 < len(order) {
			after[t] = order[k+1]
		}
	}
	return after, goRank
}

// topicAfter is topicIndex(name), trying first the topic after ti in Go
// order (after is goSteps' first result) when known says ti is a topic.
func (cg *compiledGroup) topicAfter(after []int32, ti int32, known bool, name string) (int32, bool) {
	if known && after[ti] >= 0 && cg.topics[after[ti]] == name {
		return after[ti], true
	}
	return cg.topicIndex(name)
}

// topicIndex returns the index of the topic named name, if someone
// subscribes to it and it has partitions.
func (cg *compiledGroup) topicIndex(name string) (int32, bool) {
	k, ok := cg.meta.find(name)
	if !ok || cg.topicOf[k] < 0 {
		return 0, false
	}
	return cg.topicOf[k], true
}

// sortedNames finds names in a list of distinct names sorted in Go
// order: by binary search when it is short, by an index built once
// otherwise.
type sortedNames struct {
	names []string
	pos   *keys.Index[string] // numbers names as they are listed; nil when names is short
}

func newSortedNames(names []string) sortedNames {
	s := sortedNames{names: names}
	if len(names) > shortList {
		s.pos = keys.New[string](len(names))
		for _, name := range names {
			s.pos.Add(name)
		}
	}
	return s
}

// positions appends to out the position of each of names, -1 for a name
// not listed. Names are mostly listed in sorted order, so each is first
// compared with the few names after the one found before it, and only
// then looked up.
func (s *sortedNames) positions(names []string, out []int32) []int32 {
	const guesses = 4
	k := int32(-1) // position of the last name found
	for _, name := range names {
		found := false
		for j := k + 1; j < int32(len(s.names)) && j <= k+guesses; j++ {
			if s.names[j] == name {
				k, found = j, true
				break
			}
		}
		if !found {
			if k, found = s.find(name); !found {
				k = -1
			}
		}
		out = append(out, k)
	}
	return out
}

// find returns the position of name.
func (s *sortedNames) find(name string) (int32, bool) {
	if s.pos != nil {
		return s.pos.Find(name)
	}
	k, ok := slices.BinarySearch(s.names, name)
	return int32(k), ok
}

// namedCount is a name with a count, such as a topic's partitions.
type namedCount struct {
	name string
	n    int32
}

// nameOrder returns the indices of items in Go order of their names,
// the order of their bytes. Names usually share a long prefix
// (topic-00001, topic-00002, ...), which every comparison of whole names
// would read again. After the prefix all names share, the next eight
// bytes, big-endian and padded with zeros, are a key that orders two
// names whenever the keys differ: a radix sort orders the keys, byte by
// byte, skipping the bytes every key has alike, and only names with equal
// keys are then compared whole. On BenchmarkKIP848's uniform-1000x100000,
// whose 1000 names share "topic-00", callgrind counts 0.2M instructions
// for the sort against 1.0M for a sort comparing names; TestNameOrder
// checks the order against such a sort.
func nameOrder(items []namedCount) []int32 {
	order := make([]int32, len(items))
	if len(items) < 2 {
		for i := range order {
			order[i] = int32(i)
		}
		return order
	}
	prefix := items[0].name
	for _, it := range items[1:] {
		n := 0
		for n < len(prefix) && n < len(it.name) && prefix[n] == it.name[n] {
			n++
		}
		prefix = prefix[:n]
	}
	keys := make([]keyed, len(items))
	for i := range items {
		var key [8]byte
		copy(key[:], items[i].name[len(prefix):])
		keys[i] = keyed{binary.BigEndian.Uint64(key[:]), int32(i)}
	}
	radixSortKeys(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j].key == keys[i].key {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b keyed) int { return strings.Compare(items[a.i].name, items[b.i].name) })
		}
		i = j
	}
	for k, kd := range keys {
		order[k] = kd.i
	}
	return order
}

// keyed is an item's sort key and its index: what radixSortKeys moves,
// holding no pointer for the garbage collector to follow.
type keyed struct {
	key uint64
	i   int32
}

// radixSortKeys sorts keys by key, stably, a byte at a time from the
// lowest, skipping the bytes that are the same in every key.
func radixSortKeys(keys []keyed) {
	var differ uint64 // the bits in which some key differs from the first
	for _, k := range keys {
		differ |= k.key ^ keys[0].key
	}
	src, dst := keys, make([]keyed, len(keys))
	for shift := 0; shift < 64; shift += 8 {
		if byte(differ>>shift) == 0 {
			continue
		}
		var start [257]int
		for _, k := range src {
			start[int(byte(k.key>>shift))+1]++
		}
		for b := 1; b < len(start); b++ {
			start[b] += start[b-1]
		}
		for _, k := range src {
			b := byte(k.key >> shift)
			dst[start[b]] = k
			start[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// topicAt returns the topic of partition number pid: the last t with
// start[t] <= pid < start[t+1].
func topicAt(start []int32, pid int32) int32 {
	lo, hi := 0, len(start)-1 // start[lo] <= pid < start[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if start[mid] <= pid {
			lo = mid
		} else {
			hi = mid
		}
	}
	return int32(lo)
}

// ascii reports whether every name is ASCII: Java orders ASCII strings
// as Go does.
func ascii(names ...string) bool {
	for _, name := range names {
		for i := range len(name) {
			if name[i] >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// firstRepeat returns the position of the first item whose non-empty key
// equals an earlier item's, or -1. Short lists are compared pairwise,
// which costs less than a map.
func firstRepeat[T any](items []T, key func(*T) string) int {
	if len(items) <= shortList {
		var keys [shortList]string
		for i := range items {
			k := key(&items[i])
			keys[i] = k
			if k == "" {
				continue
			}
			for _, e := range keys[:i] {
				// IDs such as consumer-00001 differ at the end: look there
				// before comparing whole strings.
				if len(e) == len(k) && e[len(e)-1] == k[len(k)-1] && e == k {
					return i
				}
			}
		}
		return -1
	}
	var seen *keys.Index[string] // made at the first key: often none is set
	for i := range items {
		k := key(&items[i])
		if k == "" {
			continue
		}
		if seen == nil {
			seen = keys.New[string](len(items) - i)
		}
		if _, added := seen.Add(k); !added {
			return i
		}
	}
	return -1
}

// shortList is the length up to which a list of names is searched without
// a map.
const shortList = 16

// firstOf returns the smallest of the non-negative positions, or -1.
func firstOf(positions ...int) int {
	first := -1
	for _, p := range positions {
		if p >= 0 && (first < 0 || p < first) {
			first = p
		}
	}
	return first
}

// sameStrings reports whether a and b hold the same strings, at once when
// they share their backing array.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// compareKafkaMembers orders members as Kafka's MemberInfo.compareTo does:
// members with a group.instance.id first, ordered by it, then the others
// ordered by member.id, all in Java's string order, which compare gives
// (javaCompare, or strings.Compare when every ID is ASCII).
func compareKafkaMembers(a, b *Member, compare func(a, b string) int) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		return compare(a.InstanceID, b.InstanceID)
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	}
	return compare(a.ID, b.ID)
}

// internRacks interns member racks and the replica racks of subscribed
// topics. Rack names are numbered in Go string order.
func (cg *compiledGroup) internRacks() {
	g := cg.g
	names := make(map[string]int32)
	for i := range g.Members {
		if r := g.Members[i].Rack; r != "" {
			names[r] = 0
		}
	}
	for _, t := range cg.topics {
		for _, racks := range g.PartitionRacks[t] {
			for _, r := range racks {
				if r != "" {
					names[r] = 0
				}
			}
		}
	}
	cg.rackNames = slices.Sorted(maps.Keys(names))
	if len(cg.rackNames) == 0 {
		return
	}
	for i, r := range cg.rackNames {
		names[r] = int32(i)
	}
	cg.memberRack = make([]int32, len(g.Members))
	for i := range g.Members {
		cg.memberRack[i] = -1
		if r := g.Members[i].Rack; r != "" {
			cg.memberRack[i] = names[r]
		}
	}
	cg.partRacks = make([][][]int32, len(cg.topics))
	total := 0
	for _, t := range cg.topics {
		for _, racks := range g.PartitionRacks[t] {
			total += len(racks)
		}
	}
	backing := make([]int32, 0, total) // one array for every partition's list
	for ti, t := range cg.topics {
		lists, ok := g.PartitionRacks[t]
		if !ok {
			continue
		}
		parts := make([][]int32, len(lists))
		for p, racks := range lists {
			start := len(backing)
			for _, r := range racks {
				if r != "" {
					backing = append(backing, names[r])
				}
			}
			rs := backing[start:len(backing):len(backing)]
			slices.Sort(rs)
			parts[p] = slices.Compact(rs)
		}
		cg.partRacks[ti] = parts
	}
}

// replicaOn reports whether partition p of topic t has a replica on rack r.
// It is false when the topic's racks are unknown or r is -1.
func (cg *compiledGroup) replicaOn(t, p, r int32) bool {
	if r < 0 || cg.partRacks[t] == nil {
		return false
	}
	_, found := slices.BinarySearch(cg.partRacks[t][p], r)
	return found
}
