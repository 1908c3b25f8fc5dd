// The metadata log strip: the tail of the KRaft metadata log as a row of cells, one per offset,
// each named by its record's short name; committed cells solid, uncommitted ones (past the high
// watermark, still waiting for a majority of the controllers) hatched; the high watermark as a
// line; every controller's log end and every broker's applied offset as a marker under the
// cells; snapshots as dashed lines. The data is the frame's `log` (web/PROTOCOL.md); the
// geometry is pure (stripLayout), so it is unit-tested without a canvas.

import { onPixelRatioChange } from "./pixelratio";
import type { LogNode, LogStrip } from "./protocol";
import { cssReader, textOn } from "./render";
import { S, num } from "./strings";

/** The narrowest cell that still shows its short name, in layout units (CSS px ÷ scale). */
const MIN_CELL = 34;
const PAD = 8;
/** Layout rows, in layout units from the top: labels, cells, offsets, controllers, brokers. */
const ROW = { label: 12, cellTop: 18, cellH: 26, offsets: 58, controllers: 76, brokers: 94, height: 104 };

/** A record type's family, which picks its colour (its short name is always written too). */
export type RecordFamily = "partition" | "broker" | "topic" | "leader" | "noop" | "config";

export function recordFamily(type: string): RecordFamily {
  switch (type) {
    case "PartitionRecord":
    case "PartitionChangeRecord":
    case "ClearElrRecord":
      return "partition";
    case "RegisterBrokerRecord":
    case "BrokerRegistrationChangeRecord":
      return "broker";
    case "TopicRecord":
    case "RemoveTopicRecord":
      return "topic";
    case "LeaderChangeMessage":
      return "leader";
    case "NoOpRecord":
      return "noop";
    default:
      return "config";
  }
}

/** Where the strip puts things, in layout units. */
export interface StripLayout {
  /** The first offset drawn and how many cells (the newest that fit). */
  first: number;
  cells: number;
  x0: number;
  cellW: number;
  /** x of the boundary before offset o (o = first … first + cells), clamped to the strip. */
  xOf(o: number): number;
}

/** The strip's geometry for a width: as many of the newest offsets as fit at MIN_CELL each. */
export function stripLayout(log: LogStrip, width: number): StripLayout {
  const fit = Math.max(1, Math.floor((width - 2 * PAD) / MIN_CELL));
  const cells = Math.min(log.records.length, fit);
  const first = log.start + log.records.length - cells;
  const cellW = cells > 0 ? (width - 2 * PAD) / Math.max(cells, fit) : 0;
  const x0 = width - PAD - cells * cellW;
  return {
    first,
    cells,
    x0,
    cellW,
    xOf: (o) => x0 + (Math.min(Math.max(o, first), first + cells) - first) * cellW,
  };
}

/** The nodes at each position, in the order given: one marker per distinct offset. */
export function groupByPosition(nodes: LogNode[], position: (n: LogNode) => number): Map<number, LogNode[]> {
  const out = new Map<number, LogNode[]>();
  for (const n of nodes) {
    const at = position(n);
    const list = out.get(at);
    if (list) list.push(n);
    else out.set(at, [n]);
  }
  return out;
}

interface Colours {
  fg: string;
  muted: string;
  bg: string;
  hw: string;
  family: Record<RecordFamily, string>;
}

/** LogStripView draws a frame's log strip on its own canvas and keeps a text summary. */
export class LogStripView {
  private readonly ctx: CanvasRenderingContext2D;
  private colours!: Colours;
  private scale = 1;
  private last: LogStrip | undefined;
  /** The strip drawn, as JSON: what a frame's strip is compared with. */
  private lastKey: string | undefined;
  private summaryAt = 0;
  private cssW = 320;
  /**
   * Whether any of the strip is in the viewport (until told otherwise, it is). Out of view it is
   * not drawn: a canvas drawn is rasterized and handed to the compositor whether or not anyone
   * sees it. It is drawn at once when it comes into view (pending: the strip to draw then).
   */
  private onScreen = true;
  private pending: { log: LogStrip | undefined } | undefined;
  /** A redraw (a resize, the scale, the palette) was asked for while out of view. */
  private stale = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly summary: HTMLElement,
  ) {
    this.ctx = canvas.getContext("2d")!;
    this.readColours();
    window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", () => {
      this.readColours();
      this.redraw();
    });
    // The width comes from a ResizeObserver, not from reading layout in each frame's draw: the
    // event log has just changed the DOM then, and a read would force a reflow every frame.
    new ResizeObserver((entries) => {
      // Its real width, however narrow (a 320 px phone): the strip shows the offsets that fit.
      this.cssW = Math.max(1, Math.round(entries[entries.length - 1].contentRect.width));
      this.redraw();
    }).observe(canvas);
    onPixelRatioChange(() => this.redraw()); // redraw reads the new ratio
    new IntersectionObserver((entries) => {
      this.onScreen = entries[entries.length - 1].isIntersecting;
      if (!this.onScreen || (!this.pending && !this.stale)) return;
      if (this.pending) {
        this.last = this.pending.log;
        this.lastKey = this.last ? JSON.stringify(this.last) : "";
        this.pending = undefined;
      }
      this.redraw();
    }).observe(canvas);
  }

  private readColours(): void {
    const v = cssReader(this.canvas);
    this.colours = {
      fg: v("--fg", "#1b1b1b"),
      muted: v("--muted", "#555555"),
      bg: v("--box-bg", "#ffffff"),
      hw: v("--focus", "#0072b2"), // Okabe–Ito blue, sky blue in the dark theme
      family: {
        partition: v("--c-follower", "#56b4e9"),
        broker: v("--s-running", "#009e73"),
        topic: v("--model", "#cc79a7"),
        leader: v("--kip", "#e69f00"),
        noop: v("--border", "#c4c7cc"),
        config: v("--c-elr", "#f0e442"),
      },
    };
  }

  /** Sets the presenter scale (everything drawn that much larger) and redraws. */
  setScale(scale: number): void {
    this.scale = scale;
    this.redraw();
  }

  /**
   * Draws a frame's strip, if it differs from the one on the canvas (most frames bring the same
   * strip: the log grows by a record every half second when nothing happens) and the strip is
   * on screen, else when it comes into view; the text summary (what a screen reader reads,
   * wherever the strip is) follows at most every 250 ms.
   */
  draw(log: LogStrip | undefined, nowMs = performance.now()): void {
    if (!this.onScreen) {
      // Not even compared (a JSON text a frame): the newest strip waits for the view.
      this.pending = { log };
    } else {
      const key = log ? JSON.stringify(log) : "";
      if (key !== this.lastKey) {
        this.lastKey = key;
        this.last = log;
        this.redraw();
      }
    }
    if (log && nowMs - this.summaryAt >= 250) {
      this.summaryAt = nowMs;
      const text = S.logStripSummary(log);
      if (this.summary.textContent !== text) this.summary.textContent = text;
    }
  }

  private redraw(): void {
    const log = this.last;
    const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    const cssW = this.cssW;
    const cssH = Math.round(ROW.height * this.scale);
    if (this.canvas.style.height !== `${cssH}px`) this.canvas.style.height = `${cssH}px`;
    if (!this.onScreen) {
      this.stale = true;
      return;
    }
    this.stale = false;
    const w = Math.round(cssW * dpr);
    const h = Math.round(cssH * dpr);
    if (this.canvas.width !== w || this.canvas.height !== h) {
      this.canvas.width = w;
      this.canvas.height = h;
    }
    const ctx = this.ctx;
    const k = dpr * this.scale;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (!log) return;
    ctx.setTransform(k, 0, 0, k, 0, 0);
    const W = cssW / this.scale;
    const L = stripLayout(log, W);
    const c = this.colours;
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";

    // Cells: solid once committed, hatched while they wait for a majority.
    for (let i = 0; i < L.cells; i++) {
      const o = L.first + i;
      const type = log.records[o - log.start];
      const x = L.x0 + i * L.cellW;
      const fill = c.family[recordFamily(type)];
      const committed = o < log.highWatermark;
      ctx.fillStyle = committed ? fill : c.bg;
      ctx.fillRect(x + 1, ROW.cellTop, L.cellW - 2, ROW.cellH);
      if (!committed) {
        ctx.save();
        ctx.beginPath();
        ctx.rect(x + 1, ROW.cellTop, L.cellW - 2, ROW.cellH);
        ctx.clip();
        ctx.strokeStyle = fill;
        ctx.lineWidth = 2;
        for (let d = -ROW.cellH; d < L.cellW; d += 6) {
          ctx.beginPath();
          ctx.moveTo(x + d, ROW.cellTop + ROW.cellH);
          ctx.lineTo(x + d + ROW.cellH, ROW.cellTop);
          ctx.stroke();
        }
        ctx.restore();
        ctx.setLineDash([3, 2]);
        ctx.strokeStyle = c.fg;
        ctx.lineWidth = 1;
        ctx.strokeRect(x + 1.5, ROW.cellTop + 0.5, L.cellW - 3, ROW.cellH - 1);
        ctx.setLineDash([]);
      }
      // Dark text on a light fill, light on a dark one (the no-op grey is dark in dark mode);
      // an uncommitted cell shows the page's background, so the page's text colour.
      ctx.fillStyle = committed ? textOn(fill) : c.fg;
      ctx.textAlign = "center";
      ctx.fillText(S.recordShort(type), x + L.cellW / 2, ROW.cellTop + ROW.cellH / 2, L.cellW - 4);
    }

    // The first and last offsets shown, and the high watermark as a line with its label.
    ctx.fillStyle = c.muted;
    ctx.textAlign = "left";
    ctx.fillText(num(L.first), L.x0 + 1, ROW.offsets);
    ctx.textAlign = "right";
    ctx.fillText(num(L.first + L.cells - 1), L.x0 + L.cells * L.cellW - 1, ROW.offsets);
    const hx = L.xOf(log.highWatermark);
    ctx.strokeStyle = c.hw;
    ctx.lineWidth = 3;
    ctx.beginPath();
    ctx.moveTo(hx, ROW.cellTop - 4);
    ctx.lineTo(hx, ROW.cellTop + ROW.cellH + 4);
    ctx.stroke();
    ctx.fillStyle = c.hw;
    ctx.textAlign = hx > W - 60 ? "right" : "left";
    ctx.fillText(S.logStripHw(log.highWatermark), hx + (hx > W - 60 ? -3 : 3), ROW.label);

    // Snapshots: a dashed line at each end offset inside the strip.
    const snaps = groupByPosition(
      log.nodes.filter((n) => n.controller && n.snapshot >= L.first && n.snapshot <= L.first + L.cells),
      (n) => n.snapshot,
    );
    ctx.setLineDash([4, 3]);
    ctx.strokeStyle = c.fg;
    ctx.lineWidth = 1.5;
    for (const [at, ns] of snaps) {
      const x = L.xOf(at);
      ctx.beginPath();
      ctx.moveTo(x, ROW.cellTop - 6);
      ctx.lineTo(x, ROW.cellTop + ROW.cellH + 6);
      ctx.stroke();
      ctx.fillStyle = c.fg;
      ctx.textAlign = "right";
      ctx.fillText(S.logStripSnapshot(ns.map((n) => n.id)), x - 3, ROW.label);
    }
    ctx.setLineDash([]);
    // Older snapshots, behind the strip: named at its left edge.
    const older = log.nodes.filter((n) => n.controller && n.snapshot >= 0 && n.snapshot < L.first);
    if (older.length > 0) {
      ctx.fillStyle = c.fg;
      ctx.textAlign = "left";
      const at = Math.max(...older.map((n) => n.snapshot));
      ctx.fillText(S.logStripOlderSnapshot(older.map((n) => n.id), at), L.x0, ROW.label);
    }

    // Where each node is: controllers by their log end, brokers by what they have applied.
    const drawn: StripInk[] = [];
    this.markers(L, log.nodes.filter((n) => n.controller), (n) => n.endOffset, ROW.controllers, (n) => String(n.id), drawn);
    this.markers(L, log.nodes.filter((n) => !n.controller), (n) => n.applied, ROW.brokers, (n) => S.logStripBroker(n.id), drawn);
    // While the canvas has data-record-texts the tests read the markers and their labels.
    if (this.canvas.dataset.recordTexts) this.canvas.dataset.texts = JSON.stringify(drawn);
  }

  private markers(L: StripLayout, nodes: LogNode[], pos: (n: LogNode) => number, y: number, name: (n: LogNode) => string, drawn: StripInk[]): void {
    const ctx = this.ctx;
    const c = this.colours;
    const groups = [...groupByPosition(nodes, pos)].map(([at, ns]) => {
      const behind = at < L.first;
      const label = ns.map((n) => name(n) + (n.running ? "" : S.logStripDown)).join(" ") + (behind ? ` @${num(at)}` : "");
      return { at, x: L.xOf(at), w: ctx.measureText(label).width, behind, label, down: ns.every((n) => !n.running) };
    });
    let lefts = placeLabels(groups, L.x0);
    // A label that had to go past another node's marker names its offset, as a label behind the
    // strip does: next to the other marker it would read as that one's.
    const far = beyondMarkers(groups, lefts);
    if (far.some((f) => f)) {
      groups.forEach((g, i) => {
        if (!far[i]) return;
        g.label += ` @${num(g.at)}`;
        g.w = ctx.measureText(g.label).width;
      });
      lefts = placeLabels(groups, L.x0);
    }
    ctx.textAlign = "left";
    groups.forEach((g, i) => {
      // The triangle fills its box (markerBox), the box the labels keep clear of.
      const b = markerBox(g.x, y, g.behind);
      drawn.push({ kind: "marker", text: g.label, ...b });
      drawn.push({ kind: "text", text: g.label, x: lefts[i], y: y - LABEL_H / 2, w: g.w, h: LABEL_H });
      ctx.fillStyle = g.down ? c.muted : c.fg;
      ctx.beginPath();
      if (g.behind) {
        ctx.moveTo(b.x, y);
        ctx.lineTo(b.x + b.w, b.y);
        ctx.lineTo(b.x + b.w, b.y + b.h);
      } else {
        ctx.moveTo(g.x, b.y);
        ctx.lineTo(b.x, b.y + b.h);
        ctx.lineTo(b.x + b.w, b.y + b.h);
      }
      ctx.fill();
      ctx.fillText(g.label, lefts[i], y);
    });
  }
}

/** A marker's label to place: the marker's x, the label's width, and whether it sits behind the strip. */
export interface LabelItem {
  x: number;
  w: number;
  behind: boolean;
}

/** A marker or a label the strip drew (layout units), as the tests read them (data-texts). */
export interface StripInk {
  kind: "marker" | "text";
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Room between a label and its marker; half of it between two labels. */
const LABEL_GAP = 8;
/** A label's height: the 11 px font, centred on its row. */
const LABEL_H = 11;
/** The least room between a label and another node's marker. */
const MARKER_CLEAR = 3;

/**
 * A marker's box at (x, y): a triangle pointing up at the offset, or, for an offset behind the
 * strip, pointing left at its edge.
 */
export function markerBox(x: number, y: number, behind: boolean): { x: number; y: number; w: number; h: number } {
  return behind ? { x: x - 6, y: y - 5, w: 6, h: 10 } : { x: x - 5, y: y - 7, w: 10, h: 8 };
}

/**
 * Which labels (at lefts, from placeLabels) lie apart from their marker, another marker
 * between them: a marker behind the strip's edge is not counted (its label names its offset).
 */
export function beyondMarkers(items: readonly LabelItem[], lefts: readonly number[]): boolean[] {
  return items.map((it, i) => {
    if (it.behind) return false;
    const [a, b] = lefts[i] + it.w <= it.x ? [lefts[i] + it.w, it.x] : [it.x, lefts[i]];
    return items.some((o, j) => j !== i && !o.behind && o.x > a && o.x < b);
  });
}

/**
 * Where each marker's label starts (its left x), so that no label is written over another or
 * over another node's marker (markers of nodes a few offsets apart are a cell apart, narrower
 * than two labels). A label goes just left of its marker where there is room, these first, from
 * the right; the others go left of those, moved past the labels and markers in their way (the
 * page names the offset of a label so placed, see beyondMarkers), or, with no room left before
 * the strip's left edge x0, right of their marker likewise. The labels of markers behind the
 * strip (at its left edge) go right of it, one after the other, before all others.
 */
export function placeLabels(items: readonly LabelItem[], x0: number): number[] {
  const out = new Array<number>(items.length);
  // What a label must keep clear of: the other markers, and the labels placed so far.
  const taken: { lo: number; hi: number; owner: number }[] = items.map((it, i) => {
    const b = markerBox(it.x, 0, it.behind);
    return { lo: b.x - MARKER_CLEAR, hi: b.x + b.w + MARKER_CLEAR, owner: i };
  });
  const clash = (i: number, left: number, w: number) => taken.find((t) => t.owner !== i && left < t.hi && left + w > t.lo);
  const rightOf = (i: number, from: number): number => {
    let left = from;
    for (let t = clash(i, left, items[i].w); t; t = clash(i, left, items[i].w)) left = t.hi;
    return left;
  };
  const place = (i: number, left: number) => {
    out[i] = left;
    taken.push({ lo: left - LABEL_GAP / 2, hi: left + items[i].w + LABEL_GAP / 2, owner: -1 });
  };
  for (let i = 0; i < items.length; i++) if (items[i].behind) place(i, rightOf(i, items[i].x + LABEL_GAP));
  const order = items
    .map((_, i) => i)
    .filter((i) => !items[i].behind)
    .sort((a, b) => items[b].x - items[a].x);
  const later: number[] = [];
  for (const i of order) {
    const it = items[i];
    const left = it.x - LABEL_GAP - it.w;
    if (left >= x0 && !clash(i, left, it.w)) place(i, left);
    else later.push(i);
  }
  for (const i of later) {
    const it = items[i];
    let right = it.x - LABEL_GAP;
    for (let t = clash(i, right - it.w, it.w); t && right - it.w >= x0; t = clash(i, right - it.w, it.w)) right = t.lo;
    place(i, right - it.w >= x0 ? right - it.w : rightOf(i, it.x + LABEL_GAP));
  }
  return out;
}
