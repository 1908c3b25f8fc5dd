// A pool of Web Workers, each running the playground's worker.js with the lab's own wasm
// (worker.js?wasm=lab loads lab.wasm: the lab.* messages without the playground's code), that
// plays a plan's distinct runs one per worker at a time. A run is stepped in slices of
// scenario time (lab.run.step), so the page reports progress between slices and a cancel
// takes effect within one slice; nothing is ever terminated, so a cancelled pool is reusable.
// Results stay in the worker that ran them; judge() asks that worker for verdicts against a
// baseline that may have run elsewhere.

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

export class Pool {
  readonly workers: WorkerClient[] = [];
  private nextId = 1;
  /** Bumped by cancel() and by every run(): a loop of an older run stops at its next slice. */
  private generation = 0;

  constructor(private readonly onProblem: (p: Problem, fatal: boolean) => void) {}

  /** Makes sure at least n workers exist (each loads lab.wasm once, about a second). */
  grow(n: number): void {
    while (this.workers.length < n) this.workers.push(new WorkerClient("worker.js?wasm=lab", this.onProblem));
  }

  get first(): WorkerClient {
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
}
