package assign

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// String formats tp as Kafka does: "topic-3".
func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.FormatInt(int64(tp.Partition), 10)
}

// Compare orders partitions by topic (Go string order), then by partition
// number. It is the order of every partition list this package returns.
func (tp TopicPartition) Compare(other TopicPartition) int {
	if c := strings.Compare(tp.Topic, other.Topic); c != 0 {
		return c
	}
	return cmp.Compare(tp.Partition, other.Partition)
}

// Member is one consumer of a group as the group leader sees it in the
// JoinGroup response: its identity, its subscription, and what it owned
// before this rebalance.
type Member struct {
	// ID is the member.id the coordinator gave the member. It must be
	// non-empty and unique within the group.
	ID string

	// InstanceID is the group.instance.id of a static member (KIP-345), or
	// "" for a dynamic member. Static members sort before dynamic ones in
	// Range and RoundRobin, as in Kafka. It must be unique when set.
	InstanceID string

	// Rack is the member's client.rack (KIP-881), or "" when unknown.
	Rack string

	// Topics is the subscription. Topics missing from Group.Topics, or with
	// zero partitions, are skipped, as Kafka skips them; a topic listed twice
	// counts once.
	Topics []string

	// Owned lists the partitions the member owned in generation Generation.
	// Only the sticky strategies read it. Partitions that no longer exist
	// (the topic was deleted or shrank) are dropped silently, as Kafka does;
	// a partition listed twice by one member is refused.
	Owned []TopicPartition

	// Generation is the group generation in which the member owned Owned.
	// Of several claims on one partition the highest generation wins. Use -1
	// (Kafka's DEFAULT_GENERATION) when unknown; any value lower than another
	// claimant's loses to it.
	Generation int32
}

// Group is the input of an assignment: the members and the cluster metadata
// of the topics they subscribe to.
type Group struct {
	// Members in any order. Results never depend on this order.
	Members []Member

	// Topics maps each topic in the cluster metadata to its partition count.
	Topics map[string]int32

	// PartitionRacks optionally maps a topic to the racks of each of its
	// partitions' replicas: PartitionRacks[t][p] lists the racks of the
	// replicas of partition p. Rack-aware assignment (KIP-881) uses it when
	// members also declare racks. When a topic is present, its list must
	// have exactly Topics[t] entries.
	PartitionRacks map[string][][]string
}

// Assignment maps each member ID to the partitions it is assigned, sorted by
// [TopicPartition.Compare]. Every member of the group appears, with a nil
// slice when it gets nothing.
type Assignment map[string][]TopicPartition

// MaxPartitions bounds the total number of partitions of the topics a group
// subscribes to. It is far above any real cluster (Kafka's KRaft clusters
// aim at a few million partitions) and keeps a hostile input from making
// the library allocate without bound.
const MaxPartitions = 1 << 25

// Errors wrapped in an [*InputError] to say what is wrong with a [Group].
var (
	ErrEmptyMemberID       = errors.New("empty member ID")
	ErrDuplicateMemberID   = errors.New("duplicate member ID")
	ErrDuplicateInstanceID = errors.New("duplicate group.instance.id")
	ErrEmptyTopicName      = errors.New("empty topic name")
	ErrNegativePartitions  = errors.New("negative partition count")
	ErrTooManyPartitions   = errors.New("too many partitions")
	ErrRackCount           = errors.New("number of partition rack lists differs from the partition count")
	ErrRacksUnknownTopic   = errors.New("partition racks given for a topic missing from the metadata")
	ErrDuplicateOwned      = errors.New("partition owned twice by one member")
)

// InputError reports what is wrong with a [Group] and where. Err is one of
// the Err* sentinels of this package; use [errors.Is] to branch on it and
// [errors.As] to read the location.
type InputError struct {
	Member    string // ID of the member at fault, "" when not about a member
	Index     int    // position of that member in Group.Members, -1 when not about a member
	Topic     string // topic at fault, "" when not about a topic
	Partition int32  // partition at fault, -1 when not about a partition
	Err       error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString("assign: ")
	if e.Index >= 0 {
		fmt.Fprintf(&b, "member %q (#%d): ", e.Member, e.Index)
	}
	if e.Topic != "" {
		fmt.Fprintf(&b, "topic %q: ", e.Topic)
		if e.Partition >= 0 {
			fmt.Fprintf(&b, "partition %d: ", e.Partition)
		}
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

func memberError(i int, m *Member, err error) *InputError {
	return &InputError{Member: m.ID, Index: i, Partition: -1, Err: err}
}

func topicError(topic string, err error) *InputError {
	return &InputError{Index: -1, Topic: topic, Partition: -1, Err: err}
}

// Validate reports the first problem that makes g impossible to assign, as
// an [*InputError], or nil. Every strategy calls it; callers need not.
//
// What Kafka tolerates is tolerated here too: a subscription to a topic
// missing from the metadata or with zero partitions (skipped), an empty
// subscription (the member gets nothing), a topic listed twice in one
// subscription (counted once), and owned partitions that no longer exist
// (dropped). What no Kafka client can send is refused: an empty or repeated
// member ID, a repeated group.instance.id, a negative partition count, a
// rack list whose length differs from its topic's partition count, and a
// partition listed twice in one member's Owned.
func (g Group) Validate() error {
	_, err := compile(g, checkOwned)
	return err
}

// index is a validated group with names interned to dense integers. Topic
// indices follow Java's string order of the topic names; member indices
// follow Group.Members. Strategies work on it and turn back to strings only
// when they build the [Assignment].
type index struct {
	g *Group

	topics   []string    // topic index => name; the subscribed topics that exist with >0 partitions, in Java string order
	numParts []int32     // topic index => partition count
	start    []int32     // topic index => number of its partition 0 when partitions are numbered topic by topic; the last entry is the total
	meta     sortedNames // every topic of the metadata, Go order
	topicOf  []int32     // position in meta => topic index, or -1 when not subscribed or empty
	byGoName []int32     // topic indices in Go string order of the names; see goOrder

	subs [][]int32 // member index => subscribed topic indices, ascending, deduplicated; shared between members, never modify

	// ownedPids[ownedOff[m]:ownedOff[m+1]] lists the partitions member m
	// claims that still exist, numbered as in start, in input order.
	// Claims of topics nobody subscribes to are dropped; claims of topics
	// the member itself no longer subscribes to are kept (cooperative
	// assignment must know the member still holds them). ownedOff is nil
	// when nobody owns anything.
	ownedOff  []int32
	ownedPids []int32

	// With claimOwned and claimants of one generation, claim and
	// claimState replace ownedOff and ownedPids: claim[pid] is the rank
	// in kafkaOrder of the one member listing pid, or -1 (nobody, or
	// several: tied), and claimState[pid] holds the bits listed and tied
	// of stickyProblem.state. Both are nil otherwise.
	claim      []int32
	claimState []uint8

	// With keepOwned, kept replaces claim and claimState when no claim
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
}

// compile validates g and interns it; use says what to make of Owned.
func compile(g Group, use ownedUse) (*index, error) {
	ix := &index{g: &g}

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
	type topic struct {
		name  string
		parts int32
	}
	byName := make([]topic, 0, len(g.Topics))
	for t, n := range g.Topics {
		byName = append(byName, topic{t, n})
	}
	slices.SortFunc(byName, func(a, b topic) int { return strings.Compare(a.name, b.name) })
	meta := make([]string, len(byName))
	metaParts := make([]int32, len(byName)) // parallel to meta
	for k, t := range byName {
		if t.name == "" {
			return nil, topicError(t.name, ErrEmptyTopicName)
		}
		if t.parts < 0 {
			return nil, topicError(t.name, fmt.Errorf("%w %d", ErrNegativePartitions, t.parts))
		}
		meta[k], metaParts[k] = t.name, t.parts
	}
	for _, t := range sortedKeys(g.PartitionRacks) {
		n, ok := g.Topics[t]
		if !ok {
			return nil, topicError(t, ErrRacksUnknownTopic)
		}
		if got := len(g.PartitionRacks[t]); got != int(n) {
			return nil, topicError(t, fmt.Errorf("%w: %d rack lists for %d partitions", ErrRackCount, got, n))
		}
	}

	if err := ix.compileSubs(meta, metaParts); err != nil {
		return nil, err
	}
	ix.kafkaOrder = make([]int32, len(g.Members))
	for i := range ix.kafkaOrder {
		ix.kafkaOrder[i] = int32(i)
	}
	compareIDs := strings.Compare // Java's order of ASCII strings
	for i := range g.Members {
		if !ascii(g.Members[i].ID, g.Members[i].InstanceID) {
			compareIDs = javaCompare
			break
		}
	}
	slices.SortFunc(ix.kafkaOrder, func(a, b int32) int {
		return compareKafkaMembers(&g.Members[a], &g.Members[b], compareIDs)
	})
	ix.internRacks()
	if err := ix.compileOwned(use); err != nil {
		return nil, err
	}
	return ix, nil
}

// compileSubs finds the topics someone subscribes to that exist with
// partitions (ix.topics, in Java order, with numParts, start, meta,
// topicOf and byGoName) and every member's subscription as ascending
// topic indices (ix.subs). meta is the metadata's topic names in Go
// order, metaParts their partition counts.
//
// Names are looked up once per distinct subscription: members that share
// their Topics with the member before them (as clients that build every
// member alike do) share its subscription too, at the cost of comparing
// string headers. Subscriptions are mostly listed in sorted order, so each
// name is first compared with the few metadata names after the one before
// it, and only then looked up (see sortedNames).
func (ix *index) compileSubs(meta []string, metaParts []int32) error {
	g := ix.g
	ix.meta = newSortedNames(meta)
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
	ix.subs = make([][]int32, len(g.Members))
	const guesses = 4
	shared := make([]bool, len(g.Members)) // member => its subscription is the one before it
	for i := range g.Members {
		topics := g.Members[i].Topics
		if i > 0 && sameStrings(topics, last) {
			shared[i] = true
			continue
		}
		last = topics
		first := len(backing)
		k := int32(-1) // position of the last name found
		for _, t := range topics {
			found := false
			for j := k + 1; j < int32(len(meta)) && j <= k+guesses; j++ {
				if meta[j] == t {
					k, found = j, true
					break
				}
			}
			if !found {
				if k, found = ix.meta.find(t); !found {
					k = -1
					continue // not in the metadata: skipped, as Kafka does
				}
			}
			if metaParts[k] > 0 {
				backing = append(backing, k)
				used[k] = true
			}
		}
		ix.subs[i] = backing[first:len(backing):len(backing)]
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
	ix.topics = make([]string, len(byJava))
	ix.numParts = make([]int32, len(byJava))
	ix.start = make([]int32, len(byJava)+1)
	ix.topicOf = make([]int32, len(meta))
	for k := range ix.topicOf {
		ix.topicOf[k] = -1
	}
	total := 0
	for ti, k := range byJava {
		ix.topics[ti] = meta[k]
		ix.topicOf[k] = int32(ti)
		ix.numParts[ti] = metaParts[k]
		total += int(metaParts[k])
		if total > MaxPartitions {
			return topicError(meta[k], fmt.Errorf("%w: the subscribed topics hold more than %d", ErrTooManyPartitions, MaxPartitions))
		}
		ix.start[ti+1] = int32(total)
	}
	ix.byGoName = make([]int32, len(byGo))
	for i, k := range byGo {
		ix.byGoName[i] = ix.topicOf[k]
	}

	// Positions to topic indices, ascending, without repeats; each
	// distinct subscription once.
	for i, sub := range ix.subs {
		if shared[i] {
			ix.subs[i] = ix.subs[i-1] // read-only from here on
			continue
		}
		for j, k := range sub {
			sub[j] = ix.topicOf[k]
		}
		if !slices.IsSorted(sub) {
			slices.Sort(sub)
		}
		if sub = slices.Compact(sub); len(sub) == 0 {
			sub = nil
		}
		ix.subs[i] = slices.Clip(sub)
	}
	return nil
}

// ownedUse says what compile makes of the members' Owned lists. Every use
// refuses a partition listed twice by one member.
type ownedUse uint8

const (
	// checkOwned keeps nothing: Range and RoundRobin ignore ownership.
	checkOwned ownedUse = iota

	// listOwned numbers every member's claims (ownedOff, ownedPids).
	listOwned

	// claimOwned resolves the claims straight into claim and claimState
	// when every member that lists something does so at one generation,
	// as after any ordinary rebalance: the claim on a partition then
	// goes to its only claimant whatever the order. Otherwise (the
	// generations differ, so the order of claimants matters) it works
	// as listOwned.
	claimOwned

	// keepOwned is claimOwned, except that when no claim can be lost
	// it records only what [keptClaims] holds, in kept.
	keepOwned
)

// compileOwned reads the members' claims for use.
//
// Clients list owned partitions topic by topic, partitions ascending, as
// every assignment is sorted: a member whose list has that shape cannot
// repeat a partition, which a stamp per topic and the last partition seen
// prove in O(1) per claim. Only a member whose list has another shape is
// checked with a mark per partition.
func (ix *index) compileOwned(use ownedUse) error {
	g := ix.g
	total := 0
	gen, mixed, some := int32(0), false, false
	for i := range g.Members {
		m := &g.Members[i]
		if len(m.Owned) > 0 {
			total += len(m.Owned)
			mixed = mixed || some && m.Generation != gen
			gen, some = m.Generation, true
		}
	}
	if total == 0 {
		return nil
	}
	if use == keepOwned {
		if !mixed && ix.keepsEveryClaim() && ix.readKept() {
			return nil
		}
		use = claimOwned // settle the claims partition by partition, refusing repeats
	}
	if use == claimOwned && mixed {
		use = listOwned
	}
	parts := ix.start[len(ix.topics)]
	var pids []int32 // listOwned: every member's; otherwise the current member's
	var rank []int32 // claimOwned: member index => position in Kafka's member order
	switch use {
	case listOwned:
		ix.ownedOff = make([]int32, len(g.Members)+1)
		pids = make([]int32, 0, total)
	case claimOwned:
		ix.claim = make([]int32, parts)
		for pid := range ix.claim {
			ix.claim[pid] = -1
		}
		ix.claimState = make([]uint8, parts)
		rank = make([]int32, len(g.Members))
		for r, m := range ix.kafkaOrder {
			rank[m] = int32(r)
		}
	}
	claim, state := ix.claim, ix.claimState
	after, _ := ix.goSteps()
	runOf := make([]int32, len(ix.topics)) // topic => 1 + the last member with a run of it
	var marks []int32                      // pid => 1 + the last member marked listing it; nil until needed
	for i := range g.Members {
		m := &g.Members[i]
		if use != listOwned {
			pids = pids[:0]
		}
		first := len(pids)
		sorted := true                                                   // so far: runs of distinct topics, partitions ascending within each
		lastTopic, ti, known, lastPart := "", int32(0), false, int32(-1) // "" is never a known topic
		for _, tp := range m.Owned {
			if tp.Topic != lastTopic {
				ti, known = ix.topicAfter(after, ti, known, tp.Topic)
				lastTopic, lastPart = tp.Topic, -1
				if known {
					sorted = sorted && runOf[ti] != int32(i)+1
					runOf[ti] = int32(i) + 1
				}
			}
			if !known || tp.Partition < 0 || tp.Partition >= ix.numParts[ti] {
				continue // the partition no longer exists, or nobody wants it: dropped, as Kafka does
			}
			sorted = sorted && tp.Partition > lastPart
			lastPart = tp.Partition
			pid := ix.start[ti] + tp.Partition
			pids = append(pids, pid)
			if use == claimOwned {
				if state[pid] == 0 {
					claim[pid], state[pid] = rank[i], listed
				} else {
					claim[pid], state[pid] = -1, listed|tied // or listed twice by m: refused below
				}
			}
		}
		if !sorted {
			if marks == nil {
				marks = make([]int32, parts)
			}
			for _, pid := range pids[first:] {
				if marks[pid] == int32(i)+1 {
					t := topicAt(ix.start, pid)
					e := memberError(i, m, ErrDuplicateOwned)
					e.Topic, e.Partition = ix.topics[t], pid-ix.start[t]
					return e
				}
				marks[pid] = int32(i) + 1
			}
		}
		if use == listOwned {
			ix.ownedOff[i+1] = int32(len(pids))
		}
	}
	if use == listOwned {
		ix.ownedPids = pids
	}
	return nil
}

// goSteps returns, for each topic, the next topic in Go order (-1 for the
// last) and its position in Go order. A sorted list of partitions often
// goes from a topic to the next one in Go order (a member usually owns
// some of every topic): compile tries it with a string comparison before
// looking the name up. Trying more costs more than the lookup when
// members own few partitions of many topics.
func (ix *index) goSteps() (after, goRank []int32) {
	order := ix.goOrder()
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
func (ix *index) topicAfter(after []int32, ti int32, known bool, name string) (int32, bool) {
	if known && after[ti] >= 0 && ix.topics[after[ti]] == name {
		return after[ti], true
	}
	return ix.topicIndex(name)
}

// topicIndex returns the index of the topic named name, if someone
// subscribes to it and it has partitions.
func (ix *index) topicIndex(name string) (int32, bool) {
	k, ok := ix.meta.find(name)
	if !ok || ix.topicOf[k] < 0 {
		return 0, false
	}
	return ix.topicOf[k], true
}

// sortedNames finds names in a list sorted in Go order: by binary search
// when it is short, by a map built once otherwise.
type sortedNames struct {
	names []string
	pos   map[string]int32 // name => position in names; nil when names is short
}

func newSortedNames(names []string) sortedNames {
	s := sortedNames{names: names}
	if len(names) > shortList {
		s.pos = make(map[string]int32, len(names))
		for k, name := range names {
			s.pos[name] = int32(k)
		}
	}
	return s
}

// find returns the position of name.
func (s *sortedNames) find(name string) (int32, bool) {
	if s.pos != nil {
		k, ok := s.pos[name]
		return k, ok
	}
	k, ok := slices.BinarySearch(s.names, name)
	return int32(k), ok
}

// owned returns the partitions member m claims (see index.ownedPids).
func (ix *index) owned(m int32) []int32 {
	if ix.ownedOff == nil {
		return nil
	}
	return ix.ownedPids[ix.ownedOff[m]:ix.ownedOff[m+1]]
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
	seen := make(map[string]struct{}, len(items))
	for i := range items {
		k := key(&items[i])
		if k == "" {
			continue
		}
		if _, dup := seen[k]; dup {
			return i
		}
		seen[k] = struct{}{}
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
func (ix *index) internRacks() {
	g := ix.g
	names := make(map[string]int32)
	for i := range g.Members {
		if r := g.Members[i].Rack; r != "" {
			names[r] = 0
		}
	}
	for _, t := range ix.topics {
		for _, racks := range g.PartitionRacks[t] {
			for _, r := range racks {
				if r != "" {
					names[r] = 0
				}
			}
		}
	}
	ix.rackNames = sortedKeys(names)
	if len(ix.rackNames) == 0 {
		return
	}
	for i, r := range ix.rackNames {
		names[r] = int32(i)
	}
	ix.memberRack = make([]int32, len(g.Members))
	for i := range g.Members {
		ix.memberRack[i] = -1
		if r := g.Members[i].Rack; r != "" {
			ix.memberRack[i] = names[r]
		}
	}
	ix.partRacks = make([][][]int32, len(ix.topics))
	total := 0
	for _, t := range ix.topics {
		for _, racks := range g.PartitionRacks[t] {
			total += len(racks)
		}
	}
	backing := make([]int32, 0, total) // one array for every partition's list
	for ti, t := range ix.topics {
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
		ix.partRacks[ti] = parts
	}
}

// replicaOn reports whether partition p of topic t has a replica on rack r.
// It is false when the topic's racks are unknown or r is -1.
func (ix *index) replicaOn(t, p, r int32) bool {
	if r < 0 || ix.partRacks[t] == nil {
		return false
	}
	_, found := slices.BinarySearch(ix.partRacks[t][p], r)
	return found
}

// builder collects an assignment on indices: the owner of every
// partition, numbered topic by topic (see index.start).
type builder struct {
	ix    *index
	owner []int32 // partition number => member index, or -1
}

func newBuilder(ix *index) *builder {
	owner := make([]int32, ix.start[len(ix.numParts)])
	for i := range owner {
		owner[i] = -1
	}
	return &builder{ix: ix, owner: owner}
}

func (b *builder) add(member int32, t, p int32) {
	b.owner[b.ix.start[t]+p] = member
}

func (b *builder) assignment() Assignment { return b.ix.assignmentOf(b.owner, nil, nil) }

// assignmentOf turns the owner of every partition (a member index, or -1
// for none; with members non-nil, an index into members, which holds
// member indices), less the partitions marked in skip (nil for none),
// into an [Assignment]: every member present, each list sorted
// by [TopicPartition.Compare], all lists in one backing array. Counting
// each member's partitions first and then walking topics in Go string
// order, partitions ascending, lays every list out in order: nothing is
// sorted and nothing grows.
//
// (Sorting partition numbers by member first, to write each list in one
// sequential sweep, measured slower: up to 4x on round-robin owners.)
func (ix *index) assignmentOf(owner []int32, skip []bool, members []int32) Assignment {
	n := len(ix.g.Members)
	fill := make([]int, n) // owner value => its partitions; then where its next one goes
	for pid, v := range owner {
		if v >= 0 && (skip == nil || !skip[pid]) {
			fill[v]++
		}
	}
	off := make([]int, n+1) // member index => where its list starts
	for v, c := range fill {
		m := v
		if members != nil {
			m = int(members[v])
		}
		off[m+1] = c
	}
	for m := range n {
		off[m+1] += off[m]
	}
	for v := range fill {
		m := v
		if members != nil {
			m = int(members[v])
		}
		fill[v] = off[m]
	}
	backing := make([]TopicPartition, off[n])
	for _, t := range ix.goOrder() {
		name, first, end := ix.topics[t], ix.start[t], ix.start[t+1]
		if skip == nil {
			for p, m := range owner[first:end] {
				if m >= 0 {
					backing[fill[m]] = TopicPartition{name, int32(p)}
					fill[m]++
				}
			}
			continue
		}
		for p, m := range owner[first:end] {
			if m >= 0 && !skip[first+int32(p)] {
				backing[fill[m]] = TopicPartition{name, int32(p)}
				fill[m]++
			}
		}
	}
	return ix.assignmentFrom(off, backing)
}

// assignmentFrom returns the Assignment whose member m (an index) has
// backing[off[m]:off[m+1]].
func (ix *index) assignmentFrom(off []int, backing []TopicPartition) Assignment {
	out := make(Assignment, len(ix.g.Members))
	for m := range ix.g.Members {
		var list []TopicPartition
		if off[m+1] > off[m] {
			list = backing[off[m]:off[m+1]:off[m+1]]
		}
		out[ix.g.Members[m].ID] = list
	}
	return out
}

// goOrder returns the topic indices in Go string order of their names, the
// order of [TopicPartition.Compare].
// The slice is shared: never modify it.
func (ix *index) goOrder() []int32 { return ix.byGoName }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
