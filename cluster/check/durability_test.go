package check

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The check itself: only an unclean election after the predecessor's epoch, up to the new
// leader's, explains a loss.
func TestDurabilityCheckNeedsAnUncleanElectionInBetween(t *testing.T) {
	var d Durability
	loss := Loss{Index: 3, Leader: 2, LeaderEpoch: 4, PrevEpoch: 2, Name: "t-3", HighWatermark: 2000, LogEnd: 1000, Records: 1}
	v := d.ObserveLoss(10, loss)
	require.NotNil(t, v)
	assert.Equal(t, RuleAckedNeverLost, v.Rule)
	assert.Contains(t, v.Error(), "broker 2 took over at leader epoch 4")
	d.ObserveUnclean(3, 2)
	d.ObserveUnclean(4, 3)
	assert.NotNil(t, d.ObserveLoss(10, loss), "epoch 2 is the predecessor's own; partition 4 is another")
	d.ObserveUnclean(3, 4)
	assert.Nil(t, d.ObserveLoss(10, loss))
	d.AllowDiskLoss(7)
	assert.Nil(t, d.ObserveLoss(10, Loss{Index: 9, Leader: 7, LeaderEpoch: 1, PrevEpoch: 0}))
}
