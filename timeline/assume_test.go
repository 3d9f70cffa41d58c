package timeline

import (
	"slices"
	"strings"
	"testing"
)

// TestAssumptionsFollowTheScenario: a membership rule or client trait is
// stated exactly when the scenario's events reach it.
func TestAssumptionsFollowTheScenario(t *testing.T) {
	dyn := []Member{{ID: "a", Topics: []string{"t"}}, {ID: "b", Topics: []string{"t"}}}
	stat := []Member{{ID: "a", InstanceID: "ia", Topics: []string{"t"}}, {ID: "b", Topics: []string{"t"}}}
	franz := DefaultConfig()
	franz.CooperativeCheck = 500
	kfake := Broker{StaticRejoinRebalances: true}
	sarama := DefaultConfig()
	sarama.RejoinBackoff = 2_000
	cases := []struct {
		name      string
		sc        Scenario
		want, not []string // substrings of lines that must, and must not, be there
	}{
		{name: "no events", sc: Scenario{Members: dyn},
			not: []string{"member.id", "static", "client trait"}},
		{name: "dynamic restart", sc: Scenario{Members: dyn, Events: []Event{{At: 10, Kind: Restart, Member: "a", For: 5}}},
			want: []string{"gets a new one (KIP-394)"}, not: []string{"crashed process"}},
		{name: "crash then restart", sc: Scenario{Members: dyn, Events: []Event{{At: 20, Kind: Restart, Member: "a", For: 5}, {At: 10, Kind: Crash, Member: "a"}}},
			want: []string{"gets a new one (KIP-394); its crashed process's member.id stays"}},
		{name: "restart then crash", sc: Scenario{Members: dyn, Events: []Event{{At: 10, Kind: Restart, Member: "a", For: 5}, {At: 20, Kind: Crash, Member: "a"}}},
			want: []string{"KIP-394"}, not: []string{"crashed process"}},
		{name: "crash of another member", sc: Scenario{Members: dyn, Events: []Event{{At: 10, Kind: Crash, Member: "b"}, {At: 20, Kind: Restart, Member: "a", For: 5}}},
			not: []string{"crashed process"}},
		{name: "static close", sc: Scenario{Members: stat, Events: []Event{{At: 10, Kind: Close, Member: "a"}}},
			want: []string{"close sends no LeaveGroup"}, not: []string{"hands back", "KIP-394"}},
		{name: "dynamic close", sc: Scenario{Members: stat, Events: []Event{{At: 10, Kind: Close, Member: "b"}}},
			not: []string{"static", "KIP-394"}},
		{name: "static restart", sc: Scenario{Members: stat, Events: []Event{{At: 10, Kind: Restart, Member: "a", For: 5}}},
			want: []string{"close sends no LeaveGroup", "Kafka hands back its assignment"}, not: []string{"KIP-394", "kfake"}},
		{name: "static restart on kfake", sc: Scenario{Members: stat, Broker: &kfake, Events: []Event{{At: 10, Kind: Restart, Member: "a", For: 5}}},
			want: []string{"as on kfake"}, not: []string{"hands back"}},
		{name: "static joiner restarts", sc: Scenario{Members: dyn, Events: []Event{{At: 1, Kind: Join, Member: "c", InstanceID: "ic"}, {At: 10, Kind: Restart, Member: "c", For: 5}}},
			want: []string{"hands back"}, not: []string{"KIP-394"}},
		{name: "franz-go member", sc: Scenario{Members: []Member{{ID: "a", Config: &franz}}},
			want: []string{"franz-go's cooperative members also heartbeat 500ms after each assignment"}},
		{name: "franz-go joiner", sc: Scenario{Members: dyn, Events: []Event{{At: 1, Kind: Join, Member: "c", Config: &franz}}},
			want: []string{"500ms"}},
		{name: "sarama member", sc: Scenario{Members: []Member{{ID: "a", Config: &sarama}}},
			want: []string{"sarama's members wait 2s before they rejoin"}, not: []string{"franz-go"}},
		{name: "sarama joiner", sc: Scenario{Members: dyn, Events: []Event{{At: 1, Kind: Join, Member: "c", Config: &sarama}}},
			want: []string{"sarama's members wait 2s"}},
		{name: "java members", sc: Scenario{Members: dyn}, not: []string{"sarama"}},
		{name: "consumer ignores the backoff", sc: Scenario{Protocol: Consumer, Members: []Member{{ID: "a", Config: &sarama}}},
			not: []string{"client trait"}},
		{name: "consumer crash then restart", sc: Scenario{Protocol: Consumer, Members: dyn, Events: []Event{{At: 10, Kind: Crash, Member: "a"}, {At: 20, Kind: Restart, Member: "a", For: 5}}},
			want: []string{"new member.id (KIP-1082); its crashed process's member.id keeps its partitions"}, not: []string{"KIP-394"}},
		{name: "consumer static close", sc: Scenario{Protocol: Consumer, Members: stat, Events: []Event{{At: 10, Kind: Close, Member: "a"}}},
			want: []string{"epoch -2"}, not: []string{"LeaveGroup"}},
		{name: "consumer ignores the classic trait", sc: Scenario{Protocol: Consumer, Members: []Member{{ID: "a", Config: &franz}}},
			not: []string{"client trait"}},
		{name: "share", sc: Scenario{Protocol: Share, Members: dyn, Events: []Event{{At: 10, Kind: Crash, Member: "a"}, {At: 20, Kind: Restart, Member: "a", For: 5}}},
			not: []string{"member.id", "every poll returns a full batch"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lines := Assumptions(c.sc, false)
			all := strings.Join(lines, "\n")
			for _, w := range c.want {
				if !strings.Contains(all, w) {
					t.Errorf("no line says %q:\n%s", w, all)
				}
			}
			for _, n := range c.not {
				if strings.Contains(all, n) {
					t.Errorf("a line says %q:\n%s", n, all)
				}
			}
			if c.sc.Protocol != Share && !strings.HasPrefix(lines[len(lines)-1], "- every poll returns a full batch") {
				t.Errorf("last line is %q, want the backlog's", lines[len(lines)-1])
			}
			if slices.ContainsFunc(lines, func(l string) bool { return len(l) > 220 }) {
				t.Errorf("a line over 220 characters:\n%s", all)
			}
		})
	}
}
