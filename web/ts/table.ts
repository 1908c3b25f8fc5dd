// The partition table, in the layout of `kafka-topics.sh --describe`: a line per topic, then
// one row per partition with Leader, Replicas, Isr (in Kafka's order), Elr and LastKnownElr.
//
// It is virtualised: every partition that matches the filter can be scrolled to, but only the
// rows in view (plus a few either side) exist in the DOM, in a pool of rows whose cells are
// updated in place when their text changed; two spacer bodies around #partition-rows give the
// scroll range its full height. Matching walks the frame's typed arrays into one reused index
// array, so an update at 100,000 partitions is a pass over typed arrays and a few dozen cell
// writes, not 100,000 rows. The page calls update a few times a second at most (main.ts).

import { setText } from "./dom";
import { FLAG_DELETED, NO_SLOT, type Frame } from "./frame";
import { S } from "./strings";

/** Rows rendered beyond the visible ones, above and below, so a scroll shows no blank rows. */
const OVERSCAN = 10;
/** A row's height before one has been measured (px). */
const ROW_PX = 21;

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
        return mask !== 0 && ((f.isrMaskOf(p) & mask) !== 0) !== out;
      });
    } else if ((m = /^elr:(\d+)$/.exec(word))) {
      const id = Number(m[1]);
      preds.push((f, p) => (f.elrMask(p) & slotMask(f, p, id)) !== 0);
    } else if (word === "under") {
      preds.push((f, p) => popcount(f.isrMaskOf(p)) < f.layout.replicaSlots(p).length);
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
  private lastTopics = "";
  private topicsOf: unknown;
  /** The matching partitions of the last update, in table order: matches[0..matching). */
  private matches = new Int32Array(0);
  private matching = 0;
  private rowH = 0;
  private scrollQueued = false;
  private readonly scroller: HTMLElement | null;
  private readonly above: HTMLTableSectionElement;
  private readonly below: HTMLTableSectionElement;

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
    // The spacers: a body before and after #partition-rows, each one row of the height of the
    // rows not rendered, so the scrollbar spans every matching partition.
    const spacer = () => {
      const tb = document.createElement("tbody");
      tb.className = "table-spacer";
      tb.setAttribute("aria-hidden", "true");
      tb.append(document.createElement("tr"));
      return tb;
    };
    this.above = spacer();
    this.below = spacer();
    body.before(this.above);
    body.after(this.below);
    this.scroller = body.closest<HTMLElement>(".table-wrap");
    this.scroller?.addEventListener(
      "scroll",
      () => {
        if (this.scrollQueued) return;
        this.scrollQueued = true;
        requestAnimationFrame(() => {
          this.scrollQueued = false;
          this.rows();
        });
      },
      { passive: true },
    );
  }

  update(f: Frame): void {
    this.frame = f;
    this.render();
  }

  /** Finds the matching partitions and shows the rows in view. */
  private render(): void {
    const f = this.frame;
    if (!f) return;
    if (this.matches.length < f.count) this.matches = new Int32Array(f.count);
    const matches = this.matches;
    const preds = this.preds;
    let matching = 0;
    let total = 0;
    for (const t of f.layout.topics) {
      if (t.deleted) continue;
      for (let i = 0; i < t.count; i++) {
        const p = t.first + i;
        if (f.flags(p) & FLAG_DELETED) continue;
        total++;
        if (preds.length > 0 && !preds.every((pred) => pred(f, p, i, t.name))) continue;
        matches[matching++] = p;
      }
    }
    this.matching = matching;
    // Every matching partition can be scrolled to, so all of them are "shown".
    setText(this.caption, S.partitionCaption(matching, matching, total));

    if (this.topicsOf !== f.layout) {
      this.topicsOf = f.layout;
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
    }
    this.rows();
  }

  /** Renders the rows in view from the last match, reusing the row elements. */
  private rows(): void {
    const f = this.frame;
    if (!f) return;
    const rowH = this.rowH || ROW_PX;
    const top = this.scroller?.scrollTop ?? 0;
    const height = this.scroller?.clientHeight || 20 * rowH;
    // An even first row keeps the zebra striping (nth-child) still while scrolling.
    let first = Math.max(0, Math.floor(top / rowH) - OVERSCAN);
    first -= first % 2;
    const last = Math.min(this.matching, Math.ceil((top + height) / rowH) + OVERSCAN);
    const n = Math.max(0, last - first);
    const rows = this.body.rows;
    while (rows.length > n) this.body.lastElementChild!.remove();
    while (rows.length < n) {
      const tr = document.createElement("tr");
      for (let k = 0; k < 7; k++) tr.append(document.createElement("td"));
      this.body.append(tr);
    }
    for (let r = 0; r < n; r++) this.fill(rows[r], f, this.matches[first + r]);
    (this.above.rows[0] as HTMLElement).style.height = `${first * rowH}px`;
    (this.below.rows[0] as HTMLElement).style.height = `${(this.matching - last) * rowH}px`;
    if (!this.rowH && n > 0) {
      const h = rows[0].getBoundingClientRect().height;
      if (h > 0) {
        this.rowH = h;
        if (Math.abs(h - rowH) > 0.5) this.rows(); // spacers in the measured height
      }
    }
  }

  /** Writes partition p into a row, touching only the cells whose text changed. */
  private fill(tr: HTMLTableRowElement, f: Frame, p: number): void {
    const t = f.layout.topicOf(p);
    const i = t ? p - t.first : p;
    const leader = f.leader(p);
    setText(tr.cells[0], t?.name ?? "");
    setText(tr.cells[1], String(i));
    setText(tr.cells[2], leader < 0 ? S.noLeader : String(leader));
    setText(tr.cells[3], f.replicas(p).join(","));
    setText(tr.cells[4], f.isr(p).join(","));
    setText(tr.cells[5], f.members(p, f.elrMask(p)).join(","));
    setText(tr.cells[6], f.members(p, f.lastKnownElrMask(p)).join(","));
    const part = String(i);
    const lead = String(leader);
    if (tr.dataset.partition !== part) tr.dataset.partition = part;
    if (tr.dataset.leader !== lead) tr.dataset.leader = lead;
  }
}
