// Axis labels and the latencies beside them: counts and durations in a few characters (web/ts/axis.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import type uPlot from "../../vendor/uplot/uPlot.esm.js";
import { fitLabels, msText, siText } from "../axis";
import { S } from "../strings";

test("counts keep at most four characters and an SI unit", () => {
  assert.deepEqual([0, 0.25, 0.5, 1, 2.5, 12, 950, 1000, 1250, 12_500, 125_000, 3_400_000].map(siText), [
    "0", "0.25", "0.5", "1", "2.5", "12", "950", "1k", "1.3k", "13k", "125k", "3.4M",
  ]);
});

test("durations read in ms, s or min", () => {
  assert.deepEqual([0, 5, 250, 1000, 1500, 12_500, 90_000].map(msText), ["0", "5 ms", "250 ms", "1 s", "1.5 s", "13 s", "1.5 min"]);
});

test("an axis fits its widest label, and a later cycle never shrinks it below one", () => {
  (globalThis as { devicePixelRatio?: number }).devicePixelRatio = 1;
  // A context whose text is as wide as its characters: "m" 10 px, any other 5.
  const ctx = { font: "", measureText: (s: string) => ({ width: [...s].reduce((w, c) => w + (c === "m" ? 10 : 5), 0) }) };
  const axis: { _size?: number; ticks: { size: number }; gap: number; font: [string, number] } = { ticks: { size: 10 }, gap: 5, font: ["12px sans-serif", 12] };
  const u = { ctx, axes: [{}, axis] } as unknown as uPlot;
  // Tick, gap, 4 px and the widest label: "250 ms" (35 px) over "1 min" (30) and "1.5 s" (25).
  assert.equal(fitLabels(u, ["1 min", "1.5 s", "250 ms"], 1, 1), 10 + 5 + 4 + 35);
  assert.equal(fitLabels(u, ["mmmm", "11111"], 1, 1), 10 + 5 + 4 + 40, "four wide characters outmeasure five narrow ones");
  // A later cycle keeps the size uPlot settled on, unless its labels need more.
  axis._size = 80;
  assert.equal(fitLabels(u, ["1 s"], 1, 2), 80, "settled: a narrower label does not shrink the axis");
  assert.equal(fitLabels(u, ["mmmmmmmm"], 1, 2), 10 + 5 + 4 + 80, "a wider label in a later cycle grows it");
});

test("the canvas's p99 reads as JMX's milliseconds: a tenth below 100 ms, whole and grouped above", () => {
  assert.deepEqual([0, 13.94, 99.94, 250.4, 8160].map(S.latencyMs), ["0.0 ms", "13.9 ms", "99.9 ms", "250 ms", "8,160 ms"]);
});
