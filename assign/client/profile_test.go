package client_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/client"
)

// cell is one cell of issue 26's client table (and the rejoin backoff,
// in ms, after a SyncGroup answered REBALANCE_IN_PROGRESS), as read from the client's
// own source and changelog (see each profile's doc comment for where).
type cell struct {
	client, column string
	want           any
}

// table holds every cell, written from the sources, not from the
// profiles: a profile that drifts from them fails here.
var table = []cell{
	{"java", "cooperative", true},
	{"java", "mixed", true},
	{"java", "static", true},
	{"java", "rack-aware", "range,sticky,cooperative-sticky"},
	{"java", "consumer protocol", true},
	{"java", "defaults", "range,cooperative-sticky"},
	{"java", "rejoin backoff", int64(0)},

	{"librdkafka", "cooperative", true},
	{"librdkafka", "mixed", false},
	{"librdkafka", "static", true},
	{"librdkafka", "rack-aware", "range,cooperative-sticky"},
	{"librdkafka", "consumer protocol", true},
	{"librdkafka", "defaults", "range,roundrobin"},

	{"franz-go", "cooperative", true},
	{"franz-go", "mixed", true},
	{"franz-go", "static", true},
	{"franz-go", "rack-aware", "range,sticky,cooperative-sticky"},
	{"franz-go", "consumer protocol", true}, // ServerSideBalancer, opt-in (1.22.0)
	{"franz-go", "defaults", "cooperative-sticky"},
	{"franz-go", "rejoin backoff", int64(0)},

	{"sarama", "cooperative", true},
	{"sarama", "mixed", true},
	{"sarama", "static", true},
	{"sarama", "rack-aware", ""},
	{"sarama", "consumer protocol", false},
	{"sarama", "defaults", "range"},
	{"sarama", "rejoin backoff", int64(2_000)},

	{"kafka-go", "cooperative", false},
	{"kafka-go", "mixed", false},
	{"kafka-go", "static", false},
	{"kafka-go", "rack-aware", ""},
	{"kafka-go", "consumer protocol", false},
	{"kafka-go", "defaults", "range,roundrobin"},
	{"kafka-go", "rejoin backoff", int64(0)},
}

func value(p *client.Profile, column string) any {
	switch column {
	case "cooperative":
		return p.Cooperative
	case "mixed":
		return p.Mixed
	case "static":
		return p.Static
	case "rack-aware":
		return strings.Join(p.RackAware, ",")
	case "consumer protocol":
		return p.ConsumerProtocol != ""
	case "defaults":
		return strings.Join(p.Defaults, ",")
	case "rejoin backoff":
		return p.RejoinBackoff
	}
	panic(column)
}

func TestTable(t *testing.T) {
	for _, c := range table {
		t.Run(c.client+"/"+c.column, func(t *testing.T) {
			p, err := client.Lookup(c.client)
			if err != nil {
				t.Fatal(err)
			}
			if got := value(p, c.column); got != c.want {
				t.Errorf("%s %s = %v, want %v", c.client, c.column, got, c.want)
			}
		})
	}
}

// TestBehaviour checks that the cells drive what the profiles refuse:
// each column's value changes an answer of CheckStrategies, CheckMember
// or Strategy.
func TestBehaviour(t *testing.T) {
	upgrade := []string{"cooperative-sticky", "range"} // Kafka's first step
	for _, p := range client.Profiles() {
		t.Run(p.Name, func(t *testing.T) {
			// mixed: the first step of the two-step upgrade starts, or not.
			err := p.CheckStrategies(upgrade)
			var ue *client.UnsupportedError
			switch {
			case !p.Cooperative:
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), `"cooperative-sticky"`) || ue.Client != p.Name {
					t.Errorf("CheckStrategies(%v) = %v, want cooperative-sticky refused naming %s", upgrade, err, p.Name)
				}
			case p.Mixed && err != nil:
				t.Errorf("CheckStrategies(%v) = %v, want nil", upgrade, err)
			case !p.Mixed && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "refuses at startup")):
				t.Errorf("CheckStrategies(%v) = %v, want refused at startup", upgrade, err)
			}
			// cooperative: a cooperative-only list.
			if err := p.CheckStrategies([]string{"cooperative-sticky"}); (err == nil) != p.Cooperative {
				t.Errorf("CheckStrategies([cooperative-sticky]) = %v, cooperative %v", err, p.Cooperative)
			}
			// defaults: a client starts with its own defaults.
			if err := p.CheckStrategies(p.Defaults); err != nil {
				t.Errorf("CheckStrategies(defaults %v) = %v", p.Defaults, err)
			}
			// static: a member with group.instance.id.
			err = p.CheckMember(assign.Member{ID: "c0", InstanceID: "i0"})
			if (err == nil) != p.Static {
				t.Errorf("CheckMember(static) = %v, static %v", err, p.Static)
			}
			if err != nil && !strings.Contains(err.Error(), p.Name) {
				t.Errorf("CheckMember(static) = %v, want the client named", err)
			}
		})
	}
}

func TestStrategyFidelity(t *testing.T) {
	tests := []struct {
		client, strategy string
		want             client.Fidelity
		java             bool // the Java emulation, not package assign's
		unsupported      bool
	}{
		{"java", "range", client.Exact, false, false},
		{"java", "roundrobin", client.Exact, false, false},
		{"java", "sticky", client.Exact, true, false},
		{"java", "cooperative-sticky", client.Exact, true, false},
		{"java", "org.apache.kafka.clients.consumer.StickyAssignor", client.Exact, true, false},
		{"assigncalc", "sticky", client.Exact, false, false},
		{"librdkafka", "cooperative-sticky", client.Approximate, false, false},
		{"librdkafka", "sticky", 0, false, true},
		{"franz-go", "sticky", client.Approximate, false, false},
		{"sarama", "cooperative-sticky", client.Approximate, false, false},
		{"kafka-go", "range", client.Approximate, false, false},
		{"kafka-go", "sticky", 0, false, true},
		{"kafka-go", "cooperative-sticky", 0, false, true},
		{"kafka-go", "uniform", client.Exact, false, false}, // the broker's
	}
	for _, tt := range tests {
		t.Run(tt.client+"/"+tt.strategy, func(t *testing.T) {
			p, _ := client.Lookup(tt.client)
			s, f, err := p.Strategy(tt.strategy)
			var ue *client.UnsupportedError
			if tt.unsupported {
				if !errors.As(err, &ue) || ue.Client != tt.client {
					t.Fatalf("Strategy = %v, %v; want an UnsupportedError naming %s", s, err, tt.client)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f != tt.want {
				t.Errorf("fidelity %v, want %v", f, tt.want)
			}
			if _, isJava := s.(client.JavaSticky); isJava != tt.java {
				t.Errorf("%T: Java emulation %v, want %v", s, isJava, tt.java)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	_, err := client.Lookup("kafka-python")
	if !errors.Is(err, client.ErrUnknownClient) || !strings.Contains(err.Error(), "librdkafka") {
		t.Errorf("Lookup = %v, want ErrUnknownClient listing the choices", err)
	}
	if !slices.Equal(client.Names(), []string{"java", "librdkafka", "franz-go", "sarama", "kafka-go", "assigncalc"}) {
		t.Errorf("Names = %v", client.Names())
	}
}
