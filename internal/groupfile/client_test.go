package groupfile_test

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/assigncalc/assigncalc/internal/groupfile"
)

// A member's "client" names the library it runs, so that a fleet mixing
// libraries can be described; it round-trips through WriteGroup.
func TestMemberClient(t *testing.T) {
	in := `{"topics": {"t": 2}, "members": [{"id": "a", "topics": ["t"], "client": "java"}, {"id": "b", "topics": ["t"]}, {"id": "c", "topics": ["t"], "client": null}]}`
	es, err := groupfile.ReadAll(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"java", "", ""}; !slices.Equal(es[0].Clients, want) {
		t.Errorf("Clients = %q, want %q", es[0].Clients, want)
	}
	var buf bytes.Buffer
	if err := groupfile.WriteGroup(&buf, es[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"client":"java"`) || strings.Count(buf.String(), `"client"`) != 1 {
		t.Errorf("WriteGroup = %s, want one \"client\":\"java\"", buf.String())
	}
	again, err := groupfile.ReadAll(&buf)
	if err != nil || !slices.Equal(again[0].Clients, es[0].Clients) {
		t.Errorf("round trip: %q, %v", again[0].Clients, err)
	}

	none, _ := groupfile.ReadAll(strings.NewReader(`{"topics": {}, "members": [{"id": "a", "topics": []}]}`))
	if none[0].Clients != nil {
		t.Errorf("Clients = %q without any \"client\", want nil", none[0].Clients)
	}
	_, err = groupfile.ReadAll(strings.NewReader(`{"topics": {}, "members": [{"id": "a", "topics": [], "client": 3}]}`))
	if err == nil || !strings.Contains(err.Error(), "members[0].client") {
		t.Errorf("a number as client: %v, want an error naming members[0].client", err)
	}
}
