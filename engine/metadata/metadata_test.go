package metadata

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEntryJSONCarriesOnlyTheFieldsARecordSets(t *testing.T) {
	change := NewPartitionChange("orders", "id", 3)
	change.Isr = []int32{}
	change.Elr = []int32{1}
	got, err := json.Marshal(Entry{Offset: 42, Record: &change})
	require.NoError(t, err)
	assert.JSONEq(t, `{"offset":42,"type":"PartitionChangeRecord","topic":"orders","partition":3,"isr":[],"elr":[1]}`, string(got),
		"an empty ISR is a change and is written; an unchanged leader is not")

	change = NewPartitionChange("orders", "id", 3)
	change.Leader = NoLeader
	change.LeaderRecoveryState = Recovering
	got, _ = json.Marshal(Entry{Offset: 1, Record: &change})
	assert.JSONEq(t, `{"offset":1,"type":"PartitionChangeRecord","topic":"orders","partition":3,"leader":-1,"leader_recovery_state":1}`, string(got))

	got, _ = json.Marshal(Entry{Offset: 7, Record: &BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 5, Fenced: FenceUnfence}})
	assert.JSONEq(t, `{"offset":7,"type":"BrokerRegistrationChangeRecord","broker":1,"broker_epoch":5,"fenced":false}`, string(got))
	got, _ = json.Marshal(Entry{Offset: 8, Record: &BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 5, InControlledShutdown: 1}})
	assert.JSONEq(t, `{"offset":8,"type":"BrokerRegistrationChangeRecord","broker":1,"broker_epoch":5,"in_controlled_shutdown":true}`, string(got))

	got, _ = json.Marshal(Entry{Offset: 8, Record: &BrokerRegistrationChangeRecord{BrokerID: 1, BrokerEpoch: 5, LogDirs: []string{}}})
	assert.JSONEq(t, `{"offset":8,"type":"BrokerRegistrationChangeRecord","broker":1,"broker_epoch":5,"log_dirs":[]}`, string(got),
		"no directory left online is written as an empty list")

	got, _ = json.Marshal(Entry{Offset: 9, Record: &NoOpRecord{}})
	assert.JSONEq(t, `{"offset":9,"type":"NoOpRecord"}`, string(got))

	got, _ = json.Marshal(Entry{Offset: 10, Record: &RegisterBrokerRecord{BrokerID: 2, IncarnationID: "x", BrokerEpoch: 10, LogDirs: []string{"d"}, Fenced: true}})
	assert.JSONEq(t, `{"offset":10,"type":"RegisterBrokerRecord","broker":2,"incarnation_id":"x","broker_epoch":10,"log_dirs":["d"],"fenced":true,"in_controlled_shutdown":false}`, string(got))
}

func TestLogOffsetsSnapshotsAndTruncation(t *testing.T) {
	var l Log
	for i := 0; i < 5; i++ {
		assert.Equal(t, int64(i), l.Append(&NoOpRecord{}).Offset)
	}
	require.NoError(t, l.DropBefore(3))
	assert.Equal(t, int64(3), l.StartOffset())
	assert.Equal(t, int64(5), l.NextOffset())
	assert.Len(t, l.Since(0), 2, "the dropped prefix is gone")
	assert.Equal(t, int64(4), l.Since(4)[0].Offset)
	assert.Nil(t, l.Since(9))
	require.NoError(t, l.TruncateTo(4))
	assert.Equal(t, int64(4), l.NextOffset())
	assert.Error(t, l.TruncateTo(2), "below the log start")
	assert.Error(t, l.DropBefore(7), "past the end")
}

// TestLogDropsInChunksAndKeepsOrder: dropping what was shipped, as the active controller does
// every few hundred records, keeps the entries after it (reusing the array when it is small,
// copying when it is large) and the offsets running on.
func TestLogDropsInChunksAndKeepsOrder(t *testing.T) {
	var l Log
	recs := map[int64]Record{}
	for i := int64(0); i < 3*reuseEntries; i++ {
		r := &NoOpRecord{}
		recs[i] = r
		require.Equal(t, i, l.Append(r).Offset)
		if i%300 == 299 || i == 2*reuseEntries {
			require.NoError(t, l.DropBefore(i-7))
		}
		if i%37 != 0 {
			continue
		}
		es := l.Since(0)
		require.Equal(t, l.StartOffset(), es[0].Offset)
		require.Equal(t, i+1, l.NextOffset())
		for _, e := range es {
			require.Same(t, recs[e.Offset], e.Record, "offset %d", e.Offset)
		}
	}
}

func TestReplayRejectsInconsistentRecords(t *testing.T) {
	im := NewImage()
	require.NoError(t, im.Replay(Entry{0, &TopicRecord{Name: "t", TopicID: "a"}}))
	cases := []Record{
		&PartitionRecord{TopicID: "zz", Replicas: []int32{0}},
		&PartitionRecord{TopicID: "a", PartitionID: 1, Replicas: []int32{0}},
		&PartitionRecord{TopicID: "a", Replicas: []int32{0}, Isr: []int32{5}},
		&PartitionRecord{TopicID: "a", Replicas: []int32{}},
		&PartitionRecord{TopicID: "a", Replicas: []int32{0}, LeaderRecoveryState: 2},
		&PartitionChangeRecord{TopicID: "a", PartitionID: 0, Leader: NoLeaderChange},
		&TopicRecord{Name: "t", TopicID: "b"},
		&BrokerRegistrationChangeRecord{BrokerID: 3},
		&RemoveTopicRecord{TopicID: "zz"},
	}
	for _, r := range cases {
		assert.Error(t, im.Replay(Entry{1, r}), "%#v", r)
	}
	require.NoError(t, im.Replay(Entry{1, &PartitionRecord{Topic: "t", TopicID: "a", Replicas: []int32{0}, Isr: []int32{0}}}))
	bad := NewPartitionChange("t", "a", 0)
	bad.LeaderRecoveryState = 5
	assert.ErrorContains(t, im.Replay(Entry{2, &bad}), "LeaderRecoveryState 5")
	assert.Equal(t, int32(0), im.Partitions[0].PartitionEpoch, "a refused record changes nothing")
}

// TestPartitionKeepsEveryList stores a partition of up to MaxReplicas replicas with lists of
// every length and order, and a recovery state, and reads them back: each list, kept as
// positions in the replica list, and the recovery state change without disturbing the others.
func TestPartitionKeepsEveryList(t *testing.T) {
	reps := []int32{17, 3, 1 << 30, 0, 5, 99, 42, 7}
	for n := 1; n <= MaxReplicas; n++ {
		for _, rec := range []int8{Recovered, Recovering} {
			im := NewImage()
			require.NoError(t, im.Replay(Entry{0, &TopicRecord{Name: "t", TopicID: "a"}}))
			isr := slices.Clone(reps[:n])
			slices.Reverse(isr)
			elr, lke := reps[n/2:n], reps[:n/2]
			require.NoError(t, im.Replay(Entry{1, &PartitionRecord{Topic: "t", TopicID: "a", Replicas: reps[:n], Isr: isr,
				Elr: elr, LastKnownElr: lke, Leader: isr[0], LeaderRecoveryState: rec}}))
			p := &im.Partitions[0]
			assert.Equal(t, reps[:n], p.Replicas())
			assert.Equal(t, isr, p.Isr())
			assert.Equal(t, elr, p.Elr())
			assert.Equal(t, lke, p.LastKnownElr())
			assert.Equal(t, rec, p.Recovery())

			// A change of the lists keeps the count and the state, and a change of the
			// state keeps the lists.
			ch := NewPartitionChange("t", "a", 0)
			ch.Isr, ch.Elr, ch.LastKnownElr = reps[n-1:n], []int32{}, reps[:n]
			require.NoError(t, im.Replay(Entry{2, &ch}))
			assert.Equal(t, reps[:n], p.Replicas())
			assert.Equal(t, reps[n-1:n], p.Isr())
			assert.Empty(t, p.Elr())
			assert.Equal(t, reps[:n], p.LastKnownElr())
			assert.Equal(t, rec, p.Recovery())
			flip := NewPartitionChange("t", "a", 0)
			flip.LeaderRecoveryState = Recovering - rec
			require.NoError(t, im.Replay(Entry{3, &flip}))
			assert.Equal(t, Recovering-rec, p.Recovery())
			assert.Equal(t, reps[n-1:n], p.Isr())
			assert.Equal(t, reps[:n], p.LastKnownElr())
			assert.Equal(t, n, len(p.Replicas()))
		}
	}
}

// TestIndexesMatchABruteForceCount replays random leader changes and topic deletions and
// checks the imbalanced and leaderless sets against a full recount after each record.
func TestIndexesMatchABruteForceCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	im := NewImage()
	off := int64(0)
	replay := func(r Record) {
		require.NoError(t, im.Replay(Entry{off, r}))
		off++
	}
	for topic := 0; topic < 3; topic++ {
		name, id := string(rune('a'+topic)), string(rune('A'+topic))
		replay(&TopicRecord{Name: name, TopicID: id})
		for p := 0; p < 50; p++ {
			reps := []int32{int32(p % 4), int32((p + 1) % 4), int32((p + 2) % 4)}
			replay(&PartitionRecord{TopicID: id, Topic: name, PartitionID: int32(p), Replicas: reps, Isr: reps, Leader: reps[0]})
		}
	}
	for step := 0; step < 2000; step++ {
		if step == 1000 {
			replay(&RemoveTopicRecord{Topic: "b", TopicID: "B"})
		}
		topic := []string{"a", "b", "c"}[rng.IntN(3)]
		if _, ok := im.TopicByName(topic); !ok {
			continue
		}
		idx, _ := im.PartitionIndex(topic, int32(rng.IntN(50)))
		p := &im.Partitions[idx]
		change := NewPartitionChange(topic, im.Topics[p.Topic].ID, p.ID)
		if rng.IntN(3) == 0 {
			// An ISR change alone, which leaves the sets as they are.
			change.Isr = p.Replicas()[:1+rng.IntN(len(p.Replicas()))]
		} else {
			change.Leader = append(p.Replicas(), NoLeader)[rng.IntN(4)]
		}
		replay(&change)

		imbalanced, leaderless := 0, 0
		for i := range im.Partitions {
			q := &im.Partitions[i]
			if im.Topics[q.Topic].Deleted {
				continue
			}
			if !q.HasPreferredLeader() {
				imbalanced++
			}
			if q.Leader == NoLeader {
				leaderless++
			}
		}
		require.Equal(t, imbalanced, im.ImbalancedCount(), "step %d", step)
		require.Len(t, im.Leaderless(), leaderless, "step %d", step)
		for _, b := range im.BrokerIDs() {
			keys := im.ImbalancedKeys(b)
			require.Len(t, keys, len(im.ImbalancedPreferring(b)))
			for i, q := range im.ImbalancedPreferring(b) {
				require.Equal(t, b, im.Partitions[q].Preferred())
				require.False(t, im.Partitions[q].HasPreferredLeader())
				require.Equal(t, im.IterationKey(q), keys[i], "the kept key sits at the partition's position")
			}
		}
	}
}

// TestImbalancedFlagsMatchARecount replays random leader, ISR, ELR and LastKnownElr changes,
// ClearElrRecords and a topic deletion, and checks after each record that every imbalanced
// partition's kept flags are those its registration gives, that each broker's QuietLed counts
// the quiet partitions it leads, and its LeaderCount all the partitions it leads.
func TestImbalancedFlagsMatchARecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	im := NewImage()
	off := int64(0)
	replay := func(r Record) {
		require.NoError(t, im.Replay(Entry{off, r}))
		off++
	}
	subset := func(reps []int32) []int32 {
		out := []int32{}
		for _, r := range reps {
			if rng.IntN(2) == 0 {
				out = append(out, r)
			}
		}
		return out
	}
	for topic := 0; topic < 3; topic++ {
		name, id := string(rune('a'+topic)), string(rune('A'+topic))
		replay(&TopicRecord{Name: name, TopicID: id})
		for p := 0; p < 40; p++ {
			reps := []int32{int32(p % 5), int32((p + 1) % 5), int32((p + 2) % 5)}
			replay(&PartitionRecord{TopicID: id, Topic: name, PartitionID: int32(p), Replicas: reps, Isr: subset(reps),
				Leader: append(reps, NoLeader)[rng.IntN(4)], Elr: subset(reps), LastKnownElr: subset(reps[:1])})
		}
	}
	quiet := 0
	for step := 0; step < 3000; step++ {
		switch {
		case step == 1500:
			replay(&RemoveTopicRecord{Topic: "b", TopicID: "B"})
		case step%250 == 0:
			replay(&ClearElrRecord{TopicID: []string{"", "A", "C"}[rng.IntN(3)]})
		default:
			topic := []string{"a", "b", "c"}[rng.IntN(3)]
			if _, ok := im.TopicByName(topic); !ok {
				continue
			}
			idx, _ := im.PartitionIndex(topic, int32(rng.IntN(40)))
			p := &im.Partitions[idx]
			change := NewPartitionChange(topic, im.Topics[p.Topic].ID, p.ID)
			switch rng.IntN(4) {
			case 0:
				change.Isr = subset(p.Replicas())
			case 1:
				change.Elr = subset(p.Replicas())
				change.LastKnownElr = subset(p.Replicas()[:1])
			default:
				change.Leader = append(p.Replicas(), NoLeader)[rng.IntN(4)]
			}
			replay(&change)
		}

		led := map[int32]int{}
		for _, b := range im.BrokerIDs() {
			flags := im.ImbalancedFlags(b)
			require.Len(t, flags, len(im.ImbalancedPreferring(b)))
			for i, idx := range im.ImbalancedPreferring(b) {
				p := &im.Partitions[idx]
				want := uint8(0)
				if p.InIsr(b) {
					want = ImbPrefInIsr
				} else if p.Leader >= 0 && p.InIsr(p.Leader) && p.ElrLen() == 0 && p.LastKnownElrLen() == 0 {
					want = ImbQuiet
					led[p.Leader]++
					quiet++
				}
				require.Equal(t, want, flags[i], "step %d: partition %d", step, idx)
			}
		}
		leads := map[int32]int{}
		for _, b := range im.BrokerIDs() {
			for _, idx := range im.ReplicaPartitions(b) {
				if im.Partitions[idx].Leader == b {
					leads[b]++
				}
			}
		}
		for _, b := range im.BrokerIDs() {
			require.Equal(t, led[b], im.QuietLed(b), "step %d: broker %d", step, b)
			require.Equal(t, leads[b], im.LeaderCount(b), "step %d: broker %d leads", step, b)
		}
	}
	require.Greater(t, quiet, 3000, "the changes make partitions quiet often")
}
