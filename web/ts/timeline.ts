// The timeline: a scrub bar over the run's cluster time, with a mark for every recorded
// action, and the step buttons (next event, next electPreferred run, back to 0).
//
// Moving back is a replay in the worker (the simulation is deterministic: the same actions at
// the same times give the same state), so the bar can go anywhere between 0 and the latest
// time the run reached. Dragging sends at most one seek at a time, coalesced to the latest
// position (Simulation.seek). An action taken while an earlier moment is shown replaces the
// recorded actions after it, like typing after an undo; the hint under the bar says so.

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

export class Timeline {
  private horizon = 0;
  private now = 0;
  private dragging = false;
  private actions: ActionMark[] = [];

  constructor(
    private readonly sim: Simulation,
    private readonly dom: TimelineDom,
  ) {
    // step="any" keeps any cluster time representable; the keys are handled here instead of
    // the browser's one-unit steps, which would be a millisecond.
    dom.scrub.step = "any";
    dom.scrub.min = "0";
    dom.scrub.addEventListener("pointerdown", () => {
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
    this.show(to);
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
    const horizon = Math.max(f.body.horizonMs ?? 0, this.now);
    if (horizon !== this.horizon) {
      this.horizon = horizon;
      this.dom.scrub.max = String(horizon);
      this.placeMarks();
    }
    if (!this.dragging) this.show(this.now);
    this.hint();
  }

  /** The recorded actions changed (sim.history). */
  setActions(actions: ActionMark[], horizonMs: number): void {
    this.actions = actions;
    this.horizon = Math.max(horizonMs, this.now);
    this.dom.scrub.max = String(this.horizon);
    this.placeMarks();
    this.hint();
  }

  private show(t: number): void {
    const { scrub, time } = this.dom;
    scrub.value = String(t);
    const text = S.scrubValue(clockText(t), clockText(this.horizon));
    scrub.setAttribute("aria-valuetext", text);
    time.textContent = text;
  }

  private hint(): void {
    const later = this.actions.filter((a) => a.timeMs > this.now).length;
    const text = later > 0 ? S.scrubRewrites(later) : this.now < this.horizon ? S.scrubBehind : "";
    if (this.dom.hint.textContent !== text) this.dom.hint.textContent = text;
    this.dom.scrub.dataset.later = String(later);
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
    const cur = Number(this.dom.scrub.value);
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
