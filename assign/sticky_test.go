package assign_test

import (
	"slices"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/assigntest"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// tps lists partitions of one topic.
func tps(topic string, parts ...int32) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, p := range parts {
		out = append(out, assign.TopicPartition{Topic: topic, Partition: p})
	}
	return out
}

// join concatenates partition lists.
func join(lists ...[]assign.TopicPartition) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// stickyMember is a member subscribed to topics, owning owned at gen.
func stickyMember(id string, topics []string, gen int32, owned ...[]assign.TopicPartition) assign.Member {
	return assign.Member{ID: id, Topics: topics, Generation: gen, Owned: join(owned...)}
}

var (
	onlyT0 = []string{"t0"}
	onlyT1 = []string{"t1"}
	t0t1   = []string{"t0", "t1"}
)

// stickyCases are the scenarios of Kafka's sticky test suites and of
// KIP-54, KIP-341 and KIP-429, as our own data. Each expected value is
// worked out by hand in the comment above it from the rules documented
// on assign.Sticky (targets q or q+1 with the q+1 slots to the members
// with the most claims; each member keeps its lowest claims, spread
// across topics; the rest go first to previous owners, then round-robin
// in member order to members below target, partitions nobody lists
// before partitions someone must revoke).
var stickyCases = []struct {
	name string
	g    assign.Group
	want assign.Assignment
}{
	{
		// Three members own two partitions each; c2 leaves. Nobody else
		// moves; c2's t0-4 and t0-5 are dealt to c0 and c1 in turn.
		name: "member leaves: its partitions spread, nobody else moves",
		g: assign.Group{
			Topics: map[string]int32{"t0": 6},
			Members: []assign.Member{
				stickyMember("c0", onlyT0, 1, tps("t0", 0, 1)),
				stickyMember("c1", onlyT0, 1, tps("t0", 2, 3)),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1, 4), "c1": tps("t0", 2, 3, 5)},
	},
	{
		// c2 joins a group of two holding three each: targets are 2, 2, 2.
		// c0 keeps its lowest two and gives t0-2, c1 gives t0-5; both go
		// to c2. Two moves, the fewest any balanced result has.
		name: "member joins: takes only what balance requires",
		g: assign.Group{
			Topics: map[string]int32{"t0": 6},
			Members: []assign.Member{
				stickyMember("c0", onlyT0, 1, tps("t0", 0, 1, 2)),
				stickyMember("c1", onlyT0, 1, tps("t0", 3, 4, 5)),
				stickyMember("c2", onlyT0, -1),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 3, 4), "c2": tps("t0", 2, 5)},
	},
	{
		// KAFKA-18688: 7 partitions over 3 members, so one member keeps 3.
		// Giving the 3 to c0 (five claims) moves 2; giving it to c1 (two
		// claims) would move 3. c0 keeps t0-0..2, c2 gets t0-3 and t0-4.
		name: "the extra partition stays with the member keeping the most claims",
		g: assign.Group{
			Topics: map[string]int32{"t0": 7},
			Members: []assign.Member{
				stickyMember("c1", onlyT0, 1, tps("t0", 5, 6)),
				stickyMember("c0", onlyT0, 1, tps("t0", 0, 1, 2, 3, 4)),
				stickyMember("c2", onlyT0, -1),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1, 2), "c1": tps("t0", 5, 6), "c2": tps("t0", 3, 4)},
	},
	{
		// c0 claims t0-0 at generation 2, c1 at generation 1: c0's claim
		// wins and c0 keeps it; c1 keeps t0-1, which only it claims.
		name: "higher generation wins a conflicting claim",
		g: assign.Group{
			Topics: map[string]int32{"t0": 2},
			Members: []assign.Member{
				stickyMember("c1", onlyT0, 1, tps("t0", 0, 1)),
				stickyMember("c0", onlyT0, 2, tps("t0", 0)),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 1)},
	},
	{
		// t0-0 is claimed by c0 and c1 at generation 2 and by c2 at
		// generation 1. The tie at 2 cancels both claims (KAFKA-12984);
		// c2 is the previous owner. c2 also claims t0-1 and t0-2. Targets
		// are 1 each: c2 keeps t0-1 and gives up t0-2. t0-0 would return to
		// its previous owner c2, which has no room, so t0-0 and t0-2 are
		// dealt to c0 and c1 in turn.
		name: "three claimants in any order give one answer",
		g: assign.Group{
			Topics: map[string]int32{"t0": 3},
			Members: []assign.Member{
				stickyMember("c2", onlyT0, 1, tps("t0", 0, 1, 2)),
				stickyMember("c1", onlyT0, 2, tps("t0", 0)),
				stickyMember("c0", onlyT0, 2, tps("t0", 0)),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0), "c1": tps("t0", 2), "c2": tps("t0", 1)},
	},
	{
		// c3 claims t0-0..3 at generation 2; c1 owned t0-2 at generation
		// 1, so it is t0-2's previous owner. Targets are 2, 1, 1: c3 keeps
		// t0-0 and t0-1 and gives up t0-2 and t0-3. t0-2 returns to c1
		// (KIP-341) although c0 comes first in member order; t0-3 goes to
		// c0.
		name: "a partition that must move returns to its previous owner",
		g: assign.Group{
			Topics: map[string]int32{"t0": 4},
			Members: []assign.Member{
				stickyMember("c3", onlyT0, 2, tps("t0", 0, 1, 2, 3)),
				stickyMember("c1", onlyT0, 1, tps("t0", 2)),
				stickyMember("c0", onlyT0, -1),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 3), "c1": tps("t0", 2), "c3": tps("t0", 0, 1)},
	},
	{
		// c0 claims t0-1 (kept), t0-5 (t0 has only 2 partitions now), t9-0
		// (t9 was deleted) and t1-0 (c0 no longer subscribes to t1). Kafka
		// drops such claims silently. Only c1 subscribes to t1, so it holds
		// t1-0 and t1-1, and balance gives c0 both partitions of t0.
		name: "claims of deleted partitions and unsubscribed topics are dropped",
		g: assign.Group{
			Topics: map[string]int32{"t0": 2, "t1": 2},
			Members: []assign.Member{
				stickyMember("c0", onlyT0, 1, tps("t0", 1, 5), tps("t9", 0), tps("t1", 0)),
				stickyMember("c1", t0t1, 1, tps("t1", 1)),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t1", 0, 1)},
	},
	{
		// c1 drops t1 from its subscription. c0 is now t1's only
		// subscriber and must hold t1-0 and t1-1; balance (2 and 2) then
		// sends c0's t0-0 to c1. One move, forced.
		name: "subscription change",
		g: assign.Group{
			Topics: map[string]int32{"t0": 2, "t1": 2},
			Members: []assign.Member{
				stickyMember("c0", t0t1, 1, tps("t0", 0), tps("t1", 0)),
				stickyMember("c1", onlyT0, 1, tps("t0", 1), tps("t1", 1)),
			},
		},
		want: assign.Assignment{"c0": tps("t1", 0, 1), "c1": tps("t0", 0, 1)},
	},
	{
		// t0 grows from 4 to 6 partitions: everyone keeps what it had, the
		// new t0-4 and t0-5 are dealt in turn.
		name: "partition growth",
		g: assign.Group{
			Topics: map[string]int32{"t0": 6},
			Members: []assign.Member{
				stickyMember("c1", onlyT0, 3, tps("t0", 2, 3)),
				stickyMember("c0", onlyT0, 3, tps("t0", 0, 1)),
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1, 4), "c1": tps("t0", 2, 3, 5)},
	},
	{
		// A fresh group on two racks: t0-0 and t0-1 have their replica on
		// rack a, t0-2 and t0-3 on rack b. Not every partition is on every
		// rack, so rack preference is on (KIP-881) and each member gets the
		// partitions on its own rack; without racks it would get t0-0, t0-2
		// and t0-1, t0-3.
		name: "racks: each member gets the partitions on its rack",
		g: assign.Group{
			Topics:         map[string]int32{"t0": 4},
			PartitionRacks: map[string][][]string{"t0": {{"a"}, {"a"}, {"b"}, {"b"}}},
			Members: []assign.Member{
				{ID: "c0", Rack: "a", Topics: onlyT0, Generation: -1},
				{ID: "c1", Rack: "b", Topics: onlyT0, Generation: -1},
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 2, 3)},
	},
	{
		// Three partitions with a replica on rack a only, members on a
		// and b: rack preference is on, but balance comes first. c0 (rack
		// a) takes t0-0 and t0-1 and then is full; t0-2 goes to c1.
		name: "racks never cost balance",
		g: assign.Group{
			Topics:         map[string]int32{"t0": 4},
			PartitionRacks: map[string][][]string{"t0": {{"a"}, {"a"}, {"a"}, {"b"}}},
			Members: []assign.Member{
				{ID: "c0", Rack: "a", Topics: onlyT0, Generation: -1},
				{ID: "c1", Rack: "b", Topics: onlyT0, Generation: -1},
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 1), "c1": tps("t0", 2, 3)},
	},
	{
		// Every partition has replicas on racks a and b, the only racks:
		// Kafka's activation rule leaves rack awareness off, and the
		// partitions are dealt in turn.
		name: "racks: off when every partition is on every rack",
		g: assign.Group{
			Topics:         map[string]int32{"t0": 4},
			PartitionRacks: map[string][][]string{"t0": {{"a", "b"}, {"a", "b"}, {"b", "a"}, {"a", "b"}}},
			Members: []assign.Member{
				{ID: "c0", Rack: "a", Topics: onlyT0, Generation: -1},
				{ID: "c1", Rack: "b", Topics: onlyT0, Generation: -1},
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0, 2), "c1": tps("t0", 1, 3)},
	},
	{
		// c0 on rack a owns t0-1, whose replica is on rack b. Keeping it
		// costs no balance and moving it would cost a move: it stays.
		name: "racks: a kept claim on another rack stays",
		g: assign.Group{
			Topics:         map[string]int32{"t0": 2},
			PartitionRacks: map[string][][]string{"t0": {{"a"}, {"b"}}},
			Members: []assign.Member{
				{ID: "c0", Rack: "a", Topics: onlyT0, Generation: 1, Owned: tps("t0", 1)},
				{ID: "c1", Rack: "b", Topics: onlyT0, Generation: 1, Owned: tps("t0", 0)},
			},
		},
		want: assign.Assignment{"c0": tps("t0", 1), "c1": tps("t0", 0)},
	},
	{
		// The heterogeneous case where checking pairs is not enough: c1
		// (t1 only) holds 3, c2 (t1, t2) 2, c3 (t2 only) 1. No pair can
		// even out (c1 and c3 share no topic, the others differ by one),
		// but the chain c1 -> c2 -> c3 can: c1 gives its highest, t1-2,
		// to c2, and c2 its highest t2 partition, t2-1, to c3. Two moves,
		// the fewest: c1 must lose one and c3 gain one of t2, which only
		// c2 can give.
		name: "heterogeneous: a chain evens out what pairs cannot",
		g: assign.Group{
			Topics: map[string]int32{"t1": 3, "t2": 3},
			Members: []assign.Member{
				stickyMember("c1", []string{"t1"}, 1, tps("t1", 0, 1, 2)),
				stickyMember("c2", []string{"t1", "t2"}, 1, tps("t2", 0, 1)),
				stickyMember("c3", []string{"t2"}, 1, tps("t2", 2)),
			},
		},
		want: assign.Assignment{
			"c1": tps("t1", 0, 1),
			"c2": join(tps("t1", 2), tps("t2", 0)),
			"c3": tps("t2", 1, 2),
		},
	},
	{
		// A static member restarts with a new member.id and the same
		// group.instance.id, reporting what it owned: it keeps it all.
		name: "static member restart keeps its partitions",
		g: assign.Group{
			Topics: map[string]int32{"t0": 4},
			Members: []assign.Member{
				{ID: "c0-restarted", InstanceID: "i0", Topics: onlyT0, Generation: 4, Owned: tps("t0", 1, 3)},
				{ID: "c1", InstanceID: "i1", Topics: onlyT0, Generation: 4, Owned: tps("t0", 0, 2)},
			},
		},
		want: assign.Assignment{"c0-restarted": tps("t0", 1, 3), "c1": tps("t0", 0, 2)},
	},
	{
		// Members subscribed to nothing, or to a topic that does not exist,
		// get nothing; the others share t0.
		name: "members with nothing to take",
		g: assign.Group{
			Topics: map[string]int32{"t0": 2},
			Members: []assign.Member{
				{ID: "c0", Topics: onlyT0, Generation: -1},
				{ID: "c1", Topics: []string{"gone"}, Generation: -1},
				{ID: "c2", Generation: -1},
				{ID: "c3", Topics: onlyT0, Generation: -1},
			},
		},
		want: assign.Assignment{"c0": tps("t0", 0), "c1": nil, "c2": nil, "c3": tps("t0", 1)},
	},
}

func TestSticky(t *testing.T) {
	for _, tc := range stickyCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := assign.Sticky{}.Assign(tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Sticky(g) mismatch (-want +got):\n%s", diff)
			}
			if err := assign.VerifyBalanced(tc.g, got); err != nil {
				t.Error(err)
			}
			// The same group listed in reverse gives the same answer.
			rev := tc.g
			rev.Members = slices.Clone(tc.g.Members)
			slices.Reverse(rev.Members)
			again, err := assign.Sticky{}.Assign(rev)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("Sticky(reversed g) mismatch (-forward +reversed):\n%s", diff)
			}
		})
	}
}

// TestStickyEmpty: groups with nothing to assign give every member an
// empty list, and a group without members an empty assignment.
func TestStickyEmpty(t *testing.T) {
	for _, g := range []assign.Group{
		{},
		{Topics: map[string]int32{"t0": 0}, Members: []assign.Member{{ID: "c0", Topics: onlyT0}}},
	} {
		want := assign.Assignment{}
		for _, m := range g.Members {
			want[m.ID] = nil
		}
		for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
			got, err := s.Assign(g)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s.Assign(%+v) mismatch (-want +got):\n%s", s.Name(), g, diff)
			}
		}
	}
}

func TestStickyInvalidGroup(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t0": 1}, Members: []assign.Member{{ID: ""}}}
	for _, s := range []assign.Strategy{assign.Sticky{}, assign.CooperativeSticky{}} {
		if _, err := s.Assign(g); err == nil {
			t.Errorf("%s.Assign(member without ID) = nil error, want an *InputError", s.Name())
		}
	}
}

// TestStickyProperties checks validity, balance and determinism under
// shuffling on larger random groups.
func TestStickyProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(assigntest.Small).Draw(t, "group")
		a, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := assign.VerifyBalanced(g, a); err != nil {
			t.Fatal(err)
		}
		shuffled := assigntest.Shuffled(g).Draw(t, "shuffled")
		b, err := assign.Sticky{}.Assign(shuffled)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("Sticky(shuffled g) mismatch (-original +shuffled):\n%s", diff)
		}
	})
}

// TestStickyIdenticalSpread: a fresh group with identical subscriptions
// spreads every topic evenly (per-topic counts differ by at most one).
func TestStickyIdenticalSpread(t *testing.T) {
	shape := assigntest.Shape{MaxMembers: 8, MaxTopics: 4, MaxPartitions: 12, Identical: true}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(shape).Draw(t, "group")
		a, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		s := assign.Summarize(g, a)
		if s.Spread > 1 {
			t.Fatalf("spread %d > 1: %v", s.Spread, s.Counts)
		}
		for topic, spread := range s.TopicSpread {
			if spread > 1 {
				t.Fatalf("topic %q spread %d > 1", topic, spread)
			}
		}
	})
}

func TestStickyLookup(t *testing.T) {
	for _, tc := range []struct {
		name     string
		want     assign.Strategy
		protocol assign.RebalanceProtocol
	}{
		{"sticky", assign.Sticky{}, assign.Eager},
		{"org.apache.kafka.clients.consumer.StickyAssignor", assign.Sticky{}, assign.Eager},
		{"cooperative-sticky", assign.CooperativeSticky{}, assign.Cooperative},
		{"org.apache.kafka.clients.consumer.CooperativeStickyAssignor", assign.CooperativeSticky{}, assign.Cooperative},
	} {
		got, err := assign.Lookup(tc.name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", tc.name, err)
		}
		if got != tc.want || got.Protocol() != tc.protocol {
			t.Errorf("Lookup(%q) = %T with protocol %v, want %T with %v", tc.name, got, got.Protocol(), tc.want, tc.protocol)
		}
	}
}

// TestStickyMovesIdenticalBound checks moves on groups too big for the
// brute force, with identical subscriptions, against the bound theory
// gives: with P partitions over n members, loads are q = P/n or q+1 (r =
// P mod n members get q+1), so member m keeps at most min(k(m), its load)
// of its k(m) claims, and the most that can be kept is
// sum(min(k(m), q)) plus the number of members among the r with the most
// claims that have more than q. Moves are at least the claims minus that,
// and Sticky must reach it.
func TestStickyMovesIdenticalBound(t *testing.T) {
	shape := assigntest.Shape{MaxMembers: 10, MaxTopics: 4, MaxPartitions: 20, Static: true, Racks: true, Owned: true, Identical: true}
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupOf(shape).Draw(t, "group")
		a, err := assign.Sticky{}.Assign(g)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, n := range g.Topics {
			total += int(n)
		}
		n := len(g.Members)
		q, r := total/n, total%n
		var claims []int
		sum := 0
		for _, m := range g.Members {
			k := 0
			for _, tp := range owned(t, g)[m.ID] {
				if tp.Partition >= 0 && tp.Partition < g.Topics[tp.Topic] {
					k++
				}
			}
			claims = append(claims, k)
			sum += k
		}
		slices.Sort(claims)
		slices.Reverse(claims)
		keep := 0
		for i, k := range claims {
			keep += min(k, q)
			if i < r && k > q {
				keep++
			}
		}
		if got, want := assign.Moved(owned(t, g), a), sum-keep; got != want {
			t.Fatalf("Sticky(g) moved %d partitions; the fewest possible is %d", got, want)
		}
	})
}

// owned is assign.Owned(g) for a group that must be valid.
func owned(t interface {
	Helper()
	Fatal(...any)
}, g assign.Group) assign.Assignment {
	t.Helper()
	a, err := assign.Owned(g)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
