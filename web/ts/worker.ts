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
const early: unknown[] = [];
const keep = (e: MessageEvent) => early.push(e.data);
self.onmessage = keep;
const post = self.postMessage.bind(self) as (message: unknown, transfer?: Transferable[]) => void;
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

// The parts of the worker global scope and of wasm_exec.js that this file uses. (The bundle is
// type-stripped by esbuild; these declarations are for editors and for tsc --noEmit.)
declare function postMessage(message: string): void;
declare const self: {
  location: Location;
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
  dispatchEvent(e: Event): boolean;
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
async function instantiate(response: Promise<Response>, imports: WebAssembly.Imports): Promise<WebAssembly.Instance> {
  const resp = await response;
  if (!resp.ok) throw new Error(S.wasmHTTP(resp.status, wasmFile));
  if (resp.headers.get("Content-Type")?.split(";")[0].trim() === "application/wasm") {
    return (await WebAssembly.instantiateStreaming(resp, imports)).instance;
  }
  return (await WebAssembly.instantiate(await resp.arrayBuffer(), imports)).instance;
}

async function start(): Promise<void> {
  captureOutput();
  const go = new Go();
  let exitCode = 0;
  go.exit = (code) => {
    exitCode = code;
  };
  const instance = await instantiate(download, go.importObject);
  // run resolves only when the Go program ends: main never returns on its own, so any end is
  // a failure the page must hear about.
  await go.run(instance);
  fatal(S.goExited(exitCode));
}

start().catch((e: unknown) => fatal(e instanceof Error ? e.message : String(e)));
