// The simulation's pacing (web/ts/sim.ts): frames are asked for at animation-frame pace, one
// in flight at a time (two while the worker cannot keep up), each with a budget of worker time,
// and an animation frame that finds one in flight is made up as soon as its reply arrives,
// before that reply is drawn.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Simulation } from "../sim";
import { MAX_BUDGET_MS } from "../protocol";
import type { StartBody, WorkerClient } from "../protocol";
import { emptyFrame } from "./frames";

/** A worker client whose sim.advance replies are released by hand, and the page's rAF loop. */
function harness() {
  /** Each request's release answers with a frame at timeMs (0 unless given: short of any time asked for). */
  const pending: { ms: number; budgetMs?: number; release: (timeMs?: number) => void }[] = [];
  const client = {
    requestData(type: string, body: { ms: number; budgetMs?: number }) {
      assert.equal(type, "sim.advance");
      return new Promise((resolve) => pending.push({ ms: body.ms, budgetMs: body.budgetMs, release: (timeMs = 0) => resolve(emptyFrame(timeMs)) }));
    },
  } as unknown as WorkerClient;
  let raf: ((now: number) => void) | undefined;
  (globalThis as { requestAnimationFrame?: unknown }).requestAnimationFrame = (cb: (now: number) => void) => {
    raf = cb;
    return 1;
  };
  let frames = 0;
  /** How many requests had gone out when each frame was drawn. */
  const requestsAtDraw: number[] = [];
  const draw = () => {
    frames++;
    requestsAtDraw.push(pending.length);
  };
  const sim = new Simulation(client, { frame: draw, failure: (_w, e) => assert.ok(false, String(e)), state: () => {} });
  return {
    sim,
    pending,
    requestsAtDraw,
    frames: () => frames,
    /** Runs one animation frame at wall time now. */
    display: (now: number) => raf?.(now),
    /** Lets promise callbacks run. */
    settle: () => new Promise<void>((r) => setTimeout(r, 0)),
  };
}

test("an animation frame that finds a request in flight is made up when the reply is drawn", async () => {
  const h = harness();
  // Not started: nothing is asked for.
  h.display(0);
  assert.equal(h.pending.length, 0);
  h.sim["begin"]({} as StartBody);
  // Animation frames are stamped on performance.now()'s clock, which the made-up request reads.
  const t0 = performance.now() - 50;
  h.display(t0);
  assert.equal(h.pending.length, 1, "the first animation frame asks for a frame");
  h.display(t0 + 16);
  h.display(t0 + 33);
  assert.equal(h.pending.length, 1, "one request in flight at a time");
  h.pending[0].release();
  await h.settle();
  assert.equal(h.frames(), 1);
  assert.equal(h.pending.length, 2, "the missed animation frames are made up at once, with one request");
  assert.deepEqual(h.requestsAtDraw, [2], "sent before the reply was drawn: the worker runs while the page draws");
  assert.ok(h.pending.every((p) => p.budgetMs !== undefined && p.budgetMs > 0 && p.budgetMs < 33), "each step has a budget inside a 30 fps frame");
  assert.ok(h.pending[1].ms >= 50 * h.sim.speed, "and it advances by the wall time since the last request");
  assert.ok(h.pending[1].ms <= 100 * h.sim.speed, "capped at MAX_STEP_WALL_MS");
  h.display(t0 + 40);
  assert.equal(h.pending[2], undefined, "an animation frame stamped before the made-up request asks for nothing while it is in flight");
  h.pending[1].release();
  await h.settle();
  assert.equal(h.pending.length, 3, "and is made up in turn");
  h.pending[2].release();
  await h.settle();
  assert.equal(h.pending.length, 3, "no animation frame was missed meanwhile");
  h.display(t0 + 45);
  assert.equal(h.pending.length, 4);
  assert.equal(h.pending[3].ms, 0, "a frame stamped before the last made-up request asks for no time, never negative time");
});

test("a reply that comes before the next animation frame waits for it", async () => {
  const h = harness();
  h.sim["begin"]({} as StartBody);
  h.display(1000);
  h.pending[0].release();
  await h.settle();
  assert.equal(h.frames(), 1);
  assert.equal(h.pending.length, 1, "no animation frame was missed: no extra request");
  h.display(1016);
  assert.equal(h.pending.length, 2);
  assert.equal(h.pending[1].ms, Math.floor(16 * h.sim.speed));
});

test("a step that spent its budget and came back late leaves less budget to the next", async () => {
  const h = harness();
  h.sim["begin"]({} as StartBody);
  h.sim.setSpeed(10_000);
  const t0 = performance.now();
  h.display(t0);
  h.display(t0 + 16); // the first step asks for no time; this one is made up on its reply
  h.pending[0].release();
  await h.settle();
  assert.equal(h.pending.length, 2);
  const first = h.pending[1].budgetMs ?? 0;
  assert.equal(first, 30, "no step has spent its budget yet: a whole frame");
  h.display(t0 + 32);
  // The worker stops short of the cluster time asked for (the frame's time is 0) 80 ms after
  // the request: the step cost about 50 ms on top of its budget.
  await new Promise((r) => setTimeout(r, 80));
  h.pending[1].release();
  await h.settle();
  assert.equal(h.pending.length, 3);
  const next = h.pending[2].budgetMs ?? 0;
  assert.ok(next < first, `budget ${next} ms after a late step, ${first} ms before`);
  assert.ok(next >= 5, "never below the least budget");
  // Steps whose overhead alone is far over a frame: 30 fps is out of reach, and the cluster
  // keeps a share of the worker's time rather than the least budget.
  for (let i = 2; i < 5; i++) {
    h.display(t0 + 48 + i);
    await new Promise((r) => setTimeout(r, 300));
    h.pending[i].release();
    await h.settle();
  }
  const starved = h.pending[h.pending.length - 1].budgetMs ?? 0;
  assert.ok(starved > 30, `budget ${starved} ms after steps 300 ms late: half their overhead`);
});

test("a step's budget stays within what the worker takes, however slow the steps were", async () => {
  const h = harness();
  h.sim["begin"]({} as StartBody);
  h.sim.setSpeed(100);
  const t0 = performance.now() - 1000;
  h.display(t0);
  h.pending[0].release(0);
  await h.settle();
  // Steps of a 100,000-partition cluster on a loaded machine, their replies also waiting
  // behind the page's long frames: 3 s of overhead each, smoothed. A budget over the worker's
  // limit is refused, and a refused step pauses the run (the harness fails on the failure).
  h.sim["stepOverhead"] = 3000;
  h.display(t0 + 16);
  assert.equal(h.pending.length, 2);
  assert.equal(h.pending[1].budgetMs, MAX_BUDGET_MS, "half the overhead, at most the worker's limit");
});

test("while the worker cannot keep up, one more request waits in its queue", async () => {
  const h = harness();
  h.sim["begin"]({} as StartBody);
  h.sim.setSpeed(10_000);
  // Animation frames stamped in the past: a request made up on a reply (at performance.now())
  // asks for the wall time since the last animation frame, capped.
  const t0 = performance.now() - 1000;
  let at = 0;
  /** Answers the oldest request in flight: as far as it asked, or short of it. */
  const answer = async (i: number, short: boolean) => {
    at += short ? Math.floor(h.pending[i].ms / 2) : h.pending[i].ms;
    h.pending[i].release(at);
    await h.settle();
  };
  h.display(t0);
  await answer(0, false); // the first step asks for no time
  h.display(t0 + 16);
  h.display(t0 + 33);
  assert.equal(h.pending.length, 2, "a worker that keeps up has one request at a time");
  await answer(1, false);
  assert.equal(h.pending.length, 3, "the missed animation frame is made up");
  h.display(t0 + 50);
  assert.equal(h.pending.length, 3, "and still one at a time");
  await answer(2, true); // the worker spent its budget short of the time asked for
  assert.equal(h.pending.length, 4, "the missed animation frame is made up");
  h.display(t0 + 66);
  assert.equal(h.pending.length, 5, "a worker that is behind gets a second request before it replies to the first");
  h.display(t0 + 83);
  assert.equal(h.pending.length, 5, "and no third");
  await answer(3, true);
  assert.equal(h.pending.length, 6, "each reply sends the next at once: one always waits in the queue");
  assert.equal(h.requestsAtDraw[h.requestsAtDraw.length - 1], 6, "before the reply is drawn");
  h.display(t0 + 100);
  // A queued step begins where the one before it ended: this one got as far as it asked.
  await answer(4, false);
  assert.equal(h.pending.length, 6, "a worker that caught up has one request at a time again");
  await answer(5, true);
  assert.equal(h.pending.length, 7, "the animation frame it missed is made up");
  h.display(t0 + 116);
  assert.equal(h.pending.length, 8, "behind again: two in flight");
  await answer(6, true);
  h.sim.setPlaying(false);
  await answer(7, true);
  h.display(t0 + 133);
  assert.equal(h.pending.length, 8, "a paused run asks for nothing more");
});

test("a step that waited in the worker's queue is timed from the reply before it", () =>
  withClock(async (pass) => {
    const h = harness();
    h.sim["begin"]({} as StartBody);
    h.sim.setSpeed(10_000);
    const t0 = performance.now() - 1000;
    h.display(t0);
    h.pending[0].release(0);
    await h.settle();
    h.display(t0 + 16);
    h.pending[1].release(1); // short: behind
    await h.settle();
    h.display(t0 + 33);
    h.display(t0 + 50);
    assert.equal(h.pending.length, 4, "two in flight");
    assert.equal(h.pending[3].budgetMs, 30);
    // The first comes back 80 ms later, having spent its budget: 50 ms of overhead. The second
    // comes right after it: its step cost its budget, not the 80 ms it waited.
    pass(80);
    h.pending[2].release(2);
    await h.settle();
    h.pending[3].release(3);
    await h.settle();
    h.display(t0 + 66);
    assert.equal(h.pending.length, 5);
    // Overhead smoothed over the two steps (a quarter of each): 50 ms, then 0, is 9.4 ms: a
    // budget of 21 ms. Timed from its send, the second would have cost 50 ms as well (22 ms
    // smoothed: a budget of 8 ms).
    assert.equal(h.pending[4].budgetMs, 21, "after a late step and a queued one");
  }));

/**
 * Runs body with performance.now() on a clock of its own, moved only by body's pass(ms): a
 * rule about wall time is then held exactly, not by a real wait that a loaded machine makes
 * longer.
 */
async function withClock(body: (pass: (ms: number) => void) => Promise<void>): Promise<void> {
  let clock = performance.now();
  Object.defineProperty(performance, "now", { value: () => clock, configurable: true });
  try {
    await body((ms) => (clock += ms));
  } finally {
    delete (performance as { now?: unknown }).now;
  }
}
