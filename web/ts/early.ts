// What the boot script (boot.ts) and app.js share: the global the boot script leaves its
// worker under, the shape of what it leaves, and the default cluster it asks for early.

import type { StartRequest } from "./protocol";

/** The global (on window) under which boot.ts leaves its BootState; app.js sets it to null. */
export const BOOT_GLOBAL = "kraftlabBoot";

/**
 * The start form's defaults (web/page.templ: seed 1, 4 brokers, 12 partitions, no configs),
 * as main.ts's readForm turns them into a request. main.ts compares before it uses the early
 * cluster, so if the two ever differ the page starts its own, correctly, only later.
 */
export const DEFAULT_START: StartRequest = { seed: 1, brokers: 4, partitions: 12, configs: {} };

/** What the boot script leaves for app.js: its worker, and everything since it started it. */
export interface BootState {
  worker: Worker;
  /** The requests sent, with ids from 1: app.js numbers its own after them. */
  sent: { id: number; type: string; body: unknown }[];
  /** Every message the worker posted so far (event.data), in order. */
  inbox: unknown[];
  /** The worker's error events' messages (worker.js could not load, say). */
  errors: string[];
  /** Removes the boot script's listeners: app.js listens from now on. */
  release(): void;
}

/** Whether two start requests ask for the same cluster (key order aside; seed 1 = "1"). */
export function sameStart(a: StartRequest, b: StartRequest): boolean {
  return canon(a) === canon(b);
}

function canon(r: StartRequest): string {
  const byKey = (x: [string, unknown], y: [string, unknown]) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0);
  const fields = Object.entries(r)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]): [string, unknown] => [k, k === "configs" ? Object.entries(v as object).sort(byKey) : k === "seed" ? String(v) : v]);
  return JSON.stringify(fields.sort(byKey));
}
