// The page's side of the worker protocol (web/PROTOCOL.md; Go side: wasm/bridge, whose types
// protocol_gen.ts declares). Every message is one JSON text string; this module owns the
// encoding, the request ids and the matching of replies, so the rest of the page sees typed
// promises.

import type { BootState } from "./early";
import type { Messages, ReadyBody, ReplyError } from "./protocol_gen";
import { S } from "./strings";

/** The protocol version this page speaks; the worker announces its own in the ready event. */
export const PROTOCOL = 3;

// The message types are generated from the Go types (go run ./web/cmd/tsgen).
export type * from "./protocol_gen";
export { MAX_BUDGET_MS } from "./protocol_gen";

/** A reply body with its binary attachment, when the reply has one. */
export interface WithData<T> {
  body: T;
  data: ArrayBuffer | undefined;
}

/** A failed reply, or a request that could not be sent. */
export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Something that ends or endangers the session, for the error panel. */
export interface Problem {
  message: string;
  detail?: string;
}

interface Pending {
  type: string;
  resolve: (reply: WithData<unknown>) => void;
  reject: (err: Error) => void;
}

interface Envelope {
  id?: number;
  type: string;
  ok?: boolean;
  body?: unknown;
  error?: ReplyError;
  /** Length of the binary attachment posted with this reply. */
  data?: number;
}

/** A request the boot script (web/ts/boot.ts) sent before app.js ran, and its reply. */
export interface EarlyRequest<K extends keyof Messages> {
  body: unknown;
  reply: Promise<WithData<Messages[K]["res"]>>;
}

/**
 * WorkerClient starts the worker and talks to it. Requests made before the worker is ready are
 * held back until it is (the worker drops messages that arrive before Go listens).
 *
 * Given the boot script's BootState instead of a URL, it takes over the worker the boot
 * script started: the messages that arrived meanwhile are handled as if they arrived now, and
 * the boot script's requests wait for their replies like any other (early() hands them out).
 */
export class WorkerClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly earlyRequests = new Map<string, EarlyRequest<keyof Messages>>();
  private dead: Problem | undefined;
  /** Requests made and not settled yet (see idle). */
  private inflight = 0;
  /** Whether the worker said it was ready. */
  private started = false;
  /** Resolves with the ready event's body; rejects if the worker dies first. */
  readonly ready: Promise<ReadyBody>;
  private markReady!: (b: ReadyBody) => void;
  private failReady!: (e: Error) => void;

  constructor(
    from: string | BootState,
    private readonly onProblem: (p: Problem, fatal: boolean) => void,
  ) {
    this.ready = new Promise<ReadyBody>((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    // Keep an unobserved rejection from surfacing as a second, duplicate page error.
    this.ready.catch(() => undefined);
    const url = typeof from === "string" ? from : "worker.js";
    this.worker = typeof from === "string" ? new Worker(url, { name: "kraftlab" }) : from.worker;
    this.worker.addEventListener("message", (e) => this.receive(e.data));
    this.worker.addEventListener("error", (e) => {
      e.preventDefault();
      // An error event without a message: the worker was ready (it crashed later) or not (it
      // could not even load).
      this.die({ message: S.problemWorkerError(e.message || (this.started ? S.workerStoppedSilently : "could not load " + url)) });
    });
    this.worker.addEventListener("messageerror", () => this.onProblem({ message: S.problemMessageError }, false));
    if (typeof from !== "string") this.adopt(from);
  }

  /** Takes over the boot script's worker (see the class comment); no event runs in between. */
  private adopt(boot: BootState): void {
    boot.release();
    for (const r of boot.sent) {
      const reply = new Promise<WithData<unknown>>((resolve, reject) => this.pending.set(r.id, { type: r.type, resolve, reject }));
      reply.catch(() => undefined); // an early reply nobody claims is not an error
      this.earlyRequests.set(r.type, { body: r.body, reply } as EarlyRequest<keyof Messages>);
      this.nextId = Math.max(this.nextId, r.id + 1);
    }
    for (const m of boot.inbox.splice(0)) this.receive(m);
    for (const e of boot.errors.splice(0)) this.die({ message: S.problemWorkerError(e) });
  }

  /**
   * The boot script's request of this type, once: its body and its reply. Undefined when the
   * boot script sent none (or it was already claimed).
   */
  early<K extends keyof Messages>(type: K): EarlyRequest<K> | undefined {
    const r = this.earlyRequests.get(type);
    this.earlyRequests.delete(type);
    return r as EarlyRequest<K> | undefined;
  }

  /**
   * Sends one request and resolves with the reply's body, or rejects with a ProtocolError.
   * attachment, if given, travels beside the JSON as bytes (copied, so the caller may send it
   * to other workers too): bulk text such as a 40 MB describe, which as a JSON string would
   * cost an encoding here and two decodings in the worker.
   */
  async request<K extends keyof Messages>(type: K, body?: Messages[K]["req"], attachment?: Uint8Array): Promise<Messages[K]["res"]> {
    return (await this.requestData(type, body, attachment)).body;
  }

  /**
   * As request, but also resolves with the reply's binary attachment (a frame's arrays). With
   * transfer, the attachment's buffer moves to the worker instead of being copied, and is empty
   * here afterwards: for bulk sent to one worker only.
   */
  async requestData<K extends keyof Messages>(type: K, body?: Messages[K]["req"], attachment?: Uint8Array, transfer = false): Promise<WithData<Messages[K]["res"]>> {
    // Counted from the call, not from the send: a request waiting for ready (a microtask even
    // when the worker is long ready) is already one the worker owes.
    this.inflight++;
    try {
      await this.ready;
      if (this.dead) throw new ProtocolError("worker_dead", S.workerUnavailable);
      const id = this.nextId++;
      return await new Promise((resolve, reject) => {
        this.pending.set(id, { type, resolve: resolve as (r: WithData<unknown>) => void, reject });
        const env = body === undefined ? { id, type } : { id, type, body };
        if (attachment) this.worker.postMessage({ text: JSON.stringify({ ...env, data: attachment.byteLength }), data: attachment }, transfer ? [attachment.buffer] : []);
        else this.worker.postMessage(JSON.stringify(env));
      });
    } finally {
      this.inflight--;
    }
  }

  /** Whether no request is on its way or awaited: ending the worker now loses nothing asked of it. */
  get idle(): boolean {
    return this.inflight === 0;
  }

  /**
   * Ends the worker on purpose (the lab's pool replacing it with a fresh one): its memory goes
   * with it, a request still made of it fails, and the page is told of no problem.
   */
  close(): void {
    this.end({ message: S.workerUnavailable });
  }

  private receive(raw: unknown): void {
    let msg: Envelope;
    let data: ArrayBuffer | undefined;
    try {
      // A reply with an attachment arrives as {text, data}; everything else as a string.
      let text = raw;
      if (typeof raw === "object" && raw !== null && "text" in raw && "data" in raw) {
        text = (raw as { text: unknown }).text;
        data = (raw as { data: ArrayBuffer }).data;
        // The message event keeps this object until V8's next major collection (Blink's
        // objects go only then), and everything it points to with it: every frame's text
        // and attachment would outlive the young generation and pile up in the old one.
        // Emptied, it holds nothing, and a frame dies young once drawn.
        (raw as { text: unknown }).text = undefined;
        (raw as { data: unknown }).data = undefined;
        if (!(data instanceof ArrayBuffer)) throw new Error("attachment is not an ArrayBuffer");
      }
      if (typeof text !== "string") throw new Error("not a string");
      msg = JSON.parse(text) as Envelope;
      if (data && (msg.data ?? 0) !== data.byteLength) throw new Error(`attachment of ${data.byteLength} bytes, ${msg.data} announced`);
    } catch (e) {
      this.onProblem({ message: S.problemMessageError, detail: `${String(e)}\n${String(raw).slice(0, 2000)}` }, false);
      return;
    }
    if (msg.type === "ready" && msg.id === undefined) {
      const body = msg.body as ReadyBody;
      if (body.protocol !== PROTOCOL) {
        this.die({ message: S.problemProtocol(PROTOCOL, body.protocol) });
        return;
      }
      this.started = true;
      this.markReady(body);
      return;
    }
    if (msg.type === "fatal" && msg.id === undefined) {
      this.die({ message: S.problemWorkerFatal(msg.error?.message ?? "?"), detail: msg.error?.detail });
      return;
    }
    const p = msg.id ? this.pending.get(msg.id) : undefined;
    if (!p) {
      // A reply to nothing we sent (id 0): the worker could not read one of our messages. That
      // is a bug on one side or the other, so make it visible.
      const e = msg.error ?? { code: "?", message: String(raw) };
      this.onProblem({ message: S.problemUnmatchedReply(e.code, e.message), detail: e.detail }, false);
      return;
    }
    this.pending.delete(msg.id!);
    if (msg.ok) p.resolve({ body: msg.body, data });
    else p.reject(new ProtocolError(msg.error?.code ?? "?", msg.error?.message ?? "?", msg.error?.detail));
  }

  /** Marks the worker dead: every pending and future request fails, and the page is told once. */
  private die(p: Problem): void {
    if (this.end(p)) this.onProblem(p, true);
  }

  /** Terminates the worker and fails every pending and future request; false if it had ended already. */
  private end(p: Problem): boolean {
    if (this.dead) return false;
    this.dead = p;
    this.worker.terminate();
    const err = new ProtocolError("worker_dead", p.message, p.detail);
    this.failReady(err);
    for (const q of this.pending.values()) q.reject(err);
    this.pending.clear();
    return true;
  }
}
