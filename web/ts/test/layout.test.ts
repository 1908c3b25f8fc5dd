// The canvas geometry (web/ts/layout.ts): boxes, cells, strips, zoom and keyboard focus.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CAPTION_BAND,
  COMPACT_CONTROLLER_H,
  CONTROLLER_H,
  MIN_COMPACT_W,
  READABLE_BOX_H,
  SUMMARY_H,
  SUMMARY_LINE_H,
  canvasHeights,
  controllersCompact,
  MIN_CELL_PX,
  MIN_RANGE,
  PAD,
  GAP,
  STRIP_COL_PX,
  STRIP_GAP_PX,
  STRIP_ROW_PX,
  MIN_BOX_W,
  brokerBoxes,
  brokerColumns,
  brokerContentH,
  bucketAt,
  cellAt,
  cellGrid,
  controllerBoxes,
  controllersBottom,
  flowLane,
  hitRect,
  lowerBound,
  moveFocus,
  panRange,
  stripGrid,
  useCells,
  zoomRange,
} from "../layout";

test("controllers sit in one centred row, apart, inside the width", () => {
  const b = controllerBoxes(3, 1000);
  assert.equal(b.length, 3);
  assert.ok(b.every((r) => r.y === PAD && r.h === CONTROLLER_H && r.w <= 220));
  for (let i = 1; i < 3; i++) assert.ok(b[i].x >= b[i - 1].x + b[i - 1].w, "no overlap");
  const left = b[0].x;
  const right = 1000 - (b[2].x + b[2].w);
  assert.ok(Math.abs(left - right) < 1e-9, `centred: ${left} vs ${right}`);
});

test("brokers fill rows of at most 6 below the controllers, inside the canvas", () => {
  const four = brokerBoxes(4, 1200, 700);
  assert.equal(new Set(four.map((r) => r.y)).size, 1, "4 brokers: one row");
  const eight = brokerBoxes(8, 1200, 700);
  assert.equal(new Set(eight.map((r) => r.y)).size, 2, "8 brokers: two rows");
  assert.equal(eight[6].x, eight[0].x, "the 7th starts the second row");
  assert.equal(eight[6].y - (eight[0].y + eight[0].h), GAP + flowLane(6), "rows apart by the gap and the flows' lane");
  assert.equal(brokerBoxes(4, 1200, 700, 100)[0].y, 100 + flowLane(4), "the first row's lane under the summary");
  assert.equal(brokerBoxes(4, 350, 700, 100)[0].y, 100 + flowLane(2), "a narrower lane for two a row");
  assert.ok(flowLane(2) < flowLane(4) && flowLane(1) === 0, "no lane where no flow runs along a row");
  for (const r of eight) {
    assert.ok(r.x >= 0 && r.x + r.w <= 1200 && r.y > CONTROLLER_H && r.y + r.h <= 700 + 1e-9);
  }
  assert.deepEqual(brokerBoxes(0, 1200, 700), []);
});

test("on a narrow canvas brokers wrap into rows of boxes no narrower than MIN_BOX_W", () => {
  assert.equal(controllersBottom(3, 1000), PAD + CONTROLLER_H, "one row when wide");
  assert.equal(brokerColumns(4, 350), 2);
  assert.equal(brokerColumns(4, 1200), 4);
  assert.equal(brokerColumns(9, 1200), 6);
  const b = brokerBoxes(4, 350, 900, 200);
  assert.equal(b[2].x, b[0].x, "the third broker starts the second row");
  assert.ok(b.every((r) => r.w >= MIN_BOX_W && r.y >= 200));
});

/** Asserts that boxes lie inside [0, width) and none overlaps another. */
function apartInside(boxes: { x: number; y: number; w: number; h: number }[], width: number, name: string): void {
  for (const [i, a] of boxes.entries()) {
    assert.ok(a.x >= 0 && a.x + a.w <= width + 1e-9 && a.y >= 0, `${name}: box ${i} at ${a.x}..${a.x + a.w} of ${width}`);
    for (const b of boxes.slice(i + 1)) {
      const apart = a.x + a.w <= b.x || b.x + b.w <= a.x || a.y + a.h <= b.y || b.y + b.h <= a.y;
      assert.ok(apart, `${name}: boxes overlap: ${JSON.stringify([a, b])}`);
    }
  }
}

test("on a canvas too narrow for the full controller boxes side by side, compact ones sit in one row", () => {
  // A 320 px phone (presenter mode included: its layout is 320 units wide), a 390 px one, a
  // narrow window, up to where the full boxes fit in one row.
  for (const width of [300, 320, 350, 366, 420, 497]) {
    assert.ok(controllersCompact(3, width), `${width}: compact`);
    const c = controllerBoxes(3, width);
    assert.equal(new Set(c.map((r) => r.y)).size, 1, `3 controllers at ${width}: one row`);
    assert.ok(c.every((r) => r.h === COMPACT_CONTROLLER_H && r.w >= MIN_COMPACT_W), `${width}: ${JSON.stringify(c)}`);
    apartInside(c, width, `${width}`);
    // The brokers keep the height three stacked full boxes took: two rows of them and more.
    assert.equal(controllersBottom(3, width), PAD + COMPACT_CONTROLLER_H);
  }
  // Where the full boxes fit side by side, they are drawn: wider canvases are as they were.
  for (const width of [498, 640, 1000]) {
    assert.ok(!controllersCompact(3, width), `${width}: full boxes`);
    const c = controllerBoxes(3, width);
    assert.ok(c.every((r) => r.y === PAD && r.h === CONTROLLER_H && r.w >= MIN_BOX_W), `${width}: ${JSON.stringify(c)}`);
    apartInside(c, width, `${width}`);
  }
  // More controllers than a row of compact boxes holds: rows of as many as fit, apart.
  const five = controllerBoxes(5, 320);
  assert.equal(new Set(five.map((r) => r.y)).size, 2, "5 controllers at 320: two rows");
  assert.ok(five.every((r) => r.w >= MIN_COMPACT_W));
  apartInside(five, 320, "5 at 320");
  assert.equal(controllersBottom(5, 320), five[4].y + five[4].h);
  // One controller has room for its full box anywhere.
  assert.ok(!controllersCompact(1, 300));
});

test("at 320 units four brokers' boxes keep their header and a row of cells under three controllers", () => {
  // The playground's cluster on a 320 px phone, presenter mode or not: a summary of three
  // lines, four brokers of about ten replicas in one column. The canvas asks for the height
  // (readable) at which every box shows a row of cells; it is a screen's and a bit, not the
  // two a column of controllers made it.
  const width = 320;
  const top = controllersBottom(3, width) + SUMMARY_H + 2 * SUMMARY_LINE_H;
  const cols = brokerColumns(4, width);
  const boxW = (width - 2 * PAD - (cols - 1) * GAP) / cols;
  const { readable } = canvasHeights(top, 4, cols, brokerContentH(10, boxW));
  const boxes = brokerBoxes(4, width, readable - CAPTION_BAND + PAD, top, brokerContentH(10, boxW));
  assert.ok(boxes.every((r) => r.h >= READABLE_BOX_H - 1e-9), JSON.stringify(boxes));
  assert.ok(readable <= 660, `the readable canvas: ${readable} units`);
});

test("a broker box is no taller than its cells need", () => {
  const one = brokerContentH(1, 300);
  const many = brokerContentH(100, 300);
  assert.ok(one < 150, `one cell: ${one}`);
  assert.ok(many > one);
  const b = brokerBoxes(3, 1200, 900, 100, one);
  assert.ok(b.every((r) => r.h === one), "capped at the content's height");
  assert.ok(brokerBoxes(3, 1200, 300, 100, 1e6).every((r) => r.h < 300), "and never past the canvas");
});

test("hitRect finds the box under a point, -1 between boxes", () => {
  const b = brokerBoxes(3, 900, 600);
  assert.equal(hitRect(b, b[1].x + 1, b[1].y + 1), 1);
  assert.equal(hitRect(b, b[1].x - 1, b[1].y + 1), -1, "the gap between boxes");
  assert.equal(hitRect(b, b[2].x + b[2].w, b[2].y + 1), -1, "right edge is outside");
});

test("cells: the biggest square that fits them all, capped", () => {
  const g = cellGrid(200, 300, 12, 30);
  assert.equal(g.cell, 30, "12 cells get the largest size");
  assert.equal(g.fits, 12);
  const many = cellGrid(190, 500, 9_000, 60);
  assert.equal(many.fits, 9_000);
  assert.ok(many.cell * many.cell * 9_000 <= 190 * 500);
  assert.ok(Math.floor(190 / (many.cell + 1)) * Math.floor(500 / (many.cell + 1)) < 9_000, "one px more would not fit");
  const tooMany = cellGrid(100, 100, 20_000, 30);
  assert.equal(tooMany.cell, 1);
  assert.equal(tooMany.fits, 10_000);
  assert.equal(cellGrid(0, 100, 5, 30).fits, 0);
});

test("cellAt is the inverse of the cell layout", () => {
  const g = cellGrid(97, 61, 40, 30);
  for (let i = 0; i < g.fits; i++) {
    const x = (i % g.cols) * g.cell + g.cell / 2;
    const y = Math.floor(i / g.cols) * g.cell + g.cell / 2;
    assert.equal(cellAt(g, x, y), i);
  }
  assert.equal(cellAt(g, g.cols * g.cell + 1, 0), -1, "right of the grid");
  assert.equal(cellAt(g, -1, 0), -1);
  const last = g.fits; // the first unused cell
  assert.equal(cellAt(g, (last % g.cols) * g.cell + 1, Math.floor(last / g.cols) * g.cell + 1), -1);
});

test("cells give way to strips when they would be smaller than MIN_CELL_PX", () => {
  assert.equal(useCells(200, 300, 12, 30), true);
  assert.equal(useCells(190, 500, 5_000, 30), true, "5,000 in 190×500: 4 px cells");
  assert.equal(useCells(190, 500, 50_000, 30), false, "50,000 in 190×500: 1 px");
  assert.equal(useCells(190, 500, 0, 30), true);
  const n = Math.floor((190 * 500) / (MIN_CELL_PX * MIN_CELL_PX)) + 2_000;
  assert.equal(useCells(190, 500, n, 30), false);
});

test("strips cover every replica once, in buckets of `per`, and bucketAt inverts them", () => {
  for (const n of [1, 95, 3_000, 50_000, 333_333]) {
    const s = stripGrid(190, 500, n);
    assert.ok(s.buckets * s.per >= n, `n=${n}: buckets cover all`);
    assert.ok((s.buckets - 1) * s.per < n, `n=${n}: no empty bucket`);
    assert.ok(s.rows * s.colsPerRow >= s.buckets);
    assert.ok(s.rows * (STRIP_ROW_PX + STRIP_GAP_PX) - STRIP_GAP_PX <= 500, `n=${n}: rows fit the height`);
  }
  const s = stripGrid(190, 500, 50_000);
  for (const b of [0, 1, s.colsPerRow, s.buckets - 1]) {
    const x = (b % s.colsPerRow) * STRIP_COL_PX;
    const y = Math.floor(b / s.colsPerRow) * (STRIP_ROW_PX + STRIP_GAP_PX) + 3;
    assert.equal(bucketAt(s, x, y), b);
  }
  assert.equal(bucketAt(s, 0, STRIP_ROW_PX + 1), -1, "the gap between strip rows");
});

test("a box shorter than a strip row gets one row as tall as the box, not a bar cut at its edge", () => {
  const s = stripGrid(190, 11, 3_000);
  assert.equal(s.rows, 1);
  assert.equal(s.rowPx, 11);
  assert.ok(s.buckets * s.per >= 3_000);
  assert.equal(bucketAt(s, 0, 10), 0);
  assert.equal(bucketAt(s, 0, 11), -1, "under the row");
  assert.equal(stripGrid(190, 500, 3_000).rowPx, STRIP_ROW_PX);
});

test("zooming in keeps the partition under the pointer in place; out returns to all", () => {
  const all = { lo: 0, hi: 100_000 };
  const z = zoomRange(all, 100_000, 0.25, 50_000);
  assert.equal(z.hi - z.lo, 25_000);
  assert.ok(z.lo <= 50_000 && 50_000 < z.hi);
  assert.ok(Math.abs((50_000 - z.lo) / 25_000 - 0.5) < 0.001, "same relative position");
  assert.deepEqual(zoomRange(all, 100_000, 0.25, 10), { lo: 8, hi: 25_008 }, "near the start, still in place");
  assert.deepEqual(zoomRange({ lo: 99_000, hi: 100_000 }, 100_000, 4, 99_999), { lo: 96_000, hi: 100_000 }, "zooming out stops at the end");
  assert.deepEqual(zoomRange({ lo: 0, hi: 1_000 }, 100_000, 4, 0), { lo: 0, hi: 4_000 });
  assert.deepEqual(zoomRange(z, 100_000, 4, 50_000), all);
  assert.deepEqual(zoomRange(z, 100_000, 100, 50_000), all);
  let r = all;
  for (let i = 0; i < 20; i++) r = zoomRange(r, 100_000, 0.25, 123);
  assert.equal(r.hi - r.lo, MIN_RANGE, "zooming in stops at MIN_RANGE partitions");
  assert.ok(r.lo <= 123 && 123 < r.hi);
  assert.deepEqual(zoomRange({ lo: 0, hi: 6 }, 6, 0.25, 3), { lo: 0, hi: 6 }, "fewer partitions than MIN_RANGE: all");
});

test("panning moves by a share of the span and stops at the ends", () => {
  assert.deepEqual(panRange({ lo: 1000, hi: 2000 }, 10_000, 0.5), { lo: 1500, hi: 2500 });
  assert.deepEqual(panRange({ lo: 1000, hi: 2000 }, 10_000, -5), { lo: 0, hi: 1000 });
  assert.deepEqual(panRange({ lo: 8000, hi: 9000 }, 10_000, 5), { lo: 9000, hi: 10_000 });
});

test("lowerBound finds the first index at or above a value", () => {
  const a = Int32Array.from([1, 3, 3, 7, 20]);
  assert.equal(lowerBound(a, 0), 0);
  assert.equal(lowerBound(a, 3), 1);
  assert.equal(lowerBound(a, 4), 3);
  assert.equal(lowerBound(a, 21), 5);
  assert.equal(lowerBound(a, 7, 4), 4, "from is respected");
});

test("arrow keys walk controllers and brokers as they are laid out", () => {
  // 3 controllers (0–2), 4 brokers (3–6) in one row.
  assert.equal(moveFocus(-1, 3, 4, "ArrowRight"), 3, "first focus: the first broker");
  assert.equal(moveFocus(6, 3, 4, "ArrowRight"), 0, "right wraps around");
  assert.equal(moveFocus(0, 3, 4, "ArrowLeft"), 6);
  assert.equal(moveFocus(1, 3, 4, "ArrowDown"), 4, "down from the middle controller");
  assert.equal(moveFocus(6, 3, 4, "ArrowUp"), 2, "up from the last broker: the last controller");
  assert.equal(moveFocus(0, 3, 4, "ArrowUp"), 0, "nothing above the controllers");
  assert.equal(moveFocus(5, 3, 4, "ArrowDown"), 5, "nothing below a single broker row");
  // 8 brokers: rows of 6 (3–8, 9–10).
  assert.equal(moveFocus(4, 3, 8, "ArrowDown"), 10);
  assert.equal(moveFocus(10, 3, 8, "ArrowUp"), 4);
  assert.equal(moveFocus(8, 3, 8, "ArrowDown"), 8, "no broker below the row's end");
  assert.equal(moveFocus(-1, 0, 0, "ArrowRight"), -1);
  assert.equal(moveFocus(2, 0, 4, "ArrowUp"), 2, "no controllers: up stays");
});
