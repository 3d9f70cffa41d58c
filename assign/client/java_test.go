package client_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
)

// The javadoc of Kafka's StickyAssignor, example 1: C0, C1, C2 on t0..t3
// of two partitions each, then C1 leaves. Issue 26 records what Kafka
// 4.0's code returns, which differs from the javadoc:
// C0 [t0-0, t3-0, t1-1, t0-1], C2 [t1-0, t2-1, t2-0, t3-1].
func TestJavaStickyJavadocExample1(t *testing.T) {
	topics := []string{"t0", "t1", "t2", "t3"}
	g := assign.Group{Topics: map[string]int32{"t0": 2, "t1": 2, "t2": 2, "t3": 2}}
	for _, id := range []string{"C0", "C1", "C2"} {
		g.Members = append(g.Members, assign.Member{ID: id, Topics: topics, Generation: -1})
	}
	p, _ := client.Lookup("java")
	s, _, err := p.Strategy("sticky")
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Assign(g)
	if err != nil {
		t.Fatal(err)
	}
	// C1 leaves; the others claim what they got, at generation 1.
	next := assign.Group{Topics: g.Topics}
	for _, m := range g.Members {
		if m.ID == "C1" {
			continue
		}
		m.Owned, m.Generation = first[m.ID], 1
		next.Members = append(next.Members, m)
	}
	got, err := s.Assign(next)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"C0": "[t0-0 t0-1 t1-1 t3-0]",
		"C2": "[t1-0 t2-0 t2-1 t3-1]",
	}
	for id, w := range want {
		if g := fmt.Sprint(got[id]); g != w {
			t.Errorf("%s: got %s, want %s", id, g, w)
		}
	}
}

// A member subscribed to a topic that has no partitions in the metadata
// is fine for Java; an invalid group is refused before Java runs, as
// package assign refuses it.
func TestJavaStickyInvalidGroup(t *testing.T) {
	g := assign.Group{Topics: map[string]int32{"t": 1}, Members: []assign.Member{{ID: "a", Topics: []string{"t"}}, {ID: "a", Topics: []string{"t"}}}}
	_, err := client.JavaSticky{}.Assign(g)
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		t.Errorf("Assign(duplicate ids) = %v, want an *assign.InputError", err)
	}
}

func ExampleProfile_Strategy() {
	p, _ := client.Lookup("kafka-go")
	_, _, err := p.Strategy("cooperative-sticky")
	fmt.Println(err)
	p, _ = client.Lookup("librdkafka")
	fmt.Println(p.CheckStrategies([]string{"cooperative-sticky", "range"}))
	_, f, _ := p.Strategy("range")
	fmt.Println("librdkafka range:", f)
	// Output:
	// client: kafka-go does not support strategy "cooperative-sticky": it offers range, roundrobin
	// client: librdkafka does not support the strategy list cooperative-sticky,range: it mixes eager range and cooperative cooperative-sticky, which the consumer refuses at startup
	// librdkafka range: approximate
}

// Kafka's testTopicBalanceAfterReassignment, its second round: consumer1
// owns both topics of twelve partitions at generation 1 and consumer2
// joins. The answers are what Kafka's StickyAssignor of each release
// returned through the javasticky oracle (its testdata/kafka-tests.*):
// before KAFKA-16277 (3.7.1) the owner keeps the first twelve partitions
// it lists, all of topic1; since, half of each topic.
func TestLookupJavaRelease(t *testing.T) {
	all := make([]assign.TopicPartition, 0, 24)
	for _, topic := range []string{"topic1", "topic2"} {
		for p := range int32(12) {
			all = append(all, assign.TopicPartition{Topic: topic, Partition: p})
		}
	}
	g := assign.Group{Topics: map[string]int32{"topic1": 12, "topic2": 12}, Members: []assign.Member{
		{ID: "consumer1", Topics: []string{"topic1", "topic2"}, Owned: all, Generation: 1},
		{ID: "consumer2", Topics: []string{"topic1", "topic2"}, Generation: 1},
	}}
	before := "topic1-0..11 | topic2-0..11"
	since := "topic1-0..5 topic2-0..5 | topic1-6..11 topic2-6..11"
	for _, c := range []struct{ name, want string }{
		{"java@3.5.0", before}, {"java@3.5.1", before}, {"java@3.5.2", before}, {"java@3.6", before},
		{"java@3.6.2", before}, {"java@3.7.0", before},
		{"java@3.7.1", since}, {"java@3.8.0", since}, {"java@4.1.0", since}, {"java", since},
	} {
		p, err := client.Lookup(c.name)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", c.name, err)
		}
		if p.Name != c.name || p.Mixed != client.Java.Mixed || p.Static != client.Java.Static {
			t.Errorf("Lookup(%q) = %+v, want java's facts under its own name", c.name, p)
		}
		s, f, err := p.Strategy("sticky")
		if err != nil || f != client.Exact {
			t.Fatalf("%s: sticky: %v, %v", c.name, f, err)
		}
		got, err := s.Assign(g)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s := ranges(got["consumer1"]) + " | " + ranges(got["consumer2"]); s != c.want {
			t.Errorf("%s: got %s, want %s", c.name, s, c.want)
		}
	}
	for _, bad := range []string{"java@3.4.0", "java@2.8", "java@", "java@three", "sarama@1.60.1", "java@3.6@1"} {
		if _, err := client.Lookup(bad); !errors.Is(err, client.ErrUnknownClient) {
			t.Errorf("Lookup(%q): %v, want ErrUnknownClient", bad, err)
		}
	}
	if p, _ := client.Lookup("java@3.7.1"); p.ConsumerProtocol != "" {
		t.Errorf("java@3.7.1 has the consumer protocol %q; it is generally available from 4.0", p.ConsumerProtocol)
	}
	if p, _ := client.Lookup("java@4.0.0"); p.ConsumerProtocol != client.Java.ConsumerProtocol {
		t.Errorf("java@4.0.0 has the consumer protocol %q, want java's", p.ConsumerProtocol)
	}
}

// ranges writes sorted partitions as runs per topic: "t-0..5 u-3".
func ranges(ps []assign.TopicPartition) string {
	var out []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1].Topic == ps[i].Topic && ps[j+1].Partition == ps[j].Partition+1 {
			j++
		}
		run := fmt.Sprintf("%s-%d", ps[i].Topic, ps[i].Partition)
		if j > i {
			run += fmt.Sprintf("..%d", ps[j].Partition)
		}
		out = append(out, run)
		i = j + 1
	}
	return strings.Join(out, " ")
}
