// A timeline of one lesson step on which the learner marks a moment: the answer to a
// prediction such as "how long until broker 1 leads again?" (docs/lessons.md, when:). It runs
// from the step's start to its span later, labelled with the cluster clock the playground
// shows; the learner clicks or drags the mark, or moves it with the keys (arrows a second,
// Shift+arrows ten, Page keys a tick, Home and End), and records it with the Mark button or
// Enter. Once the run has played, the reveal draws what happened, with the tolerance around
// it, beside the learner's mark. The widget is built here rather than in the page skeleton:
// only a step with such a prediction has one.

import { clockText } from "../frame";
import { L } from "./strings";

export interface MomentTimeline {
  /** Cluster time of the step's start; SpanMs and the marks count from it. */
  startMs: number;
  spanMs: number;
  toleranceMs: number;
}

/** Tick spacings to choose from, in ms: the first giving at most maxTicks ticks is used. */
const TICK_STEPS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
const MAX_TICKS = 6;

/** A clock reading without hours (when 0) and tenths, for tick labels: "5:00", "1:02:30". */
export function tickText(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** The tick times (cluster time) inside [start, start+span]: round clock readings. */
export function ticks(startMs: number, spanMs: number): { step: number; at: number[] } {
  const step = TICK_STEPS.find((s) => spanMs / s <= MAX_TICKS) ?? TICK_STEPS[TICK_STEPS.length - 1];
  const at: number[] = [];
  for (let t = Math.ceil(startMs / step) * step; t <= startMs + spanMs; t += step) at.push(t);
  return { step, at };
}

/** A span in words for the readout and the verdict: "12 s", "4 min 16 s". */
export function offText(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  if (s < 120) return `${s} s`;
  return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

export class MomentPicker {
  readonly root = el("div", { className: "moment", id: "lesson-moment" });
  private readonly range = el("input", { type: "range", id: "lesson-moment-range", className: "moment-range" });
  private readonly band = el("div", { className: "moment-band", hidden: true });
  private readonly actual = el("div", { className: "moment-actual", hidden: true });
  private readonly tickRow = el("div", { className: "moment-ticks" });
  private readonly readout = el("output", { id: "lesson-moment-at", className: "moment-at" });
  private readonly how = el("p", { className: "hint moment-how" });
  private readonly markButton = el("button", { type: "button", id: "lesson-moment-mark", textContent: L.momentMark });
  private tl: MomentTimeline = { startMs: 0, spanMs: 1, toleranceMs: 0 };
  private tickStep = 60_000;
  /** Thins the tick labels again whenever their row or a label changes size (a narrower panel,
   * presenter mode's larger type, a new step's labels). */
  private readonly tickSizes = new ResizeObserver(() => this.thinTicks());

  constructor(private readonly onMark: (stepMs: number) => void) {
    const track = el("div", { className: "moment-track" });
    track.append(this.band, this.actual, this.range);
    this.tickRow.setAttribute("aria-hidden", "true");
    this.range.setAttribute("aria-label", L.momentLabel);
    this.range.min = "0";
    this.range.step = "1000";
    this.readout.htmlFor.add(this.range.id);
    const row = el("p", { className: "moment-row" });
    row.append(this.readout, " ", this.markButton);
    this.root.append(this.how, track, this.tickRow, row);
    this.range.addEventListener("input", () => this.showReadout());
    this.range.addEventListener("keydown", (e) => this.key(e));
    this.markButton.addEventListener("click", () => this.mark());
  }

  /**
   * Hides each tick label that would touch the last one shown, "now" first: the labels sit at
   * fractions of the track, so how close two come depends on the panel's width and the type's
   * size (on a phone in presenter mode "now" and the first tick met). Read after layout, from
   * the ResizeObserver, so it costs no layout of its own.
   */
  private thinTicks(): void {
    const gap = 0.5 * parseFloat(getComputedStyle(this.tickRow).fontSize);
    let end = -Infinity;
    for (const label of Array.from(this.tickRow.children) as HTMLElement[]) {
      const r = label.getBoundingClientRect();
      const clear = r.left >= end + gap;
      label.style.visibility = clear ? "" : "hidden";
      if (clear) end = r.right;
    }
  }

  /** Shows the step's timeline: unmarked (the mark starts mid-way), or with the mark given. */
  show(tl: MomentTimeline, marked: number | undefined): void {
    this.tl = tl;
    this.range.max = String(tl.spanMs);
    const { step, at } = ticks(tl.startMs, tl.spanMs);
    this.tickStep = step;
    // The step's start is "now"; the round ticks follow, thinned where they would meet.
    const now = el("span", { className: "moment-now", textContent: L.momentNow });
    now.style.setProperty("--at", "0");
    const labels = at.map((t) => {
      const s = el("span", { textContent: tickText(t) });
      s.style.setProperty("--at", String((t - tl.startMs) / tl.spanMs));
      return s;
    });
    this.tickRow.replaceChildren(now, ...labels);
    this.tickSizes.disconnect();
    for (const e of [this.tickRow, now, ...labels]) this.tickSizes.observe(e);
    this.range.value = String(marked ?? Math.round(tl.spanMs / 2000) * 1000);
    this.range.disabled = marked !== undefined;
    this.markButton.hidden = marked !== undefined;
    this.band.hidden = this.actual.hidden = true;
    this.root.dataset.state = marked === undefined ? "open" : "marked";
    this.how.textContent = marked === undefined ? L.momentHow : "";
    this.how.hidden = marked !== undefined;
    this.showReadout();
  }

  /** What happened: the moment (step time), the tolerance around it; -1 when it did not come. */
  reveal(whenMs: number): void {
    this.root.dataset.state = "revealed";
    if (whenMs < 0) return;
    this.how.textContent = L.momentLegend(offText(this.tl.toleranceMs));
    this.how.hidden = false;
    const at = (t: number) => String(Math.max(0, Math.min(1, t / this.tl.spanMs)));
    this.actual.style.setProperty("--at", at(whenMs));
    this.actual.title = L.momentHappened(clockText(this.tl.startMs + whenMs));
    this.band.style.setProperty("--from", at(whenMs - this.tl.toleranceMs));
    this.band.style.setProperty("--to", at(whenMs + this.tl.toleranceMs));
    this.band.hidden = this.actual.hidden = false;
  }

  private get value(): number {
    return Number(this.range.value);
  }

  private showReadout(): void {
    this.readout.textContent = L.momentAt(clockText(this.tl.startMs + this.value), offText(this.value));
    this.range.setAttribute("aria-valuetext", this.readout.textContent);
  }

  private mark(): void {
    if (this.range.disabled) return;
    this.onMark(this.value);
  }

  private key(e: KeyboardEvent): void {
    const by: Record<string, number> = { ArrowLeft: -1000, ArrowDown: -1000, ArrowRight: 1000, ArrowUp: 1000, PageDown: -this.tickStep, PageUp: this.tickStep };
    e.stopPropagation();
    if (e.key === "Enter") {
      e.preventDefault();
      this.mark();
      return;
    }
    let to: number | undefined;
    if (e.key in by) to = this.value + by[e.key] * (e.shiftKey && e.key.startsWith("Arrow") ? 10 : 1);
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = this.tl.spanMs;
    if (to === undefined) return;
    e.preventDefault();
    this.range.value = String(Math.max(0, Math.min(this.tl.spanMs, to)));
    this.showReadout();
  }
}
