package bridge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A topic's config overrides travel with the layout, so changing one must give the next frame
// a new layout: a page holding the old one would otherwise go on showing the old value.
func TestTopicConfigChangeSendsANewLayout(t *testing.T) {
	b := New(Info{})
	frame := func(id, layout int) Frame {
		out, _ := b.Handle([]byte(fmt.Sprintf(`{"id":%d,"type":"sim.frame","body":{"layout":%d}}`, id, layout)))
		var r struct {
			OK   bool  `json:"ok"`
			Body Frame `json:"body"`
		}
		require.NoError(t, json.Unmarshal(out, &r))
		require.True(t, r.OK, "%s", out)
		return r.Body
	}
	out, _ := b.Handle([]byte(`{"id":1,"type":"sim.start","body":{"brokers":3,"partitions":6}}`))
	require.Contains(t, string(out), `"ok":true`)
	first := frame(2, 0)
	require.NotEmpty(t, first.Partitions.Topics)
	topic := first.Partitions.Topics[0].Name
	assert.Empty(t, first.Partitions.Topics[0].Configs)
	same := frame(3, first.Partitions.Layout)
	assert.Equal(t, first.Partitions.Layout, same.Partitions.Layout)
	assert.Nil(t, same.Partitions.Topics, "the page holds the layout: it is not sent again")

	out, _ = b.Handle([]byte(fmt.Sprintf(`{"id":4,"type":"sim.act","body":{"op":"set_config","topic":%q,"name":"min.insync.replicas","value":"1"}}`, topic)))
	require.Contains(t, string(out), `"ok":true`, "%s", out)
	b.Handle([]byte(`{"id":5,"type":"sim.advance","body":{"ms":1000,"layout":1}}`)) // the ConfigRecord commits
	next := frame(6, first.Partitions.Layout)
	require.NotEqual(t, first.Partitions.Layout, next.Partitions.Layout, "a topic config change is a new layout")
	require.NotEmpty(t, next.Partitions.Topics)
	assert.Equal(t, map[string]string{"min.insync.replicas": "1"}, next.Partitions.Topics[0].Configs)
	again := frame(7, next.Partitions.Layout)
	assert.Equal(t, next.Partitions.Layout, again.Partitions.Layout, "and it stays until the configs change again")
}

// The digest runs every frame: with no topic overrides, the usual case, it allocates nothing.
func TestTopicConfigsDigestWithoutOverridesAllocatesNothing(t *testing.T) {
	b := New(Info{})
	out, _ := b.Handle([]byte(`{"id":1,"type":"sim.start","body":{"brokers":3,"partitions":6}}`))
	require.Contains(t, string(out), `"ok":true`)
	view := b.session.c.View()
	assert.Zero(t, topicConfigsDigest(view))
	assert.Zero(t, testing.AllocsPerRun(10, func() { topicConfigsDigest(view) }))
}
