package control

import (
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kraftlab/kraftlab/cluster/sim"
	"github.com/kraftlab/kraftlab/engine/controller"
)

// chaos injects one random fault every 0.5–4 s: kill or start a controller or a broker, cut or
// heal a link, create or delete a topic, snapshot a node. It is a sim.Handler so that faults land
// between the protocol's own events.
type chaos struct {
	h      *harness
	rng    *sim.Rand
	stopAt int64
	topics int
}

func (x *chaos) HandleEvent(sim.Event) {
	h, c := x.h, x.h.c
	if h.s.Now() >= x.stopAt {
		return
	}
	nodes := append(c.Voters(), c.Brokers()...)
	pick := func() int32 { return nodes[x.rng.IntN(len(nodes))] }
	switch x.rng.IntN(8) {
	case 0, 1:
		id := pick()
		if v := h.view(id); v.Running {
			require.NoError(h.t, c.Kill(id))
			if b := h.byID[id]; b != nil {
				b.stop()
			}
		} else {
			require.NoError(h.t, c.Start(id))
			if b := h.byID[id]; b != nil {
				b.start(0)
			}
		}
	case 2, 3:
		a, b := pick(), pick()
		if a != b {
			if x.rng.IntN(2) == 0 {
				require.NoError(h.t, c.Cut(a, b))
			} else {
				require.NoError(h.t, c.Heal(a, b))
			}
		}
	case 4:
		require.NoError(h.t, c.HealAll())
	case 5:
		x.topics++
		_ = c.Admin().CreateTopic(controller.CreateTopicRequest{Name: "t" + strconv.Itoa(x.topics), NumPartitions: 1 + x.rng.IntN(4), ReplicationFactor: 1 + x.rng.IntN(3)})
	case 6:
		_ = c.Admin().DeleteTopic("t" + strconv.Itoa(1+x.rng.IntN(x.topics+1)))
	case 7:
		_, _ = c.Snapshot(pick()) // may have nothing new to snapshot
	}
	_, err := h.s.After(x.rng.Between(500, 4000), sim.Event{Target: x})
	require.NoError(h.t, err)
}

// TestRandomizedFaultsKeepEveryInvariant runs random fault schedules ($KRAFTLAB_SEEDS seeds,
// default 30) and then, with every node up and every link healed, checks that the cluster
// converges: one active controller, every controller at the same offset with the same state,
// every broker caught up and unfenced.
func TestRandomizedFaultsKeepEveryInvariant(t *testing.T) {
	seeds := 30
	if env := os.Getenv("KRAFTLAB_SEEDS"); env != "" {
		n, err := strconv.Atoi(env)
		require.NoError(t, err, "KRAFTLAB_SEEDS must be a number of seeds")
		seeds = n
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		voters := []int{1, 3, 5}[seed%3]
		h := newHarness(t, seed, voters, brokerIDs(4), func(c *Config) {
			c.Quorum.MaxBytesBetweenSnapshots = 4096
			c.Quorum.RetentionBytes = 8192
		})
		h.startBrokers()
		x := &chaos{h: h, rng: h.s.Rand().Child("chaos"), stopAt: 120_000}
		_, err := h.s.After(3000, sim.Event{Target: x})
		require.NoError(t, err)
		h.run(120_000)

		require.NoError(t, h.c.HealAll())
		for _, id := range append(h.c.Voters(), h.c.Brokers()...) {
			if !h.view(id).Running {
				require.NoError(t, h.c.Start(id))
				if b := h.byID[id]; b != nil {
					b.start(0)
				}
			}
		}
		h.run(60_000)
		require.NoError(t, h.c.Check(), "seed %d", seed)
		active, _, ok := h.c.Active()
		require.True(t, ok, "seed %d: a controller is active", seed)
		end := h.settle(2000)
		active, _, _ = h.c.Active()
		want := summary(h.image(active))
		for _, v := range h.c.Voters() {
			require.Equal(t, end, h.view(v).HighWatermark, "seed %d: controller %d", seed, v)
			require.Equal(t, want, summary(h.image(v)), "seed %d: controller %d", seed, v)
		}
		require.Equal(t, want, summary(h.c.ActiveController().Image()), "seed %d: the engine agrees with the committed log", seed)
		for _, b := range h.brokers {
			require.Equal(t, end, h.view(b.id).Applied, "seed %d: broker %d caught up", seed, b.id)
			require.False(t, b.fenced, "seed %d: broker %d", seed, b.id)
			reg := h.image(active).Broker(b.id)
			require.False(t, reg.Fenced, "seed %d: broker %d", seed, b.id)
		}
	}
}
