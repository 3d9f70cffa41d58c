package client_test

import (
	"errors"
	"fmt"
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
