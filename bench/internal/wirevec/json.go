// Package wirevec holds the golden byte vectors of the consumer protocol
// that franz-go's kmsg and sarama write, the structures each vector holds
// (written by hand here, not decoded by assign/wire), and the JSON file
// that carries them to assign/wire's own tests.
package wirevec

import (
	"encoding/hex"
	"encoding/json"

	"github.com/assigncalc/assigncalc/assign"
	"github.com/assigncalc/assigncalc/assign/wire"
)

// File is the JSON document assign/wire/testdata/vectors.json.
type File struct {
	Comment []string `json:"comment"`
	Vectors []Vector `json:"vectors"`
}

// Vector is one message as a peer encoded it, and what it holds.
type Vector struct {
	Name    string `json:"name"`
	Peer    string `json:"peer"`    // module path and version of the encoder
	Encoder string `json:"encoder"` // the peer's type or function that wrote Hex
	Message string `json:"message"` // "subscription", "assignment" or "sticky"
	Version int16  `json:"version"`
	Hex     string `json:"hex"`

	Subscription *Subscription `json:"subscription,omitempty"`
	Assignment   *Assignment   `json:"assignment,omitempty"`
	Sticky       *Sticky       `json:"sticky,omitempty"`
}

// TopicPartition is assign.TopicPartition in JSON.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

// Subscription is wire.Subscription in JSON; byte slices are hex, null
// when nil.
type Subscription struct {
	Version    int16            `json:"version"`
	Topics     []string         `json:"topics"`
	UserData   *string          `json:"userData"`
	Owned      []TopicPartition `json:"owned"`
	Generation int32            `json:"generation"`
	Rack       *string          `json:"rack"`
}

// Assignment is wire.Assignment in JSON.
type Assignment struct {
	Version    int16            `json:"version"`
	Partitions []TopicPartition `json:"partitions"`
	UserData   *string          `json:"userData"`
}

// Sticky is wire.StickyUserData in JSON.
type Sticky struct {
	Version    int16            `json:"version"`
	Previous   []TopicPartition `json:"previous"`
	Generation int32            `json:"generation"`
}

func hexOrNull(b []byte) *string {
	if b == nil {
		return nil
	}
	s := hex.EncodeToString(b)
	return &s
}

func tpsJSON(tps []assign.TopicPartition) []TopicPartition {
	var out []TopicPartition
	for _, tp := range tps {
		out = append(out, TopicPartition{tp.Topic, tp.Partition})
	}
	return out
}

// SubscriptionJSON converts s.
func SubscriptionJSON(s wire.Subscription) *Subscription {
	return &Subscription{s.Version, s.Topics, hexOrNull(s.UserData), tpsJSON(s.OwnedPartitions), s.GenerationID, s.RackID}
}

// AssignmentJSON converts a.
func AssignmentJSON(a wire.Assignment) *Assignment {
	return &Assignment{a.Version, tpsJSON(a.Partitions), hexOrNull(a.UserData)}
}

// StickyJSON converts d.
func StickyJSON(d wire.StickyUserData) *Sticky {
	return &Sticky{d.Version, tpsJSON(d.Previous), d.Generation}
}

// Marshal renders f as the indented JSON of the vectors file.
func Marshal(f File) ([]byte, error) {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
