// The canvas's geometry as pure functions: where the controllers and brokers go, how big a
// broker's replica cells can be, when cells give way to aggregate strips, and which part of
// the partition range is shown. The renderer draws with these numbers and the pointer and
// keyboard code (canvas-input.ts) hit-tests with the same ones, so a click always lands on
// what was drawn. Nothing here touches the DOM, so it is unit-tested under Node.

/** A rectangle in layout units (CSS pixels divided by the presenter scale). */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export const PAD = 12;
export const GAP = 12;
export const CONTROLLER_H = 62;
export const SUMMARY_H = 28;
/** The height of one line of the summary under the controllers, when it wraps (narrow canvas). */
export const SUMMARY_LINE_H = 17;
/**
 * A broker box's header: its name and state, its counts, then a row for the catch-up bar and
 * the GATED badge side by side, so that no two of them are ever drawn over each other.
 */
export const HEADER_H = 66;
/**
 * The narrowest box (layout units) whose texts fit unsqueezed: "controller 3000" beside its
 * icon, "broker 1" beside "RUNNING", "leads 12 · 12 out of sync". Boxes that would be
 * narrower wrap into more rows instead.
 */
export const MIN_BOX_W = 150;
/**
 * The clear plate around each of the renderer's texts and badges (layout units), on which no
 * traffic is drawn (traffic.ts, erasePlates): the links, flows and rings under a text stop this
 * far from its box, so that no line runs over or under its letters or grazes their descenders
 * (a text's box ends 0.22 of its size under the baseline). 5 units to either side; 1 over it,
 * where the links between controllers run just under their row, 2 under it.
 */
export const TEXT_PLATE = { x: 5, top: 1, bottom: 2 };

/** The plate (TEXT_PLATE) around a text's box r. */
export function textPlate(r: Rect): Rect {
  return { x: r.x - TEXT_PLATE.x, y: r.y - TEXT_PLATE.top, w: r.w + 2 * TEXT_PLATE.x, h: r.h + TEXT_PLATE.top + TEXT_PLATE.bottom };
}

/**
 * How far over its row's top edge a replication flow between two brokers of the row `apart`
 * columns apart rises at its highest (traffic.ts, flowPath): higher the farther apart, a line's
 * width or more apart, so that flows into one broker from its neighbour and from farther ones
 * are lines apart, not one line along the boxes' top edges.
 */
export function flowLift(apart: number): number {
  return Math.min(FLOW_LIFT_MAX, 8 + 6 * (Math.max(1, apart) - 1));
}

/** The highest a flow rises over its row (flowLift), 4 columns apart and more. */
export const FLOW_LIFT_MAX = 26;

/**
 * The lane kept free above each row of `cols` brokers (layout units) for the flows between
 * brokers of the row to arc through: over the first row it, and the 5 units the summary line
 * leaves under its words, hold the highest arc, half the widest line (6) and 3 units to spare,
 * so that no flow touches the summary's words; over a later row the gap between rows adds to
 * it. Only the controllers' links cross it. One column: no flow runs along a row.
 */
export function flowLane(cols: number): number {
  return cols < 2 ? 0 : flowLift(cols - 1) + 1;
}

/**
 * Room under the brokers for two lines of the traffic layer's captions (the balancer run,
 * what is drawn as pulsing links), so that a canvas sized to its content does not have them
 * written over its cells.
 */
export const CAPTION_BAND = 46;
/** The largest replica cell, in layout units. */
export const MAX_CELL = 30;
/** Cells at least this big (layout units) carry their partition number. */
export const LABEL_CELL = 17;
/**
 * Below this cell size (device pixels) a cell's colour is a speck and its shape (hollow, half)
 * cannot be drawn, so the broker switches to aggregate strips.
 */
export const MIN_CELL_PX = 3;
/** Width of one column of an aggregate strip, and the height of a strip row (device pixels). */
export const STRIP_COL_PX = 2;
export const STRIP_ROW_PX = 28;
export const STRIP_GAP_PX = 4;

/** How many boxes of at least MIN_BOX_W a row of the canvas holds: 1 to max. */
export function boxColumns(n: number, width: number, max: number): number {
  const fit = Math.floor((width - 2 * PAD + GAP) / (MIN_BOX_W + GAP));
  return Math.max(1, Math.min(n, max, fit));
}

/**
 * A compact controller box's height (layout units): three short lines, its id beside its
 * icon, its role, its epoch, in type larger than the full box's (16 and 14 units, 12 CSS px
 * and more on a 320 px phone; see controllersCompact).
 */
export const COMPACT_CONTROLLER_H = 64;
/**
 * The narrowest compact controller box (layout units): "follower" or "epoch 123" in its
 * 14-unit type with the box's margins; three of them side by side in the narrowest layout
 * (320 units, render.ts MIN_W).
 */
export const MIN_COMPACT_W = 84;

/**
 * Whether the controllers are drawn as compact boxes: where their full boxes (MIN_BOX_W)
 * would not fit side by side. Stacked in rows, three full boxes took a third of a phone's
 * canvas and left the brokers slivers; compact ones sit side by side in one row (or fewer
 * rows, with many controllers) and keep what a reader needs of each (who leads, its epoch,
 * running or stopped), the log offsets left to the tooltip.
 */
export function controllersCompact(n: number, width: number): boolean {
  return n > 1 && boxColumns(n, width, n) < n;
}

/**
 * The controllers' boxes, centred in rows at the top: one row of full boxes, or on a canvas
 * too narrow for them side by side, compact boxes (controllersCompact) in as few rows as they
 * fit.
 */
export function controllerBoxes(n: number, width: number): Rect[] {
  if (n <= 0) return [];
  const { cols, h } = controllerGrid(n, width);
  const w = Math.max(1, Math.min(220, (width - 2 * PAD - (cols - 1) * GAP) / cols));
  const out: Rect[] = [];
  for (let row = 0; row * cols < n; row++) {
    const k = Math.min(cols, n - row * cols);
    let x = (width - (k * w + (k - 1) * GAP)) / 2;
    for (let i = 0; i < k; i++) {
      out.push({ x, y: PAD + row * (h + GAP), w, h });
      x += w + GAP;
    }
  }
  return out;
}

/** The controllers' boxes a row and their height: full boxes, or compact ones (controllersCompact). */
function controllerGrid(n: number, width: number): { cols: number; h: number } {
  if (!controllersCompact(n, width)) return { cols: boxColumns(n, width, n), h: CONTROLLER_H };
  const fit = Math.floor((width - 2 * PAD + GAP) / (MIN_COMPACT_W + GAP));
  return { cols: Math.max(1, Math.min(n, fit)), h: COMPACT_CONTROLLER_H };
}

/** Where the controllers' rows end (PAD when there are none). */
export function controllersBottom(n: number, width: number): number {
  if (n <= 0) return PAD;
  const { cols, h } = controllerGrid(n, width);
  const rows = Math.ceil(n / cols);
  return PAD + rows * h + (rows - 1) * GAP;
}

/** How many brokers a row holds: up to 6, fewer on a narrow canvas. */
export function brokerColumns(n: number, width: number): number {
  return boxColumns(n, width, 6);
}

/**
 * The height a broker box needs to show `replicas` cells at their largest, with its header:
 * boxes are no taller than their content, so three cells do not sit in a box a page tall.
 */
export function brokerContentH(replicas: number, boxW: number): number {
  const cols = Math.max(1, Math.floor((boxW - 16) / MAX_CELL));
  const rows = Math.max(1, Math.ceil(replicas / cols));
  return HEADER_H + 12 + rows * MAX_CELL;
}

/**
 * The brokers' boxes: up to 6 a row (fewer when narrow), from `top` down, filling the space
 * left, but no taller than maxH (a box's content, brokerContentH). Above each row is its
 * flows' lane (flowLane); rows are the lane and GAP apart.
 */
export function brokerBoxes(n: number, width: number, height: number, top = PAD + CONTROLLER_H + SUMMARY_H, maxH = Infinity): Rect[] {
  if (n <= 0) return [];
  const cols = brokerColumns(n, width);
  const rows = Math.ceil(n / cols);
  const w = (width - 2 * PAD - (cols - 1) * GAP) / cols;
  const lane = flowLane(cols);
  const h = Math.min(maxH, (height - top - PAD - rows * lane - (rows - 1) * GAP) / rows);
  const out: Rect[] = [];
  for (let i = 0; i < n; i++) {
    out.push({ x: PAD + (i % cols) * (w + GAP), y: top + lane + Math.floor(i / cols) * (h + GAP + lane), w, h });
  }
  return out;
}

/**
 * The shortest a broker box is readable at: its header and one row of cells at their largest
 * (or one strip row, which is shorter).
 */
export const READABLE_BOX_H = HEADER_H + 12 + MAX_CELL;

/**
 * The heights (layout units) a canvas `top` units down to its brokers' first row, with `n`
 * brokers in rows of `cols` boxes of content height boxH (brokerContentH), asks of the page:
 * `content`, where every box shows all of its cells at their largest, and `readable`, where
 * every box is READABLE_BOX_H (or its content, if less). The page keeps the canvas between
 * them where it can: on a phone one column of boxes squeezed into a screen's height would be
 * slivers whose header is cut (web/css/app.css, --readable-h).
 */
export function canvasHeights(top: number, n: number, cols: number, boxH: number): { content: number; readable: number } {
  if (n <= 0) return { content: top, readable: top };
  const rows = Math.ceil(n / Math.max(1, cols));
  const rowsOf = (h: number) => top + rows * (flowLane(cols) + h) + (rows - 1) * GAP + CAPTION_BAND;
  return { content: rowsOf(boxH), readable: rowsOf(Math.min(boxH, READABLE_BOX_H)) };
}

/** The part of a broker's box that holds its replica cells or strips. */
export function gridRect(r: Rect): Rect {
  return { x: r.x + 8, y: r.y + HEADER_H + 4, w: r.w - 16, h: r.h - HEADER_H - 12 };
}

/** The index of the first rectangle containing (x, y), or -1. */
export function hitRect(rects: readonly Rect[], x: number, y: number): number {
  for (let i = 0; i < rects.length; i++) {
    const r = rects[i];
    if (x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h) return i;
  }
  return -1;
}

/** How n cells fit a gw × gh pixel area: square cells of `cell` px, `cols` a row, `fits` of them. */
export interface CellGrid {
  cell: number;
  cols: number;
  fits: number;
}

/** The largest square cell (at most maxCell px) that fits all n cells, or as many as 1 px cells allow. */
export function cellGrid(gw: number, gh: number, n: number, maxCell: number): CellGrid {
  if (gw <= 0 || gh <= 0) return { cell: 1, cols: 1, fits: 0 };
  let cell = Math.min(Math.floor(Math.sqrt((gw * gh) / Math.max(1, n))), Math.max(1, Math.round(maxCell)));
  while (cell > 1 && Math.floor(gw / cell) * Math.floor(gh / cell) < n) cell--;
  cell = Math.max(1, cell);
  const cols = Math.max(1, Math.floor(gw / cell));
  return { cell, cols, fits: Math.min(n, cols * Math.floor(gh / cell)) };
}

/**
 * The filled square of a cell `cell` device pixels wide, from its top-left corner: the rest of
 * the cell (its right and bottom edges) is the gap to the next cell, once cells are big enough
 * (5 px) for a gap to show: 1 px under 10 px, 2 px from there.
 */
export function cellInner(cell: number): number {
  return cell >= 5 ? cell - 2 + (cell < 10 ? 1 : 0) : cell;
}

/**
 * The ring around the cell at (x0, y0) of a grid of `cell`-pixel cells (device pixels): a
 * square stroke `lw` wide lying in the gaps around the cell's filled square, so that it marks
 * the cell without covering it or its neighbours (strokeRect(x, y, w, h) with lineWidth lw).
 * None where the cells have no gap (under 5 px): there a ring would cover cells.
 */
export function cellRing(x0: number, y0: number, cell: number): { x: number; y: number; w: number; h: number; lw: number } | undefined {
  const inner = cellInner(cell);
  const gap = cell - inner;
  if (gap <= 0) return undefined;
  return { x: x0 - gap / 2, y: y0 - gap / 2, w: inner + gap, h: inner + gap, lw: gap };
}

/** The cell index under pixel (px, py) of a grid whose top-left is (0, 0), or -1. */
export function cellAt(g: CellGrid, px: number, py: number): number {
  if (px < 0 || py < 0) return -1;
  const col = Math.floor(px / g.cell);
  if (col >= g.cols) return -1;
  const i = Math.floor(py / g.cell) * g.cols + col;
  return i < g.fits ? i : -1;
}

/**
 * Aggregate strips: n replicas in `buckets` columns of STRIP_COL_PX, wrapped over rows of
 * rowPx. Each column stands for a contiguous run of `per` replicas (the last may hold fewer)
 * and shows their states as a stacked bar.
 */
export interface StripGrid {
  colsPerRow: number;
  rows: number;
  /** A row's height: STRIP_ROW_PX, or the whole height where that is less (a small box). */
  rowPx: number;
  buckets: number;
  per: number;
}

export function stripGrid(gw: number, gh: number, n: number): StripGrid {
  const colsPerRow = Math.max(1, Math.floor(gw / STRIP_COL_PX));
  const rows = Math.max(1, Math.floor((gh + STRIP_GAP_PX) / (STRIP_ROW_PX + STRIP_GAP_PX)));
  // A box shorter than a row gets one row as tall as the box: a full-height bar cut at the
  // box's edge would show only its top states (the stack starts from the bottom).
  const rowPx = Math.max(1, Math.min(STRIP_ROW_PX, Math.floor(gh)));
  const capacity = colsPerRow * rows;
  const per = Math.max(1, Math.ceil(n / capacity));
  const buckets = n === 0 ? 0 : Math.ceil(n / per);
  return { colsPerRow, rows: Math.min(rows, Math.ceil(buckets / colsPerRow)), rowPx, buckets, per };
}

/** The bucket under pixel (px, py) of a strip grid whose top-left is (0, 0), or -1. */
export function bucketAt(s: StripGrid, px: number, py: number): number {
  if (px < 0 || py < 0) return -1;
  const col = Math.floor(px / STRIP_COL_PX);
  if (col >= s.colsPerRow) return -1;
  const row = Math.floor(py / (s.rowPx + STRIP_GAP_PX));
  if (py - row * (s.rowPx + STRIP_GAP_PX) >= s.rowPx) return -1; // in the gap
  const b = row * s.colsPerRow + col;
  return b < s.buckets ? b : -1;
}

/** Whether n replicas in a gw × gh pixel area are drawn as cells (true) or aggregate strips. */
export function useCells(gw: number, gh: number, n: number, maxCell: number): boolean {
  return n === 0 || cellGrid(gw, gh, n, maxCell).cell >= MIN_CELL_PX;
}

/** A half-open range of partition indexes [lo, hi), the part of the cluster on screen. */
export interface Range {
  lo: number;
  hi: number;
}

/** The smallest range zooming in may reach: a few cells' worth. */
export const MIN_RANGE = 8;

/**
 * Zooms the range in (factor < 1) or out (factor > 1) around partition `at`, keeping `at` at
 * the same relative position, clamped to [0, count). Zooming out to the whole or past it
 * returns the whole range.
 */
export function zoomRange(r: Range, count: number, factor: number, at: number): Range {
  if (count <= 0) return { lo: 0, hi: 0 };
  const span = r.hi - r.lo;
  let next = Math.round(span * factor);
  next = Math.max(Math.min(MIN_RANGE, count), Math.min(count, next));
  if (next >= count) return { lo: 0, hi: count };
  const a = Math.max(r.lo, Math.min(r.hi - 1, at));
  const rel = span > 0 ? (a - r.lo) / span : 0.5;
  let lo = Math.round(a - rel * next);
  lo = Math.max(0, Math.min(count - next, lo));
  return { lo, hi: lo + next };
}

/** Moves the range by `by` of its spans (e.g. ±0.5), clamped to [0, count). */
export function panRange(r: Range, count: number, by: number): Range {
  const span = r.hi - r.lo;
  const lo = Math.max(0, Math.min(count - span, r.lo + Math.round(span * by)));
  return { lo, hi: lo + span };
}

/** The first index i in the sorted array a[from..to) with a[i] >= v (binary search). */
export function lowerBound(a: ArrayLike<number>, v: number, from = 0, to = a.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Moves keyboard focus among the canvas's actors: controllers (the top row) then brokers (in
 * rows of `cols`, brokerColumns). Left and right step through the list; up and down jump between the
 * controller row and the broker rows.
 */
export function moveFocus(
  current: number,
  controllers: number,
  brokers: number,
  key: "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown",
  cols = Math.min(Math.max(brokers, 1), 6),
): number {
  const total = controllers + brokers;
  if (total === 0) return -1;
  if (current < 0 || current >= total) return controllers < total ? controllers : 0;
  switch (key) {
    case "ArrowLeft":
      return (current - 1 + total) % total;
    case "ArrowRight":
      return (current + 1) % total;
    case "ArrowUp":
      if (current < controllers) return current;
      if (current - controllers < cols) return controllers === 0 ? current : Math.min(controllers - 1, Math.floor(((current - controllers) * controllers) / cols));
      return current - cols;
    case "ArrowDown":
      if (brokers === 0) return current;
      if (current < controllers) return controllers + Math.min(brokers - 1, Math.floor((current * cols) / Math.max(1, controllers)));
      return current + cols < total ? current + cols : current;
  }
}
