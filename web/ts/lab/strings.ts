// The config lab page's string catalogue (lab.html carries data-ls keys into it). Like
// web/ts/strings.ts for the playground: nothing else under web/ts/lab spells out user-facing
// text. Kafka's own words (config names, verdict texts, ConfigException messages) come from
// the worker and are not here.

export const LS = {
  skipToMain: "Skip to main content",
  title: "KRaft Lab: config lab",
  toPlayground: "← Playground",
  errorHeading: "The lab's worker stopped",
  errorHeadingPage: "The lab page failed",
  intro:
    "What happens to your cluster the next time a broker restarts or a disk is replaced, today and with KIP-1358's wait-for-sync? Describe the cluster (or start from a preset), compare policies on the same cluster and seed, and sweep a config. Every figure comes from a model: each result says which of your inputs and which of the model's assumptions it rests on.",
  statusLoading: "Loading the simulator…",
  statusReady: "Ready.",
  statusFailed: "The simulator stopped. The report below says why.",
  statusFailedPage: "The page failed to start. The report below says why; reloading tries again.",
  linkRefused: (why: string) => `This link could not be opened: ${why}. The defaults were started instead.`,

  describeHeading: "1. Describe the cluster",
  presetsLabel: "Start from a preset:",
  presetSmall: "Small (3 brokers)",
  presetKIP: "Load test after KIP-1358's (6 brokers)",
  presetLarge: "Large (24 brokers)",
  presetFrom: (name: string) => `Started from the preset "${name}"; every field below is what runs.`,
  clusterLegend: "Brokers and topics",
  seed: "Seed",
  controllers: "KRaft controllers",
  brokers: "Brokers",
  rf: "replication.factor (default for topics)",
  minIsr: "min.insync.replicas",
  topics: "Topics",
  topicsHint: "One a line: name partitions [replication factor] [min.insync.replicas]",
  loadLegend: "Load, data and hardware",
  produce: "Produce rate, whole cluster",
  data: "Data per broker (what a new disk copies back)",
  skew: "Partition skew (lognormal σ; 0 = all alike)",
  disk: "Disk capacity per broker (read and write)",
  nic: "Network capacity per broker (each direction)",
  followerThrottle: "follower.replication.throttled.rate (0 = none)",
  leaderThrottle: "leader.replication.throttled.rate (0 = none)",
  mbps: "MB/s",
  gb: "GB",
  minutes: "min",
  seconds: "s",
  eventLegend: "The event to study",
  eventKind: "Event",
  eventRestart: "Restart one broker",
  eventDiskSwap: "Replace one broker's disk",
  eventRolling: "Rolling restart",
  eventBroker: "Broker",
  eventAt: "Starts at",
  eventDown: "Down for",
  eventClean: "Controlled shutdown (otherwise killed)",
  eventBrokers: "Rolling restart: brokers 0 to N−1, N =",
  eventInterval: "Rolling restart: interval",
  eventRollingDiskSwap: "Rolling restart replaces each disk",
  duration: "Run length",
  propertiesLegend: "Paste server.properties or kafka-configs.sh --describe output",
  propertiesHint:
    "Every line is accounted for: used (it becomes a config of the run), ignored (with the reason: not modelled, hidden, a topic's, overridden) or invalid (with its line number). Nothing runs while a line is invalid.",
  lineStatus: (line: number, status: string) => `line ${line}: ${status}`,

  compareHeading: "2. Compare policies",
  compareHint:
    "Each policy is a list of configs (NAME=VALUE, one a line) on the same cluster and seed; today's Kafka runs as the baseline the recovery criterion needs. One Web Worker per run.",
  policyName: "Policy name",
  policyOverrides: "Configs (NAME=VALUE, one a line)",
  removePolicy: "Remove",
  addPolicy: "Add a policy",
  compareRun: "Compare",
  sensitivityRun: "Sensitivity view (each assumption low and high)",
  cancel: "Cancel",
  progressLabel: "Progress of the runs",
  blocked: "Fix the fields marked above first: nothing runs until they are valid.",
  running: (runs: number, workers: number) => `Running ${runs} runs on ${workers} workers…`,
  cancelled: "Cancelled.",
  doneIn: (runs: number, secs: number) => `${runs} runs done in ${secs.toFixed(1)} s.`,
  failed: (msg: string) => `The run failed: ${msg}`,
  verdictsHeading: "Verdicts: KIP-1358's acceptance criteria",
  colPolicy: "Policy",
  colCriterion: "Criterion",
  colMeasured: "Measured",
  colLimit: "Limit",
  colVerdict: "Verdict",
  colRestsOn: "Rests on (uncertain model parameters)",
  inScenario: "stated in the description",
  modelDefault: "the model's default, not stated",
  passOnDefaults: (keys: string) => `a pass that rests on model defaults you did not state: ${keys}`,
  flipsWarn: "flips under the sensitivity view",
  notesDriven: (fields: string) => `Driven by your description: ${fields}.`,
  notesAssumed: "Assumptions of the model behind these verdicts (the sensitivity view moves them):",
  sensitivityHeading: "Sensitivity: each assumption at its low and high value",
  sensLowHigh: (key: string) => `${key} low / high`,
  sensBase: "base",
  sensRobust: "robust?",
  sensYes: "yes",
  sensFlips: "NO: flips",
  chartsHeading: "Side by side",
  chartLeadership: "Preferred leadership returned (%)",
  chartOutOfSync: "Out-of-sync replicas",
  chartGate: "Wait-for-sync gate (brokers held)",
  chartElections: "Preferred elections per sample",
  chartP99: "Produce p99 ÷ steady (limit 1.5×)",
  chartBroker: (id: number) => `broker ${id}`,
  chartTime: "time",
  chartRatio: "p99 ÷ steady",
  chartLimit: "limit",
  chartGated: "gated brokers",
  chartElected: "elections",

  exportCSV: "Export CSV",
  exportJSON: "Export JSON",
  exportScenario: (policy: string) => `Scenario: ${policy}`,
  exportHeading: "Exports",
  exportHint:
    "CSV and JSON are the CLI's formats (kraftlab lab, kraftlab sweep); a scenario file replays with kraftlab run to the same numbers. The lab's whole state is in the page's address: bookmark or share it.",
  exportLast: "Last export",

  sweepHeading: "4. Sweep one or two configs",
  sweepHint:
    "Each axis is NAME=v1,v2,... or NAME=FROM..TO:STEP; at most 400 cells. Each cell runs with the configs below plus its values, against today's Kafka on the same cluster, on every core the browser offers.",
  sweepBase: "Configs of every cell (NAME=VALUE, one a line)",
  axis1: "Axis 1 (rows)",
  axis2: "Axis 2 (columns, optional)",
  sweepRun: "Run the sweep",
  heatmapHint: "Thick line: the acceptance boundary (all three verdicts pass inside it, marked ✓). Click a cell to open its comparison.",
  heatKey: (unit: string) => `colour key (${unit}), from 0: equal steps of colour are equal steps of value, so runs a few ms apart look alike`,
  heatNever: "never",
  heatUnitSeconds: "s",
  heatUnitRatio: "× steady",
  sameResults: (policies: string, why: string) => `${policies} gave the same numbers on this cluster and event: ${why}`,
  sameNoGate: "the wait-for-sync gate never held a broker (the restarted broker was back in sync before a balancer run found it out of sync)",
  sameUnderCap: (most: number, cap: number) =>
    `no balancer run had more than ${most.toLocaleString("en")} partition${most === 1 ? "" : "s"} to hand back, fewer than any policy's cap (${cap.toLocaleString("en")})`,
  sameNothing: "nothing in this run brings their differences into play",
  sameTry: "A bigger cluster, more data per broker or a disk replacement is where they part.",
  heatRecovery: "Recovery time (s)",
  heatP99: "Worst p99 ÷ steady, 10 min after unfencing",
  cellPolicy: (n: number) => `sweep cell ${n}`,
  never: "never",
};

type TextKey = { [K in keyof typeof LS]: (typeof LS)[K] extends string ? K : never }[keyof typeof LS];

function isTextKey(k: string): k is TextKey {
  return Object.prototype.hasOwnProperty.call(LS, k) && typeof (LS as Record<string, unknown>)[k] === "string";
}

/** Fills data-ls (text) and data-ls-label (aria-label) from the catalogue. */
export function applyLabStrings(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-ls]"))) {
    const k = el.dataset.ls ?? "";
    if (!isTextKey(k)) throw new Error(`unknown string key data-ls="${k}"`);
    el.textContent = LS[k];
  }
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-ls-label]"))) {
    const k = el.dataset.lsLabel ?? "";
    if (!isTextKey(k)) throw new Error(`unknown string key data-ls-label="${k}"`);
    el.setAttribute("aria-label", LS[k]);
  }
}
