// Package groupfile holds the whole JSON contract of assigncalc, inputs
// and outputs: every JSON form in which the command line reads or writes
// groups, assignments and what happens to them is declared here, so that
// the field names, which are a public contract, live in one place that
// fuzz targets and benchmarks can reach. (decode's display of one wire
// message, field by field in the same words for its table, CSV and JSON,
// is a view of package wire's types and stays with the command.)
//
// # Inputs
//
// Group files (one JSON object per group, or JSON lines of many groups),
// read by [ReadAll] and [Reader] and written by [WriteGroup], and result
// lines, read back by [ReadResults] (check reads other tools' answers
// this way).
//
// A group file looks like this (comments are not part of the format):
//
//	{"name": "checkout-service",                 // optional label, echoed back
//	 "topics": {"t1": 7, "t2": 3},               // topic -> partition count
//	 "partitionRacks": {"t1": [["a","b"], ...]}, // optional: per partition, racks of its replicas
//	 "members": [
//	   {"id": "c0",                              // member.id
//	    "instance": "i0",                        // optional group.instance.id
//	    "rack": "a",                             // optional client.rack
//	    "topics": ["t1", "t2"],                  // subscription
//	    "topicRegex": "orders-.*",               // optional: subscription by pattern (consumer protocol)
//	    "owned": {"t1": [0, 1]},                 // optional: previously owned partitions
//	    "generation": 3,                         // optional: generation of owned
//	    "protocols": ["cooperative-sticky", "range"],  // optional: for the vote, in preference order
//	    "client": "librdkafka"}                  // optional: the client library it runs (a fleet may mix them)
//	 ],
//	 "topicIds": {"t1": "Yp0cT2sWQ7ChA0qyU5Ckdg"}} // optional: Kafka topic ids, 22-character base64
//
// Only the KIP-848 server-side assignors ([assign.Uniform],
// [assign.ServerRange]) read "topicIds"; for them a member's "owned" is its
// current target assignment, and the order of its keys and of each
// partition list matters (see [assign.Uniform]). The reader keeps both
// orders in [assign.Member.Owned]: topics in the order of the keys, each
// topic's partitions as listed.
//
// A member's "topicRegex" is KIP-848's SubscribedTopicRegex: the
// coordinator's assignors subscribe the member to its "topics" and every
// topic of the metadata the pattern matches in full
// ([assign.ResolveTopicRegex]); the classic strategies refuse it. A
// pattern Go's regexp cannot compile is refused where it is written, and
// the group is printed back with the pattern, not its topics.
//
// The reader is strict: unknown or repeated keys, values of the wrong type,
// numbers that are not integers in int32 and missing required fields
// ("topics", "members", a member's "id", and its "topics" unless it has a
// "topicRegex") are refused with an
// [*Error] giving the line, column and path of the fault. Optional fields
// may be null, which means absent. What the group means (duplicate member
// IDs, negative partition counts, ...) is left to [assign.Group.Validate].
//
// # Outputs
//
// Every command's json and jsonl output, with a builder from the
// library's types beside each form:
//
//   - plan: a [Result] per group and strategy ([AppendResult]);
//   - preview: a [Result] per strategy, followed by the figures of its
//     tables, a [Preview] ([AppendPreview]);
//   - simulate: a [Result] per step and strategy, followed by the step's
//     [SimulateStep] ([AppendSimulateStep]);
//   - migrate: the [Result] of the first target, followed by the
//     [Migration] ([AppendMigration]);
//   - vote: a [Vote]; vote --upgrade: an [UpgradeStep] per step;
//   - check: a [Verdict] per result line;
//   - coordinator: a [Coordinator] per group id;
//   - timeline: one object per strategy ([AppendTimeline]).
//
// A partition that changed hands is one [Move] wherever it is listed.
package groupfile
