// The page's side of the worker protocol (web/ts/protocol.ts): a reply with a binary attachment
// arrives as {text, data}, and the client keeps nothing of it in the message's own object. A
// message event keeps its data until V8's next major collection, so whatever that object still
// points to (a frame's text and attachment, 30 a second) would outlive the young generation.

import assert from "node:assert/strict";
import { test } from "node:test";
import { PROTOCOL, WorkerClient } from "../protocol";
import type { BootState } from "../early";

/** A worker that records what the page posts and delivers the messages a test hands it. */
class FakeWorker {
  posted: unknown[] = [];
  private listeners = new Map<string, ((e: { data: unknown }) => void)[]>();
  addEventListener(type: string, fn: (e: { data: unknown }) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  postMessage(m: unknown): void {
    this.posted.push(m);
  }
  deliver(data: unknown): void {
    for (const fn of this.listeners.get("message") ?? []) fn({ data });
  }
}

test("a reply's {text, data} object is emptied once read, and the reply keeps both", async () => {
  const worker = new FakeWorker();
  const boot: BootState = { worker: worker as unknown as Worker, sent: [], inbox: [], errors: [], release: () => {} };
  const client = new WorkerClient(boot, (p) => assert.fail(p.message));
  worker.deliver(JSON.stringify({ type: "ready", ok: true, body: { protocol: PROTOCOL } }));
  const reply = client.requestData("sim.advance", { ms: 160 });
  await new Promise<void>((r) => setTimeout(r, 0));
  assert.equal(worker.posted.length, 1, "the request went out");
  const { id } = JSON.parse(worker.posted[0] as string) as { id: number };
  const data = new Uint8Array([1, 2, 3, 4]).buffer;
  const message: { text?: string; data?: ArrayBuffer } = { text: JSON.stringify({ id, type: "sim.advance", ok: true, body: { timeMs: 160 }, data: 4 }), data };
  worker.deliver(message);
  const got = await reply;
  assert.deepEqual(got.body as unknown, { timeMs: 160 });
  assert.equal(got.data, data, "the attachment reaches the caller");
  assert.equal(message.text, undefined, "the message's object no longer holds the frame's text");
  assert.equal(message.data, undefined, "nor its attachment");
});
