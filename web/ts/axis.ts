// Chart axes that fit their labels (the playground's, the lessons' and the lab's charts):
// tick values in short SI or duration units, and a y-axis as wide as its widest label, so that
// "12,500" is never cut to "2,500" by a fixed width.

import type uPlot from "../vendor/uplot/uPlot.esm.js";

/** A count in at most four characters plus a unit: 950, 1.2k, 12k, 3.4M. */
export function siText(v: number): string {
  const a = Math.abs(v);
  const short = (x: number, unit: string) => (Math.abs(x) < 10 ? trim(x.toFixed(1)) : String(Math.round(x))) + unit;
  if (a >= 1e9) return short(v / 1e9, "G");
  if (a >= 1e6) return short(v / 1e6, "M");
  if (a >= 1e3) return short(v / 1e3, "k");
  if (a === 0 || a >= 10) return String(Math.round(v));
  return trim(v.toFixed(a >= 1 ? 1 : 2));
}

/** A duration in milliseconds: 0, 250 ms, 1.5 s, 12 s, 2.5 min. */
export function msText(v: number): string {
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a < 1000) return siText(v) + " ms";
  if (a < 60_000) return siText(v / 1000) + " s";
  return siText(v / 60_000) + " min";
}

function trim(s: string): string {
  return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
}

/** uPlot tick values for counts. */
export const siValues: uPlot.Axis.DynamicValues = (_u, ticks) => ticks.map(siText);

/** uPlot tick values for milliseconds. */
export const msValues: uPlot.Axis.DynamicValues = (_u, ticks) => ticks.map(msText);

/**
 * A uPlot axis size that fits the widest tick label: the tick length, the gap and the widest
 * label's measured width, in CSS pixels (uPlot's own default is a fixed 50).
 */
export function fitLabels(u: uPlot, values: string[] | null, axisIdx: number, cycleNum: number): number {
  // uPlot's resolved axis: its font as [css font, size] and its last size.
  const axis = u.axes[axisIdx] as unknown as { _size?: number; ticks?: { size?: number }; gap?: number; font: [string, number] };
  let widest = 0;
  if (values && values.length > 0) {
    u.ctx.font = axis.font[0];
    for (const v of values) widest = Math.max(widest, u.ctx.measureText(v).width);
  }
  const size = Math.ceil((axis.ticks?.size ?? 10) + (axis.gap ?? 5) + 4 + widest / (devicePixelRatio || 1));
  // uPlot converges on sizes in up to three cycles, each with the ticks the last size gave: a
  // later cycle only grows the axis, so that it settles, and never below a label it shows (its
  // ticks may be wider than the first cycle's, and a label wider than its axis is cut).
  return cycleNum > 1 && axis._size ? Math.max(axis._size, size) : size;
}
