package describe

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/google/go-cmp/cmp"
)

// The files in testdata/ were written from the printf formats of Kafka's
// ConsumerGroupCommand (columns padded to the widest value, at least 15
// characters; GROUP-INSTANCE-ID at least 17, empty for a dynamic member;
// a blank line before the header), with the member IDs Java consumers get
// (client.id, "-", a UUID). The expectations below are read off those
// files by hand.

const (
	c0 = "consumer-orders-1-5f0c6a1e-2b7d-4a0e-9d3c-1f2e3d4c5b6a"
	c1 = "consumer-orders-2-0a1b2c3d-4e5f-4061-8a9b-cdef01234567"
	c2 = "consumer-orders-3-99999999-8888-4777-8666-555544443333"
)

func tp(topic string, p int32) assign.TopicPartition {
	return assign.TopicPartition{Topic: topic, Partition: p}
}

func tps(pairs ...any) []assign.TopicPartition {
	var out []assign.TopicPartition
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, tp(pairs[i].(string), int32(pairs[i+1].(int))))
	}
	return out
}

func parseFile(t *testing.T, name string) (*Snapshot, error) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Parse(f)
}

func TestParse(t *testing.T) {
	host := func(m Member, h, client string) Member { m.Host, m.ClientID = h, client; return m }
	tests := []struct {
		file string
		want *Snapshot
	}{
		{"offsets_4x.txt", &Snapshot{Name: "orders-app", View: OffsetsView,
			Members: []Member{
				host(Member{ID: c0, Owned: tps("orders", 0, "orders", 1)}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2, "payments", 0)}, "/10.0.0.2", "consumer-orders-2"),
				host(Member{ID: c2}, "/10.0.0.3", "consumer-orders-3"), // listed with TOPIC and PARTITION "-": owns nothing
			},
			Unowned: tps("payments", 1),
			Lag:     map[assign.TopicPartition]int64{tp("orders", 0): 50, tp("orders", 1): 0, tp("orders", 2): 1000, tp("payments", 0): 2, tp("payments", 1): 0},
		}},
		{"offsets_verbose.txt", &Snapshot{Name: "orders-app", View: OffsetsView,
			Members: []Member{
				host(Member{ID: c0, Owned: tps("orders", 0, "orders", 1)}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2)}, "/10.0.0.2", "consumer-orders-2"),
			},
			Lag: map[assign.TopicPartition]int64{tp("orders", 0): 50, tp("orders", 1): 0, tp("orders", 2): 1000},
		}},
		{"offsets_kip175.txt", &Snapshot{View: OffsetsView,
			Members: []Member{
				host(Member{ID: c0, Owned: tps("orders", 0, "orders", 1)}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2, "payments", 0)}, "/10.0.0.2", "consumer-orders-2"),
			},
			Lag: map[assign.TopicPartition]int64{tp("orders", 0): 50, tp("orders", 1): 0, tp("orders", 2): 1000, tp("payments", 0): 2},
		}},
		{"members_scala.txt", &Snapshot{Name: "orders-app", View: MembersView,
			Members: []Member{
				host(Member{ID: c0, Owned: tps("orders", 0, "orders", 1, "payments", 1)}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2, "payments", 0)}, "/10.0.0.2", "consumer-orders-2"),
				host(Member{ID: c2}, "/10.0.0.3", "consumer-orders-3"),
			},
			Lag: map[assign.TopicPartition]int64{},
		}},
		// c1's GROUP-INSTANCE-ID is blank: the row is cut at the header's
		// positions.
		{"members_scala_static.txt", &Snapshot{Name: "orders-app", View: MembersView,
			Members: []Member{
				host(Member{ID: c0, InstanceID: "orders-host-a", Owned: tps("orders", 0, "orders", 1)}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2)}, "/10.0.0.2", "consumer-orders-2"),
			},
			Lag: map[assign.TopicPartition]int64{},
		}},
		{"members_kip1099.txt", &Snapshot{Name: "orders-app", View: KIP1099View, Protocol: Consumer,
			Members: []Member{
				host(Member{ID: c0, InstanceID: "orders-host-a", Owned: tps("orders", 0, "orders", 1, "payments", 1), Target: tps("orders", 0, "orders", 1, "payments", 1), CurrentEpoch: 7, TargetEpoch: 7}, "/10.0.0.1", "consumer-orders-1"),
				host(Member{ID: c1, Owned: tps("orders", 2, "payments", 0), Target: tps("orders", 2), CurrentEpoch: 7, TargetEpoch: 8}, "/10.0.0.2", "consumer-orders-2"),
				host(Member{ID: c2, Target: tps("payments", 0), CurrentEpoch: 7, TargetEpoch: 8}, "/10.0.0.3", "consumer-orders-3"),
			},
			Lag: map[assign.TopicPartition]int64{},
		}},
		{"plain.csv", &Snapshot{View: CSVView,
			Members: []Member{{ID: "c0", Owned: tps("orders", 0, "orders", 1)}, {ID: "c1", Owned: tps("orders", 2, "payments", 0)}},
			Lag:     map[assign.TopicPartition]int64{tp("orders", 0): 50, tp("orders", 1): 0, tp("orders", 2): 1000},
		}},
		{"noheader.csv", &Snapshot{View: CSVView,
			Members: []Member{{ID: "c0", Owned: tps("orders", 0)}, {ID: "c1", Owned: tps("orders", 1)}},
			Lag:     map[assign.TopicPartition]int64{},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			// What these layouts do not show: no coordinator partition, no
			// epochs.
			tt.want.CoordinatorPartition = -1
			for i := range tt.want.Members {
				if m := &tt.want.Members[i]; tt.want.View != KIP1099View {
					m.CurrentEpoch, m.TargetEpoch = -1, -1
				}
			}
			got, err := parseFile(t, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%s) mismatch (-want +got):\n%s", tt.file, diff)
			}
		})
	}
}

// TestParseRefused: layouts that do not say who owns what are refused,
// naming the view to use instead.
func TestParseRefused(t *testing.T) {
	tests := []struct {
		file string
		want error
		line int
	}{
		{"members_plain.txt", ErrNoAssignment, 2},
		{"members_38.txt", ErrNoAssignment, 3},
		{"two_groups.txt", ErrManyGroups, 12}, // lines 1-8 orders-app, 9-10 blank, 11 the header again, 12 billing-app
	}
	for _, tt := range tests {
		_, err := parseFile(t, tt.file)
		var de *Error
		if !errors.Is(err, tt.want) || !errors.As(err, &de) || de.Line != tt.line {
			t.Errorf("Parse(%s) = %v, want an *Error at line %d wrapping %v", tt.file, err, tt.line, tt.want)
		}
	}
}

// TestGroup: the group built from the offsets view, with what is assumed.
// orders lists 0-2, so 3 partitions; payments lists 0-1, so 2 unless
// given (here 4); everyone subscribes to both; c2 owns nothing.
func TestGroup(t *testing.T) {
	s, err := parseFile(t, "offsets_4x.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, notes, err := s.Group(map[string]int32{"payments": 4}, map[string][]string{c2: {"payments"}})
	if err != nil {
		t.Fatal(err)
	}
	both := []string{"orders", "payments"}
	want := assign.Group{
		Topics: map[string]int32{"orders": 3, "payments": 4},
		Members: []assign.Member{
			{ID: c0, Topics: both, Owned: tps("orders", 0, "orders", 1), Generation: 1},
			{ID: c1, Topics: both, Owned: tps("orders", 2, "payments", 0), Generation: 1},
			{ID: c2, Topics: []string{"payments"}, Generation: -1},
		},
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("Group mismatch (-want +got):\n%s", diff)
	}
	wantNotes := []string{
		"partition counts from the highest partition listed: orders:3 (give --topics NAME:COUNT for more)",
		"2 of 3 members subscribe to every topic listed (orders, payments): describe output shows no subscriptions",
	}
	if diff := cmp.Diff(wantNotes, notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
	if err := g.Validate(); err != nil {
		t.Errorf("the group is invalid: %v", err)
	}
}

// TestGroupSharedClaims: a partition listed under several members (output
// caught mid-rebalance) is warned of once, naming them, in listing order.
func TestGroupSharedClaims(t *testing.T) {
	s, err := Parse(strings.NewReader("member,topic,partition\nc0,t,1\nc1,t,1\nc1,t,0\nc2,t,1\nc2,t,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	notes := s.Warnings()
	want := []string{
		"t-1 is listed under 3 members (c0, c1, c2): their claims tie, so none keeps it",
		"t-0 is listed under 2 members (c1, c2): their claims tie, so none keeps it",
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

// TestGroupNotices: the tool's own lines about the group's state are
// skipped by the parser and repeated as warnings, so that a snapshot taken
// mid-rebalance says so.
func TestGroupNotices(t *testing.T) {
	in := "Warning: Consumer group 'g' is rebalancing.\n\nmember,topic,partition\nc0,t,0\n"
	s, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, notes, err := s.Group(map[string]int32{"t": 1}, map[string][]string{"c0": {"t"}}); err != nil || len(notes) != 0 {
		t.Errorf("notes %q, error %v; want neither: nothing was assumed", notes, err)
	}
	notes := s.Warnings()
	want := []string{"kafka-consumer-groups.sh said: Warning: Consumer group 'g' is rebalancing."}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notes mismatch (-want +got):\n%s", diff)
	}
}

// TestPartitionNumberBounds is a regression test: partition 2147483647
// made the derived count 2147483648, which int32 wraps to a negative
// count. It is refused: no topic can have that many partitions.
func TestPartitionNumberBounds(t *testing.T) {
	for _, in := range []string{"c0,t,2147483647\n", "member,topic,partition\nc0,t,-1\n", "member,topic,partition\nc0,t,x\n"} {
		if _, err := Parse(strings.NewReader(in)); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", in, err)
		}
	}
	// A count is derived from the highest partition listed only when the
	// partitions listed back it: partition 2147483646 alone is a number
	// the input merely claims, and no group of that size is built.
	for in, want := range map[string]int32{
		"c0,t,2147483646\n":                   -1,
		"c0,t,1024\n":                         -1,
		"c0,t,1023\n":                         1024,
		"c0,t,0\nc0,t,1\nc0,t,31\n":           32,
		"c0,t,0\nc1,t,1\nc0,t,2000\n":         -1,
		"c0,t,0\nc1,t,1\nc0,t,2\nc0,t,2046\n": -1,
	} {
		s, err := Parse(strings.NewReader("member,topic,partition\n" + in))
		if err != nil {
			t.Fatal(err)
		}
		g, _, err := s.Group(nil, nil)
		switch {
		case want < 0 && !errors.Is(err, ErrSparse):
			t.Errorf("Group of %q: count %d, error %v; want ErrSparse", in, g.Topics["t"], err)
		case want >= 0 && (err != nil || g.Topics["t"] != want):
			t.Errorf("Group of %q: count %d, error %v; want %d", in, g.Topics["t"], err, want)
		}
		if g, _, err := s.Group(map[string]int32{"t": 3000}, nil); err != nil || g.Topics["t"] != 3000 {
			t.Errorf("Group of %q with t:3000 given: count %d, error %v", in, g.Topics["t"], err)
		}
	}
}

// TestConsumerProtocolGroup: item 2 of issue 28. A group whose output shows
// the consumer protocol keeps its members' current and target assignments
// apart; the group built from it owns the targets (the broker's
// assignors start from them), and its assignor is the state view's.
// In members_kip1099.txt c1 holds orders-2 and payments-0 but its target
// is orders-2 alone; c2 holds nothing and its target is payments-0.
func TestConsumerProtocolGroup(t *testing.T) {
	tests := []struct {
		file, assignor string
		protocol       Protocol
	}{
		{"members_kip1099.txt", "uniform", Consumer}, // epochs: consumer; no state view: Kafka's default
		{"state_consumer.txt", "uniform", Consumer},  // ASSIGNMENT-STRATEGY uniform, GROUP-EPOCH 8
		{"sections_state_members.txt", "", ""},       // range, no GROUP-EPOCH column: classic
		{"members_scala.txt", "", ""},                // says nothing
		{"rpk_one.txt", "", ""},                      // Redpanda: classic
	}
	for _, tt := range tests {
		s, err := parseFile(t, tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if s.Protocol != tt.protocol || s.Assignor() != tt.assignor {
			t.Errorf("%s: protocol %q, assignor %q; want %q, %q", tt.file, s.Protocol, s.Assignor(), tt.protocol, tt.assignor)
		}
	}
	s, err := parseFile(t, "members_kip1099.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, notes, err := s.Group(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	owned := map[string][]assign.TopicPartition{}
	for _, m := range g.Members {
		owned[m.ID] = m.Owned
	}
	want := map[string][]assign.TopicPartition{
		c0: tps("orders", 0, "orders", 1, "payments", 1),
		c1: tps("orders", 2),
		c2: tps("payments", 0),
	}
	if diff := cmp.Diff(want, owned); diff != "" {
		t.Errorf("owned (-want +got):\n%s", diff)
	}
	if s.Members[1].Owned[1] != tp("payments", 0) {
		t.Errorf("c1's current assignment %v lost payments-0", s.Members[1].Owned)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "2 of 3 members still reconcile") }) {
		t.Errorf("notes %q do not say that c1 and c2 still reconcile", notes)
	}
	// A state view saying range on the consumer protocol is the server's
	// range assignor.
	s2, err := Parse(strings.NewReader("GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH #MEMBERS\ng b:9092 (1) range Stable 3 3 1\n" +
		"GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT\ng m1 /h c 1 3 t:0 3 t:0\n"))
	if err != nil || s2.Assignor() != "server-range" {
		t.Errorf("range on the consumer protocol: assignor %q, error %v; want server-range", s2.Assignor(), err)
	}
}

// TestHeaderOnly is a regression test: FuzzDescribeParse found that a paste
// of headers without rows, which names no group, indexed the first group
// of none and panicked. It is refused.
func TestHeaderOnly(t *testing.T) {
	for _, in := range []string{
		"GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID\n",
		"TOPIC PARTITION CURRENT-OFFSET LOG-START-OFFSET LOG-END-OFFSET LAG MEMBER-ID CLIENT-ID HOST\n",
	} {
		var de *Error
		if _, err := Parse(strings.NewReader(in)); !errors.As(err, &de) {
			t.Errorf("Parse(%q) = %v, want an *Error", in, err)
		}
	}
}
