// The Web Worker bootstrap: it downloads and starts a KRaft Lab wasm with Go's wasm_exec.js,
// and then steps aside. Which wasm is the page's choice: the playground starts "worker.js" and
// gets kraftlab.wasm (simulation, lessons); the config lab starts "worker.js?wasm=lab" and gets
// lab.wasm (the lab.* messages only), so that neither page downloads the other's code. Go
// (wasm/worker) installs onmessage itself and posts the ready event, so this file never
// handles a protocol message. Its one other duty is to tell the page when Go cannot start or
// stops, with the tail of Go's output for the bug report.
//
// It is bundled as a classic worker script (IIFE), with wasm_exec.js inside it: web/build
// resolves the "go:wasm_exec" import to the wasm_exec.js of the toolchain that built the wasm
// (the two must match). One script instead of worker.js + importScripts("wasm_exec.js") saves
// a sequential request before the wasm download can start, on the way to the first frame.

import "go:wasm_exec";
import { FRESH_PROGRAM } from "./fresh";
import { S } from "./strings";

// The download starts before anything else the worker does: on a page load the wasm's
// download and streaming compilation are the longest step before the first frame. The query
// only picks among the known files, so no URL can make the worker fetch anything else.
const programs: Record<string, string> = { lab: "lab.wasm", rehearse: "rehearse.wasm" };
const wasmFile = programs[new URLSearchParams(self.location.search).get("wasm") ?? ""] ?? "kraftlab.wasm";
const download = fetch(wasmFile);

// Messages that arrive before Go listens are kept and handed to Go, in order, as soon as it
// does: the page's boot script (web/ts/boot.ts) sends hello and the default cluster's
// sim.start with the worker's creation, so that they run the moment Go is up instead of a
// round trip through a busy page later. A dedicated worker delivers the page's messages once
// this script has run, long before Go sets onmessage; without this handler they would be
// dropped. Go posts the ready event right after setting onmessage (wasm/worker.Serve), so the
// first postMessage that finds Go's handler in place is the moment to hand them over.
//
// The page may ask for a fresh program (FRESH_PROGRAM, web/ts/fresh.ts): this listener comes
// before onmessage (a listener runs in the order it was first added), so Go never sees it.
self.addEventListener("message", (e) => {
  if (e.data !== FRESH_PROGRAM) return;
  e.stopImmediatePropagation();
  fresh();
});
const early: unknown[] = [];
const keep = (e: MessageEvent) => early.push(e.data);
const post = self.postMessage.bind(self) as (message: unknown, transfer?: Transferable[]) => void;
/** Keeps the messages that come until Go listens, and hands them over when it does. */
function holdUntilGoListens(): void {
  self.onmessage = keep;
  self.postMessage = ((message: unknown, transfer?: Transferable[]) => {
    post(message, transfer);
    if (self.onmessage === keep) return;
    self.postMessage = post as typeof self.postMessage;
    // After Go's call returns (a microtask, before any further message event): calling into Go
    // from inside its own postMessage would re-enter it.
    queueMicrotask(() => {
      for (const data of early.splice(0)) self.dispatchEvent(new MessageEvent("message", { data }));
    });
  }) as typeof self.postMessage;
}
holdUntilGoListens();

// The parts of the worker global scope and of wasm_exec.js that this file uses. (The bundle is
// type-stripped by esbuild; these declarations are for editors and for tsc --noEmit.)
declare function postMessage(message: string): void;
declare const self: {
  location: Location;
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
  dispatchEvent(e: Event): boolean;
  addEventListener(type: "message", listener: (e: MessageEvent) => void): void;
};
declare class Go {
  importObject: WebAssembly.Imports;
  exit: (code: number) => void;
  run(instance: WebAssembly.Instance): Promise<void>;
}
interface GoFS {
  writeSync(fd: number, buf: Uint8Array): number;
}

const OUTPUT_TAIL = 8192;
let output = "";

function fatal(message: string): void {
  postMessage(JSON.stringify({ type: "fatal", error: { code: "worker_failed", message, detail: output || undefined } }));
}

/** Mirrors Go's stdout/stderr (which wasm_exec.js sends to the console) into `output`. */
function captureOutput(): void {
  const fs = (globalThis as unknown as { fs: GoFS }).fs;
  const write = fs.writeSync.bind(fs);
  const decoder = new TextDecoder();
  fs.writeSync = (fd, buf) => {
    output = (output + decoder.decode(buf, { stream: true })).slice(-OUTPUT_TAIL);
    return write(fd, buf);
  };
}

/**
 * Streams the module when the server labels it application/wasm (the fast path: compilation
 * overlaps the download); falls back to a buffered compile for hosts with a wrong MIME type.
 */
async function compile(response: Promise<Response>): Promise<WebAssembly.Module> {
  const resp = await response;
  if (!resp.ok) throw new Error(S.wasmHTTP(resp.status, wasmFile));
  if (resp.headers.get("Content-Type")?.split(";")[0].trim() === "application/wasm") {
    return WebAssembly.compileStreaming(resp);
  }
  return WebAssembly.compile(await resp.arrayBuffer());
}

/**
 * Compiled once: a fresh program is a new instance of the same module, whose machine code
 * (optimized as the last program ran) V8 shares between instances.
 */
const compiled = compile(download);
/** The Go program serving the page; one replaced by a fresh one is left to the collector. */
let current: Go | undefined;

async function start(): Promise<void> {
  const go = new Go();
  current = go;
  let exitCode = 0;
  go.exit = (code) => {
    exitCode = code;
  };
  const instance = await WebAssembly.instantiate(await compiled, go.importObject);
  // run resolves only when the Go program ends: main never returns on its own, so any end is
  // a failure the page must hear about.
  await go.run(instance);
  if (go === current) fatal(S.goExited(exitCode));
}

/**
 * Replaces the Go program by a fresh instance of it: a wasm's linear memory never shrinks, so
 * the only way back to a small one is a new instance (the config lab starts every compare in
 * one, web/ts/lab/pool.ts). The page asks only while no request of its own is pending; what
 * it sends meanwhile waits for the new program, which says ready as the first did. The old
 * one, idle in its event loop, is called no more, and its memory goes with it.
 */
function fresh(): void {
  holdUntilGoListens();
  start().catch((e: unknown) => fatal(e instanceof Error ? e.message : String(e)));
}

captureOutput();
start().catch((e: unknown) => fatal(e instanceof Error ? e.message : String(e)));
