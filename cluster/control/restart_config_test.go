package control

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/engine/config"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// TestAControllerRestartedWithNewConfigsRunsThemOnceActive checks Start with static configs: a static
// controller config (the electPreferred period) changes nothing while the controller that was
// restarted with it is a standby, and is what its engine runs once it is the active one.
func TestAControllerRestartedWithNewConfigsRunsThemOnceActive(t *testing.T) {
	h := newHarness(t, 3, 3, brokerIDs(3), nil)
	h.startBrokers()
	old, epoch := h.waitActive(0, 5000)
	h.run(5000)
	var standby int32 = -1
	for _, id := range h.c.Voters() {
		if id != old && standby < 0 {
			standby = id
		}
	}
	var static config.Values
	require.NoError(t, static.Set(config.LeaderImbalanceCheckIntervalSeconds, int64(20), config.Cluster))
	require.Error(t, h.c.Start(standby, static), "a running controller must be stopped first")
	require.NoError(t, h.c.Kill(standby))
	h.run(2000)
	require.NoError(t, h.c.Start(standby, static))
	h.run(5000)
	at, ok := h.c.ActiveController().TaskDeadline(controller.TaskElectPreferred)
	require.True(t, ok)
	assert.Equal(t, h.view(old).ActivatedMs+300_000, at, "the active controller keeps the period it started with")

	// Fail over until the restarted controller leads (the third may win an election first):
	// kill the active one, wait for the next, start the killed one again.
	for active := old; active != standby; {
		require.NoError(t, h.c.Kill(active))
		var next int32
		next, epoch = h.waitActive(epoch, 15_000)
		require.NoError(t, h.c.Start(active))
		h.run(3000)
		active = next
	}
	v := h.view(standby)
	at, ok = h.c.ActiveController().TaskDeadline(controller.TaskElectPreferred)
	require.True(t, ok)
	assert.Equal(t, v.ActivatedMs+20_000, at, "the restarted controller runs electPreferred every 20 s")
	require.NoError(t, h.c.Check())
}
