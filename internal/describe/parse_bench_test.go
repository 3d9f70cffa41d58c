package describe

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParse reads the offsets view of a group of 4,000 members and
// 200,000 partitions (two topics), padded as kafka-consumer-groups.sh
// pads it: the paste an operator of a big group brings.
func BenchmarkParse(b *testing.B) {
	const members, partitions = 4000, 100_000
	var in strings.Builder
	fmt.Fprintf(&in, "%-15s %-15s %-15s %-15s %-15s %-15s %-40s %-15s %s\n",
		"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")
	for _, topic := range []string{"orders", "payments"} {
		for p := range partitions {
			m := p % members
			fmt.Fprintf(&in, "%-15s %-15s %-15d %-15d %-15d %-15d %-40s %-15s %s\n", "app", topic, p, 100, 150, 50,
				fmt.Sprintf("consumer-app-%d-0a1b2c3d", m), fmt.Sprintf("/10.0.%d.%d", m/250, m%250), fmt.Sprintf("consumer-app-%d", m))
		}
	}
	benchmarkParse(b, in.String(), members)
}

// BenchmarkParseCSV reads the CSV form (member,topic,partition,lag) of a
// group of 4,000 members and 200,000 partitions.
func BenchmarkParseCSV(b *testing.B) {
	const members, partitions = 4000, 100_000
	var in strings.Builder
	in.WriteString("member,topic,partition,lag\n")
	for _, topic := range []string{"orders", "payments"} {
		for p := range partitions {
			fmt.Fprintf(&in, "consumer-app-%d-0a1b2c3d,%s,%d,%d\n", p%members, topic, p, 50)
		}
	}
	benchmarkParse(b, in.String(), members)
}

// benchmarkParse times Parse on paste, a group of members members.
func benchmarkParse(b *testing.B, paste string, members int) {
	b.SetBytes(int64(len(paste)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := Parse(strings.NewReader(paste))
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Members) != members {
			b.Fatalf("%d members, want %d", len(s.Members), members)
		}
	}
}
