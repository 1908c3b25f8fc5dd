// The catalogue of every string the page shows. Nothing else in web/ts spells out user-facing
// text, and the HTML skeleton (web/page.templ) carries only data-s keys into this catalogue, so
// a wording change or a translation touches this one file.
//
// Strings that come from the simulation itself (config names, docs, Kafka's error messages)
// are not here: they are Kafka's words and arrive through the worker.

export const S = {
  appTitle: "KRaft Lab",
  skipToMain: "Skip to main content",

  statusLoading: "Loading the simulator…",
  statusConnecting: "Simulator loaded, connecting…",
  statusReady: (version: string, goVersion: string) => `Ready: KRaft Lab ${version}, built with ${goVersion}.`,
  statusFailed: "The simulator stopped. The report below says why.",

  clusterHeading: "Cluster",
  clusterPlaceholder: "The cluster view will be drawn here.",

  configsHeading: "Configs",
  configsIntro:
    "Every config the simulated controller understands, with where it comes from. Values are checked the way Kafka checks them.",
  configType: "Type",
  configDefault: "Default",
  configAllowed: "Allowed",
  configScope: "Scope",
  configDynamic: "dynamic",
  configStatic: "static",
  configDynamicHint: "Dynamic configs can change while the controller runs; static ones are read at start.",
  configNote: "Note:",
  scopeCluster: "cluster",
  scopeTopic: "cluster or topic",

  errorHeading: "Something went wrong",
  errorIntro:
    "The simulator hit an error it could not recover from. Please copy the report and include it when you tell us about it.",
  copyReport: "Copy report",
  copyDone: "Report copied to the clipboard.",
  copyFallback: "Could not reach the clipboard; the report is selected, press Ctrl+C (⌘C) to copy it.",

  // Problems, as they appear in the report.
  problemWorkerError: (message: string) => `The worker failed: ${message}`,
  problemWorkerFatal: (message: string) => `The simulator stopped: ${message}`,
  problemMessageError: "A message from the worker could not be read.",
  problemUnmatchedReply: (code: string, message: string) => `The worker rejected a message: ${code}: ${message}`,
  problemProtocol: (page: number, worker: number) =>
    `This page speaks protocol ${page} but the worker speaks ${worker}; reload the page.`,
  problemRequest: (type: string, message: string) => `Request ${type} failed: ${message}`,
  problemPage: (message: string) => `Page error: ${message}`,
  problemCSP: (directive: string, uri: string) => `Blocked by the Content-Security-Policy (${directive}): ${uri}`,
  workerUnavailable: "the worker is not running",

  // Worker start-up failures (worker.ts).
  wasmHTTP: (status: number) => `could not download kraftlab.wasm: HTTP ${status}`,
  goExited: (code: number) => `the Go program exited with code ${code}`,
} as const;

/** A key of the catalogue whose value is plain text (usable from HTML data-s attributes). */
export type TextKey = { [K in keyof typeof S]: (typeof S)[K] extends string ? K : never }[keyof typeof S];

function isTextKey(k: string): k is TextKey {
  return Object.prototype.hasOwnProperty.call(S, k) && typeof (S as Record<string, unknown>)[k] === "string";
}

/**
 * Fills the HTML skeleton: data-s="key" sets an element's text, data-s-label="key" its
 * aria-label. An unknown key is a bug, so it throws rather than leaving a blank element.
 */
export function applyStrings(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-s]"))) {
    const k = el.dataset.s ?? "";
    if (!isTextKey(k)) throw new Error(`unknown string key data-s="${k}"`);
    el.textContent = S[k];
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-s-label]"))) {
    const k = el.dataset.sLabel ?? "";
    if (!isTextKey(k)) throw new Error(`unknown string key data-s-label="${k}"`);
    el.setAttribute("aria-label", S[k]);
  }
}
