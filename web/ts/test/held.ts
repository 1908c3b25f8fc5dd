// Test doubles for the lab page's asynchronous edges: a worker whose replies the test holds and
// releases, and timers that fire only when the test lets time pass. With them a test plays, on
// purpose and in order, the interleavings a Chromium test meets only on a busy machine.

import assert from "node:assert/strict";
import type { Timers } from "../lab/formcheck";

/** A worker that holds every request until the test releases it; answer(req) makes the reply. */
export class HeldWorker<Q, A> {
  readonly held: { req: Q; resolve: (a: A) => void }[] = [];

  constructor(private readonly reply: (req: Q) => A) {}

  request(req: Q): Promise<A> {
    return new Promise((resolve) => this.held.push({ req, resolve }));
  }
  /** The requests still held, oldest first. */
  get waiting(): Q[] {
    return this.held.map((h) => h.req);
  }
  /** Releases the reply to the i-th held request (0: the oldest, as the Go worker answers). */
  release(i = 0): void {
    const [h] = this.held.splice(i, 1);
    assert.ok(h, `no request ${i} is held`);
    h.resolve(this.reply(h.req));
  }
}

/** Timers that fire only when the test lets time pass. */
export class TestTimers implements Timers {
  private now = 0;
  private nextId = 1;
  private readonly due = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): number {
    const id = this.nextId++;
    this.due.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(id: number): void {
    this.due.delete(id);
  }
  /** How many timers wait. */
  get waiting(): number {
    return this.due.size;
  }
  /** Lets ms pass, running every timer that falls due, in the order they fall due. */
  pass(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.due].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at > this.now) continue;
      this.due.delete(id);
      t.fn();
    }
  }
}

/** Lets the promise callbacks that are due run (a released reply reaches its awaiter). */
export const settle = () => new Promise<void>((r) => setTimeout(r, 0));
