// Charts over cluster time, drawn by uPlot (vendored in web/vendor/uplot; see its README):
// leaders per broker, out-of-sync replicas per broker, the wait-for-sync gate per broker,
// elections per electPreferred run, produce p99 against its steady value, and under-replicated
// and offline partitions.
//
// Each frame adds at most one point to a History (flat typed arrays, bounded, halving when
// full); the charts are redrawn from subarray views at most every REDRAW_MS of wall time, so a
// 60 fps frame stream costs one small typed-array write per frame, not six chart redraws.
// Elections are per run, not per frame: a point is added when a frame reports a new run.
//
// Each chart carries markers for the user's actions and the balancer runs: the event log's
// lines of kind action and balancer, from the frames' events (the same sentences the log shows,
// at the same cluster times). Hovering a marker shows its line.
//
// Each chart's element carries data-series-lengths (points per series) for tests, and
// data-marker-x (the drawn markers' x in CSS px of its plotting area).

import uPlot from "../vendor/uplot/uPlot.esm.js";
import { clockText, type Frame } from "./frame";
import type { LogEvent } from "./protocol";
import { History, median } from "./history";
import { fitLabels, msValues, siValues } from "./axis";
import { S } from "./strings";
import { setAttr } from "./dom";

/** Points kept per history before it halves itself. */
const CAPACITY = 2048;
/** Wall-clock ms between chart redraws while the charts are on screen. */
const REDRAW_MS = 250;
/**
 * Wall-clock ms between chart redraws while they are scrolled out of view (or hidden, as in
 * presenter mode): nobody sees them then, and coming into view redraws them at once.
 */
const OFFSCREEN_REDRAW_MS = 2000;
/** Steady-state p99 samples kept for the median. */
const STEADY_SAMPLES = 60;
/** Markers kept (the oldest go first). */
const MARKERS = 1000;
/** How close the pointer must come to a marker (CSS px) to show its line. */
const MARKER_HIT_PX = 4;
/** The balancer runs' marker colour (Okabe–Ito reddish purple); actions take the text colour. */
const RUN_MARK = "#cc79a7";

/** A mark on the charts: one of the user's actions or a balancer run, with its log line. */
export interface ChartMarker {
  timeMs: number;
  kind: "action" | "balancer";
  text: string;
}

/** The log lines a frame brings that the charts mark: actions and balancer runs. */
export function markersOf(events: readonly LogEvent[]): ChartMarker[] {
  const out: ChartMarker[] = [];
  for (const e of events) if (e.kind === "action" || e.kind === "balancer") out.push({ timeMs: e.timeMs, kind: e.kind, text: e.text });
  return out;
}

/** Okabe–Ito colours for brokers, each with its own dash so colour is never the only cue. */
export const BROKER_STYLE: readonly { stroke: string; dash: number[] }[] = [
  { stroke: "#0072b2", dash: [] },
  { stroke: "#e69f00", dash: [8, 4] },
  { stroke: "#009e73", dash: [2, 3] },
  { stroke: "#cc79a7", dash: [10, 3, 2, 3] },
  { stroke: "#56b4e9", dash: [5, 5] },
  { stroke: "#d55e00", dash: [1, 2] },
  { stroke: "#999999", dash: [12, 2] },
  { stroke: "#1b1b1b", dash: [3, 6] },
];

function brokerStyle(slot: number): { stroke: string; dash: number[] } {
  return BROKER_STYLE[slot % BROKER_STYLE.length];
}

/** Cluster series after the 3 per-broker groups. */
const P99 = 0;
const STEADY = 1;
const URP = 2;
const OFFLINE = 3;
const CLUSTER_SERIES = 4;

export type ChartName = "leaders" | "outOfSync" | "gate" | "elections" | "p99" | "partitions";

interface ChartBox {
  name: ChartName;
  el: HTMLElement;
  plot: uPlot | undefined;
  /** The hovered marker's log line. */
  tip: HTMLElement;
}

/** Computes the values of one frame's point, in the history's series order. */
export function pointOf(f: Frame, steady: number, into: Float64Array): Float64Array {
  const b = f.body.brokers;
  const n = b.length;
  for (let i = 0; i < n; i++) {
    into[i] = b[i].leaders;
    into[n + i] = b[i].outOfSync;
    // Each broker has its own lane in the gate chart: slot i at i when open, i + 0.7 when gated.
    into[2 * n + i] = i + (b[i].gated ? 0.7 : 0);
  }
  const c = 3 * n;
  into[c + P99] = f.body.sample ? f.body.sample.produceP99Ms : NaN;
  into[c + STEADY] = steady;
  into[c + URP] = f.body.partitions.underReplicated;
  into[c + OFFLINE] = f.body.partitions.offline;
  return into;
}

/** Whether a frame shows the cluster at rest, so its p99 counts toward the steady value. */
export function isSteady(f: Frame): boolean {
  const b = f.body;
  return b.partitions.underReplicated === 0 && b.partitions.offline === 0 && b.brokers.every((x) => x.state === "running" && !x.fenced && !x.inControlledShutdown);
}

export class Charts {
  private history: History | undefined;
  private runs = new History(512, ["max", "last"]);
  private brokers: number[] = [];
  private point = new Float64Array(0);
  private steadySamples: number[] = [];
  private lastSampleMs = -1;
  private lastRunMs = -1;
  private redrawAt = 0;
  private redrawTimer = 0;
  private charts: ChartBox[] = [];
  private dirty = false;
  private cyclePoints = 0;
  private markers: ChartMarker[] = [];
  private readonly resize = new ResizeObserver(() => this.fit());
  /** Whether any part of the charts is in the viewport (until told otherwise, it is). */
  private onScreen = true;

  constructor(private readonly root: HTMLElement) {
    this.resize.observe(root);
    new IntersectionObserver((entries) => {
      const was = this.onScreen;
      this.onScreen = entries[entries.length - 1].isIntersecting;
      // Scrolled into view: the points gathered meanwhile are drawn now, not at the next turn.
      if (this.onScreen && !was && this.dirty) {
        window.clearTimeout(this.redrawTimer);
        this.redrawTimer = 0;
        this.redrawAt = 0;
        this.schedule();
      }
    }).observe(root);
    const key = document.createElement("p");
    key.className = "hint chart-key";
    key.textContent = S.chartMarkerKey;
    root.before(key);
  }

  /** The cluster time of the latest point, or -Infinity. */
  get lastTimeMs(): number {
    return this.history?.lastTime ?? -Infinity;
  }

  /** Forgets the previous cluster's points (a restart). */
  clear(): void {
    this.history?.clear();
    this.runs.clear();
    this.steadySamples = [];
    this.lastSampleMs = -1;
    this.lastRunMs = -1;
    this.markers = [];
    this.dirty = true;
  }

  /**
   * Scrubbing back: drops the points after timeMs; the frames that follow add points again.
   * The page calls it when a frame's time is less than the last one seen.
   */
  resetTo(timeMs: number): void {
    this.history?.resetTo(timeMs);
    this.runs.resetTo(timeMs);
    this.markers = this.markers.filter((m) => m.timeMs <= timeMs);
    if (this.lastSampleMs > timeMs) this.lastSampleMs = -1;
    if (this.lastRunMs > timeMs) this.lastRunMs = -1;
    // The steady estimate is kept: it describes the cluster before any trouble, and a replay
    // of the same seed reproduces it.
    this.dirty = true;
    this.schedule();
  }

  /** Adds a frame's point; redraws at most every REDRAW_MS. */
  frame(f: Frame): void {
    const ids = f.body.brokers.map((b) => b.id);
    if (!this.history || ids.length !== this.brokers.length || ids.some((id, i) => id !== this.brokers[i])) this.build(ids);
    const h = this.history!;
    if (f.body.timeMs < h.lastTime) this.resetTo(f.body.timeMs);
    const s = f.body.sample;
    if (s && s.timeMs !== this.lastSampleMs) {
      this.lastSampleMs = s.timeMs;
      if (isSteady(f)) {
        this.steadySamples.push(s.produceP99Ms);
        if (this.steadySamples.length > STEADY_SAMPLES) this.steadySamples.shift();
      }
    }
    const r = f.body.lastRun;
    if (r && r.timeMs !== this.lastRunMs && r.timeMs >= this.runs.lastTime) {
      this.lastRunMs = r.timeMs;
      this.runs.push(r.timeMs, [r.elected, r.maxPerRun]);
    }
    const marks = markersOf(f.body.events);
    if (marks.length) {
      this.markers.push(...marks);
      if (this.markers.length > MARKERS) this.markers.splice(0, this.markers.length - MARKERS);
    }
    h.push(f.body.timeMs, pointOf(f, median(this.steadySamples), this.point));
    this.dirty = true;
    this.schedule();
  }

  /** Redraws every chart now (tests, presenter mode); normally frames schedule it. */
  redraw(): void {
    window.clearTimeout(this.redrawTimer);
    this.redrawTimer = 0;
    this.redrawAt = performance.now();
    this.dirty = false;
    const h = this.history;
    if (!h) return;
    for (const c of this.charts) this.redrawChart(c, h);
    setAttr(this.root, "data-points", String(h.length));
  }

  /**
   * The scheduled redraw: one chart per task, so that six uPlot redraws (a few ms each on a
   * software canvas) never add up to one long task that delays a frame or a key press.
   */
  private redrawFrom(i: number): void {
    const h = this.history;
    if (i === 0) {
      this.redrawAt = performance.now();
      this.dirty = false;
      this.cyclePoints = h?.length ?? 0;
    }
    if (!h || i >= this.charts.length) {
      this.redrawTimer = 0;
      // The points when the cycle began: every chart drawn in it has at least as many.
      if (h) setAttr(this.root, "data-points", String(this.cyclePoints));
      this.schedule(); // points that arrived meanwhile
      return;
    }
    this.redrawChart(this.charts[i], h);
    this.redrawTimer = window.setTimeout(() => this.redrawFrom(i + 1), 0);
  }

  private redrawChart(c: ChartBox, h: History): void {
    const n = this.brokers.length;
    const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);
    let data: Float64Array[];
    switch (c.name) {
      case "leaders":
        data = h.view(0, range(0, n));
        break;
      case "outOfSync":
        data = h.view(0, range(n, n));
        break;
      case "gate":
        data = h.view(0, range(2 * n, n));
        break;
      case "p99":
        data = h.view(h.firstValue(3 * n + P99), [3 * n + P99, 3 * n + STEADY]);
        break;
      case "partitions":
        data = h.view(0, [3 * n + URP, 3 * n + OFFLINE]);
        break;
      case "elections":
        data = this.runs.view(0);
        break;
    }
    setAttr(c.el, "data-series-lengths", data.slice(1).map((a) => a.length).join(","));
    if (c.name === "p99") {
      const steady = median(this.steadySamples);
      setAttr(c.el, "data-steady-ms", Number.isFinite(steady) ? steady.toFixed(2) : "");
    }
    // uPlot draws typed arrays directly; a chart with fewer than 2 points has no x range yet.
    c.plot?.setData(data as unknown as uPlot.AlignedData, true);
  }

  private schedule(): void {
    if (!this.dirty || this.redrawTimer) return;
    const every = this.onScreen ? REDRAW_MS : OFFSCREEN_REDRAW_MS;
    const wait = Math.max(0, every - (performance.now() - this.redrawAt));
    this.redrawTimer = window.setTimeout(() => this.redrawFrom(0), wait);
  }

  /** Builds the charts for a broker set (a new cluster, or the first frame). */
  private build(ids: number[]): void {
    this.brokers = ids;
    const n = ids.length;
    this.history = new History(CAPACITY, [
      ...ids.map(() => "last" as const),
      ...ids.map(() => "max" as const),
      ...ids.map(() => "max" as const),
      "max",
      "last",
      "max",
      "max",
    ]);
    this.point = new Float64Array(3 * n + CLUSTER_SERIES);
    this.runs.clear();
    this.steadySamples = [];
    this.lastSampleMs = -1;
    this.lastRunMs = -1;
    for (const c of this.charts) c.plot?.destroy();
    this.root.replaceChildren();
    const perBroker = (label: (id: number) => string): uPlot.Series[] =>
      ids.map((id, i) => ({ label: label(id), stroke: brokerStyle(i).stroke, dash: brokerStyle(i).dash, width: 2 }));
    const stepped = uPlot.paths.stepped!({ align: 1 });
    const gateLanes = ids.map((id, i) => ({
      label: S.chartBroker(id),
      stroke: brokerStyle(i).stroke,
      dash: brokerStyle(i).dash,
      width: 3,
      paths: stepped,
      value: (_u: uPlot, v: number | null) => (v === null ? "–" : v - Math.floor(v) > 0.3 ? S.chartGated : S.chartOpen),
    }));
    this.charts = [
      this.chart("leaders", S.chartLeaders, perBroker(S.chartBroker)),
      this.chart("outOfSync", S.chartOutOfSync, perBroker(S.chartBroker)),
      this.chart("gate", S.chartGate, gateLanes, {
        range: [-0.2, n],
        values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) && v >= 0 && v < n ? S.chartBroker(ids[v]) : "")),
        splits: () => ids.map((_, i) => i),
      }),
      this.chart("elections", S.chartElections, [
        { label: S.chartElected, stroke: "#0072b2", fill: "rgba(0,114,178,0.35)", paths: uPlot.paths.bars!({ size: [0.6, 12] }), points: { show: false } },
        { label: S.chartMaxPerRun, stroke: "#d55e00", dash: [6, 4], width: 1.5, paths: stepped, points: { show: false } },
      ]),
      this.chart("p99", S.chartP99, [
        { label: S.chartP99Series, stroke: "#d55e00", width: 2 },
        { label: S.chartSteady, stroke: "#555555", dash: [6, 4], width: 1.5 },
      ]),
      this.chart("partitions", S.chartPartitions, [
        { label: S.chartUnderReplicated, stroke: "#e69f00", width: 2, dash: [8, 4] },
        { label: S.chartOffline, stroke: "#1b1b1b", width: 2 },
      ]),
    ];
    this.dirty = true;
  }

  private chart(
    name: ChartName,
    title: string,
    series: uPlot.Series[],
    y?: { range?: [number, number]; values?: uPlot.Axis.DynamicValues; splits?: uPlot.Axis.Splits },
  ): ChartBox {
    const el = document.createElement("figure");
    el.className = "chart";
    el.dataset.chart = name;
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", title);
    this.root.append(el);
    const tip = document.createElement("div");
    tip.className = "chart-marker-tip";
    tip.hidden = true;
    el.append(tip);
    const box: ChartBox = { name, el, plot: undefined, tip };
    const { width, height } = this.size();
    const opts: uPlot.Options = {
      title,
      width,
      height,
      pxAlign: 0,
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      legend: { live: true },
      scales: { x: { time: false }, y: y?.range ? { range: y.range } : { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max * 1.1)] } },
      axes: [
        { values: (_u, ticks) => ticks.map((v) => clockText(v).replace(/\.\d$/, "")), stroke: "currentColor", grid: { stroke: "rgba(127,127,127,0.25)" } },
        {
          stroke: "currentColor",
          grid: { stroke: "rgba(127,127,127,0.25)" },
          size: fitLabels,
          values: y?.values ?? (name === "p99" ? msValues : siValues),
          ...(y?.splits ? { splits: y.splits } : {}),
        },
      ],
      series: [{ label: S.chartTime, value: (_u, v) => (v === null ? "–" : clockText(v)) }, ...series],
      plugins: [this.markerPlugin(box)],
    };
    box.plot = new uPlot(opts, [[], ...series.map(() => [])], el);
    return box;
  }

  /** Draws the markers over a chart's plot and shows a hovered one's log line. */
  private markerPlugin(box: ChartBox): uPlot.Plugin {
    return {
      hooks: {
        draw: [(u) => this.drawMarkers(u, box)],
        setCursor: [(u) => this.hoverMarker(u, box)],
      },
    };
  }

  /** The markers inside the chart's time range, with their x in CSS px of the plotting area. */
  private visibleMarkers(u: uPlot): { m: ChartMarker; x: number }[] {
    const lo = u.scales.x.min;
    const hi = u.scales.x.max;
    if (lo === undefined || hi === undefined || lo === null || hi === null) return [];
    const out: { m: ChartMarker; x: number }[] = [];
    for (const m of this.markers) if (m.timeMs >= lo && m.timeMs <= hi) out.push({ m, x: u.valToPos(m.timeMs, "x") });
    return out;
  }

  private drawMarkers(u: uPlot, box: ChartBox): void {
    const ctx = u.ctx;
    const dpr = uPlot.pxRatio;
    const { left, top, height } = u.bbox;
    const text = getComputedStyle(box.el).color || "#1b1b1b";
    const shown = this.visibleMarkers(u);
    ctx.save();
    ctx.lineWidth = Math.max(1, dpr);
    for (const { m, x } of shown) {
      const cx = Math.round(left + x * dpr) + 0.5;
      const action = m.kind === "action";
      ctx.strokeStyle = ctx.fillStyle = action ? text : RUN_MARK;
      ctx.globalAlpha = 0.75;
      ctx.setLineDash(action ? [] : [2 * dpr, 3 * dpr]);
      ctx.beginPath();
      ctx.moveTo(cx, top);
      ctx.lineTo(cx, top + height);
      ctx.stroke();
      ctx.setLineDash([]);
      // A head that tells the two apart without colour: a triangle for an action, a ring for a run.
      const r = 3.5 * dpr;
      ctx.beginPath();
      if (action) {
        ctx.moveTo(cx - r, top);
        ctx.lineTo(cx + r, top);
        ctx.lineTo(cx, top + 1.6 * r);
        ctx.closePath();
        ctx.fill();
      } else {
        ctx.arc(cx, top + r, r, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
    ctx.restore();
    setAttr(box.el, "data-marker-x", shown.map((s) => s.x.toFixed(1)).join(","));
  }

  /** Shows the log line of the marker under the pointer, if any. */
  private hoverMarker(u: uPlot, box: ChartBox): void {
    const at = u.cursor.left;
    const near = at === undefined || at < 0 ? [] : this.visibleMarkers(u).filter((s) => Math.abs(s.x - at) <= MARKER_HIT_PX);
    if (near.length === 0) {
      box.tip.hidden = true;
      return;
    }
    box.tip.textContent = near.map((s) => `${clockText(s.m.timeMs)} ${s.m.text}`).join("\n");
    box.tip.hidden = false;
    const over = u.over.getBoundingClientRect();
    const fig = box.el.getBoundingClientRect();
    const x = over.left - fig.left + near[0].x;
    const w = box.tip.offsetWidth;
    box.tip.style.left = `${Math.max(0, Math.min(x + 8, box.el.clientWidth - w - 2))}px`;
    box.tip.style.top = `${over.top - fig.top + 4}px`;
  }

  private size(): { width: number; height: number } {
    const w = this.root.clientWidth || 600;
    const cols = w >= 900 ? 3 : w >= 560 ? 2 : 1;
    const width = Math.max(200, Math.floor((w - (cols - 1) * 16) / cols));
    const big = document.body.classList.contains("presenter");
    return { width, height: big ? 260 : 170 };
  }

  /** Fits the charts to the container (a resize, or presenter mode on or off). */
  fit(): void {
    const s = this.size();
    for (const c of this.charts) c.plot?.setSize(s);
  }
}
