// Share and keep: the run lives in the page's URL, so a link (or a reload) reproduces it.
//
// The fragment is `#v=1&t=<cluster ms>&s=<scenario>`: v is the link format, t the time shown
// and s the run as a cluster-mode scenario (the CLI's format, docs/scenario.md: the cluster it
// started with and the actions as events), compressed with deflate-raw and written in base64url.
// The browser's CompressionStream does the compression, so the wasm carries no compressor;
// a run of a few actions is a few hundred characters. Nothing here checks the scenario itself:
// the worker's sim.load reads it with the CLI's own validation.
//
// The URL is rewritten with history.replaceState (no new history entry per frame). The
// scenario is compressed as soon as it changes (at most once a second); the time alone needs no
// compression and is written at once, at most ten times a second, and again when the page is
// hidden or left (flushNow), so a reload or a closed tab loses nothing.

import { S } from "./strings";

/** The link format this page writes and reads. */
export const LINK_VERSION = 1;
/** The most scenario text a link or an imported file may hold (the worker's MaxScenarioBytes). */
export const MAX_SCENARIO_BYTES = 1 << 20;
/** The longest `s` accepted: no real run comes near it, and decoding more is wasted work. */
export const MAX_LINK_CHARS = 2_000_000;
/** How often the URL may change while a new scenario waits to be compressed (ms). */
const KEEP_EVERY_MS = 1000;
/**
 * How often the URL may change when only the time moves (ms): often enough that a reload
 * loses nothing a reader could notice, and well under browsers' limits on replaceState
 * (Chromium allows 200 changes in 10 s).
 */
const TIME_EVERY_MS = 100;
/**
 * How often the URL may change while the run plays (ms). A replaceState costs the page's main
 * thread several ms in Chromium (the browser process is told of each), so ten a second was a
 * fifth of a frame's time at 10,000 partitions; a reload while playing lands within a second
 * of where it was either way, and a step or a seek while paused is written as quickly as before.
 */
const PLAYING_TIME_EVERY_MS = 1000;

/** A link that cannot be opened; the message says what was wrong, for the reader. */
export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LinkError";
  }
}

export interface SharedRun {
  scenario: string;
  timeMs: number;
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(s: string): Uint8Array<ArrayBuffer> {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new LinkError(S.linkBadBase64);
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    throw new LinkError(S.linkBadBase64);
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array<ArrayBuffer>, stream: GenericTransformStream, limit: number): Promise<Uint8Array> {
  const reader = new Blob([bytes]).stream().pipeThrough(stream as unknown as TransformStream<Uint8Array, Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > limit) {
      await reader.cancel();
      throw new LinkError(S.linkTooLarge(limit));
    }
    parts.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The URL fragment (without '#') for a run at a time. */
export async function encodeRun(run: SharedRun): Promise<string> {
  const packed = await pipe(new Uint8Array(new TextEncoder().encode(run.scenario)), new CompressionStream("deflate-raw"), Infinity);
  return `v=${LINK_VERSION}&t=${Math.max(0, Math.round(run.timeMs))}&s=${toBase64Url(packed)}`;
}

/**
 * Reads a URL fragment. undefined: the fragment holds no run (an empty one, or an ordinary
 * anchor). A fragment that claims to be a run but cannot be read throws a LinkError that names
 * what was wrong.
 */
export async function decodeRun(hash: string): Promise<SharedRun | undefined> {
  const frag = hash.replace(/^#/, "");
  if (!/(^|&)(v|s|t)=/.test(frag)) return undefined;
  const params = new URLSearchParams(frag);
  const v = params.get("v");
  if (v === null || !/^\d{1,9}$/.test(v)) throw new LinkError(S.linkBadVersion(v ?? ""));
  if (Number(v) > LINK_VERSION) throw new LinkError(S.linkFuture(Number(v), LINK_VERSION));
  if (Number(v) < 1) throw new LinkError(S.linkVersionZero(v));
  const t = params.get("t") ?? "0";
  if (!/^\d{1,15}$/.test(t)) throw new LinkError(S.linkBadTime(t));
  const s = params.get("s");
  if (!s) throw new LinkError(S.linkNoScenario);
  if (s.length > MAX_LINK_CHARS) throw new LinkError(S.linkTooLarge(MAX_SCENARIO_BYTES));
  const packed = fromBase64Url(s);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(await pipe(packed, new DecompressionStream("deflate-raw"), MAX_SCENARIO_BYTES));
  } catch (e) {
    if (e instanceof LinkError) throw e;
    throw new LinkError(S.linkBadCompression);
  }
  try {
    JSON.parse(text);
  } catch (e) {
    throw new LinkError(S.linkBadJSON(e instanceof Error ? e.message : String(e)));
  }
  return { scenario: text, timeMs: Number(t) };
}

/**
 * Keeps the URL in step with the run: the scenario part when the history changes, the time at
 * most once a second. The reader's own fragment is never touched until a run is shown.
 */
export class LinkKeeper {
  private scenario: string | undefined;
  private timeMs = 0;
  private written = "";
  private timer = 0;
  private writing = false;
  private dirty = false;
  private held = false;
  /** The scenario last compressed and its `s` part, ready for a synchronous write. */
  private packed: { scenario: string; s: string } | undefined;
  /** How many times the URL was written: an asynchronous write overtaken by another is dropped. */
  private writes = 0;
  /** When the URL was last written (performance.now()). */
  private writtenAt = -Infinity;
  /** The pending write of a time alone (see setTime). */
  private timeTimer = 0;

  /**
   * While held (a lesson is open and the URL holds its step's link, web/ts/lesson/link.ts),
   * the run is not written to the URL; releasing writes it again.
   */
  hold(on: boolean): void {
    this.held = on;
    if (!on && this.scenario !== undefined) this.schedule();
  }

  /** The run's scenario text changed (a new export). */
  setScenario(scenario: string): void {
    this.scenario = scenario;
    void this.pack(scenario);
    this.schedule();
  }

  private async pack(scenario: string): Promise<void> {
    const frag = await encodeRun({ scenario, timeMs: 0 });
    if (this.scenario === scenario) this.packed = { scenario, s: frag.slice(frag.indexOf("&s=") + 3) };
  }

  /**
   * Writes the URL now, synchronously, and says whether it could: for pagehide and
   * visibilitychange (a closed tab's restore, a tab switched away from), after which a page
   * may get no more turns of its event loop to finish an asynchronous write. It writes when the
   * compressed scenario is the current one, or differs only in its duration_ms (the horizon,
   * which grows as time moves on, while the actions are the same; a link past its horizon
   * opens as well).
   */
  flushNow(): boolean {
    if (this.scenario === undefined || this.held || !this.packed || !sameActions(this.packed.scenario, this.scenario)) return false;
    window.clearTimeout(this.timer);
    this.timer = 0;
    this.write(`v=${LINK_VERSION}&t=${Math.max(0, Math.round(this.timeMs))}&s=${this.packed.s}`);
    return true;
  }

  private write(frag: string): void {
    this.writes++;
    this.writtenAt = performance.now();
    if (frag !== this.written) {
      this.written = frag;
      history.replaceState(history.state, "", `#${frag}`);
    }
    document.body.dataset.link = String(this.timeMs);
  }

  /** The time shown changed; playing says whether it moves on its own (the run plays). */
  setTime(timeMs: number, playing = false): void {
    if (timeMs === this.timeMs) return;
    this.timeMs = timeMs;
    // With the scenario compressed already, only the time changes: that costs nothing, so it
    // is written at once (a step, a seek, the frame a pause leaves), at most every
    // TIME_EVERY_MS, so that a reload right after a move, whose address is fixed before the page
    // hears of it, opens there. Otherwise the whole link waits for the timer.
    if (this.timer || this.writing || !this.packed || !sameActions(this.packed.scenario, this.scenario ?? "")) {
      this.schedule();
      return;
    }
    const wait = this.writtenAt + (playing ? PLAYING_TIME_EVERY_MS : TIME_EVERY_MS) - performance.now();
    if (!playing && this.timeTimer) {
      // A write the playing run put off by up to a second comes sooner for a paused move.
      window.clearTimeout(this.timeTimer);
      this.timeTimer = 0;
    }
    if (wait <= 0) this.flushNow();
    else if (!this.timeTimer) this.timeTimer = window.setTimeout(() => ((this.timeTimer = 0), this.flushNow()), wait);
  }

  /** Writes now (before a reload test or a copy). */
  async flush(): Promise<string> {
    window.clearTimeout(this.timer);
    this.timer = 0;
    if (this.scenario === undefined || this.held) return location.href;
    const writes = this.writes;
    const frag = await encodeRun({ scenario: this.scenario, timeMs: this.timeMs });
    // A synchronous write while this one compressed (flushNow: the page hidden or left) wrote a
    // later moment of the same actions; this one's would take the URL back, maybe for good.
    if (this.writes === writes) this.write(frag);
    return location.href;
  }

  private schedule(): void {
    if (this.writing) {
      this.dirty = true; // written once the current write is done
      return;
    }
    if (this.timer) return;
    this.timer = window.setTimeout(() => {
      this.timer = 0;
      this.writing = true;
      this.dirty = false;
      void this.flush().finally(() => {
        this.writing = false;
        if (this.dirty) this.schedule();
      });
    }, KEEP_EVERY_MS);
  }
}

/** Whether two exports of a run differ at most in their duration_ms (the horizon). */
function sameActions(a: string, b: string): boolean {
  const strip = (s: string) => s.replace(/"duration_ms":\s*\d+/, "");
  return a === b || strip(a) === strip(b);
}

/** Offers text as a file download (the export). */
export function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
