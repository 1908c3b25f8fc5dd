// Frames for tests that need the page's pacing, not a cluster: a frame of no partitions that
// carries its (empty) layout, as the worker's reply to sim.advance and its kin.

import type { FrameBody } from "../protocol";

/** A frame of no partitions at cluster time timeMs, with the reply's (empty) data. */
export function emptyFrame(timeMs: number): { body: FrameBody; data: ArrayBuffer } {
  const body = {
    timeMs,
    seed: 1,
    controllers: [],
    brokers: [],
    partitions: { count: 0, layout: 1, stride: 1, topics: [], underReplicated: 0, offline: 0, imbalanced: 0, isr: 0, state: 0, replicas: 0 },
    nextElectPreferredMs: -1,
    configs: [],
    events: [],
    horizonMs: timeMs,
    history: 0,
    log: null,
  } as unknown as FrameBody;
  return { body, data: new ArrayBuffer(0) };
}
