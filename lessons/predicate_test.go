package lessons

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// eval parses and evaluates an expression, failing the test on a parse error, and checks that
// Holds, which skips the explanation (and the right side of an "and" or "or" the left side
// decides), gives the same truth as Eval.
func eval(t *testing.T, c *cluster.Cluster, m Mark, src string) (bool, string) {
	t.Helper()
	e, err := ParseExpr(src)
	require.NoError(t, err, src)
	ok, why := Eval(e, c, m)
	assert.Equal(t, ok, Holds(e, c, m), "Holds(%q) against Eval's %q", src, why)
	return ok, why
}

// TestPredicates evaluates every predicate against the tiny lesson's cluster before and after
// broker 1 (the leader of payments-0 on [1,2,0]) is killed and fenced.
func TestPredicates(t *testing.T) {
	l, err := Parse("t.md", []byte(tiny), nil)
	require.NoError(t, err)
	c, err := l.Build()
	require.NoError(t, err)
	m := MarkNow(c)
	before := []struct {
		src     string
		holds   bool
		explain string
	}{
		{"leader payments-0 == 1", true, "leader of payments-0 is 1, goal == 1"},
		{"leader payments-0 == 2", false, "leader of payments-0 is 1, goal == 2"},
		{"leader payments-0 != none", true, "leader of payments-0 is 1, goal != none"},
		{"leader_epoch payments-0 == 0", true, "leader epoch of payments-0 is 0, goal == 0"},
		{"partition_epoch payments-0 >= 0", true, "partition epoch of payments-0 is 0, goal >= 0"},
		{"isr payments-0 == [1,2,0]", true, "ISR of payments-0 is [1,2,0], goal [1,2,0]"},
		{"isr payments-0 == [1, 0, 2]", false, "ISR of payments-0 is [1,2,0], goal [1,0,2]"},
		{"isr payments-0 != [2,0]", true, "ISR of payments-0 is [1,2,0], goal != [2,0]"},
		{"isr payments-0 contains 0", true, "ISR of payments-0 is [1,2,0], goal: contains 0"},
		{"isr payments-0 size == 3", true, "ISR of payments-0 is [1,2,0], goal: size == 3"},
		{"elr payments-0 == []", true, "ELR of payments-0 is [], goal []"},
		{"last_known_elr payments-0 size == 0", true, "LastKnownElr of payments-0 is [], goal: size == 0"},
		{"recovering payments-0", false, "payments-0 is RECOVERED"},
		{"broker 1 unfenced", true, "broker 1 is running and unfenced, goal unfenced"},
		{"broker 1 fenced", false, "broker 1 is running and unfenced, goal fenced"},
		{"broker 1 running", true, "broker 1 is running and unfenced, goal running"},
		{"broker 1 stopped", false, ""},
		{"broker 1 registered", true, ""},
		{"broker 1 gated", false, ""},
		{"broker 1 controlled_shutdown", false, ""},
		{"broker 1 leaders == 1", true, "broker 1 leaders is 1, goal == 1"},
		{"broker 1 preferred_total == 1", true, "broker 1 preferred total is 1, goal == 1"},
		{"broker 1 preferred_led == 1", true, ""},
		{"broker 0 preferred_total == 0", true, ""},
		{"broker 1 out_of_sync == 0", true, ""},
		{"broker 1 out_of_sync_preferred == 0", true, ""},
		{"metric PreferredReplicaImbalanceCount == 0", true, "PreferredReplicaImbalanceCount is 0, goal == 0"},
		{"metric ActiveBrokerCount == 3", true, "ActiveBrokerCount is 3, goal == 3"},
		{"metric OutOfSyncPreferredPartitionCount == 0", true, "OutOfSyncPreferredPartitionCount is 0, goal == 0"},
		{"metric OutOfSyncPreferredPartitionCount broker 1 == 0", true, "OutOfSyncPreferredPartitionCount,broker=1 is 0, goal == 0"},
		{"offline_partitions == 0", true, "offline partitions is 0, goal == 0"},
		{"under_replicated == 0", true, "under-replicated partitions is 0, goal == 0"},
		{"time == 0", true, "time (ms) is 0, goal == 0"},
		{"step_time == 0", true, "time since the step began (ms) is 0, goal == 0"},
		{"runs == 0", true, "electPreferred runs since the step began: 0, goal == 0"},
		{"elections == 0", true, "preferred elections since the step began is 0, goal == 0"},
		{"records PartitionChangeRecord == 0", true, "PartitionChangeRecords committed since the step began: 0, goal == 0"},
		{"active_controller == 3000", true, "the active controller is 3000, goal == 3000"},
		{"snapshots == 0", true, "controller snapshots taken is 0, goal == 0"},
		{"acked_records_lost == 0", true, "acknowledged records lost is 0, goal == 0"},
		{"unclean_elections == 0", true, "unclean elections is 0, goal == 0"},
		{"produce_p99 == 0", true, "produce p99 of the last sample (ms) is 0, goal == 0"},
		{"not broker 1 fenced", true, "not (broker 1 is running and unfenced, goal fenced)"},
		{"broker 1 fenced or leader payments-0 == 1", true, ""},
		{"broker 1 fenced and leader payments-0 == 1", false, ""},
		{"not (broker 1 fenced or leader payments-0 == 2)", true, ""},
		// "and" binds tighter than "or": true or (false and false).
		{"leader payments-0 == 1 or broker 1 fenced and broker 2 fenced", true, ""},
		{"(leader payments-0 == 1 or broker 1 fenced) and broker 2 fenced", false, ""},
	}
	for _, tc := range before {
		holds, why := eval(t, c, m, tc.src)
		assert.Equal(t, tc.holds, holds, tc.src)
		if tc.explain != "" {
			assert.Equal(t, tc.explain, why, tc.src)
		}
	}

	// Kill the leader at 10 s; after its fence broker 2 leads with ISR [2,0].
	require.NoError(t, c.RunUntil(10_000))
	require.NoError(t, c.Do(cluster.Event{Op: cluster.OpKill, Broker: 1}))
	require.NoError(t, c.RunUntil(30_000))
	after := []struct {
		src   string
		holds bool
	}{
		{"leader payments-0 == 2", true},
		{"leader_epoch payments-0 == 1", true},
		{"partition_epoch payments-0 > 0", true},
		{"isr payments-0 == [2,0]", true},
		{"broker 1 fenced", true},
		{"broker 1 stopped", true},
		{"broker 1 not_running", true},
		{"broker 1 leaders == 0", true},
		{"broker 1 preferred_led == 0", true},
		{"broker 1 out_of_sync == 1", true},
		{"broker 1 out_of_sync_preferred == 1", true},
		{"metric PreferredReplicaImbalanceCount == 1", true},
		{"metric FencedBrokerCount == 1", true},
		{"under_replicated == 1", true},
		{"time == 30000", true},
		{"step_time == 30000", true},
		{"records PartitionChangeRecord == 1", true},
		{"records BrokerRegistrationChangeRecord == 1", true},
		{"records NoOpRecord > 30", true},
		{"acked_records_lost == 0", true}, // acks=all: a clean election loses nothing
		{"produce_p99 > 0", true},
	}
	for _, tc := range after {
		holds, why := eval(t, c, m, tc.src)
		assert.Equal(t, tc.holds, holds, "%s: %s", tc.src, why)
	}
	// A step that starts now counts from now.
	m2 := MarkNow(c)
	holds, _ := eval(t, c, m2, "records PartitionChangeRecord == 0 and step_time == 0")
	assert.True(t, holds)

	// A preferred election can't elect the fenced broker; start it and elect by hand.
	require.NoError(t, c.Do(cluster.Event{Op: cluster.OpStart, Broker: 1}))
	require.NoError(t, c.RunUntil(250_000))
	holds, why := eval(t, c, m2, "isr payments-0 contains 1")
	require.True(t, holds, why)
	require.NoError(t, c.Do(cluster.Event{Op: cluster.OpElectLeaders, Election: controller.ElectionPreferred}))
	require.NoError(t, c.RunUntil(251_000))
	for _, src := range []string{"leader payments-0 == 1", "leader_epoch payments-0 == 2", "broker 1 unfenced", "broker 1 epoch > 0"} {
		holds, why := eval(t, c, m2, src)
		assert.True(t, holds, "%s: %s", src, why)
	}
	// A snapshot, and the active controller lost.
	require.NoError(t, c.Do(cluster.Event{Op: cluster.OpSnapshot}))
	holds, why = eval(t, c, m2, "snapshots == 1")
	assert.True(t, holds, why)
}

// TestPredicateRuns counts electPreferred runs from the step's start, by what they elected.
func TestPredicateRuns(t *testing.T) {
	l, err := Parse("t.md", []byte(tiny), nil)
	require.NoError(t, err)
	c, err := l.Build()
	require.NoError(t, err)
	m := MarkNow(c)
	require.NoError(t, c.RunUntil(100_000))
	for src, want := range map[string]bool{"runs == 0": true, "runs elected 1 >= 1": false} {
		holds, _ := eval(t, c, m, src)
		assert.Equal(t, want, holds, src)
	}
	// The first electPreferred run is 300 s after activation; the run elects nothing here.
	c2, err := cluster.New(l.Scenario.Cluster.Spec)
	require.NoError(t, err)
	m = MarkNow(c2)
	require.NoError(t, c2.RunUntil(310_000))
	// runs is independent of the lesson's limit: it reads the cluster.
	for src, want := range map[string]bool{
		"runs == 1": true, "runs elected 0 == 1": true, "runs elected > 0 >= 1": false,
		"runs elected == 0 >= 1": true, "elections == 0": true,
	} {
		holds, why := eval(t, c2, m, src)
		assert.Equal(t, want, holds, "%s: %s", src, why)
	}
	assert.Equal(t, len(c2.BalancerRuns()), 1)
}

// TestParseExprErrors: each error says which word is wrong and what was expected.
func TestParseExprErrors(t *testing.T) {
	for src, want := range map[string]string{
		"":                                "empty expression",
		"leader":                          "expected a partition (topic-N), found the end of the expression",
		"leader payments == 1":            `leader: expected a partition as topic-N (payments-0), found "payments"`,
		"leader payments-x == 1":          `leader: expected a partition as topic-N (payments-0), found "payments-x"`,
		"leader payments-0 2":             `leader: expected a comparison (==, !=, <, <=, >, >=), found "2"`,
		"leader payments-0 == two":        `leader: expected a number, found "two"`,
		"isr payments-0 == 2":             `isr: expected a list such as [2,0], found "2"`,
		"isr payments-0 == [2,x]":         `isr: expected a broker id in the list, found "x"`,
		"isr payments-0 == [2,0":          `expected "]", found the end of the expression`,
		"isr payments-0 has 1":            `isr: expected "== [..]", "!= [..]", "contains N" or "size CMP N", found "has"`,
		"broker x fenced":                 `broker: expected a broker id, found "x"`,
		"broker 1 leaders 3":              `broker leaders: expected a comparison`,
		"runs elected x >= 1":             `runs elected: expected a number, found "x"`,
		"records Foo == 1":                `records: unknown record type "Foo" (known: BrokerRegistrationChangeRecord,`,
		"(broker 1 fenced":                `expected ")" to close "(", found ""`,
		"broker 1 fenced broker 2 fenced": `unexpected "broker" after "broker 1 fenced"; join predicates with "and" or "or"`,
		"time =< 5":                       `unknown comparison "=<"`,
	} {
		_, err := ParseExpr(src)
		if assert.Error(t, err, src) {
			assert.Contains(t, err.Error(), want, src)
		}
	}
}

// TestExprString: an expression prints back in the vocabulary, so explanations and the page
// can quote it.
func TestExprString(t *testing.T) {
	for _, src := range []string{
		"leader payments-0 == 2", "isr payments-0 == [2,0]", "elr payments-0 contains 1", "isr payments-0 size >= 2",
		"not broker 1 fenced", "broker 3 gated and metric PreferredReplicaImbalanceCount == 0",
		"runs elected == 200 >= 3", "runs > 0", "(time >= 300000 or broker 1 fenced) and leader payments-0 != -1",
		"metric OutOfSyncPreferredPartitionCount broker 1 > 5", "records LeaderChangeMessage == 1", "recovering payments-0",
	} {
		e, err := ParseExpr(src)
		require.NoError(t, err, src)
		assert.Equal(t, src, e.String())
	}
	e, err := ParseExpr("runs elected 200 >= 3")
	require.NoError(t, err)
	assert.Equal(t, "runs elected == 200 >= 3", e.String())
}
