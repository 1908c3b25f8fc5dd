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

import { Frame, NO_SLOT, clockText, spanText } from "./frame";
import type { BrokerState, ControllerState } from "./protocol";
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
  cell: { leader: RGBA; follower: RGBA; elr: RGBA; oos: RGBA; offline: RGBA; gridBg: RGBA };
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

function pack([r, g, b]: [number, number, number]): RGBA {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

const PAD = 12;
const GAP = 12;
const CONTROLLER_H = 62;
const SUMMARY_H = 28;
const HEADER_H = 54;
const MAX_CELL_CSS = 30;
/** Cells at least this big (CSS px) carry their partition number. */
const LABEL_CELL_CSS = 17;

/** Renderer draws frames on one canvas, resizing its backing store to the element's size. */
export class Renderer {
  private readonly ctx: CanvasRenderingContext2D;
  private palette!: Palette;
  private image: ImageData | undefined;
  private pixels: Uint32Array | undefined;
  private dpr = 1;
  private cssW = 0;
  private cssH = 0;
  private last: Frame | undefined;
  private hatch = new Map<string, CanvasPattern>();
  /** The broker slot the keyboard acts on, or -1. */
  selected = -1;

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
    this.resize();
  }

  private readPalette(): void {
    const cs = getComputedStyle(this.canvas);
    const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
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
  }

  private resize(): void {
    const r = this.canvas.getBoundingClientRect();
    this.dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    const w = Math.max(320, Math.round(r.width));
    const h = Math.max(240, Math.round(r.height));
    if (w === this.cssW && h === this.cssH && this.image) return;
    this.cssW = w;
    this.cssH = h;
    this.canvas.width = Math.round(w * this.dpr);
    this.canvas.height = Math.round(h * this.dpr);
    this.image = this.ctx.createImageData(this.canvas.width, this.canvas.height);
    this.pixels = new Uint32Array(this.image.data.buffer);
    this.redraw();
  }

  /** Draws the last frame again (after a resize, a theme change or a new selection). */
  redraw(): void {
    if (this.last) this.draw(this.last);
  }

  /** Draws one frame; returns the milliseconds it took (for the page's own statistics). */
  draw(f: Frame): number {
    const t0 = performance.now();
    this.last = f;
    const ctx = this.ctx;
    const p = this.palette;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = p.bg;
    ctx.fillRect(0, 0, this.cssW, this.cssH);
    ctx.textBaseline = "alphabetic";

    this.drawControllers(f.body.controllers);
    this.drawSummary(f);
    const boxes = this.brokerBoxes(f.body.brokers.length);
    f.body.brokers.forEach((b, slot) => this.drawBroker(f, b, slot, boxes[slot]));
    this.describe(f);
    return performance.now() - t0;
  }

  private drawControllers(cs: ControllerState[]): void {
    const ctx = this.ctx;
    const p = this.palette;
    const n = cs.length;
    const w = Math.min(220, (this.cssW - 2 * PAD - (n - 1) * GAP) / n);
    let x = (this.cssW - (n * w + (n - 1) * GAP)) / 2;
    const y = PAD;
    for (const c of cs) {
      ctx.fillStyle = p.box;
      ctx.fillRect(x, y, w, CONTROLLER_H);
      if (!c.running) {
        ctx.fillStyle = this.hatchPattern(p.stopped);
        ctx.fillRect(x, y, w, CONTROLLER_H);
      }
      ctx.setLineDash([]);
      ctx.lineWidth = c.active ? 4 : 1.5;
      ctx.strokeStyle = c.active ? p.focus : c.running ? p.muted : p.stopped;
      ctx.strokeRect(x + ctx.lineWidth / 2, y + ctx.lineWidth / 2, w - ctx.lineWidth, CONTROLLER_H - ctx.lineWidth);

      const ix = x + 18;
      const iy = y + 20;
      if (c.active) this.star(ix, iy, 9, p.focus);
      else if (!c.running) this.cross(ix, iy, 7, p.stopped);
      else this.circle(ix, iy, 6, p.muted, false);
      this.text(`controller ${c.id}`, x + 34, y + 25, 600, 14, p.fg, w - 40);
      let line = c.running ? `${c.role} · ${S.canvasEpoch(c.epoch)}` : S.canvasStopped;
      if (c.active) line = `${S.canvasActive} · ${S.canvasEpoch(c.epoch)}`;
      this.text(line, x + 10, y + 43, c.active ? 700 : 400, 12, c.active ? p.focus : p.fg, w - 16);
      this.text(S.canvasOffsets(c.highWatermark, c.endOffset), x + 10, y + 57, 400, 11, p.muted, w - 16);
      x += w + GAP;
    }
  }

  private drawSummary(f: Frame): void {
    const p = this.palette;
    const b = f.body;
    const y = PAD + CONTROLLER_H + 20;
    const p99 = b.sample ? `${b.sample.produceP99Ms.toFixed(1)} ms` : "–";
    this.text(S.canvasSummary(clockText(b.timeMs), p99, b.partitions.underReplicated, b.partitions.offline), PAD, y, 600, 13, p.fg, this.cssW * 0.64);
    if (b.nextElectPreferredMs >= 0) {
      const s = S.canvasNextRun(spanText(Math.max(0, b.nextElectPreferredMs - b.timeMs)));
      this.ctx.font = `400 12px ${FONT}`;
      const w = this.ctx.measureText(s).width;
      this.text(s, this.cssW - PAD - w, y, 400, 12, p.muted, w + 1);
    }
  }

  private brokerBoxes(n: number): Rect[] {
    const top = PAD + CONTROLLER_H + SUMMARY_H;
    const cols = Math.min(n, 6);
    const rows = Math.ceil(n / cols);
    const w = (this.cssW - 2 * PAD - (cols - 1) * GAP) / cols;
    const h = (this.cssH - top - PAD - (rows - 1) * GAP) / rows;
    const out: Rect[] = [];
    for (let i = 0; i < n; i++) {
      out.push({ x: PAD + (i % cols) * (w + GAP), y: top + Math.floor(i / cols) * (h + GAP), w, h });
    }
    return out;
  }

  private drawBroker(f: Frame, b: BrokerState, slot: number, r: Rect): void {
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
    this.text(S.canvasBroker(b.id), r.x + 30, r.y + 29, 700, 14, p.fg, r.w * 0.45);
    const state = S.canvasState(b.state, b.fenced, b.inControlledShutdown);
    ctx.font = `700 11px ${FONT}`;
    const sw = Math.min(ctx.measureText(state).width, r.w * 0.5);
    this.text(state, r.x + r.w - 8 - sw, r.y + 28, 700, 11, p.fg, sw + 1);
    this.text(S.canvasCounts(b.leaders, b.outOfSync), r.x + 10, r.y + 46, 400, 11.5, p.muted, r.w - 20);
    if (b.gated) {
      ctx.font = `700 10px ${FONT}`;
      const gw = ctx.measureText(S.canvasGated).width + 8;
      ctx.strokeStyle = p.fg;
      ctx.lineWidth = 1;
      ctx.strokeRect(r.x + r.w - gw - 8, r.y + 36, gw, 14);
      this.text(S.canvasGated, r.x + r.w - gw - 4, r.y + 47, 700, 10, p.fg, gw);
    }

    const grid: Rect = { x: r.x + 8, y: r.y + HEADER_H + 4, w: r.w - 16, h: r.h - HEADER_H - 12 };
    const more = this.drawCells(f, slot, grid);
    if (more > 0) this.text(S.canvasMore(more), grid.x, r.y + r.h - 4, 400, 10, p.muted, grid.w);
  }

  /** Rasterizes a broker's replica cells into the pixel buffer and blits them; returns how many did not fit. */
  private drawCells(f: Frame, slot: number, g: Rect): number {
    const img = this.image!;
    const px = this.pixels!;
    const c = this.palette.cell;
    const stride = img.width;
    const gx = Math.round(g.x * this.dpr);
    const gy = Math.round(g.y * this.dpr);
    const gw = Math.max(0, Math.min(Math.round(g.w * this.dpr), img.width - gx));
    const gh = Math.max(0, Math.min(Math.round(g.h * this.dpr), img.height - gy));
    if (gw <= 0 || gh <= 0) return 0;
    for (let y = gy; y < gy + gh; y++) px.fill(c.gridBg, y * stride + gx, y * stride + gx + gw);

    const hosted = f.layout.hosted[slot];
    const n = hosted ? hosted.partitions.length : 0;
    let cell = Math.min(Math.floor(Math.sqrt((gw * gh) / Math.max(1, n))), Math.round(MAX_CELL_CSS * this.dpr));
    while (cell > 1 && Math.floor(gw / cell) * Math.floor(gh / cell) < n) cell--;
    cell = Math.max(1, cell);
    const cols = Math.max(1, Math.floor(gw / cell));
    const fits = Math.min(n, cols * Math.floor(gh / cell));
    const inner = cell >= 5 ? cell - 2 + (cell < 10 ? 1 : 0) : cell; // a gap once cells are big enough to see it
    const border = inner >= 12 ? 2 : 1;
    // The preferred replica (position 0) has its top-right corner cut off: where leadership
    // should return, visible on any fill.
    const notch = inner >= 8 ? Math.floor(inner / 3) : 0;
    const labels = cell >= LABEL_CELL_CSS * this.dpr;
    const labelled: { x: number; y: number; p: number; ink: string }[] = [];

    for (let i = 0; i < fits; i++) {
      const part = hosted.partitions[i];
      const pos = hosted.positions[i];
      const lp = f.leaderPos(part);
      const bit = 1 << pos;
      let colour: RGBA;
      let shape: "solid" | "hollow" | "half";
      if (lp === NO_SLOT) {
        colour = c.offline;
        shape = "solid";
      } else if (lp === pos) {
        colour = c.leader;
        shape = "solid";
      } else if (f.isrMask[part] & bit) {
        colour = c.follower;
        shape = "solid";
      } else if (f.elrMask(part) & bit) {
        colour = c.elr;
        shape = inner >= 4 ? "half" : "solid";
      } else {
        colour = c.oos;
        shape = inner >= 4 ? "hollow" : "solid";
      }
      const x0 = gx + (i % cols) * cell;
      const y0 = gy + Math.floor(i / cols) * cell;
      for (let dy = 0; dy < inner; dy++) {
        const row = (y0 + dy) * stride + x0;
        if (shape === "solid" || dy < border || dy >= inner - border) {
          px.fill(colour, row, row + inner);
        } else if (shape === "hollow") {
          px.fill(colour, row, row + border);
          px.fill(colour, row + inner - border, row + inner);
        } else {
          // half: the lower-left triangle filled, plus the outline, so it reads as its own shape
          px.fill(colour, row, row + Math.max(border, dy + 1));
          px.fill(colour, row + inner - border, row + inner);
        }
        if (pos === 0 && dy < notch) px.fill(c.gridBg, row + inner - notch + dy, row + inner);
      }
      // Text on a filled cell is black or white by the fill's lightness; on an outline, the
      // page's text colour (the cell shows the grid background).
      if (labels) labelled.push({ x: x0, y: y0, p: part, ink: shape !== "solid" ? this.palette.fg : isDark(colour) ? "#ffffff" : "#000000" });
    }
    this.ctx.putImageData(img, 0, 0, gx, gy, gw, gh);
    if (labelled.length > 0) {
      const ctx = this.ctx;
      const size = Math.max(9, Math.min(13, (inner / this.dpr) * 0.5));
      ctx.font = `600 ${size}px ${FONT}`;
      ctx.textAlign = "center";
      for (const l of labelled) {
        const t = f.layout.topicOf(l.p);
        ctx.fillStyle = l.ink;
        ctx.fillText(String(t ? l.p - t.first : l.p), (l.x + inner / 2) / this.dpr, (l.y + inner / 2) / this.dpr + size * 0.36);
      }
      ctx.textAlign = "start";
    }
    return n - fits;
  }

  /** Fills the read-only debug summary (data-* on the canvas) and the text alternative. */
  private describe(f: Frame): void {
    const b = f.body;
    const d = this.canvas.dataset;
    d.timeMs = String(b.timeMs);
    d.fenced = b.brokers.filter((x) => x.fenced).map((x) => x.id).join(",");
    d.stopped = b.brokers.filter((x) => x.state === "not_running").map((x) => x.id).join(",");
    d.leaders = b.brokers.map((x) => `${x.id}:${x.leaders}`).join(",");
    const active = b.controllers.find((c) => c.active);
    d.activeController = active ? String(active.id) : "";
    d.offline = String(b.partitions.offline);
    d.configs = b.configs.map((c) => `${c.name}=${c.value}`).join(",");
    d.frames = String(Number(d.frames ?? "0") + 1);
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

  private text(s: string, x: number, y: number, weight: number, size: number, colour: string, maxWidth: number): void {
    const ctx = this.ctx;
    ctx.font = `${weight} ${size}px ${FONT}`;
    ctx.fillStyle = colour;
    ctx.fillText(s, x, y, Math.max(1, maxWidth));
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
