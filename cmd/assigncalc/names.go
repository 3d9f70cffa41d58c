package main

import (
	"fmt"
	"strings"

	"github.com/assigncalc/assigncalc/assign"
)

// memberRef resolves how an operator names a member in --leave,
// --restart, --crash and the like: its member.id, its group.instance.id,
// a client.id that only it has, or a prefix of a member.id that only it
// starts with (Java consumers' ids are the client.id, "-", then a UUID).
// An unknown or ambiguous name is refused, listing the candidates. An
// exact member.id or group.instance.id is returned as given: the
// libraries look members up by either.
func memberRef(flag, ref string, members []assign.Member, clientIDs map[string]string) (string, error) {
	for _, m := range members {
		if m.ID == ref || (m.InstanceID != "" && m.InstanceID == ref) {
			return ref, nil
		}
	}
	var byClient, byPrefix []string
	for _, m := range members {
		if c := clientIDs[m.ID]; c != "" && c == ref {
			byClient = append(byClient, m.ID)
		}
		if strings.HasPrefix(m.ID, ref) {
			byPrefix = append(byPrefix, m.ID)
		}
	}
	switch {
	case len(byClient) == 1:
		return byClient[0], nil
	case len(byClient) > 1:
		return "", usagef("--%s %s: client.id %q is shared by %d members: %s; name one by its member.id", flag, ref, ref, len(byClient), candidates(byClient))
	case len(byPrefix) == 1:
		return byPrefix[0], nil
	case len(byPrefix) > 1:
		return "", usagef("--%s %s: %d members' ids begin so: %s; give more of the id", flag, ref, len(byPrefix), candidates(byPrefix))
	}
	var names []string
	for _, m := range members {
		names = append(names, m.ID)
		if m.InstanceID != "" {
			names = append(names, m.InstanceID)
		}
		if c := clientIDs[m.ID]; c != "" {
			names = append(names, c)
		}
	}
	var ids []string
	for _, m := range members {
		ids = append(ids, m.ID)
	}
	msg := fmt.Sprintf("--%s %s: no member is named so (by member.id, group.instance.id, client.id or id prefix); members: %s", flag, ref, candidates(ids))
	if near := nearest(ref, names); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return "", usagef("%s", msg)
}

// candidates lists member ids, the first five and how many more.
func candidates(ids []string) string {
	if len(ids) > 5 {
		return strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return strings.Join(ids, ", ")
}
