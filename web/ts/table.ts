// The partition table, in the layout of `kafka-topics.sh --describe`: a line per topic, then
// one row per partition with Leader, Replicas, Isr (in Kafka's order), Elr and LastKnownElr.
// It shows the first ROWS partitions that match the filter; matching walks the frame's typed
// arrays, so it stays cheap at 100,000 partitions, and the DOM is touched only when a row's
// text changed.

import { FLAG_DELETED, NO_SLOT, type Frame } from "./frame";
import { S } from "./strings";

const ROWS = 50;

type Pred = (f: Frame, p: number, partition: number, topic: string) => boolean;

/** Parses the filter box: every word must match (see S.filterHelp for the vocabulary). */
export function parseFilter(text: string): Pred[] {
  const preds: Pred[] = [];
  const slotMask = (f: Frame, p: number, id: number) => {
    let m = 0;
    const base = p * f.layout.stride;
    for (let k = 0; k < f.layout.stride; k++) {
      const s = f.layout.replicas[base + k];
      if (s !== NO_SLOT && f.brokerId(s) === id) m |= 1 << k;
    }
    return m;
  };
  for (const word of text.trim().toLowerCase().split(/\s+/)) {
    if (word === "") continue;
    let m: RegExpExecArray | null;
    if (/^\d+$/.test(word)) {
      const n = Number(word);
      preds.push((_f, _p, partition) => partition === n);
    } else if ((m = /^leader:(\d+|none|-1)$/.exec(word))) {
      const id = m[1] === "none" ? -1 : Number(m[1]);
      preds.push((f, p) => f.leader(p) === id);
    } else if ((m = /^replica:(\d+)$/.exec(word))) {
      const id = Number(m[1]);
      preds.push((f, p) => slotMask(f, p, id) !== 0);
    } else if ((m = /^([-!])?isr:(\d+)$/.exec(word))) {
      const id = Number(m[2]);
      const out = m[1] !== undefined;
      preds.push((f, p) => {
        const mask = slotMask(f, p, id);
        return mask !== 0 && ((f.isrMask[p] & mask) !== 0) !== out;
      });
    } else if ((m = /^elr:(\d+)$/.exec(word))) {
      const id = Number(m[1]);
      preds.push((f, p) => (f.elrMask(p) & slotMask(f, p, id)) !== 0);
    } else if (word === "under") {
      preds.push((f, p) => popcount(f.isrMask[p]) < f.layout.replicaSlots(p).length);
    } else if (word === "offline") {
      preds.push((f, p) => f.leaderPos(p) === NO_SLOT);
    } else {
      preds.push((_f, _p, _n, topic) => topic.toLowerCase().includes(word));
    }
  }
  return preds;
}

function popcount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

export class PartitionTable {
  private frame: Frame | undefined;
  private preds: Pred[] = [];
  private lastRows = "";
  private lastTopics = "";

  constructor(
    private readonly body: HTMLTableSectionElement,
    private readonly caption: HTMLElement,
    private readonly topicLine: HTMLElement,
    filter: HTMLInputElement,
  ) {
    filter.addEventListener("input", () => {
      this.preds = parseFilter(filter.value);
      this.render();
    });
  }

  update(f: Frame): void {
    this.frame = f;
    this.render();
  }

  private render(): void {
    const f = this.frame;
    if (!f) return;
    const rows: string[][] = [];
    const ids: [number, number][] = [];
    let matching = 0;
    let total = 0;
    for (const t of f.layout.topics) {
      if (t.deleted) continue;
      for (let i = 0; i < t.count; i++) {
        const p = t.first + i;
        if (f.flags(p) & FLAG_DELETED) continue;
        total++;
        if (!this.preds.every((pred) => pred(f, p, i, t.name))) continue;
        matching++;
        if (rows.length >= ROWS) continue;
        const leader = f.leader(p);
        rows.push([
          t.name,
          String(i),
          leader < 0 ? S.noLeader : String(leader),
          f.replicas(p).join(","),
          f.isr(p).join(","),
          f.members(p, f.elrMask(p)).join(","),
          f.members(p, f.lastKnownElrMask(p)).join(","),
        ]);
        ids.push([i, leader]);
      }
    }
    this.caption.textContent = S.partitionCaption(rows.length, matching, total);

    const topics = f.layout.topics
      .filter((t) => !t.deleted)
      .map((t) => {
        const configs = Object.entries(t.configs ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(",");
        return `Topic: ${t.name}\tTopicId: ${t.id}\tPartitionCount: ${t.count}\tReplicationFactor: ${f.layout.replicaSlots(t.first).length}\tConfigs: ${configs}`;
      })
      .join("\n");
    if (topics !== this.lastTopics) {
      this.topicLine.textContent = topics;
      this.lastTopics = topics;
    }

    const key = rows.map((r) => r.join("\t")).join("\n");
    if (key === this.lastRows) return;
    this.lastRows = key;
    const frag = document.createDocumentFragment();
    rows.forEach((r, i) => {
      const tr = document.createElement("tr");
      tr.dataset.partition = String(ids[i][0]);
      tr.dataset.leader = String(ids[i][1]);
      for (const cell of r) {
        const td = document.createElement("td");
        td.textContent = cell;
        tr.append(td);
      }
      frag.append(tr);
    });
    this.body.replaceChildren(frag);
  }
}
