// The lab pool's recycling (web/ts/lab/pool.ts): once the page is done with its runs, a worker
// whose linear memory passed RECYCLE_BYTES is replaced by a fresh one, and only a worker that
// owes nothing. Played against fake workers whose memory, readiness and requests the test sets.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Pool, RECYCLE_BYTES, type PoolWorker } from "../lab/pool";

/** A worker that answers debug.memory with sys, and holds every other request until the test calls its held[i]. */
class FakeWorker {
  closed = false;
  asked: string[] = [];
  held: (() => void)[] = [];
  inflight = 0;
  failMemory = false;
  /** Holds debug.memory's reply too, until release. */
  holdMemory = false;
  readonly ready: Promise<never>;
  private markReady!: () => void;

  constructor(
    readonly name: string,
    public sys: number,
  ) {
    this.ready = new Promise<never>((resolve) => (this.markReady = resolve as () => void));
  }

  start(): void {
    this.markReady();
  }

  get idle(): boolean {
    return this.inflight === 0;
  }

  close(): void {
    this.closed = true;
  }

  request(type: string): Promise<never> {
    this.asked.push(type);
    this.inflight++;
    if (type === "debug.memory" && this.holdMemory) {
      const sys = this.sys;
      return new Promise<never>((resolve) =>
        this.held.push(() => {
          this.inflight--;
          resolve({ heapAllocBytes: 0, heapSysBytes: sys, sysBytes: sys, numGC: 0 } as never);
        }),
      );
    }
    if (type === "debug.memory") {
      const fail = this.failMemory;
      const sys = this.sys;
      return Promise.resolve().then(() => {
        this.inflight--;
        if (fail) throw new Error("worker_dead");
        return { heapAllocBytes: 0, heapSysBytes: sys, sysBytes: sys, numGC: 0 } as never;
      });
    }
    return new Promise<never>((resolve) =>
      this.held.push(() => {
        this.inflight--;
        resolve({} as never);
      }),
    );
  }
}

/** A pool of started fakes with the given memories; spawned ones are started at once unless told. */
function pool(sys: number[], startSpawned = true): { p: Pool; spawned: FakeWorker[] } {
  const spawned: FakeWorker[] = [];
  const p = new Pool(
    () => undefined,
    () => {
      const w = new FakeWorker(`fresh ${spawned.length}`, 2 << 20);
      if (startSpawned) w.start();
      spawned.push(w);
      return w as unknown as PoolWorker;
    },
  );
  for (const [i, s] of sys.entries()) {
    const w = new FakeWorker(`old ${i}`, s);
    w.start();
    (p.workers as unknown as FakeWorker[]).push(w);
  }
  return { p, spawned };
}

const fakes = (p: Pool) => p.workers as unknown as FakeWorker[];

test("a worker over the mark is replaced and closed; one under it is kept", async () => {
  const { p, spawned } = pool([RECYCLE_BYTES + 1, RECYCLE_BYTES]);
  const [big, small] = fakes(p);
  await p.recycle();
  assert.equal(spawned.length, 1);
  assert.deepEqual(
    fakes(p).map((w) => w.name),
    ["fresh 0", "old 1"],
  );
  assert.ok(big.closed, "the replaced worker is terminated");
  assert.ok(!small.closed);
  assert.deepEqual(big.asked, ["debug.memory"]);
});

test("the old worker is terminated before its successor starts, one worker at a time", async () => {
  const { p, spawned } = pool([200 << 20, 200 << 20], false);
  const [old0, old1] = fakes(p);
  const done = p.recycle();
  const flush = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  await flush();
  assert.ok(old0.closed, "the first is terminated");
  assert.equal(spawned.length, 1);
  assert.equal(p.first, spawned[0] as unknown as PoolWorker, "requests made from now on go to its successor");
  assert.ok(!old1.closed, "the second waits until the first's successor is ready");
  assert.deepEqual(old1.asked, []);
  spawned[0].start();
  await flush();
  assert.ok(old1.closed);
  assert.equal(spawned.length, 2);
  spawned[1].start();
  await done;
  assert.deepEqual(
    fakes(p).map((w) => w.name),
    ["fresh 0", "fresh 1"],
  );
});

test("a worker with a request under way is neither asked nor replaced", async () => {
  const { p, spawned } = pool([200 << 20]);
  const w = fakes(p)[0];
  const plan = w.request("lab.plan");
  await p.recycle();
  assert.equal(spawned.length, 0);
  assert.deepEqual(w.asked, ["lab.plan"]);
  assert.ok(!w.closed);
  w.held[0]();
  await plan;
  await p.recycle();
  assert.equal(spawned.length, 1, "replaced once it owes nothing");
});

test("a request made while the worker tells its memory keeps it", async () => {
  const { p, spawned } = pool([200 << 20]);
  const w = fakes(p)[0];
  w.holdMemory = true;
  const done = p.recycle();
  for (let i = 0; i < 10 && !w.asked.length; i++) await Promise.resolve();
  assert.deepEqual(w.asked, ["debug.memory"]);
  // Before its answer arrives, the form's check asks this worker.
  void w.request("lab.plan");
  w.held[0]();
  await done;
  assert.equal(spawned.length, 0);
  assert.ok(!w.closed);
});

test("a worker that cannot tell its memory is kept, and later recycles still run", async () => {
  const { p, spawned } = pool([200 << 20, 200 << 20]);
  fakes(p)[0].failMemory = true;
  await p.recycle();
  assert.deepEqual(
    fakes(p).map((w) => w.name),
    ["old 0", "fresh 0"],
  );
  fakes(p)[0].failMemory = false;
  await p.recycle();
  assert.deepEqual(
    fakes(p).map((w) => w.name),
    ["fresh 1", "fresh 0"],
  );
  assert.equal(spawned.length, 2, "a fresh worker, under the mark, is kept");
});
