// Frame decoding, formatting and what the charts and tooltips derive from a frame.

import assert from "node:assert/strict";
import { test } from "node:test";
import { isSteady, pointOf } from "../charts";
import { replicaTooltip } from "../canvas-input";
import { Frame, Layout, NO_SLOT, clockText, isrMaskOfWord, spanText } from "../frame";
import { ELR, FOLLOWER, LEADER, OFFLINE, OOS, stateOf } from "../render";
import type { BrokerState, FrameBody } from "../protocol";

function broker(id: number, over: Partial<BrokerState> = {}): BrokerState {
  return { id, state: "running", fenced: false, inControlledShutdown: false, epoch: 1, gated: false, leaders: 0, replicas: 0, outOfSync: 0, preferred: 0, preferredLed: 0, ...over };
}

/**
 * Two partitions of topic "t" over brokers 1, 2, 3 (slots 0–2), replication factor 3:
 *   t-0: replicas 1,2,3, leader 1, ISR 1,2 (3 out of sync), ELR none
 *   t-1: replicas 2,3,1, leader none, ISR none, ELR 3 (position 1)
 */
function twoPartitions(over: Partial<FrameBody> = {}): Frame {
  const n = 2;
  const stride = 3;
  const data = new ArrayBuffer(n * 4 + n * 4 + n * stride + 2);
  const isr = new Uint32Array(data, 0, n);
  isr[0] = 0x21; // positions 0 then 1 (nibbles hold position + 1)
  isr[1] = 0;
  const state = new Uint8Array(data, 8, 4 * n);
  state.set([0, 0, 0, 0, NO_SLOT, 0b010, 0, 0]);
  const replicas = new Uint8Array(data, 16, n * stride);
  replicas.set([0, 1, 2, 1, 2, 0]);
  // A cast, not an annotation: fields the protocol gains later need no change here.
  const body = {
    timeMs: 12_345,
    seed: 1,
    controllers: [],
    brokers: [broker(1, { leaders: 1 }), broker(2, { outOfSync: 0 }), broker(3, { outOfSync: 1, gated: true })],
    partitions: { count: n, layout: 1, stride, topics: [{ name: "t", id: "x", first: 0, count: n }], underReplicated: 2, offline: 1, imbalanced: 1, isr: 0, state: 8, replicas: 16 },
    sample: { timeMs: 10_000, produceP50Ms: 1, produceP99Ms: 12.5, produceP999Ms: 20, produceErrors: 0, produceTimeouts: 0 },
    nextElectPreferredMs: -1,
    configs: [],
    events: [],
    ...over,
  } as FrameBody;
  const layout = new Layout(1, n, stride, body.partitions.topics!, replicas, 3);
  return new Frame(body, data, layout);
}

test("a frame decodes leaders, ISR in Kafka's order, ELR and the hosted lists", () => {
  const f = twoPartitions();
  assert.equal(f.leader(0), 1);
  assert.equal(f.leader(1), -1);
  assert.deepEqual(f.isr(0), [1, 2]);
  assert.deepEqual(f.isr(1), []);
  assert.equal(f.isrMask[0], 0b011);
  assert.deepEqual(f.members(1, f.elrMask(1)), [3]);
  assert.deepEqual(f.replicas(1), [2, 3, 1]);
  // Broker 1 (slot 0) holds t-0 at position 0 and t-1 at position 2, in partition order.
  assert.deepEqual(Array.from(f.layout.hosted[0].partitions), [0, 1]);
  assert.deepEqual(Array.from(f.layout.hosted[0].positions), [0, 2]);
});

test("tooltips say which replica, its role, the leader, ISR and ELR", () => {
  const f = twoPartitions();
  assert.equal(replicaTooltip(f, 0, 0, 0), "t-0 on broker 1: leader\nLeader: 1  Isr: 1,2  Elr: –");
  assert.equal(replicaTooltip(f, 0, 2, 2), "t-0 on broker 3: out of sync (catching up)\nLeader: 1  Isr: 1,2  Elr: –");
  assert.equal(replicaTooltip(f, 1, 2, 1), "t-1 on broker 3: no leader: offline\nLeader: none  Isr:   Elr: 3");
});

test("a chart point carries per-broker leaders, out of sync, gate lanes and the cluster series", () => {
  const f = twoPartitions();
  const p = pointOf(f, 11, new Float64Array(3 * 3 + 4));
  assert.deepEqual(Array.from(p), [1, 0, 0, 0, 0, 1, 0, 1, 2.7, 12.5, 11, 2, 1]);
  const noSample = pointOf(twoPartitions({ sample: undefined }), NaN, new Float64Array(13));
  assert.ok(Number.isNaN(noSample[9]), "p99 is NaN before the first sample");
});

test("only a healthy cluster's p99 counts toward the steady value", () => {
  assert.equal(isSteady(twoPartitions()), false, "under-replicated partitions");
  const healthy = twoPartitions({ partitions: { ...twoPartitions().body.partitions, underReplicated: 0, offline: 0 } });
  assert.equal(isSteady(healthy), true);
  const fenced = twoPartitions({
    partitions: { ...twoPartitions().body.partitions, underReplicated: 0, offline: 0 },
    brokers: [broker(1), broker(2, { fenced: true }), broker(3)],
  });
  assert.equal(isSteady(fenced), false);
});

test("cluster time and spans read as people write them", () => {
  assert.equal(clockText(0), "0:00:00.0");
  assert.equal(clockText(3_723_456), "1:02:03.4");
  assert.equal(spanText(450), "450 ms");
  assert.equal(spanText(12_400), "12 s");
  assert.equal(spanText(245_000), "4 min 5 s");
});

test("ISR bitmasks come from the ISR words without a per-frame array", () => {
  // Nibbles are position + 1 in Kafka's order: 0x213 is positions 2, 0, 1.
  assert.equal(isrMaskOfWord(0x213), 0b111);
  assert.equal(isrMaskOfWord(0x3), 0b100);
  assert.equal(isrMaskOfWord(0), 0);
  const f = twoPartitions();
  assert.equal(f.isrMaskOf(0), 0b011);
  assert.equal(f.isrMaskOf(1), 0);
  // The array form, for readers that scan every partition, agrees with it.
  assert.deepEqual(Array.from(f.isrMask), [f.isrMaskOf(0), f.isrMaskOf(1)]);
});

test("the renderer's replica states: leader, follower, ELR, out of sync, offline", () => {
  const f = twoPartitions();
  const st = (p: number, pos: number) => stateOf(f.state, f.isrWords, p, pos);
  // t-0: leader at position 0, ISR positions 0 and 1, position 2 out of sync.
  assert.deepEqual([st(0, 0), st(0, 1), st(0, 2)], [LEADER, FOLLOWER, OOS]);
  // t-1 has no leader: it is offline, but position 1, in its ELR, may still lead and is drawn
  // as ELR; the others are offline.
  assert.deepEqual([st(1, 0), st(1, 1), st(1, 2)], [OFFLINE, ELR, OFFLINE]);
  // With a leader, t-1's position 1 (in its ELR, not in its ISR) is ELR.
  f.state[4] = 2;
  assert.deepEqual([st(1, 0), st(1, 1), st(1, 2)], [OOS, ELR, LEADER]);
});
