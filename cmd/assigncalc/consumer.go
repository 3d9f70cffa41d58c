package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/urfave/cli/v2"
)

// The consumer protocol (KIP-848) in the preview, simulate and migrate:
// which strategies run, for which Kafka version, with which topic ids.

// consumerFlags choose the group protocol, the Kafka version of the
// server-side assignors and the topic ids they need.
func consumerFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "protocol", Value: "classic", Usage: "group.protocol `NAME`: classic, consumer (KIP-848) to add the server-side assignors uniform and server-range to the classic strategies, or share (KIP-932, Kafka 4.2 and later) for a share group and its assignor simple"},
	}, serverFlags()...)
}

// serverFlags choose the Kafka version of the server-side assignors and
// the topic ids they need.
func serverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "kafka", Usage: "reproduce the server-side assignors of Kafka `VERSION`: 4.0 to 4.4 (default: 4.4, the newest)"},
		&cli.StringSliceFlag{Name: "topic-id", Usage: "topic `NAME=ID`: its Kafka topic id, the 22-character TopicId kafka-topics.sh --describe prints (the server-side assignors depend on it; missing ids are derived from the names, with a warning); repeatable"},
	}
}

// consumerProtocol reports whether --protocol asks for the consumer
// protocol.
func consumerProtocol(c *cli.Context) (bool, error) {
	switch p := strings.TrimSpace(c.String("protocol")); p {
	case "classic":
		return false, nil
	case "consumer":
		return true, nil
	default:
		return false, usagef("--protocol %q: want classic, consumer or share", p)
	}
}

// protocolOf decides the group protocol: --protocol when given, else the
// consumer protocol for a group that a paste shows on it, said on stderr.
func protocolOf(e *env, c *cli.Context, in groupInput) (bool, error) {
	if c.IsSet("protocol") || in.assignor == "" {
		return consumerProtocol(c)
	}
	e.notef("the paste shows a group on the consumer protocol (KIP-848): --protocol consumer, its assignor %s (--protocol classic compares the classic strategies alone)", in.assignor)
	return true, nil
}

// withServerStrategies adds the server-side strategies to strategies
// under the consumer protocol, when the user did not list them.
func withServerStrategies(strategies []assign.Strategy, consumer bool) []assign.Strategy {
	if !consumer {
		return strategies
	}
	for _, s := range assign.ServerStrategies() {
		if !slices.ContainsFunc(strategies, func(o assign.Strategy) bool { return o.Name() == s.Name() }) {
			strategies = append(strategies, s)
		}
	}
	return strategies
}

// mentionsAll reports whether a strategy flag's values (repeatable,
// comma-separated) name "all", which under the consumer protocol takes
// the server-side strategies too.
func mentionsAll(values []string) bool {
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			if strings.TrimSpace(name) == "all" {
				return true
			}
		}
	}
	return false
}

// forServer prepares g for the server-side strategies among strategies:
// sets --kafka's version on them, adds the ids of --topic-id, and derives
// the ids still missing for the topics of g and those named in also (the
// topics a simulation will create), with a warning. Without a server-side
// strategy, --kafka and --topic-id are refused and g is returned as is.
func forServer(e *env, c *cli.Context, g assign.Group, strategies []assign.Strategy, also []string) (assign.Group, error) {
	server, err := withKafkaVersion(strategies, c.String("kafka"))
	if err != nil {
		return g, err
	}
	if !server {
		if len(c.StringSlice("topic-id")) > 0 {
			return g, usagef("--topic-id: applies to the server-side strategies uniform and server-range only")
		}
		return g, nil
	}
	return withTopicIDs(e, c, g, also)
}

// withTopicIDs adds to g the ids of --topic-id, and derives the ids still
// missing for the topics of g and those named in also (the topics a
// simulation will create), with a warning.
func withTopicIDs(e *env, c *cli.Context, g assign.Group, also []string) (assign.Group, error) {
	given := c.StringSlice("topic-id")
	ids := maps.Clone(g.TopicIDs)
	if ids == nil {
		ids = make(map[string]assign.TopicID)
	}
	for _, spec := range given {
		name, text, ok := strings.Cut(spec, "=")
		if !ok || name == "" {
			return g, usagef("--topic-id %q: want NAME=ID, e.g. t1=Yp0cT2sWQ7ChA0qyU5Ckdg", spec)
		}
		id, err := assign.ParseTopicID(text)
		if err != nil {
			return g, &usageError{fmt.Errorf("--topic-id %q: %w", spec, err)}
		}
		ids[name] = id
	}
	g.TopicIDs = ids
	topics := g.Topics
	if extra := slices.DeleteFunc(slices.Clone(also), func(t string) bool { _, ok := g.Topics[t]; return ok }); len(extra) > 0 {
		// Ids for topics that do not exist yet: derived on a copy whose
		// metadata holds them, then kept as ids of topics g lacks.
		g.Topics = maps.Clone(g.Topics)
		for _, t := range extra {
			g.Topics[t] = 0
		}
	}
	g, derived := g.WithDerivedTopicIDs()
	g.Topics = topics
	if len(derived) > 0 {
		e.warnf("no topic id for %s; using ids derived from the names (give --topic-id NAME=ID, or \"topicIds\" in --in, for the cluster's)", nameList(derived))
	}
	if err := assign.CheckTopicIDs(g); err != nil {
		return g, &usageError{fmt.Errorf("--topic-id: %w", err)}
	}
	return g, nil
}
