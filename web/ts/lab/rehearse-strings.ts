// The strings of the lab page's "Rehearse a rollout on your cluster" (lab.html carries data-rs
// keys into them), as web/ts/lab/strings.ts holds the rest of the page's. Kafka's words, the
// import's report and the report itself come from the worker.

export const RS = {
  heading: "3. Rehearse a rollout on your cluster",
  intro:
    "Paste (or drop) what Kafka's tools print about your cluster, write the rollout as you run it, and compare it under the current config (the properties pasted above) and a candidate, on the same cluster and seed. The report is the one kraftlab lab --report writes; docs/lab.md lists the commands that collect each input.",
  topics: "kafka-topics.sh --describe",
  topicsHint: "Required: brokers, topics and every replica assignment (Kafka 4.x or 3.x output).",
  logDirs: "kafka-log-dirs.sh --describe",
  logDirsHint: "Optional: each partition's size, so a replaced disk copies its real data.",
  quorum: "kafka-metadata-quorum.sh describe --status",
  quorumHint: "Optional: the controller voters.",
  rates: "Produce rates per topic",
  ratesHint:
    "Optional: a JMX exporter's BytesInPerSec lines, or CSV topic,bytes_per_sec. Without: the description's total, spread by partition size.",
  plan: "The plan",
  planHint:
    "One step a line: roll-controllers (brings in the candidate's controller configs) · rolling-restart [all|1,2,3] [timeout=10m] · replace-disk ID [down=5m] · shutdown ID · kill ID · pause 5m",
  candidate: "The candidate config",
  candidateHint: "NAME=VALUE, one a line, on top of the current config.",
  run: "Rehearse",
  cancel: "Cancel",
  progress: "Rehearsal progress",
  download: "Download report (HTML)",
  downloadMd: "Download report (Markdown)",
  reportTitle: "The rehearsal's report",
  defaultPlan: "rolling-restart all timeout=10m\n",
  statusImporting: "Importing…",
  statusImportingOf: (mb: number) => `Importing ${mb < 1 ? "your cluster" : `${mb.toFixed(1)} MB`}…`,
  statusPreparing: (ready: number, runs: number) => `Imported. Preparing ${runs} runs, one per worker… ${ready} of ${runs} ready`,
  statusRunning: (runs: number, pct: number) => `Running ${runs} runs, one per worker… ${pct} %`,
  statusDone: (s: number) => `Rehearsed in ${s.toFixed(1)} s. The report is below.`,
  statusCancelled: "Cancelled.",
  statusFix: "Fix the fields marked above.",
  statusFailed: (why: string) => `The rehearsal failed: ${why}`,
  imported: (summary: string) => `Imported: ${summary}.`,
  unused: (n: number) => `${n} input line${n === 1 ? "" : "s"} not used (line, reason):`,
  readFile: (name: string) => `Read ${name}.`,
};

/** Puts the catalogue's text into every [data-rs], [data-rs-label] and [data-rs-title] under root. */
export function applyRehearseStrings(root: ParentNode): void {
  const text = RS as unknown as Record<string, unknown>;
  for (const el of root.querySelectorAll<HTMLElement>("[data-rs]")) {
    const v = text[el.dataset.rs!];
    if (typeof v === "string") el.textContent = v;
  }
  for (const el of root.querySelectorAll<HTMLElement>("[data-rs-label]")) {
    const v = text[el.dataset.rsLabel!];
    if (typeof v === "string") el.setAttribute("aria-label", v);
  }
  for (const el of root.querySelectorAll<HTMLElement>("[data-rs-title]")) {
    const v = text[el.dataset.rsTitle!];
    if (typeof v === "string") el.setAttribute("title", v);
  }
}
