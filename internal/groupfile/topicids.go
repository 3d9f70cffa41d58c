package groupfile

import (
	"crypto/sha256"
	"maps"
	"slices"

	"github.com/assigncalc/assigncalc/assign"
)

// DeriveTopicIDs returns g with a topic id for every topic of the metadata
// and every topic a member's "owned" holds that "topicIds" leaves out,
// and the names of those topics, in Go order. A derived id depends only
// on the name (SHA-256 of "assigncalc topic id " + name, the first 16
// bytes), stepping past the ids Kafka reserves or never hands out and the
// ids already in use; g itself is not changed. Kafka's answer depends on
// the ids, so results computed with derived ids are exact only for a
// cluster whose topics have those ids: callers should say so.
func DeriveTopicIDs(g assign.Group) (assign.Group, []string) {
	var missing []string
	need := func(name string) {
		if _, ok := g.TopicIDs[name]; !ok && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.Topics)) {
		need(name)
	}
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			need(tp.Topic)
		}
	}
	if len(missing) == 0 {
		return g, nil
	}
	slices.Sort(missing)
	ids := make(map[string]assign.TopicID, len(g.TopicIDs)+len(missing))
	used := make(map[assign.TopicID]bool, len(ids))
	for name, id := range g.TopicIDs {
		ids[name] = id
		used[id] = true
	}
	for _, name := range missing {
		seed := []byte("assigncalc topic id " + name)
		for {
			sum := sha256.Sum256(seed)
			var id assign.TopicID
			copy(id[:], sum[:16])
			// Kafka reserves the zero id and 0...01 (the metadata topic),
			// and Uuid.randomUuid never returns an id printed with a
			// leading '-'.
			if !used[id] && id != (assign.TopicID{}) && id != (assign.TopicID{15: 1}) && id.String()[0] != '-' {
				ids[name], used[id] = id, true
				break
			}
			seed = sum[:]
		}
	}
	g.TopicIDs = ids
	return g, missing
}
