// The cluster canvas. Controllers, brokers and labels are a few dozen ordinary canvas calls;
// the dense part, one small cell per partition replica, is written into an ImageData pixel
// buffer and blitted once per broker with putImageData. The calibration measured why: one
// fillRect per cell costs ~0.5–1 µs on a software canvas, so 100,000 cells would take 50–150
// ms a frame, while a pixel buffer costs 1.5–2 ms at 1280×720 whatever the cell count.
//
// Every state is shown by colour and by shape or pattern (colour-blind safe, and legible in
// greyscale): a hollow cell is out of sync; brokers differ in border style and icon as well
// as colour. The palette is Okabe–Ito, read from CSS custom properties so that dark mode and
// a future high-contrast theme change one file.
//
// Past what cells can show (a cell under MIN_CELL_PX device pixels), a broker's replicas are
// drawn as aggregate strips instead: each 2-pixel column stands for a run of consecutive
// partitions and stacks their states (leader, follower, ELR, out of sync, offline) with the
// same colours, ELR and out of sync also by pattern. Zooming ([ and ], or the wheel) narrows
// the partition range on screen until cells return. The geometry lives in layout.ts and is
// kept per frame, so the pointer code hit-tests exactly what was drawn.

import { Frame, NO_SLOT, clockText, spanText, type Layout } from "./frame";
import {
  CAPTION_BAND,
  GAP,
  LABEL_CELL,
  MAX_CELL,
  PAD,
  STRIP_COL_PX,
  STRIP_GAP_PX,
  SUMMARY_H,
  SUMMARY_LINE_H,
  bucketAt,
  brokerBoxes,
  brokerColumns,
  brokerContentH,
  canvasHeights,
  controllersBottom,
  cellAt,
  cellGrid,
  controllerBoxes,
  controllersCompact,
  cellInner,
  gridRect,
  hitRect,
  lowerBound,
  stripGrid,
  useCells,
  type CellGrid,
  type Range,
  type Rect,
  type StripGrid,
} from "./layout";
import type { BrokerState, ControllerState } from "./protocol";
import { onPixelRatioChange } from "./pixelratio";
import { S } from "./strings";

type RGBA = number; // packed little-endian: 0xAABBGGRR, as a Uint32Array over ImageData reads it

interface Palette {
  bg: string;
  box: string;
  fg: string;
  muted: string;
  focus: string;
  running: string;
  fenced: string;
  shutdown: string;
  stopped: string;
  /** The catch-up bar's two parts: in sync (the follower colour) and out of sync. */
  inSync: string;
  outOfSync: string;
  cell: { leader: RGBA; follower: RGBA; elr: RGBA; oos: RGBA; offline: RGBA; gridBg: RGBA };
}

/** Reads CSS custom properties (the palette) as they apply to el, with a fallback for each. */
export function cssReader(el: Element): (name: string, fallback: string) => string {
  const cs = getComputedStyle(el);
  return (name, fallback) => cs.getPropertyValue(name).trim() || fallback;
}

/** Visual state of a broker: what its box looks like. */
export type BrokerLook = "running" | "fenced" | "shutdown" | "stopped";

export function brokerLook(b: BrokerState): BrokerLook {
  if (b.state === "not_running") return "stopped";
  if (b.inControlledShutdown || b.state === "pending_controlled_shutdown" || b.state === "shutting_down") return "shutdown";
  if (b.fenced) return "fenced";
  return "running";
}

function parseColor(text: string, fallback: string): [number, number, number] {
  const m = /^#([0-9a-f]{6})$/i.exec(text.trim()) ?? /^#([0-9a-f]{6})$/i.exec(fallback);
  const v = parseInt(m![1], 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

/** Whether white text reads better than dark text on a packed colour (WCAG relative luminance). */
function isDark(c: RGBA): boolean {
  const lin = (v: number) => {
    const x = v / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(c & 255) + 0.7152 * lin((c >> 8) & 255) + 0.0722 * lin((c >> 16) & 255);
  return l < 0.18;
}

/** Black or white, whichever reads better on the #rrggbb colour css (as cell labels choose). */
export function textOn(css: string): string {
  return isDark(pack(parseColor(css, "#ffffff"))) ? "#ffffff" : "#000000";
}

function pack([r, g, b]: [number, number, number]): RGBA {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** Replica states in the order a strip stacks them, bottom up. */
export const LEADER = 0;
export const FOLLOWER = 1;
export const ELR = 2;
export const OOS = 3;
export const OFFLINE = 4;

/** Layout units the strips leave free over the box's foot for their label ("a column: …"). */
const STRIP_LABEL_CLEARANCE = 4;
/** A cell state no frame has: what drawCells' memo of a fresh grid holds. */
const NOT_DRAWN = 0xff;

/** Cell shapes. */
const SOLID = 0;
const HOLLOW = 1;
const HALF = 2;

/**
 * The state of the replica at position pos of partition part, one of LEADER…OFFLINE, read
 * straight from a frame's arrays (state: 4 bytes per partition, leader position first and the
 * ELR mask second; isrWords: the ISR as nibbles of position + 1). The hot loops below call it
 * once per replica on screen, up to 300,000 times a frame, so it takes the arrays rather than
 * the Frame, allocates nothing and does not build the ISR bitmask.
 */
export function stateOf(state: Uint8Array, isrWords: Uint32Array, part: number, pos: number): number {
  const lp = state[4 * part];
  // An offline partition's ELR members are still its eligible leaders: drawn as such.
  if (lp === NO_SLOT) return state[4 * part + 1] & (1 << pos) ? ELR : OFFLINE;
  if (lp === pos) return LEADER;
  const nibble = pos + 1;
  for (let w = isrWords[part]; w !== 0; w >>>= 4) if ((w & 0xf) === nibble) return FOLLOWER;
  if (state[4 * part + 1] & (1 << pos)) return ELR;
  return OOS;
}

function replicaState(f: Frame, part: number, pos: number): number {
  return stateOf(f.state, f.isrWords, part, pos);
}

/** Where a broker's replicas were drawn in the last frame: enough to hit-test them. */
export interface BrokerGeometry {
  box: Rect;
  /** The grid's top-left in device pixels. */
  gx: number;
  gy: number;
  /** Indexes into the broker's hosted list, [from, to): the replicas in the zoom range. */
  from: number;
  to: number;
  cells: CellGrid | undefined;
  strips: StripGrid | undefined;
}

/** A text, badge, bar or replica grid the renderer drew, with its box (layout units). */
export interface Ink {
  kind: "text" | "badge" | "bar" | "cells";
  text?: string;
  x: number;
  y: number;
  w: number;
  h: number;
  squeezed?: boolean;
}

/** What is under a point of the canvas. */
export type Hit =
  | { kind: "controller"; index: number }
  | { kind: "broker"; slot: number }
  | { kind: "replica"; slot: number; partition: number; position: number }
  | { kind: "bucket"; slot: number; first: number; last: number; counts: number[] };

/** Renderer draws frames on one canvas, resizing its backing store to the element's size. */
/** The smallest share of its size a canvas text is drawn at to fit its room (see Renderer.text). */
const MIN_TEXT_SCALE = 0.75;

/** The least layout width, in units, that the presenter scale leaves the canvas (see Renderer.eff). */
const MIN_LAYOUT_W = 640;
/**
 * The least layout width, in units, of any canvas: a narrower one (a 320 px phone's) draws
 * this layout smaller, everything alike, rather than squeeze its texts into boxes too narrow
 * for them (see Renderer.eff).
 */
const MIN_W = 320;
/** Wall ms between drawings of a playing canvas whose only changes are numbers: ten a second (Renderer.ticking). */
export const TICK_EVERY_MS = 100;

export class Renderer {
  private readonly ctx: CanvasRenderingContext2D;
  private palette!: Palette;
  private image: ImageData | undefined;
  /**
   * Per broker slot: the grid its replicas were last drawn in (cells or strips, with their
   * geometry) and, for cells, each cell's state then. The pixel buffer still holds that drawing.
   */
  private gridMemo: ({ key: string; states?: Uint8Array } | undefined)[] = [];
  /**
   * Per broker slot: what its box was last drawn from (boxKey) and the ink it drew, while the
   * canvas still holds that drawing (see draw: a box none of whose inputs changed is kept).
   */
  private boxMemo: ({ key: string; shapes: Ink[] } | undefined)[] = [];
  /** The last frame's partition words, to find the partitions a frame changed (strips). */
  private prevIsr = new Uint32Array(0);
  private prevState = new Uint32Array(0);
  /** The layout the memos above are of. */
  private memoLayout: Layout | undefined;
  private pixels: Uint32Array | undefined;
  private dpr = 1;
  private cssW = 0;
  private cssH = 0;
  /** Layout units: CSS pixels divided by the scale. */
  private W = 0;
  private H = 0;
  /** Device pixels per layout unit: dpr × scale. */
  private k = 1;
  private last: Frame | undefined;
  private hatch = new Map<string, CanvasPattern>();
  private counts = new Uint32Array(5);
  /** The cell colours by state (LEADER…OFFLINE), from the palette. */
  private colours = new Uint32Array(5);
  /** The data-* values written last (describe), so that unchanged ones are not written again. */
  private written = new Map<string, string>();
  /** What describe last wrote the geometry's data-* values from. */
  private geometryWritten: { brokers: BrokerGeometry[]; controllers: Rect[]; scale: number; ids: string } | undefined;
  /** The font set last on the context (setFont), and the memo's texts by call site. */
  private font = "";
  private memos = new Map<string, { key: number | string; text: string }>();
  /** Frames drawn since the page loaded (data-frames). */
  private drawn = 0;
  /** What the canvas shows (drawnKey), to skip a frame that would draw it again. */
  private keyDrawn = "";
  /** The same without its numbers, and when it was drawn (wall ms): see ticking. */
  private shapeDrawn = "";
  private drawnAt = -Infinity;
  /**
   * While a run plays (the page sets it), a frame whose only changes are numbers in texts (the
   * clock, the watermarks, p99) is drawn at most every TICK_EVERY_MS: at 10× they change every
   * frame, faster than anyone reads them, and the canvas would be drawn and rasterized for
   * them alone. A partition's state, a role or a broker's state is drawn at once; paused, the
   * page draws the last frame again (draw keeps nothing back then).
   */
  ticking = false;
  /** The broker slot the keyboard acts on, or -1. */
  selected = -1;
  /**
   * Everything drawn is this many times larger (presenter mode sets 1.6): the layout works in
   * CSS pixels divided by it, so there is simply less room and bigger type.
   */
  scale = 1;
  /**
   * The scale applied: the presenter scale, lowered on a narrow canvas so that the layout keeps
   * at least MIN_LAYOUT_W units of width (a 1.6× phone screen would squeeze every label), and
   * under 1 on a canvas narrower than MIN_W CSS px, which draws MIN_W units.
   */
  private eff = 1;
  /** The actor with the canvas's keyboard focus (controllers first, then brokers), or -1. */
  focused = -1;
  /** The partitions on screen; undefined means all of them. */
  range: Range | undefined;
  /**
   * Leaves out the countdown to the next electPreferred run: a lesson asking when leadership
   * comes back hides it until the learner has marked their answer.
   */
  hideNextRun = false;
  /** The last frame's geometry: controller boxes and, per broker slot, its boxes and grid. */
  controllersDrawn: Rect[] = [];
  brokersDrawn: BrokerGeometry[] = [];
  /**
   * Whether the last frame drew every replica in the range as a cell of its own: zooming in
   * then shows nothing that is not on screen already (a small cluster).
   */
  get showsEveryReplica(): boolean {
    return this.brokersDrawn.every((g) => g.cells !== undefined && g.cells.fits >= g.to - g.from);
  }
  /** Brokers a row in the last frame (the keyboard's up and down move by it). */
  brokerCols = 1;
  /**
   * The texts, badges, bars and replica grids of the last frame with their boxes (layout
   * units): what a reader reads, which the traffic layer's labels keep clear of (ink). While
   * the canvas has data-record-texts the tests read them too (data-texts), to check that
   * nothing is drawn over anything else and no text is squeezed to fit.
   */
  private shapes: Ink[] = [];
  /** Texts' widths by font and text, see measure. */
  private widths = new Map<string, number>();
  /** The content's height last asked of the page (CSS px), see fitHeight. */
  private contentH = "";
  /** The height last asked of the page at which every broker box is readable (CSS px), see fitHeight. */
  private readableH = "";
  /** A frame will set contentH on the canvas. */
  private heightPending = false;

  constructor(private readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext("2d", { alpha: false });
    if (!ctx) throw new Error("no 2D canvas context");
    this.ctx = ctx;
    this.readPalette();
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      this.readPalette();
      this.redraw();
    });
    new ResizeObserver(() => this.resize()).observe(canvas);
    // A new device pixel ratio with no resize (another screen): the pixels follow it.
    onPixelRatioChange(() => this.resize());
    this.resize();
  }

  private readPalette(): void {
    const v = cssReader(this.canvas);
    this.palette = {
      bg: v("--canvas-bg", "#f4f5f7"),
      box: v("--box-bg", "#ffffff"),
      fg: v("--fg", "#1b1b1b"),
      muted: v("--muted", "#555555"),
      focus: v("--focus", "#0072b2"),
      running: v("--s-running", "#009e73"),
      fenced: v("--s-fenced", "#e69f00"),
      shutdown: v("--s-shutdown", "#cc79a7"),
      stopped: v("--s-stopped", "#d55e00"),
      inSync: v("--c-follower", "#56b4e9"),
      outOfSync: v("--c-oos", "#d55e00"),
      cell: {
        leader: pack(parseColor(v("--c-leader", "#0072b2"), "#0072b2")),
        follower: pack(parseColor(v("--c-follower", "#56b4e9"), "#56b4e9")),
        elr: pack(parseColor(v("--c-elr", "#f0e442"), "#f0e442")),
        oos: pack(parseColor(v("--c-oos", "#d55e00"), "#d55e00")),
        offline: pack(parseColor(v("--c-offline", "#1b1b1b"), "#1b1b1b")),
        gridBg: pack(parseColor(v("--box-bg", "#ffffff"), "#ffffff")),
      },
    };
    this.hatch.clear();
    this.gridMemo = []; // drawn in the old colours
    const c = this.palette.cell;
    this.colours.set([c.leader, c.follower, c.elr, c.oos, c.offline]);
  }

  private resize(): void {
    // The content box, which the browser scales the canvas's pixels into: its border box (the
    // bounding rectangle) less the border, or the drawing is squeezed by the border's width
    // (2 px in 350, 0.6 %, on a phone).
    const c = this.canvas;
    const r = c.getBoundingClientRect();
    const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    const w = Math.max(1, Math.round(r.width - (c.offsetWidth - c.clientWidth)));
    const h = Math.max(240, Math.round(r.height - (c.offsetHeight - c.clientHeight)));
    if (w === this.cssW && h === this.cssH && dpr === this.dpr && this.image) return;
    this.dpr = dpr;
    this.cssW = w;
    this.cssH = h;
    this.applyScale();
    this.canvas.width = Math.round(w * this.dpr);
    this.canvas.height = Math.round(h * this.dpr);
    this.font = ""; // resizing resets the context's state
    this.image = this.ctx.createImageData(this.canvas.width, this.canvas.height);
    this.gridMemo = []; // a fresh buffer holds no cells
    this.pixels = new Uint32Array(this.image.data.buffer);
    this.redraw();
  }

  private applyScale(): void {
    this.eff = Math.min(this.scale, Math.max(Math.min(1, this.cssW / MIN_W), this.cssW / MIN_LAYOUT_W));
    this.k = this.dpr * this.eff;
    this.W = this.cssW / this.eff;
    this.H = this.cssH / this.eff;
  }

  /** Sets the presenter scale and redraws. */
  setScale(scale: number): void {
    this.scale = scale;
    this.applyScale();
    this.redraw();
  }

  /**
   * CSS pixels per layout unit as drawn: the presenter scale, lowered on a narrow canvas (see
   * eff). What is placed over the canvas (traffic, tooltips) converts the geometry with it.
   */
  get drawScale(): number {
    return this.eff;
  }

  /** What the last frame drew that a reader reads, see shapes (layout units). */
  get ink(): readonly Ink[] {
    return this.shapes;
  }

  /** A broker's replica grid as ink: the rows of cells it filled, or its strips. */
  private gridInk(g: BrokerGeometry, gw: number, gh: number): void {
    if (gw <= 0 || gh <= 0) return;
    const k = this.k;
    if (g.cells) {
      const n = Math.min(g.cells.fits, g.to - g.from);
      if (n <= 0) return;
      const c = g.cells.cell;
      this.shapes.push({ kind: "cells", x: g.gx / k, y: g.gy / k, w: (Math.min(n, g.cells.cols) * c) / k, h: (Math.ceil(n / g.cells.cols) * c) / k });
    } else if (g.strips && g.strips.buckets > 0) {
      this.shapes.push({ kind: "cells", x: g.gx / k, y: g.gy / k, w: gw / k, h: (g.strips.rows * (g.strips.rowPx + STRIP_GAP_PX) - STRIP_GAP_PX) / k });
    }
  }

  /** The frame drawn last, if any. */
  get frame(): Frame | undefined {
    return this.last;
  }

  /** Draws the last frame again (after a resize, a theme change or a new selection). */
  redraw(): void {
    if (this.last) this.draw(this.last, true);
  }

  /**
   * Draws one frame; returns the milliseconds it took (for the page's own statistics). A frame
   * that would draw what the canvas shows already (the same texts, actors and partition states:
   * at 1× most frames, as the clock shows tenths of a second) is not drawn again, unless `whole`
   * asks for it (a redraw: a resize, another scale, selection or palette): a canvas drawn is
   * rasterized, composited and copied by the browser, whatever it holds.
   */
  draw(f: Frame, whole = false): number {
    const t0 = performance.now();
    // data-frames counts frames, not paints: a redraw of the same frame (a resize, fitting the
    // canvas's height) is not a new one, and tests wait on the count for the worker's first.
    if (f !== this.last) this.drawn++;
    this.last = f;
    if (this.range && (this.range.hi > f.count || this.range.lo >= this.range.hi)) this.range = undefined; // a new cluster
    const summary = this.summaryLines(f);
    if (f.layout !== this.memoLayout) {
      // Another layout (a new cluster may reuse the old one's version number): nothing
      // drawn before maps onto it.
      this.gridMemo = [];
      this.boxMemo = [];
      this.memoLayout = f.layout;
      this.prevIsr = new Uint32Array(0);
    }
    const changed = this.changedPartitions(f);
    const key = this.drawnKey(f, summary);
    // Worked out only where the key moved: most frames at 1× show what is drawn.
    const shape = key === this.keyDrawn ? this.shapeDrawn : key.replace(/\d+/g, "#");
    // Held back: only numbers moved, too soon after the last drawing (data-tick-ms, read only
    // then: a test's longer pace, as its tab's ten frames a second would hide this one).
    const held = key !== this.keyDrawn && this.ticking && shape === this.shapeDrawn && t0 - this.drawnAt < (Number(this.canvas.dataset.tickMs) || TICK_EVERY_MS);
    if (!whole && changed?.length === 0 && (key === this.keyDrawn || held)) {
      this.describe(f);
      return performance.now() - t0;
    }
    this.keyDrawn = key;
    this.shapeDrawn = shape;
    this.drawnAt = t0;
    this.shapes = [];
    const ctx = this.ctx;
    const p = this.palette;
    const nb = f.body.brokers.length;
    const top = controllersBottom(f.body.controllers.length, this.W) + SUMMARY_H + (summary.length - 1) * SUMMARY_LINE_H;
    this.brokerCols = brokerColumns(nb, this.W);
    const boxW = (this.W - 2 * PAD - (this.brokerCols - 1) * GAP) / this.brokerCols;
    const boxH = brokerContentH(this.mostReplicas(f), boxW);
    this.fitHeight(canvasHeights(top, nb, this.brokerCols, boxH));
    // The band under the last row stays free for the traffic layer's captions, also on a
    // canvas shorter than its content (a large cluster): the boxes shrink instead.
    const boxes = brokerBoxes(nb, this.W, this.H - CAPTION_BAND + PAD, top, boxH);
    // The replicas first, into the pixel buffer. A grid none of whose cells changed is still on
    // the canvas from the last frame: the drawing below is clipped around it and it is not
    // blitted again (the blits were a fifth of the main thread's time at 10,000 partitions).
    const grids = f.body.brokers.map((_, slot) => this.rasterize(f, slot, boxes[slot], changed));
    // Likewise a broker's whole box, when nothing it is drawn from changed (at 10× the clock
    // and the controllers' offsets change every frame, a broker's texts seldom): it is clipped
    // out whole, device pixels its edges touch included, and its ink is the last drawing's. A
    // selected box is drawn, as its ring around the box is.
    const boxKeys = f.body.brokers.map((b, slot) => this.boxKey(b, boxes[slot], grids[slot].geo));
    const kept = boxKeys.map((key, slot) => !whole && !grids[slot].dirty && slot !== this.selected && this.boxMemo[slot]?.key === key);
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.beginPath();
    ctx.rect(0, 0, this.canvas.width, this.canvas.height);
    grids.forEach((g, slot) => {
      if (kept[slot]) {
        const r = boxes[slot];
        const x0 = Math.floor(r.x * this.k);
        const y0 = Math.floor(r.y * this.k);
        ctx.rect(x0, y0, Math.ceil((r.x + r.w) * this.k) - x0, Math.ceil((r.y + r.h) * this.k) - y0);
      } else if (!g.dirty && g.gw > 0 && g.gh > 0) ctx.rect(g.geo.gx, g.geo.gy, g.gw, g.gh);
    });
    ctx.clip("evenodd");
    ctx.setTransform(this.k, 0, 0, this.k, 0, 0);
    ctx.fillStyle = p.bg;
    ctx.fillRect(0, 0, this.W, this.H);
    ctx.textBaseline = "alphabetic";

    this.drawControllers(f.body.controllers);
    this.drawSummary(f, summary);
    this.brokersDrawn = grids.map((g) => g.geo);
    f.body.brokers.forEach((b, slot) => {
      if (kept[slot]) {
        this.shapes.push(...this.boxMemo[slot]!.shapes);
        return;
      }
      const first = this.shapes.length;
      this.drawBroker(b, slot, boxes[slot]);
      this.boxMemo[slot] = { key: boxKeys[slot], shapes: this.shapes.slice(first) };
    });
    this.boxMemo.length = nb;
    this.drawFocus();
    ctx.restore();
    // restore() took back the transform and the font too; setFont's memo must not trust it.
    ctx.setTransform(this.k, 0, 0, this.k, 0, 0);
    ctx.textBaseline = "alphabetic";
    this.font = "";
    grids.forEach((g, slot) => {
      if (!g.dirty || g.gw <= 0 || g.gh <= 0) return;
      ctx.putImageData(this.image!, 0, 0, g.geo.gx, g.geo.gy, g.gw, g.gh);
      if (g.geo.cells) this.drawLabels(f, slot, g.geo.gx, g.geo.gy, g.geo.cells, g.geo.from);
    });
    for (const g of grids) this.gridInk(g.geo, g.gw, g.gh);
    this.describe(f);
    if (this.canvas.dataset.recordTexts) this.canvas.dataset.texts = JSON.stringify(this.shapes);
    return performance.now() - t0;
  }

  /**
   * Everything a drawing depends on besides the partitions' states (changedPartitions) and what
   * a redraw follows (size, scale, palette): the summary's texts, the actors, the partition
   * counts and the view's own state.
   */
  private drawnKey(f: Frame, summary: { text: string; next: string }[]): string {
    const b = f.body;
    const r = this.range;
    return JSON.stringify([summary, b.controllers, b.brokers, b.partitions, this.selected, this.focused, r ? [r.lo, r.hi] : 0, this.hideNextRun]);
  }

  /**
   * Everything a broker's box is drawn from (drawBroker) besides what a redraw follows (size,
   * scale, palette): the broker, its box, and its grid's caption (strips or the cells that do
   * not fit). Its grid is kept or drawn on its own (rasterize).
   */
  private boxKey(b: BrokerState, r: Rect, geo: BrokerGeometry): string {
    const caption = geo.strips ? `s${geo.strips.per}` : geo.cells ? `c${geo.cells.fits},${geo.to - geo.from}` : "";
    return JSON.stringify([b, r.x, r.y, r.w, r.h, caption]);
  }

  private drawControllers(cs: ControllerState[]): void {
    const ctx = this.ctx;
    const p = this.palette;
    const boxes = controllerBoxes(cs.length, this.W);
    const compact = controllersCompact(cs.length, this.W);
    this.controllersDrawn = boxes;
    cs.forEach((c, i) => {
      const { x, y, w, h } = boxes[i];
      ctx.fillStyle = p.box;
      ctx.fillRect(x, y, w, h);
      if (!c.running) {
        ctx.fillStyle = this.hatchPattern(p.stopped);
        ctx.fillRect(x, y, w, h);
      }
      ctx.setLineDash([]);
      ctx.lineWidth = c.active ? 4 : 1.5;
      ctx.strokeStyle = c.active ? p.focus : c.running ? p.muted : p.stopped;
      ctx.strokeRect(x + ctx.lineWidth / 2, y + ctx.lineWidth / 2, w - ctx.lineWidth, h - ctx.lineWidth);
      if (compact) {
        this.drawCompactController(c, boxes[i]);
        return;
      }

      const ix = x + 18;
      const iy = y + 20;
      if (c.active) this.star(ix, iy, 9, p.focus);
      else if (!c.running) this.cross(ix, iy, 7, p.stopped);
      else this.circle(ix, iy, 6, p.muted, false);
      this.text(`controller ${c.id}`, x + 34, y + 25, 600, 14, p.fg, w - 40);
      let line = c.running ? `${c.role} · ${S.canvasEpoch(c.epoch)}` : S.canvasStopped;
      if (c.active) line = `${S.canvasActive} · ${S.canvasEpoch(c.epoch)}`;
      this.text(line, x + 10, y + 43, c.active ? 700 : 400, 12, c.active ? p.focus : p.fg, w - 16);
      this.text(this.memo(`off${i}`, `${c.highWatermark},${c.endOffset}`, () => S.canvasOffsets(c.highWatermark, c.endOffset)), x + 10, y + 57, 400, 11, p.muted, w - 16);
    });
  }

  /**
   * A compact controller box (layout.ts, controllersCompact), for a canvas too narrow for the
   * full boxes side by side: its icon and id, its role (ACTIVE for the active controller, or
   * stopped) and its epoch, each on a line of its own in type larger than the full box's, so
   * that a phone's or a speaker's narrow canvas reads them. The log offsets are the tooltip's.
   */
  private drawCompactController(c: ControllerState, r: Rect): void {
    const p = this.palette;
    const { x, y, w } = r;
    const ix = x + 15;
    const iy = y + 17;
    if (c.active) this.star(ix, iy, 8.5, p.focus);
    else if (!c.running) this.cross(ix, iy, 6.5, p.stopped);
    else this.circle(ix, iy, 5.5, p.muted, false);
    this.text(String(c.id), x + 28, y + 22, 700, 16, p.fg, w - 34);
    const role = c.active ? S.canvasActive : c.running ? c.role : S.canvasStopped;
    this.text(role, x + 9, y + 39, c.active || !c.running ? 700 : 400, 14, c.active ? p.focus : p.fg, w - 16, S.canvasRoleShort(role));
    if (c.running) this.text(S.canvasEpoch(c.epoch), x + 9, y + 56, c.active ? 700 : 400, 14, c.active ? p.focus : p.muted, w - 16);
  }

  /** The keyboard focus ring around the focused controller or broker. */
  private drawFocus(): void {
    if (this.focused < 0) return;
    const nc = this.controllersDrawn.length;
    const r = this.focused < nc ? this.controllersDrawn[this.focused] : this.brokersDrawn[this.focused - nc]?.box;
    if (!r) return;
    const ctx = this.ctx;
    ctx.setLineDash([6, 3]);
    ctx.lineWidth = 3;
    ctx.strokeStyle = this.palette.fg;
    ctx.strokeRect(r.x - 7, r.y - 7, r.w + 14, r.h + 14);
    ctx.setLineDash([]);
  }

  /** What lies under (x, y) in CSS pixels of the canvas, from the last frame drawn. */
  hitTest(xCss: number, yCss: number): Hit | undefined {
    const f = this.last;
    if (!f) return undefined;
    const x = xCss / this.eff;
    const y = yCss / this.eff;
    const c = hitRect(this.controllersDrawn, x, y);
    if (c >= 0) return { kind: "controller", index: c };
    const slot = hitRect(
      this.brokersDrawn.map((g) => g.box),
      x,
      y,
    );
    if (slot < 0) return undefined;
    const g = this.brokersDrawn[slot];
    const px = Math.floor(x * this.k) - g.gx;
    const py = Math.floor(y * this.k) - g.gy;
    const hosted = f.layout.hosted[slot];
    if (g.cells) {
      const i = cellAt(g.cells, px, py);
      if (i >= 0 && g.from + i < g.to) return { kind: "replica", slot, partition: hosted.partitions[g.from + i], position: hosted.positions[g.from + i] };
    } else if (g.strips) {
      const b = bucketAt(g.strips, px, py);
      if (b >= 0) {
        const a = g.from + b * g.strips.per;
        const z = Math.min(g.to, a + g.strips.per);
        const counts = [0, 0, 0, 0, 0];
        for (let i = a; i < z; i++) counts[replicaState(f, hosted.partitions[i], hosted.positions[i])]++;
        return { kind: "bucket", slot, first: hosted.partitions[a], last: hosted.partitions[z - 1], counts };
      }
    }
    return { kind: "broker", slot };
  }

  /**
   * The summary under the controllers, wrapped at its " · " joins into as many lines as the
   * canvas's width needs (one on a wide canvas), with the next balancer run at the right of the
   * last line, or on a line of its own when it does not fit there.
   */
  private summaryLines(f: Frame): { text: string; next: string }[] {
    const b = f.body;
    // With no broker running there is no produce traffic: no p99 to show, not a p99 of 0.
    const producing = b.brokers.some((x) => x.state === "running");
    const p99 = !producing ? S.noProduceTraffic : b.sample ? S.latencyMs(b.sample.produceP99Ms) : "–";
    let summary = S.canvasSummary(clockText(b.timeMs), p99, b.partitions.underReplicated, b.partitions.offline);
    if (this.range) summary += S.canvasRange(this.range.lo, this.range.hi - 1, f.count);
    if (this.canvas.dataset.summary !== summary) this.canvas.dataset.summary = summary;
    const room = this.W - 2 * PAD;
    const lines: { text: string; next: string }[] = [];
    for (const part of summary.split(" · ")) {
      const last = lines[lines.length - 1];
      if (last && this.measure(`${last.text} · ${part}`, 600, 13) <= room) last.text += ` · ${part}`;
      else lines.push({ text: part, next: "" });
    }
    if (b.nextElectPreferredMs >= 0 && !this.hideNextRun) {
      const span = spanText(Math.max(0, b.nextElectPreferredMs - b.timeMs));
      const next = this.memo("next", span, () => S.canvasNextRun(span));
      const last = lines[lines.length - 1];
      if (this.measure(last.text, 600, 13) + 24 + this.measure(next, 400, 12) <= room) last.next = next;
      else lines.push({ text: "", next });
    }
    return lines;
  }

  private drawSummary(f: Frame, lines: { text: string; next: string }[]): void {
    const p = this.palette;
    const room = this.W - 2 * PAD;
    let y = controllersBottom(f.body.controllers.length, this.W) + 20;
    for (const line of lines) {
      if (line.text) this.text(line.text, PAD, y, 600, 13, p.fg, room);
      if (line.next) {
        const w = Math.min(room, this.measure(line.next, 400, 12));
        this.text(line.next, this.W - PAD - w, y, 400, 12, p.muted, w + 1);
      }
      y += SUMMARY_LINE_H;
    }
  }

  /** The most replicas any broker shows in the zoom range: what sizes the boxes. */
  private mostReplicas(f: Frame): number {
    let most = 0;
    for (const h of f.layout.hosted) {
      if (!h) continue;
      const n = this.range ? lowerBound(h.partitions, this.range.hi) - lowerBound(h.partitions, this.range.lo) : h.partitions.length;
      most = Math.max(most, n);
    }
    return most;
  }

  /**
   * Tells the page how tall the drawing needs to be (layout units): the canvas's CSS caps its
   * height there (--content-h), so a small cluster gets a short canvas rather than boxes a page
   * tall, and what explains the run stays near it; and the height at which every broker box is
   * readable (--readable-h), which a phone's canvas keeps to, taller than the screen if it must.
   * Both depend on the width alone, so the resize they cause draws the same heights again and
   * stops.
   */
  private fitHeight(units: { content: number; readable: number }): void {
    const h = `${Math.ceil(units.content * this.eff)}px`;
    const r = `${Math.ceil(units.readable * this.eff)}px`;
    if (h === this.contentH && r === this.readableH) return;
    this.contentH = h;
    this.readableH = r;
    // Set in the next frame, not now: draw may run inside the resize observer's callback, and
    // a size changed there is a "ResizeObserver loop" error the page reports as a failure.
    if (!this.heightPending) {
      this.heightPending = true;
      requestAnimationFrame(() => {
        this.heightPending = false;
        this.canvas.style.setProperty("--content-h", this.contentH);
        this.canvas.style.setProperty("--readable-h", this.readableH);
      });
    }
  }

  private drawBroker(b: BrokerState, slot: number, r: Rect): void {
    const ctx = this.ctx;
    const p = this.palette;
    const look = brokerLook(b);
    const colour = p[look];

    if (slot === this.selected) {
      ctx.setLineDash([]);
      ctx.lineWidth = 3;
      ctx.strokeStyle = p.focus;
      ctx.strokeRect(r.x - 4, r.y - 4, r.w + 8, r.h + 8);
    }
    ctx.fillStyle = p.box;
    ctx.fillRect(r.x, r.y, r.w, r.h);
    // The state band: solid for running, hatched for stopped; the border's dash says the rest.
    ctx.fillStyle = look === "stopped" ? this.hatchPattern(colour) : colour;
    ctx.fillRect(r.x, r.y, r.w, 8);
    ctx.lineWidth = 2;
    ctx.strokeStyle = colour;
    ctx.setLineDash(look === "fenced" ? [8, 5] : look === "shutdown" ? [2, 4] : []);
    ctx.strokeRect(r.x + 1, r.y + 1, r.w - 2, r.h - 2);
    ctx.setLineDash([]);

    const ix = r.x + 16;
    const iy = r.y + 24;
    if (look === "running") this.circle(ix, iy, 7, colour, true);
    else if (look === "fenced") this.triangle(ix, iy, 9, colour);
    else if (look === "shutdown") this.square(ix, iy, 7, colour);
    else this.cross(ix, iy, 7, colour);
    // The state at the right, then the name in the room left of it.
    const state = S.canvasState(b.state, b.fenced, b.inControlledShutdown);
    const sw = Math.min(this.measure(state, 700, 11), r.w * 0.5);
    this.text(state, r.x + r.w - 8 - sw, r.y + 28, 700, 11, p.fg, sw + 1);
    this.text(S.canvasBroker(b.id), r.x + 30, r.y + 29, 700, 14, p.fg, r.w - 38 - sw - 8);
    this.text(S.canvasCounts(b.leaders, b.outOfSync), r.x + 10, r.y + 45, 400, 11.5, p.muted, r.w - 20);
    // The third header row: the GATED badge at the right and the catch-up bar in the room left
    // of it, side by side, under the counts (HEADER_H leaves the row for them).
    let barRight = r.x + r.w - 10;
    if (b.gated) {
      this.setFont(700, 10);
      const gw = ctx.measureText(S.canvasGated).width + 8;
      const gx = r.x + r.w - 10 - gw;
      ctx.strokeStyle = p.fg;
      ctx.lineWidth = 1;
      ctx.strokeRect(gx + 0.5, r.y + 50.5, gw - 1, 13);
      ctx.fillStyle = p.fg;
      ctx.fillText(S.canvasGated, gx + 4, r.y + 61);
      barRight = gx - 6;
      this.shapes.push({ kind: "badge", x: gx, y: r.y + 50, w: gw, h: 14 });
    }
    if (look !== "stopped" && b.outOfSync > 0 && b.replicas > 0) this.catchUpBar(r.x + 10, r.y + 54, barRight - r.x - 10, (b.replicas - b.outOfSync) / b.replicas);

    const geo = this.brokersDrawn[slot];
    if (geo.strips) this.text(this.memo("strips", geo.strips.per, () => S.canvasStrips(geo.strips!.per)), r.x + 8, r.y + r.h - 3, 400, 10, p.muted, r.w - 16, S.canvasStripsShort(geo.strips.per));
    else if (geo.cells && geo.cells.fits < geo.to - geo.from) this.text(S.canvasMore(geo.to - geo.from - geo.cells.fits), r.x + 8, r.y + r.h - 3, 400, 10, p.muted, r.w - 16);
  }

  /**
   * The catch-up bar of a running broker with replicas out of sync: the share of its replicas
   * back in sync, filled in the follower colour, the rest outlined in the out-of-sync colour
   * (the same solid-versus-hollow code as the cells).
   */
  private catchUpBar(x: number, y: number, w: number, share: number): void {
    if (w < 8) return;
    const ctx = this.ctx;
    const p = this.palette;
    ctx.fillStyle = p.inSync;
    ctx.fillRect(x, y, w * share, 5);
    ctx.strokeStyle = p.outOfSync;
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, w - 1, 4);
    this.shapes.push({ kind: "bar", x, y, w, h: 5 });
  }

  /**
   * Rasterizes a broker's replicas in the zoom range into the pixel buffer, as cells, or as
   * strips when cells would be specks, repainting only what changed when the grid is the one
   * drawn last (changed: the partitions this frame changed, undefined when unknown). dirty: the
   * grid's pixels differ from what the canvas shows, so draw blits them.
   */
  private rasterize(f: Frame, slot: number, r: Rect, changed: Int32Array | undefined): { geo: BrokerGeometry; gw: number; gh: number; dirty: boolean } {
    const g = gridRect(r);
    const img = this.image!;
    const gx = Math.round(g.x * this.k);
    const gy = Math.round(g.y * this.k);
    const gw = Math.max(0, Math.min(Math.round(g.w * this.k), img.width - gx));
    let gh = Math.max(0, Math.min(Math.round(g.h * this.k), img.height - gy));
    const hosted = f.layout.hosted[slot];
    let from = 0;
    let to = hosted ? hosted.partitions.length : 0;
    if (this.range && hosted) {
      // hosted lists are in partition order, so the range is a slice found by binary search
      from = lowerBound(hosted.partitions, this.range.lo);
      to = lowerBound(hosted.partitions, this.range.hi, from);
    }
    const geo: BrokerGeometry = { box: r, gx, gy, from, to, cells: undefined, strips: undefined };
    if (gw <= 0 || gh <= 0) return { geo, gw, gh, dirty: false };
    const px = this.pixels!;
    const bg = this.palette.cell.gridBg;
    const clear = () => {
      for (let y = gy; y < gy + gh; y++) px.fill(bg, y * img.width + gx, y * img.width + gx + gw);
    };
    const n = to - from;
    if (useCells(gw, gh, n, MAX_CELL * this.k)) {
      geo.cells = cellGrid(gw, gh, n, MAX_CELL * this.k);
      // The pixel buffer keeps last frame's cells: with the same grid, only the cells whose
      // state changed are painted again (at 10× most frames change a handful of 30,000).
      const key = `cells:${gx},${gy},${gw},${gh}:${from},${to}:${geo.cells.cell},${geo.cells.cols}`;
      let memo = this.gridMemo[slot];
      const same = memo?.key === key;
      if (!same || !memo?.states) {
        clear();
        memo = this.gridMemo[slot] = { key, states: new Uint8Array(geo.cells.fits).fill(NOT_DRAWN) };
      }
      const painted = this.drawCells(f, slot, gx, gy, geo.cells, from, memo.states!, same);
      return { geo, gw, gh, dirty: !same || painted > 0 };
    }
    // The strips' label is written at the box's foot (drawBroker): the strips' area, and the
    // blit of it, end above the label.
    gh = Math.max(1, gh - Math.round(STRIP_LABEL_CLEARANCE * this.k));
    geo.strips = stripGrid(gw, gh, n);
    const st = geo.strips;
    const key = `strips:${gx},${gy},${gw},${gh}:${from},${to}:${st.per},${st.colsPerRow}`;
    if (changed && this.gridMemo[slot]?.key === key) {
      // The same strips as last frame: only the buckets holding a changed partition move
      // (each bucket's column is drawn whole, so it needs no clearing).
      const hosted = f.layout.hosted[slot];
      const dirty = new Set<number>();
      for (const p of changed) {
        const i = lowerBound(hosted.partitions, p, from, to);
        if (i < to && hosted.partitions[i] === p) dirty.add(Math.floor((i - from) / st.per));
      }
      if (dirty.size === 0) return { geo, gw, gh, dirty: false };
      this.drawStrips(f, slot, gx, gy, st, from, to, dirty);
      return { geo, gw, gh, dirty: true };
    }
    clear();
    this.gridMemo[slot] = { key };
    this.drawStrips(f, slot, gx, gy, st, from, to);
    return { geo, gw, gh, dirty: true };
  }

  /**
   * The partitions whose ISR or state words differ from the last frame's, or undefined when
   * there is no last frame of this layout (everything is new). It keeps this frame's words for
   * the next; a pass over two typed arrays, far cheaper than the strips' state counts.
   */
  private changedPartitions(f: Frame): Int32Array | undefined {
    const n = f.count;
    const isr = f.isrWords;
    const state = new Uint32Array(f.state.buffer, f.state.byteOffset, n);
    let out: Int32Array | undefined;
    if (this.prevIsr.length === n) {
      const list: number[] = [];
      const pi = this.prevIsr;
      const ps = this.prevState;
      for (let p = 0; p < n; p++) if (pi[p] !== isr[p] || ps[p] !== state[p]) list.push(p);
      out = Int32Array.from(list);
    }
    if (this.prevIsr.length !== n) {
      this.prevIsr = new Uint32Array(n);
      this.prevState = new Uint32Array(n);
    }
    this.prevIsr.set(isr);
    this.prevState.set(state);
    return out;
  }

  /**
   * Aggregate strips: one STRIP_COL_PX column per bucket of consecutive replicas, a stacked
   * bar of their states from the bottom: leader, follower, ELR (every other pixel column,
   * a pattern as well as a colour), out of sync (every other pixel row), offline.
   */
  private drawStrips(f: Frame, slot: number, gx: number, gy: number, s: StripGrid, from: number, to: number, only?: Set<number>): void {
    const px = this.pixels!;
    const stride = this.image!.width;
    const colour = this.colours;
    const bg = this.palette.cell.gridBg;
    const hosted = f.layout.hosted[slot];
    const counts = this.counts;
    const parts = hosted.partitions;
    const positions = hosted.positions;
    const states = f.state;
    const isr = f.isrWords;
    for (let b = 0; b < s.buckets; b++) {
      if (only && !only.has(b)) continue;
      counts.fill(0);
      const a = from + b * s.per;
      const z = Math.min(to, a + s.per);
      for (let i = a; i < z; i++) counts[stateOf(states, isr, parts[i], positions[i])]++;
      const total = z - a;
      const x0 = gx + (b % s.colsPerRow) * STRIP_COL_PX;
      const h = s.rowPx;
      const top = gy + Math.floor(b / s.colsPerRow) * (h + STRIP_GAP_PX);
      // Walk up from the bottom row, switching state when its share of the height is used.
      let state = 0;
      let until = (counts[0] * h) / total;
      for (let dy = 0; dy < h; dy++) {
        while (state < OFFLINE && dy + 0.5 >= until) until += (counts[++state] * h) / total;
        const row = (top + h - 1 - dy) * stride + x0;
        const col = colour[state];
        px[row] = col;
        px[row + 1] = state === ELR ? bg : state === OOS && dy % 2 === 1 ? bg : col;
      }
    }
  }

  /**
   * Rasterizes a broker's replica cells [from, from + fits) into the pixel buffer, skipping each
   * cell whose state is the one drawn[i] says is there already, and noting the new ones; returns
   * how many it painted. With repaint set the grid was not cleared, so a changed cell is cleared
   * before it is drawn.
   */
  private drawCells(f: Frame, slot: number, gx: number, gy: number, g: CellGrid, from: number, drawn: Uint8Array, repaint: boolean): number {
    const px = this.pixels!;
    const c = this.palette.cell;
    const stride = this.image!.width;
    const hosted = f.layout.hosted[slot];
    const { cell, cols, fits } = g;
    const inner = cellInner(cell); // a gap once cells are big enough to see it
    const border = inner >= 12 ? 2 : 1;
    // The preferred replica (position 0) has its top-right corner cut off: where leadership
    // should return, visible on any fill.
    const notch = inner >= 8 ? Math.floor(inner / 3) : 0;
    const colours = this.colours;
    const parts = hosted.partitions;
    const positions = hosted.positions;
    const state = f.state;
    const isr = f.isrWords;
    let changed = 0;
    for (let i = 0; i < fits; i++) {
      const part = parts[from + i];
      const pos = positions[from + i];
      const st = stateOf(state, isr, part, pos);
      if (drawn[i] === st) continue;
      drawn[i] = st;
      changed++;
      const colour = colours[st];
      // Shapes: solid, hollow (out of sync) and half (ELR); below 4 px only colour shows.
      const shape = inner < 4 ? SOLID : st === ELR ? HALF : st === OOS ? HOLLOW : SOLID;
      const x0 = gx + (i % cols) * cell;
      const y0 = gy + Math.floor(i / cols) * cell;
      if (inner === 1) {
        px[y0 * stride + x0] = colour; // the smallest cells are one pixel: no fill call
        continue;
      }
      if (repaint) for (let dy = 0; dy < inner; dy++) px.fill(c.gridBg, (y0 + dy) * stride + x0, (y0 + dy) * stride + x0 + inner);
      for (let dy = 0; dy < inner; dy++) {
        const row = (y0 + dy) * stride + x0;
        if (shape === SOLID || dy < border || dy >= inner - border) {
          px.fill(colour, row, row + inner);
        } else if (shape === HOLLOW) {
          px.fill(colour, row, row + border);
          px.fill(colour, row + inner - border, row + inner);
        } else {
          // half: the lower-left triangle filled, plus the outline, so it reads as its own shape
          px.fill(colour, row, row + Math.max(border, dy + 1));
          px.fill(colour, row + inner - border, row + inner);
        }
        if (pos === 0 && dy < notch) px.fill(c.gridBg, row + inner - notch + dy, row + inner);
      }
    }
    return changed;
  }

  /** Partition numbers on cells big enough to carry them, drawn after the blit. */
  private drawLabels(f: Frame, slot: number, gx: number, gy: number, g: CellGrid, from: number): void {
    const { cell, cols, fits } = g;
    if (cell < LABEL_CELL * this.k || fits === 0) return;
    const inner = cellInner(cell);
    const hosted = f.layout.hosted[slot];
    const ctx = this.ctx;
    const size = Math.max(9, Math.min(13, (inner / this.k) * 0.5));
    this.setFont(600, size);
    ctx.textAlign = "center";
    for (let i = 0; i < fits; i++) {
      const part = hosted.partitions[from + i];
      const st = replicaState(f, part, hosted.positions[from + i]);
      const colour = this.colours[st];
      // Text on a filled cell is black or white by the fill's lightness; on an outline or a
      // half cell, the page's text colour.
      ctx.fillStyle = st === ELR || st === OOS ? this.palette.fg : isDark(colour) ? "#ffffff" : "#000000";
      const t = f.layout.topicOf(part);
      const x0 = gx + (i % cols) * cell;
      const y0 = gy + Math.floor(i / cols) * cell;
      ctx.fillText(String(t ? part - t.first : part), (x0 + inner / 2) / this.k, (y0 + inner / 2) / this.k + size * 0.36);
    }
    ctx.textAlign = "start";
  }

  /** Fills the read-only debug summary (data-* on the canvas) and the text alternative. */
  private describe(f: Frame): void {
    const b = f.body;
    // An attribute written is a DOM mutation (style invalidation, mutation records) even when
    // its value is the same, so only what changed is written.
    const set = (name: string, value: string) => {
      if (this.written.get(name) === value) return;
      this.written.set(name, value);
      this.canvas.dataset[name] = value;
    };
    set("timeMs", String(b.timeMs));
    set("fenced", b.brokers.filter((x) => x.fenced).map((x) => x.id).join(","));
    set("stopped", b.brokers.filter((x) => x.state === "not_running").map((x) => x.id).join(","));
    set("leaders", b.brokers.map((x) => `${x.id}:${x.leaders}`).join(","));
    const active = b.controllers.find((c) => c.active);
    set("activeController", active ? String(active.id) : "");
    set("offline", String(b.partitions.offline));
    set("configs", b.configs.map((c) => `${c.name}=${c.value}`).join(","));
    set("frames", String(this.drawn));
    // Where things were drawn, in CSS pixels of the canvas (tests click on them), and how
    // each broker's replicas were drawn: cells, or aggregate strips of `per` partitions.
    // Worked out again only when the geometry, the scale or the actors' ids moved: the
    // geometry is replaced when the canvas is drawn, at most ten times a second while playing.
    const sc = this.eff;
    const ids = `${b.brokers.map((x) => x.id).join(",")}/${b.controllers.map((x) => x.id).join(",")}`;
    const was = this.geometryWritten;
    if (!was || was.brokers !== this.brokersDrawn || was.controllers !== this.controllersDrawn || was.scale !== sc || was.ids !== ids) {
      this.geometryWritten = { brokers: this.brokersDrawn, controllers: this.controllersDrawn, scale: sc, ids };
      const box = (r: Rect) => `${Math.round(r.x * sc)},${Math.round(r.y * sc)},${Math.round(r.w * sc)},${Math.round(r.h * sc)}`;
      set("brokerBoxes", this.brokersDrawn.map((g, i) => `${b.brokers[i]?.id}:${box(g.box)}`).join(";"));
      set("controllerBoxes", this.controllersDrawn.map((r, i) => `${b.controllers[i]?.id}:${box(r)}`).join(";"));
      set("view", this.brokersDrawn.map((g) => (g.strips ? `strips/${g.strips.per}` : "cells")).join(","));
    }
  }

  /** The canvas's text alternative, in sentences. */
  description(f: Frame): string {
    const b = f.body;
    const brokers = b.brokers
      .map((x) => S.descBroker(x.id, S.brokerStateText(x.state, x.fenced, x.inControlledShutdown, x.gated), x.leaders))
      .join("; ");
    const active = b.controllers.find((c) => c.active);
    return S.clusterDesc(brokers, active ? S.descController(active.id) : S.descNoController, b.partitions.underReplicated, b.partitions.offline);
  }

  // --- small drawing helpers (CSS pixels) ---

  /**
   * Draws s with its baseline at y, in at most maxWidth. A text too wide is drawn smaller, down
   * to MIN_TEXT_SCALE of its size, then as `short` if one is given: squeezing the letters
   * together (fillText's maxWidth) is the last resort, as a squeezed word is hard to read.
   */
  private text(s: string, x: number, y: number, weight: number, size: number, colour: string, maxWidth: number, short?: string): void {
    const ctx = this.ctx;
    let w = this.measure(s, weight, size);
    if (w > maxWidth && short !== undefined && w * MIN_TEXT_SCALE > maxWidth) {
      s = short;
      w = this.measure(s, weight, size);
    }
    if (w > maxWidth) {
      const smaller = Math.max(size * MIN_TEXT_SCALE, Math.floor((2 * size * maxWidth) / w) / 2);
      w = (w * smaller) / size;
      size = smaller;
    }
    this.setFont(weight, size);
    ctx.fillStyle = colour;
    ctx.fillText(s, x, y, Math.max(1, maxWidth));
    this.shapes.push({ kind: "text", text: s, x, y: y - 0.78 * size, w: Math.min(w, maxWidth), h: size, squeezed: w > maxWidth + 0.5 });
  }

  /**
   * The width of s in a font, remembered: a frame draws about 40 texts, nearly all the same as
   * the frame before's, and text() needs each one's width to fit it.
   */
  private measure(s: string, weight: number, size: number): number {
    const key = `${weight} ${size} ${s}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      if (this.widths.size > 2000) this.widths.clear();
      this.setFont(weight, size);
      w = this.ctx.measureText(s).width;
      this.widths.set(key, w);
    }
    return w;
  }

  /**
   * Sets the font unless it is the one set last: assigning ctx.font parses a CSS font string,
   * and a frame draws about 40 texts in a handful of fonts.
   */
  private setFont(weight: number, size: number): void {
    const font = `${weight} ${size}px ${FONT}`;
    if (font === this.font) return;
    this.font = font;
    this.ctx.font = font;
  }

  /**
   * A text that depends on one number, made again only when the number changes: the catalogue
   * formats numbers with toLocaleString, which costs microseconds a call, and most of these
   * numbers stay the same from one frame to the next.
   */
  private memo(site: string, key: number | string, make: () => string): string {
    const m = this.memos.get(site);
    if (m && m.key === key) return m.text;
    const text = make();
    this.memos.set(site, { key, text });
    return text;
  }

  private circle(x: number, y: number, r: number, colour: string, fill: boolean): void {
    const ctx = this.ctx;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    if (fill) {
      ctx.fillStyle = colour;
      ctx.fill();
    } else {
      ctx.lineWidth = 2;
      ctx.strokeStyle = colour;
      ctx.stroke();
    }
  }

  private triangle(x: number, y: number, r: number, colour: string): void {
    const ctx = this.ctx;
    ctx.beginPath();
    ctx.moveTo(x, y - r);
    ctx.lineTo(x + r, y + r * 0.8);
    ctx.lineTo(x - r, y + r * 0.8);
    ctx.closePath();
    ctx.fillStyle = colour;
    ctx.fill();
  }

  private square(x: number, y: number, r: number, colour: string): void {
    this.ctx.fillStyle = colour;
    this.ctx.fillRect(x - r, y - r, 2 * r, 2 * r);
  }

  private cross(x: number, y: number, r: number, colour: string): void {
    const ctx = this.ctx;
    ctx.beginPath();
    ctx.moveTo(x - r, y - r);
    ctx.lineTo(x + r, y + r);
    ctx.moveTo(x + r, y - r);
    ctx.lineTo(x - r, y + r);
    ctx.lineWidth = 3.5;
    ctx.strokeStyle = colour;
    ctx.setLineDash([]);
    ctx.stroke();
  }

  private star(x: number, y: number, r: number, colour: string): void {
    const ctx = this.ctx;
    ctx.beginPath();
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5;
      const rr = i % 2 === 0 ? r : r * 0.45;
      ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
    }
    ctx.closePath();
    ctx.fillStyle = colour;
    ctx.fill();
  }

  /** A diagonal hatch in the given colour over the box background, for "stopped". */
  private hatchPattern(colour: string): CanvasPattern {
    let pat = this.hatch.get(colour);
    if (pat) return pat;
    const tile = document.createElement("canvas");
    tile.width = tile.height = 8;
    const t = tile.getContext("2d")!;
    t.fillStyle = this.palette.box;
    t.fillRect(0, 0, 8, 8);
    t.strokeStyle = colour;
    t.lineWidth = 2;
    t.beginPath();
    t.moveTo(-2, 10);
    t.lineTo(10, -2);
    t.moveTo(-2, 2);
    t.lineTo(2, -2);
    t.moveTo(6, 10);
    t.lineTo(10, 6);
    t.stroke();
    pat = this.ctx.createPattern(tile, "repeat")!;
    this.hatch.set(colour, pat);
    return pat;
  }
}

const FONT = `system-ui, -apple-system, "Segoe UI", Roboto, sans-serif`;
