// Command assigncalc computes Kafka consumer-group partition assignments:
// it previews the skew of every strategy for a group described by flags or
// by a JSON group file, and answers batches of groups as JSON lines.
//
//	assigncalc --members 3 --topics t1:7          # compare strategies, detail of range
//	assigncalc plan --in groups.jsonl --strategy all --format jsonl
//
// Exit status: 0 on success, 2 for bad input (flags, JSON, groups Kafka
// would refuse), 1 for an internal failure, 3 for an unsafe vote
// --upgrade, 4 for a check that finds an assignment invalid, unbalanced or
// unsafe. Errors go to stderr on one line.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
