// The one message between the page and its worker that is not the wasm's protocol: it asks
// the worker's bootstrap (web/ts/worker.ts) for a fresh Go program, and Go never sees it.
// The page sends it through WorkerClient.fresh (web/ts/protocol.ts).

/** Asks the worker for a fresh instance of its Go program (a new, small linear memory). */
export const FRESH_PROGRAM = '{"type":"worker.fresh"}';
