// Package client says what each Kafka client library lets a consumer
// group do, and computes a strategy as that library's group leader
// computes it.
//
// A classic consumer group is assigned by one of its members, the
// leader, with the code of the library that member runs; which
// strategies a member may list, and whether it starts at all with a given
// list, is also the library's. A [Profile] holds those facts for one
// library, each cited in the doc comment of the profile's variable
// ([Java], [Librdkafka], [FranzGo], [Sarama], [KafkaGo], [Assigncalc]).
//
// # Strategies as a client computes them
//
// [Profile.Strategy] returns an [assign.Strategy], so that everything
// downstream (checkers, statistics, churn, the CLI) works unchanged, and
// says how faithful it is:
//
//   - [Exact]: Java's range and roundrobin are package assign's own
//     ([assign.Range], [assign.RoundRobin]), which reproduce
//     RangeAssignor and RoundRobinAssignor; Java's sticky and
//     cooperative-sticky are an emulation of Kafka's StickyAssignor and
//     CooperativeStickyAssignor decision for decision (Kafka 3.8 and
//     later; "java@3.6.1" and the like, from [Lookup], those of Kafka
//     3.5.0 onwards), including where Java's answer is unbalanced, hands a
//     partition to two members, or throws ([JavaError]). Assigncalc's
//     strategies are exact by definition.
//   - [Approximate]: for librdkafka, franz-go, sarama and kafka-go no test
//     here compares our answers with their code, so their strategies are
//     package assign's own, marked approximate. (librdkafka's sticky is a
//     port that differs from Java's: issue 26 quotes a public report where
//     a newcomer gets all of one topic.)
//
// A strategy a client does not offer is refused with an
// [*UnsupportedError] naming the client.
package client
