// Decoding a frame: the JSON part (FrameBody) plus the binary attachment with one fixed-size
// record per partition (web/PROTOCOL.md, "Frames"). Nothing here builds an object per
// partition, and nothing walks the partitions when a frame arrives: the renderer and the
// table read the typed arrays directly, so a frame of 100,000 partitions costs two
// typed-array views. (An ISR bitmask array per frame used to be derived here: 100 KB of
// garbage per frame at 100,000 partitions, for the young-generation GC to collect at 30 fps.)

import type { FrameBody, TopicInfo } from "./protocol";

/** No leader, and the padding of the replicas array. */
export const NO_SLOT = 0xff;
export const FLAG_RECOVERING = 1;
export const FLAG_DELETED = 2;

/**
 * The partition layout: topics and each partition's replicas as broker slots. It changes only
 * when topics are created or deleted, so the worker sends it again only then.
 */
export class Layout {
  /** For each broker slot, the partitions it holds a replica of and at which position. */
  readonly hosted: { partitions: Int32Array; positions: Uint8Array }[];

  constructor(
    readonly version: number,
    readonly count: number,
    readonly stride: number,
    readonly topics: TopicInfo[],
    /** count × stride broker slots, preferred replica first, NO_SLOT after the last. */
    readonly replicas: Uint8Array,
    brokers: number,
  ) {
    const sizes = new Int32Array(brokers);
    for (let i = 0; i < replicas.length; i++) if (replicas[i] !== NO_SLOT && replicas[i] < brokers) sizes[replicas[i]]++;
    this.hosted = Array.from(sizes, (n) => ({ partitions: new Int32Array(n), positions: new Uint8Array(n) }));
    const fill = new Int32Array(brokers);
    for (let p = 0; p < count; p++) {
      for (let k = 0; k < stride; k++) {
        const slot = replicas[p * stride + k];
        if (slot === NO_SLOT || slot >= brokers) continue;
        const h = this.hosted[slot];
        h.partitions[fill[slot]] = p;
        h.positions[fill[slot]] = k;
        fill[slot]++;
      }
    }
  }

  /** The broker slots of partition p's replicas, preferred first. */
  replicaSlots(p: number): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.stride; k++) {
      const s = this.replicas[p * this.stride + k];
      if (s === NO_SLOT) break;
      out.push(s);
    }
    return out;
  }

  /** The topic partition p belongs to. */
  topicOf(p: number): TopicInfo | undefined {
    for (const t of this.topics) if (p >= t.first && p < t.first + t.count) return t;
    return undefined;
  }
}

/**
 * The ISR of one partition as a bitmask over replica positions (bit k: the replica at position
 * k is in the ISR), from its ISR word: one nibble per member, position + 1, in Kafka's order.
 */
export function isrMaskOfWord(w: number): number {
  let m = 0;
  while (w !== 0) {
    m |= 1 << ((w & 0xf) - 1);
    w >>>= 4;
  }
  return m;
}

/** One frame, decoded: typed views over the attachment. */
export class Frame {
  readonly isrWords: Uint32Array;
  readonly state: Uint8Array;
  private masks: Uint8Array | undefined;

  constructor(
    readonly body: FrameBody,
    data: ArrayBuffer,
    readonly layout: Layout,
  ) {
    const n = body.partitions.count;
    // Uint32Array reads the platform's byte order; every browser KRaft Lab runs on is
    // little-endian, which the worker writes.
    this.isrWords = new Uint32Array(data, body.partitions.isr, n);
    this.state = new Uint8Array(data, body.partitions.state, 4 * n);
  }

  get count(): number {
    return this.body.partitions.count;
  }

  /** Bit k: the replica at position k of partition p is in the ISR. */
  isrMaskOf(p: number): number {
    return isrMaskOfWord(this.isrWords[p]);
  }

  /**
   * Every partition's ISR bitmask, derived on first use (isrMaskOf needs no array): for
   * readers that scan all partitions repeatedly.
   */
  get isrMask(): Uint8Array {
    if (!this.masks) {
      const n = this.count;
      this.masks = new Uint8Array(n);
      for (let p = 0; p < n; p++) this.masks[p] = isrMaskOfWord(this.isrWords[p]);
    }
    return this.masks;
  }

  /** Position of the leader in the replica list, or NO_SLOT. */
  leaderPos(p: number): number {
    return this.state[4 * p];
  }
  elrMask(p: number): number {
    return this.state[4 * p + 1];
  }
  lastKnownElrMask(p: number): number {
    return this.state[4 * p + 2];
  }
  flags(p: number): number {
    return this.state[4 * p + 3];
  }

  /** Broker id of slot s. */
  brokerId(slot: number): number {
    return this.body.brokers[slot]?.id ?? -1;
  }

  /** Leader's broker id, or -1. */
  leader(p: number): number {
    const pos = this.leaderPos(p);
    if (pos === NO_SLOT) return -1;
    return this.brokerId(this.layout.replicas[p * this.layout.stride + pos]);
  }

  /** The replicas' broker ids, preferred first. */
  replicas(p: number): number[] {
    return this.layout.replicaSlots(p).map((s) => this.brokerId(s));
  }

  /** The ISR's broker ids in Kafka's order. */
  isr(p: number): number[] {
    const out: number[] = [];
    let w = this.isrWords[p];
    const base = p * this.layout.stride;
    while (w !== 0) {
      out.push(this.brokerId(this.layout.replicas[base + (w & 0xf) - 1]));
      w >>>= 4;
    }
    return out;
  }

  /** The brokers whose positions are set in mask, in replica order. */
  members(p: number, mask: number): number[] {
    const out: number[] = [];
    const base = p * this.layout.stride;
    for (let k = 0; k < this.layout.stride; k++) {
      if (mask & (1 << k)) out.push(this.brokerId(this.layout.replicas[base + k]));
    }
    return out;
  }
}

/** Builds the layout from a frame that carries it, or keeps the one held. */
export function layoutFrom(body: FrameBody, data: ArrayBuffer, held: Layout | undefined): Layout {
  const pi = body.partitions;
  if (pi.replicas < 0) {
    if (!held || held.version !== pi.layout) throw new Error(`frame without layout ${pi.layout}, holding ${held?.version}`);
    return held;
  }
  return new Layout(
    pi.layout,
    pi.count,
    pi.stride,
    pi.topics ?? [],
    new Uint8Array(data, pi.replicas, pi.count * pi.stride),
    body.brokers.length,
  );
}

/** Cluster time as h:mm:ss.s. */
export function clockText(ms: number): string {
  const tenths = Math.floor(ms / 100) % 10;
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}.${tenths}`;
}

/** A span of cluster time in words: "450 ms", "12 s", "4 min 5 s". */
export function spanText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  return `${Math.floor(s / 60)} min ${s % 60} s`;
}
