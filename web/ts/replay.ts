// Long replays in slices. A share link may hold a run at a late time (up to 7 days of cluster
// time): the worker would need minutes to run there in one request, and the page would stay
// blank and deaf all that while. Instead the page opens the run at time 0 and seeks forward in
// slices, each a fraction of a second of the worker's time, drawing each slice's frame under a
// progress bar with a Cancel button; Cancel keeps the run at the time reached. How far a link
// may ask the page to go at all is the worker's limit (sim.load's replayToMs, MaxReplayWork in
// wasm/bridge/share.go), checked before anything runs.

import { clockText } from "./frame";
import { S } from "./strings";

/** What a replay drives: one forward seek at a time, resolving with the time then shown. */
export interface Seeker {
  seekNow(t: number): Promise<number>;
}

/** The worker time a slice aims at (ms): short enough that Cancel and the page answer at once. */
const SLICE_WALL_MS = 150;
/** The first slice's cluster time (ms), before the page knows how fast the worker goes. */
const FIRST_SLICE_MS = 10_000;

export interface ReplayEnd {
  /** The cluster time shown when the replay ended. */
  reached: number;
  /** Whether the reader cancelled it (or moved the run meanwhile) before it got there. */
  cancelled: boolean;
}

/** The progress bar and its Cancel button; hidden while no replay runs. */
export class Replay {
  private readonly box: HTMLElement;
  private readonly text: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly cancelButton: HTMLButtonElement;
  private cancelled = false;

  /** Builds the bar right after `after` (the link's error line, above the toolbar). */
  constructor(after: HTMLElement) {
    this.box = document.createElement("div");
    this.box.id = "replay";
    this.box.className = "replay";
    this.box.setAttribute("role", "status");
    this.box.hidden = true;
    this.text = document.createElement("span");
    this.text.id = "replay-text";
    this.bar = document.createElement("progress");
    this.bar.id = "replay-progress";
    this.bar.setAttribute("aria-labelledby", "replay-text");
    this.cancelButton = document.createElement("button");
    this.cancelButton.type = "button";
    this.cancelButton.id = "replay-cancel";
    this.cancelButton.textContent = S.replayCancel;
    this.cancelButton.addEventListener("click", () => this.cancel());
    this.box.append(this.text, this.bar, this.cancelButton);
    after.after(this.box);
  }

  /** Whether a replay is running. */
  get running(): boolean {
    return !this.box.hidden;
  }

  /** Stops the running replay after its current slice; the run stays at the time reached. */
  cancel(): void {
    this.cancelled = true;
  }

  /** Runs forward from `from` to `to` in slices, showing the progress; resolves when done or cancelled. */
  async run(sim: Seeker, from: number, to: number): Promise<ReplayEnd> {
    this.cancelled = false;
    this.box.hidden = false;
    document.body.dataset.replay = "running";
    let at = from;
    let slice = FIRST_SLICE_MS;
    try {
      while (at < to && !this.cancelled) {
        this.show(at, from, to);
        const next = Math.min(to, at + slice);
        const t0 = performance.now();
        const shown = await sim.seekNow(next);
        // A slice that did not land where asked: the worker failed (reported already) or the
        // reader moved the run meanwhile; either way this replay is over.
        if (shown !== next) {
          at = shown;
          this.cancelled = true;
          break;
        }
        at = shown;
        // Aim the next slice at SLICE_WALL_MS of the worker's time, growing at most fourfold.
        const took = Math.max(1, performance.now() - t0);
        slice = Math.round(Math.min(slice * 4, Math.max(1000, (slice * SLICE_WALL_MS) / took)));
      }
    } finally {
      this.box.hidden = true;
      document.body.dataset.replay = this.cancelled ? "cancelled" : "done";
    }
    return { reached: at, cancelled: this.cancelled };
  }

  private show(at: number, from: number, to: number): void {
    this.bar.max = Math.max(1, to - from);
    this.bar.value = at - from;
    this.text.textContent = S.replayProgress(clockText(at), clockText(to));
    this.box.dataset.timeMs = String(at);
  }
}
