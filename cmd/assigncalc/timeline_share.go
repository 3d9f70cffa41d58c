package main

import (
	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/timeline"
	"github.com/urfave/cli/v2"
)

// shareTimelineStrategies is timeline --protocol share's strategy: simple
// alone, of --kafka 4.2 or later, with the topic ids of --topic-id (or
// derived) in sc. What a share group lacks is refused: static members,
// --client (the coordinator assigns), the consumer protocol's assignment
// interval (a share group's is --share-assignment-interval), and
// --share-assignment-interval under a Kafka without one (before 4.3).
func shareTimelineStrategies(e *env, c *cli.Context, sc *timeline.Scenario) ([]assign.Strategy, error) {
	s, err := shareStrategy(c, "strategy")
	if err != nil {
		return nil, err
	}
	if sc.Kafka, err = shareKafka(c); err != nil {
		return nil, err
	}
	if err := refuseUnder(c, "client", "static", "consumer-assignment-interval"); err != nil {
		return nil, err
	}
	if c.IsSet("share-assignment-interval") && sc.Kafka != assign.Kafka43 && sc.Kafka != assign.Kafka44 {
		return nil, usagef("--share-assignment-interval: Kafka %s has no assignment interval (KIP-1263 came in 4.3)", sc.Kafka)
	}
	var grown []string // topics a --grow may create: they need ids too
	for _, ev := range sc.Events {
		if ev.Kind == timeline.Grow {
			grown = append(grown, ev.Topic)
		}
	}
	g, err := shareIDs(e, c, assign.Group{Topics: sc.Topics, TopicIDs: sc.TopicIDs}, grown)
	if err != nil {
		return nil, err
	}
	sc.TopicIDs = g.TopicIDs
	return []assign.Strategy{s}, nil
}
