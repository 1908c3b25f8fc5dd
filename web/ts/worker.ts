// The Web Worker bootstrap: it loads Go's wasm_exec.js, downloads and starts kraftlab.wasm,
// and then steps aside. Go (wasm/worker) installs onmessage itself and posts the ready event,
// so this file never handles a protocol message. Its one other duty is to tell the page when
// Go cannot start or stops, with the tail of Go's output for the bug report.
//
// It is bundled as a classic worker script (IIFE) because wasm_exec.js is a classic script
// that importScripts can load; module workers cannot use importScripts.

import { S } from "./strings";

// The parts of the worker global scope and of wasm_exec.js that this file uses. (The bundle is
// type-stripped by esbuild; these declarations are for editors and for tsc --noEmit.)
declare function importScripts(...urls: string[]): void;
declare function postMessage(message: string): void;
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
async function instantiate(url: string, imports: WebAssembly.Imports): Promise<WebAssembly.Instance> {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(S.wasmHTTP(resp.status));
  if (resp.headers.get("Content-Type")?.split(";")[0].trim() === "application/wasm") {
    return (await WebAssembly.instantiateStreaming(resp, imports)).instance;
  }
  return (await WebAssembly.instantiate(await resp.arrayBuffer(), imports)).instance;
}

async function start(): Promise<void> {
  importScripts("wasm_exec.js");
  captureOutput();
  const go = new Go();
  let exitCode = 0;
  go.exit = (code) => {
    exitCode = code;
  };
  const instance = await instantiate("kraftlab.wasm", go.importObject);
  // run resolves only when the Go program ends: main never returns on its own, so any end is
  // a failure the page must hear about.
  await go.run(instance);
  fatal(S.goExited(exitCode));
}

start().catch((e: unknown) => fatal(e instanceof Error ? e.message : String(e)));
