// The playground's boot script: a tiny classic script, the first in index.html's <head>, so
// that it runs while the page is still being parsed. It starts the Web Worker at
// once, and, when the URL holds no run or lesson (an empty fragment), asks it for the default
// cluster and that cluster's first frame. The wasm download, its streaming compilation, Go's
// start-up, the cluster's construction and its first frame then overlap the page's own parse,
// style, layout and app.js, instead of waiting for them: on the way to the first frame these
// are the two longest steps, and they were in series.
//
// Nothing here needs the DOM. app.js takes the worker over (WorkerClient with an EarlyWorker,
// web/ts/protocol.ts) with the messages that arrived meanwhile, and uses the early replies
// only if they answer what it would have asked itself (web/ts/main.ts compares the request
// with its start form): a different default falls back to a normal start, never to a wrong
// cluster. The worker keeps the requests that arrive before Go listens (web/ts/worker.ts).

import { BOOT_GLOBAL, DEFAULT_START, type BootState } from "./early";

function boot(): void {
  const g = globalThis as unknown as Record<string, BootState | null | undefined>;
  // It is a parser-blocking script (not async) because an async one may run after app.js, and
  // Chromium starts a worker only once the page's main thread is free: after app.js, that is
  // about half a second later. The fetch it blocks the parser for is one loopback round trip.
  // null: app.js ran first anyway (a page that loads this script late) and has its own worker.
  if (g[BOOT_GLOBAL] !== undefined) return;
  const worker = new Worker("worker.js", { name: "kraftlab" });
  const state: BootState = {
    worker,
    sent: [],
    inbox: [],
    errors: [],
    release: () => {
      worker.removeEventListener("message", onMessage);
      worker.removeEventListener("error", onError);
    },
  };
  const onMessage = (e: MessageEvent) => state.inbox.push(e.data);
  const onError = (e: ErrorEvent) => {
    e.preventDefault(); // reported by app.js's error panel, not the console
    state.errors.push(e.message || "could not load worker.js");
  };
  worker.addEventListener("message", onMessage);
  worker.addEventListener("error", onError);
  const send = (type: string, body: unknown) => {
    const id = state.sent.length + 1;
    state.sent.push({ id, type, body });
    worker.postMessage(JSON.stringify({ id, type, body }));
  };
  send("hello", {});
  if (location.hash.replace(/^#/, "") === "") {
    send("sim.start", DEFAULT_START);
    // The request the page's first animation frame makes for a new cluster (web/ts/sim.ts:
    // no time has passed, no layout yet).
    send("sim.advance", { ms: 0, layout: 0 });
  }
  g[BOOT_GLOBAL] = state;
}

boot();
