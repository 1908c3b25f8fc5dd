package bridge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// TestAllPartitionsElectionReportsPreferredLeaderNotAvailable: with --all-topic-partitions
// Kafka leaves out only the partitions that need no election (ELECTION_NOT_NEEDED;
// ReplicationControlManager.electLeaders); one whose preferred replica cannot lead is answered
// PREFERRED_LEADER_NOT_AVAILABLE, and the sentence reports it rather than calling it skipped.
func TestAllPartitionsElectionReportsPreferredLeaderNotAvailable(t *testing.T) {
	ev := cluster.Event{Op: cluster.OpElectLeaders, Election: controller.ElectionPreferred}
	text := electionSentence(ev, []ElectionResult{{Topic: "payments", Partition: 1, Error: "PREFERRED_LEADER_NOT_AVAILABLE", Message: "The preferred leader was not available."}})
	assert.Contains(t, text, "Error completing leader election (PREFERRED) for payments-1: PREFERRED_LEADER_NOT_AVAILABLE")
	assert.NotContains(t, text, "no partition needed one")

	text = electionSentence(ev, nil)
	assert.Contains(t, text, "no partition needed one (every preferred replica already leads)")
	assert.NotContains(t, text, "cannot", "a preferred replica that cannot lead is answered, not left out")
}

// TestCatchUpIsExplainedWithTheInflow: a toy topic (3 brokers, 1 partition) carries a broker's
// whole produce rate, so a broker killed for 165 s catches up slowly; the event log says why:
// its fetch rate against the produce still arriving at the partition.
func TestCatchUpIsExplainedWithTheInflow(t *testing.T) {
	b := started(t, `{"brokers":3,"partitions":1,"replicationFactor":3}`)
	must[ActBody](t, b, "sim.act", `{"op":"kill","broker":2}`)
	frameAt(t, b, "sim.advance", `{"ms":165000}`)
	must[ActBody](t, b, "sim.act", `{"op":"start","broker":2}`)
	var text string
	for i := 0; i < 60 && !strings.Contains(text, "is catching up"); i++ {
		f, _ := frameAt(t, b, "sim.advance", `{"ms":5000}`)
		text += strings.Join(texts(f.Events), "\n")
	}
	assert.Regexp(t, `broker 2 is catching up 1 partition: [0-9.]+ GB behind their leaders; it fetches [0-9.]+ MB/s while they take [0-9.]+ MB/s of new produce, so the backlog shrinks by only [0-9.]+ MB/s: about [0-9]+ (s|min) at this rate`, text)
}
