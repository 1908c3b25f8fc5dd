// The timeline: a scrub bar over the run's cluster time, with a mark for every recorded
// action, and the step buttons (next event, next electPreferred run, back to 0).
//
// Moving back is a replay in the worker (the simulation is deterministic: the same actions at
// the same times give the same state), so the bar can go anywhere between 0 and the latest
// time the run reached. Dragging sends at most one seek at a time, coalesced to the latest
// position (Simulation.seek). An action taken while an earlier moment is shown replaces the
// recorded actions after it, like typing after an undo; the hint under the bar says so.

import { setAttr, setText } from "./dom";
import { clockText, type Frame } from "./frame";
import type { ActionMark } from "./protocol";
import type { Simulation } from "./sim";
import { S } from "./strings";

export interface TimelineDom {
  scrub: HTMLInputElement;
  marks: HTMLElement;
  time: HTMLOutputElement;
  hint: HTMLElement;
  stepEvent: HTMLButtonElement;
  stepRun: HTMLButtonElement;
  rewind: HTMLButtonElement;
}

/**
 * Wall-clock ms a frame's time may wait before the bar, its text and its marks show it: the bar
 * follows every frame only where its thumb moves by half a pixel or more. At the live end of a run
 * that is playing, the thumb stays at the right end while the time and the end grow together,
 * and a range input written 60 times a second costs more of the page's main thread than
 * anything else it shows (its style, layout and paint, every frame).
 */
const SHOW_EVERY_MS = 250;

export class Timeline {
  private horizon = 0;
  private now = 0;
  /** The time the bar stands for (the frame's, or where the reader put it), written or not. */
  private value = 0;
  private dragging = false;
  private actions: ActionMark[] = [];
  /** What the bar shows: its end and thumb position (px), and when it was written. */
  private shown = { horizon: -1, px: -1, at: -Infinity };
  private showTimer = 0;
  private wasPlaying: boolean | undefined;
  /** The bar's width in CSS px, from a ResizeObserver (no layout read in a frame). */
  private trackPx = 1000;

  constructor(
    private readonly sim: Simulation,
    private readonly dom: TimelineDom,
  ) {
    // step="any" keeps any cluster time representable; the keys are handled here instead of
    // the browser's one-unit steps, which would be a millisecond.
    dom.scrub.step = "any";
    dom.scrub.min = "0";
    new ResizeObserver((entries) => {
      this.trackPx = Math.max(1, entries[entries.length - 1].contentRect.width);
    }).observe(dom.scrub);
    dom.scrub.addEventListener("pointerdown", () => {
      // The browser turns the pointer's place into a value with the bar's end as written.
      this.show(true);
      this.dragging = true;
      if (sim.playing) sim.setPlaying(false);
    });
    const release = () => {
      this.dragging = false;
    };
    dom.scrub.addEventListener("pointerup", release);
    dom.scrub.addEventListener("pointercancel", release);
    dom.scrub.addEventListener("change", release);
    dom.scrub.addEventListener("input", () => this.go(Number(dom.scrub.value)));
    dom.scrub.addEventListener("keydown", (e) => this.key(e));
    dom.stepEvent.addEventListener("click", () => this.step("event"));
    dom.stepRun.addEventListener("click", () => this.step("run"));
    dom.rewind.addEventListener("click", () => this.go(0));
  }

  /** Scrubs to cluster time t (paused: a scrub is for looking). */
  go(t: number): void {
    if (this.sim.playing) this.sim.setPlaying(false);
    const to = Math.max(0, Math.min(this.horizon, Math.round(t)));
    this.value = to;
    this.show(true);
    this.sim.seek(to);
  }

  /** Steps to the next event-log line or electPreferred run, paused. */
  step(to: "event" | "run"): void {
    if (this.sim.playing) this.sim.setPlaying(false);
    void this.sim.step(to);
  }

  /** Follows a frame: the bar's end and, unless the reader holds it, its position. */
  update(f: Frame): void {
    this.now = f.body.timeMs;
    this.horizon = Math.max(f.body.horizonMs ?? 0, this.now);
    if (!this.dragging) this.value = this.now;
    this.show(false);
    this.hint();
  }

  /**
   * Follows the play state: when the run is paused or played, the latest frame's time shows at
   * once (what the reader looks at then agrees with the clock), not a moment later.
   */
  playing(on: boolean): void {
    if (on === this.wasPlaying) return;
    this.wasPlaying = on;
    if (this.shown.at >= 0) this.show(true);
  }

  /** The recorded actions changed (sim.history). */
  setActions(actions: ActionMark[], horizonMs: number): void {
    this.actions = actions;
    this.horizon = Math.max(horizonMs, this.now);
    this.shown.horizon = -1; // the marks are placed again
    this.show(true);
    this.hint();
  }

  /**
   * Writes the bar's end, value and text and places the marks: now when `now` is set, the
   * thumb moves half a pixel or more, or the last write is SHOW_EVERY_MS old; else a moment later,
   * so that the last frame of a run is shown too.
   */
  private show(now: boolean): void {
    const span = Math.max(this.horizon, 1);
    const px = Math.round(((2 * this.value) / span) * this.trackPx) / 2;
    const wall = performance.now();
    const due = now || px !== this.shown.px || wall - this.shown.at >= SHOW_EVERY_MS;
    if (!due) {
      if (!this.showTimer) this.showTimer = window.setTimeout(() => this.show(true), SHOW_EVERY_MS - (wall - this.shown.at));
      return;
    }
    window.clearTimeout(this.showTimer);
    this.showTimer = 0;
    const { scrub, time } = this.dom;
    if (this.horizon !== this.shown.horizon) {
      scrub.max = String(this.horizon);
      this.placeMarks();
    }
    // The value after the end: a value past the old end would be clamped to it.
    if (scrub.value !== String(this.value)) scrub.value = String(this.value);
    const text = S.scrubValue(clockText(this.value), clockText(this.horizon));
    setAttr(scrub, "aria-valuetext", text);
    setText(time, text);
    this.shown = { horizon: this.horizon, px, at: wall };
  }

  private hint(): void {
    const later = this.actions.filter((a) => a.timeMs > this.now).length;
    setText(this.dom.hint, later > 0 ? S.scrubRewrites(later) : this.now < this.horizon ? S.scrubBehind : "");
    setAttr(this.dom.scrub, "data-later", String(later));
  }

  private placeMarks(): void {
    const frag = document.createDocumentFragment();
    const span = Math.max(this.horizon, 1);
    for (const a of this.actions) {
      const m = document.createElement("span");
      m.className = "scrub-mark";
      m.dataset.op = a.op;
      m.dataset.timeMs = String(a.timeMs);
      m.style.left = `${((100 * a.timeMs) / span).toFixed(3)}%`;
      m.title = S.scrubMark(a.op.replace("_", " "), clockText(a.timeMs));
      frag.append(m);
    }
    this.dom.marks.replaceChildren(frag);
  }

  /** Arrow keys move a second (Shift: ten), Page keys a minute, Home and End to the ends. */
  private key(e: KeyboardEvent): void {
    const cur = this.value;
    const by: Record<string, number> = {
      ArrowLeft: -1000,
      ArrowDown: -1000,
      ArrowRight: 1000,
      ArrowUp: 1000,
      PageDown: -60_000,
      PageUp: 60_000,
    };
    let to: number | undefined;
    if (e.key in by) to = cur + by[e.key] * (e.shiftKey ? 10 : 1);
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = this.horizon;
    if (to === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    this.go(to);
  }
}
