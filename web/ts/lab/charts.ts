// The lab's charts: the comparison side by side (one column per policy, drawn by the uPlot the
// playground vendors in web/vendor/uplot and uses in web/ts/charts.ts; those charts follow a
// live frame stream, these draw a finished run's series once) and the sweep's heatmaps on a
// plain canvas, with the acceptance boundary drawn between passing and failing cells.

import uPlot from "../../vendor/uplot/uPlot.esm.js";
import { clockText } from "../frame";
import type { RunResult, Verdict } from "./protocol";
import { LS } from "./strings";
import { BROKER_STYLE } from "../charts";
import { fitLabels, siValues } from "../axis";

/** The playground's Okabe–Ito colours with a dash each, so colour is never the only cue. */
const STYLE = BROKER_STYLE;
const style = (i: number) => STYLE[i % STYLE.length];

/** Brokers drawn one line each; beyond this, the ones that moved most. */
const MAX_BROKER_LINES = 8;

export interface Column {
  name: string;
  result: RunResult;
}

/**
 * The comparison's charts on the page. Each must be destroyed before it is dropped: uPlot keeps
 * every chart in a module-wide set and a window listener until destroy(), so a chart that is
 * only removed from the page stays in memory with its canvas and data, and each compare
 * would leave its fifteen behind.
 */
let plots: uPlot[] = [];

/**
 * Drops a chart for good: destroyed (see plots), and its canvas emptied first. A removed
 * canvas keeps its backing store (width × height × 4 bytes at the screen's pixel ratio) until
 * Blink's collector finds the element unreachable, which on a page that allocates little
 * JavaScript is many compares later; emptied, the store goes at once.
 */
function dropChart(p: uPlot): void {
  p.ctx.canvas.width = 0;
  p.ctx.canvas.height = 0;
  p.destroy();
}

/** Draws the comparison: a row per figure, a column per policy, with shared y ranges per row. */
export function drawCompare(root: HTMLElement, cols: Column[]): void {
  for (const p of plots) dropChart(p);
  plots = [];
  root.replaceChildren();
  const width = Math.max(260, Math.floor((root.clientWidth || 900) / cols.length) - 16);
  const xs = (r: RunResult) => Float64Array.from(r.series.time_ms ?? []);
  // Brokers that matter: the ones whose preferred leadership moved in any run.
  const moved = new Map<number, number>();
  for (const c of cols)
    for (const b of c.result.series.brokers ?? []) {
      const led = b.preferred_led;
      const span = led.length ? Math.max(...led) - Math.min(...led) : 0;
      moved.set(b.id, Math.max(moved.get(b.id) ?? 0, span));
    }
  const shown = [...moved.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, MAX_BROKER_LINES).map(([id]) => id).sort((a, b) => a - b);
  const perBroker = (r: RunResult, f: (b: RunResult["series"]["brokers"][number]) => number[]) =>
    shown.map((id) => {
      const b = r.series.brokers.find((x) => x.id === id);
      return b ? Float64Array.from(f(b)) : new Float64Array(0);
    });
  const brokerSeries = (): uPlot.Series[] => shown.map((id, i) => ({ label: LS.chartBroker(id), stroke: style(i).stroke, dash: style(i).dash, width: 2 }));
  const rows: { name: string; title: string; series: () => uPlot.Series[]; data: (r: RunResult) => Float64Array[] }[] = [
    {
      name: "leadership",
      title: LS.chartLeadership,
      series: brokerSeries,
      data: (r) => perBroker(r, (b) => b.preferred_led.map((v) => (b.preferred_total > 0 ? (100 * v) / b.preferred_total : 0))),
    },
    { name: "outOfSync", title: LS.chartOutOfSync, series: brokerSeries, data: (r) => perBroker(r, (b) => b.out_of_sync) },
    {
      name: "gate",
      title: LS.chartGate,
      series: () => [{ label: LS.chartGated, stroke: "#cc79a7", width: 2, paths: uPlot.paths.stepped!({ align: 1 }) }],
      data: (r) => {
        const n = r.series.time_ms.length;
        const g = new Float64Array(n);
        for (const b of r.series.brokers) for (let i = 0; i < n; i++) if (b.gated[i]) g[i]++;
        return [g];
      },
    },
    {
      name: "elections",
      title: LS.chartElections,
      series: () => [{ label: LS.chartElected, stroke: "#0072b2", fill: "rgba(0,114,178,0.35)", paths: uPlot.paths.bars!({ size: [0.8, 8] }), points: { show: false } }],
      data: (r) => [Float64Array.from(r.series.elections ?? [])],
    },
    {
      name: "p99",
      title: LS.chartP99,
      series: () => [
        { label: LS.chartRatio, stroke: "#d55e00", width: 2 },
        { label: LS.chartLimit, stroke: "#555555", dash: [6, 4], width: 1.5, points: { show: false } },
      ],
      data: (r) => [Float64Array.from((r.series.p99_ratio ?? []).map((v) => (v < 0 ? NaN : v))), new Float64Array(r.series.time_ms.length).fill(1.5)],
    },
  ];
  for (const row of rows) {
    let max = 1;
    const datas = cols.map((c) => row.data(c.result));
    for (const d of datas) for (const a of d) for (const v of a) if (Number.isFinite(v)) max = Math.max(max, v);
    const line = document.createElement("div");
    line.className = "lab-chart-row";
    line.dataset.chartRow = row.name;
    root.append(line);
    cols.forEach((c, ci) => {
      const el = document.createElement("figure");
      el.className = "chart";
      el.dataset.chart = row.name;
      el.dataset.policy = c.name;
      el.dataset.points = String(c.result.series.time_ms.length);
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", `${row.title}: ${c.name}`);
      line.append(el);
      const series = row.series();
      const opts: uPlot.Options = {
        title: `${row.title} — ${c.name}`,
        width,
        height: 170,
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        scales: { x: { time: false }, y: { range: [0, max * 1.05] } },
        axes: [
          { values: (_u, ticks) => ticks.map((v) => clockText(v).replace(/\.\d$/, "")), stroke: "currentColor", grid: { stroke: "rgba(127,127,127,0.25)" } },
          { stroke: "currentColor", grid: { stroke: "rgba(127,127,127,0.25)" }, values: siValues, size: fitLabels },
        ],
        series: [{ label: LS.chartTime, value: (_u, v) => (v === null ? "–" : clockText(v)) }, ...series],
      };
      plots.push(new uPlot(opts, [xs(c.result), ...datas[ci]] as unknown as uPlot.AlignedData, el));
    });
  }
}

export interface HeatCell {
  row: number;
  col: number;
  value: number;
  label: string;
  pass: boolean;
}

/** Geometry of a drawn heatmap, for mapping clicks back to cells. */
export interface HeatLayout {
  left: number;
  top: number;
  cw: number;
  ch: number;
  rows: number;
  cols: number;
}

/**
 * The colour scale of a heatmap: from 0 to the largest value, so that equal steps of colour
 * are equal steps of value. A scale from the smallest value to the largest would paint two
 * runs 7 ms apart darkest and lightest; from 0, noise stays one shade.
 */
export function heatScale(values: number[]): { lo: number; hi: number } {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  const hi = finite.length ? Math.max(...finite) : 0;
  return { lo: 0, hi: hi > 0 ? hi : 1 };
}

/** A value's lightness on the blue ramp (92 % light at lo … 30 % at hi). */
export function heatLightness(v: number, scale: { lo: number; hi: number }): number {
  const t = Math.max(0, Math.min(1, (v - scale.lo) / (scale.hi - scale.lo)));
  return Math.round(92 - 62 * t);
}

/** Width kept at the right of a heatmap for its colour key. */
const KEY_W = 64;

/**
 * Draws a heatmap: rows × cols cells shaded by value (light to dark, heatScale), each labelled
 * with its figure (and ✓ when every verdict passes) so colour is never the only cue, a thick
 * line along every edge between a passing and a failing cell (the acceptance boundary), and a
 * colour key in `unit` at the right.
 */
export function drawHeatmap(canvas: HTMLCanvasElement, rowLabels: string[], colLabels: string[], rowName: string, colName: string, cells: HeatCell[], unit: string): HeatLayout {
  const ctx = canvas.getContext("2d")!;
  const W = canvas.width;
  const H = canvas.height;
  const dark = matchMedia("(prefers-color-scheme: dark)").matches;
  ctx.fillStyle = dark ? "#1b1b1b" : "#ffffff";
  ctx.fillRect(0, 0, W, H);
  const left = 90;
  const top = 20;
  const bottom = 50;
  const rows = rowLabels.length;
  const cols = colLabels.length;
  const gridW = W - left - 10 - KEY_W;
  const cw = gridW / cols;
  const ch = (H - top - bottom) / rows;
  const scale = heatScale(cells.map((c) => c.value));
  canvas.dataset.scale = `${scale.lo},${scale.hi}`;
  canvas.dataset.lightness = cells.map((c) => (Number.isFinite(c.value) && c.value >= 0 ? heatLightness(c.value, scale) : -1)).join(",");
  const grid: (HeatCell | undefined)[][] = Array.from({ length: rows }, () => new Array(cols));
  for (const c of cells) grid[c.row][c.col] = c;
  ctx.font = `${Math.max(9, Math.min(12, ch / 2.5, cw / 4))}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const c of cells) {
    // A blue ramp (Okabe–Ito blue at the top): lightness carries the value.
    const l = heatLightness(c.value, scale);
    ctx.fillStyle = c.value < 0 || !Number.isFinite(c.value) ? "#999999" : `hsl(202, 100%, ${l}%)`;
    const x = left + c.col * cw;
    const y = top + c.row * ch;
    ctx.fillRect(x + 0.5, y + 0.5, cw - 1, ch - 1);
    ctx.fillStyle = l < 55 ? "#ffffff" : "#1b1b1b";
    if (ch >= 12 && cw >= 22) ctx.fillText((c.pass ? "✓ " : "") + c.label, x + cw / 2, y + ch / 2);
  }
  // The key: the ramp from 0 (bottom) to the largest value (top), its ends and middle labelled,
  // and the grey of "never".
  const kx = W - KEY_W + 4;
  const kh = H - top - bottom - 24;
  for (let i = 0; i < kh; i++) {
    ctx.fillStyle = `hsl(202, 100%, ${heatLightness(scale.hi * (1 - i / kh), scale)}%)`;
    ctx.fillRect(kx, top + i, 14, 1);
  }
  ctx.strokeStyle = dark ? "#eeeeee" : "#1b1b1b";
  ctx.lineWidth = 1;
  ctx.strokeRect(kx + 0.5, top + 0.5, 13, kh - 1);
  ctx.fillStyle = dark ? "#eeeeee" : "#1b1b1b";
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "left";
  const fmt = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  ctx.fillText(`${fmt(scale.hi)}`, kx + 18, top + 5);
  ctx.fillText(`${fmt(scale.hi / 2)}`, kx + 18, top + kh / 2);
  ctx.fillText("0", kx + 18, top + kh - 5);
  ctx.fillText(unit, kx, top + kh + 10);
  ctx.fillStyle = "#999999";
  ctx.fillRect(kx, top + kh + 18, 14, 10);
  ctx.fillStyle = dark ? "#eeeeee" : "#1b1b1b";
  ctx.fillText(LS.heatNever, kx + 18, top + kh + 23);
  canvas.title = LS.heatKey(unit);
  // The boundary: an edge between a passing cell and a failing one (or the grid's edge).
  ctx.strokeStyle = dark ? "#ffffff" : "#1b1b1b";
  ctx.lineWidth = 3;
  ctx.beginPath();
  const pass = (r: number, c: number) => r >= 0 && c >= 0 && r < rows && c < cols && !!grid[r][c]?.pass;
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++) {
      if (!pass(r, c)) continue;
      const x = left + c * cw;
      const y = top + r * ch;
      if (!pass(r - 1, c)) (ctx.moveTo(x, y), ctx.lineTo(x + cw, y));
      if (!pass(r + 1, c)) (ctx.moveTo(x, y + ch), ctx.lineTo(x + cw, y + ch));
      if (!pass(r, c - 1)) (ctx.moveTo(x, y), ctx.lineTo(x, y + ch));
      if (!pass(r, c + 1)) (ctx.moveTo(x + cw, y), ctx.lineTo(x + cw, y + ch));
    }
  ctx.stroke();
  // Axes: the values, and each axis's config name.
  ctx.fillStyle = dark ? "#eeeeee" : "#1b1b1b";
  ctx.font = "11px system-ui, sans-serif";
  ctx.textAlign = "right";
  rowLabels.forEach((v, r) => ctx.fillText(v, left - 6, top + r * ch + ch / 2));
  ctx.textAlign = "center";
  const every = Math.ceil(cols / Math.max(1, Math.floor(gridW / 40)));
  colLabels.forEach((v, c) => {
    if (c % every === 0) ctx.fillText(v, left + c * cw + cw / 2, top + rows * ch + 12);
  });
  ctx.fillText(short(colName), left + gridW / 2, H - 12);
  ctx.save();
  ctx.translate(12, top + (rows * ch) / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.fillText(short(rowName), 0, 0);
  ctx.restore();
  return { left, top, cw, ch, rows, cols };
}

/** The last two parts of a config name: the axis titles must fit. */
function short(name: string): string {
  const p = name.split(".");
  return p.length > 3 ? "…" + p.slice(-3).join(".") : name;
}

/** Whether every verdict of a run passes. */
export function allPass(vs: Verdict[]): boolean {
  return vs.length > 0 && vs.every((v) => v.status === "pass");
}
