// A pool of Web Workers, each running the playground's worker.js with the lab's own wasm
// (worker.js?wasm=lab loads lab.wasm: the lab.* messages without the playground's code), that
// plays a plan's distinct runs one per worker at a time. A run is stepped in slices of
// scenario time (lab.run.step), so the page reports progress between slices and a cancel
// takes effect within one slice; a cancel terminates nothing, so a cancelled pool is reusable.
// Results stay in the worker that ran them; judge() asks that worker for verdicts against a
// baseline that may have run elsewhere.
//
// A worker's wasm linear memory never shrinks: it is the high-water mark of its Go heap, which
// one run of the KIP preset takes to about 125 MB, and which later runs nudge up (the peak of a
// run depends on where its collections fall, and the heap's free pages fragment). Once the
// page is done with a comparison or a sweep (judged, or cancelled), recycle() replaces every
// idle worker holding more than RECYCLE_BYTES by a fresh one, which starts in about 0.1 s
// (the module is compiled already) holding a few MB: the page holds its runs' memory only
// while they run.

import { WorkerClient, type Problem } from "../protocol";
import type { Baseline, ResultBody, Verdict } from "./protocol";

/** Scenario time per lab.run.step: about 20–40 ms of work on the KIP's load test in Chromium. */
const SLICE_MS = 120_000;

export class Cancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "Cancelled";
  }
}

/** A finished run: its figures and where its result lives for lab.judge. */
export interface Done extends ResultBody {
  worker: number;
}

/**
 * A worker holding more linear memory than this once the page is done with its runs is
 * replaced (recycle): a fresh lab worker holds about 2 MB, the KIP preset's run leaves about
 * 125 MB. Runs that leave less keep their worker, and spare the page its restart (two
 * workers' start-up, a few hundred ms of CPU).
 */
export const RECYCLE_BYTES = 64 * 1024 * 1024;

/** What the pool needs of a worker (WorkerClient; the unit tests' fakes). */
export type PoolWorker = Pick<WorkerClient, "request" | "ready" | "idle" | "close">;

export class Pool {
  readonly workers: PoolWorker[] = [];
  private nextId = 1;
  /** Bumped by cancel() and by every run(): a loop of an older run stops at its next slice. */
  private generation = 0;
  /** The last recycle() (they run one after the other). */
  private recycling: Promise<void> = Promise.resolve();

  /** spawn starts a lab worker (the page's: worker.js?wasm=lab). */
  constructor(
    onProblem: (p: Problem, fatal: boolean) => void,
    private readonly spawn: () => PoolWorker = () => new WorkerClient("worker.js?wasm=lab", onProblem),
  ) {}

  /** Makes sure at least n workers exist (each loads lab.wasm once, about a second). */
  grow(n: number): void {
    while (this.workers.length < n) this.workers.push(this.spawn());
  }

  get first(): PoolWorker {
    this.grow(1);
    return this.workers[0];
  }

  cancel(): void {
    this.generation++;
  }

  /**
   * Plays every scenario on up to `width` workers and returns the results in the scenarios'
   * order whatever order they finish in. progress(fraction) is called after every slice.
   */
  async run(scenarios: string[], width: number, progress: (fraction: number) => void): Promise<Done[]> {
    const gen = ++this.generation;
    const n = Math.max(1, Math.min(width, scenarios.length));
    this.grow(n);
    await Promise.all(this.workers.slice(0, n).map((w) => w.request("lab.drop", {})));
    const out: Done[] = new Array(scenarios.length);
    const reached = new Float64Array(scenarios.length);
    const total = new Float64Array(scenarios.length).fill(1);
    const report = () => {
      let a = 0;
      let b = 0;
      for (let i = 0; i < scenarios.length; i++) {
        a += reached[i] / total[i];
        b += 1;
      }
      progress(a / b);
    };
    let next = 0;
    const loop = async (wi: number) => {
      const w = this.workers[wi];
      while (next < scenarios.length) {
        if (gen !== this.generation) throw new Cancelled();
        const i = next++;
        const id = this.nextId++;
        let p = await w.request("lab.run.start", { id, scenario: scenarios[i] });
        total[i] = Math.max(1, p.durationMs);
        while (!p.done) {
          if (gen !== this.generation) throw new Cancelled();
          p = await w.request("lab.run.step", { ms: SLICE_MS });
          reached[i] = p.nowMs;
          report();
        }
        out[i] = { ...(await w.request("lab.run.result", {})), worker: wi };
      }
    };
    await Promise.all(Array.from({ length: n }, (_, wi) => loop(wi)));
    return out;
  }

  /** The verdicts of each run against its baseline run (both from the same run() call). */
  async judge(done: Done[], pairs: { run: number; baseline: number }[]): Promise<Verdict[][]> {
    return Promise.all(
      pairs.map(async ({ run, baseline }) => {
        const r = done[run];
        const b = done[baseline];
        const base: Baseline = { recovery_time_ms: b.summary.recovery_time_ms, violation: b.result.violation };
        const res = await this.workers[r.worker].request("lab.judge", { ids: [r.id], baseline: base });
        return res.verdicts[0];
      }),
    );
  }

  /**
   * Replaces every idle worker whose linear memory (debug.memory's sysBytes) passed
   * RECYCLE_BYTES by a fresh one, for when the page is done with a run()'s results (judged or
   * cancelled: a cancelled run's cluster is still in its worker). The old worker is terminated
   * and the fresh one takes its place at once, so a request made from then on (a form check,
   * the next run) waits for it to be ready. A worker with a request under way is kept, and so
   * is one that cannot say its memory (a dead worker has told the page already). Resolves when
   * every replaced worker's successor is ready.
   */
  recycle(): Promise<void> {
    // An earlier recycle's failure (reported to its caller) does not stop this one.
    this.recycling = this.recycling.catch(() => undefined).then(() => this.recycleNow());
    return this.recycling;
  }

  private async recycleNow(): Promise<void> {
    // One worker at a time: the old one is terminated before its successor starts, so that
    // the two are never alive together (a fresh isolate beside a worker holding a run's
    // memory would raise the page's peak), and another worker still holds the compiled module
    // while the successor starts.
    for (let i = 0; i < this.workers.length; i++) {
      const w = this.workers[i];
      if (!w.idle) continue;
      let sys: number;
      try {
        sys = (await w.request("debug.memory", {})).sysBytes;
      } catch {
        continue;
      }
      // Asked again: a request may have been made of it while it answered.
      if (sys <= RECYCLE_BYTES || !w.idle || this.workers[i] !== w) continue;
      w.close();
      const fresh = this.spawn();
      this.workers[i] = fresh;
      try {
        await fresh.ready;
      } catch {
        // It could not start: onProblem has shown why.
      }
    }
  }
}
