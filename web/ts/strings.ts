// The catalogue of every string the page shows. Nothing else in web/ts spells out user-facing
// text, and the HTML skeleton (web/page.templ) carries only data-s keys into this catalogue, so
// a wording change or a translation touches this one file.
//
// Strings that come from the simulation itself (config names, docs, Kafka's error messages)
// are not here: they are Kafka's words and arrive through the worker.

import { clockText } from "./frame";

const numberFormats = new Map<string, Intl.NumberFormat>();

/**
 * x.toLocaleString("en", options), with the formatter kept: toLocaleString builds an
 * Intl.NumberFormat on every call, which costs far more than the formatting, and the panels
 * format numbers on every frame.
 */
export function num(x: number, options?: Intl.NumberFormatOptions): string {
  const key = options ? JSON.stringify(options) : "";
  let f = numberFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat("en", options);
    numberFormats.set(key, f);
  }
  return f.format(x);
}

/** Headlines of explain mode's card, by decision kind. */
const EXPLAIN_TITLES: Record<string, string> = {
  session_expired: "Session expired",
  fenced: "Broker fenced",
  unfenced: "Broker unfenced",
  leader: "Leader elected",
  isr: "ISR changed",
  balancer_run: "Balancer run",
  quorum_leader: "New active controller",
  snapshot: "Metadata snapshot",
};

/** A node id as the page names it: controllers from 3000, brokers below. */
function nodeName(id: number): string {
  if (id < 0) return "no controller";
  return id >= 3000 ? `controller ${id}` : `broker ${id}`;
}

/** A controller role's short word (S.canvasRoleShort). */
const ROLE_SHORT: Readonly<Record<string, string>> = { follower: "follow.", candidate: "cand.", prospective: "prosp.", unattached: "unatt.", resigned: "resign." };

export const S = {
  appTitle: "KRaft Lab",
  labLink: "Config lab: compare policies on your cluster",
  skipToMain: "Skip to main content",

  statusLoading: "Loading the simulator…",
  statusConnecting: "Simulator loaded, connecting…",
  statusReady: "Ready.",
  buildStamp: (version: string, goVersion: string) => `KRaft Lab ${version}, built with ${goVersion}.`,
  statusFailed: "The simulator stopped. The report below says why.",

  clusterHeading: "Cluster",

  // The metadata log strip (web/ts/logstrip.ts). Record names are Kafka's; these are the
  // cells' short forms, the summary spells them out.
  logStripHeading: "Metadata log",
  logStripHint:
    "The newest offsets of the KRaft metadata log. Solid cells are committed; hatched ones wait for a majority of the controllers. Triangles mark where each controller's log ends and what each broker has applied; a dashed line is a snapshot.",
  recordShort: (type: string): string =>
    ({
      RegisterBrokerRecord: "Reg",
      BrokerRegistrationChangeRecord: "BrChg",
      TopicRecord: "Topic",
      PartitionRecord: "Part",
      PartitionChangeRecord: "PChg",
      RemoveTopicRecord: "RmTop",
      ClearElrRecord: "ClrElr",
      NoOpRecord: "NoOp",
      ConfigRecord: "Cfg",
      FeatureLevelRecord: "Feat",
      LeaderChangeMessage: "LCM",
    })[type] ?? type.replace(/Record$/, ""),
  logStripHw: (hw: number) => `high watermark ${num(hw)}`,
  logStripSnapshot: (ids: number[]) => `snapshot (${ids.join(", ")})`,
  logStripOlderSnapshot: (ids: number[], at: number) => `◀ snapshot (${ids.join(", ")}) at ${num(at)}`,
  logStripBroker: (id: number) => `b${id}`,
  logStripDown: " (down)",
  logStripSummary: (log: {
    start: number;
    records: string[];
    highWatermark: number;
    leader: number;
    nodes: { id: number; controller: boolean; running: boolean; endOffset: number; applied: number; snapshot: number }[];
  }): string => {
    const end = log.start + log.records.length;
    const n = num;
    const last = log.records.slice(-3).join(", ");
    const parts = [
      `Metadata log offsets ${n(log.start)} to ${n(end - 1)}, newest ${last}.`,
      `High watermark ${n(log.highWatermark)}: ${end > log.highWatermark ? `${n(end - log.highWatermark)} uncommitted` : "everything committed"}.`,
      log.leader >= 0 ? `Controller ${log.leader} leads the quorum.` : "No controller leads the quorum.",
    ];
    for (const x of log.nodes) {
      const who = x.controller ? `Controller ${x.id}` : `Broker ${x.id}`;
      const where = x.controller ? `log ends at ${n(x.endOffset)}` : `has applied up to ${n(x.applied)}`;
      const snap = x.snapshot >= 0 ? `, snapshot at ${n(x.snapshot)}` : "";
      parts.push(`${who}${x.running ? "" : " (down)"} ${where}${snap}.`);
    }
    return parts.join(" ");
  },
  sideLabel: "Event log, partitions and configs",
  toolbarLabel: "Simulation controls",

  // The start form and run controls.
  seedLabel: "Seed",
  brokerCountLabel: "Brokers",
  partitionCountLabel: "Partitions",
  startButton: "Restart cluster",
  lessonRestarted: (lesson: number, step: number) => `Restarted lesson ${lesson}'s cluster at the start of step ${step}.`,
  lessonLeftForStart: (lesson: number) =>
    `Left lesson ${lesson} to start the cluster typed here; open it again from Lessons to go on.`,
  starting: "Starting…",
  play: "Play",
  pause: "Pause",
  speedLabel: "Speed",
  speedOption: (x: number) => (x === 1 ? "real time" : x === 0.25 ? "¼× slow motion" : `${num(x)}×`),
  // What a second of the screen means in cluster time, with the heartbeat's cadence to feel it.
  speedMeaning: (x: number) => {
    const beat = 2000 / x; // broker.heartbeat.interval.ms on screen
    const beatText = beat >= 1000 ? `${num(beat / 1000, { maximumFractionDigits: 1 })} s` : `${num(Math.round(beat))} ms`;
    const cluster = x >= 60 ? `${num(x / 60, { maximumFractionDigits: 1 })} min` : `${num(x)} s`;
    return `1 s on screen = ${cluster} in the cluster · a heartbeat every ${beatText}`;
  },
  // Traffic, explain mode and the narration (traffic.ts, explain.ts).
  trafficToggle: "Traffic",
  // The toggle's label, in two parts: presenter mode on a phone shows the first only.
  explainToggle: "Explain",
  explainToggleMore: " as it happens",
  explainContinue: "Continue (Space)",
  explainTitle: (kind: string, timeMs: number) => `${EXPLAIN_TITLES[kind] ?? kind} at ${clockText(timeMs)}`,
  explainMore: (n: number) => `and ${num(n)} more`,
  narrateMessage: (m: { api: string; response?: boolean; from: number; to: number; note?: string }) =>
    `${nodeName(m.from)} to ${nodeName(m.to)}: ${m.api}${m.response ? " answer" : ""}${m.note ? `, ${m.note}` : ""}`,
  narrateSkipped: (n: number) => `${num(n)} earlier happenings skipped`,
  legendMessages:
    "messages: heartbeats (blue), metadata fetches (grey), AlterPartition (orange square), votes (pink); solid asks, hollow answers; each hop is drawn over 0.4 s (the model's network takes 1–2 ms)",
  legendFlows: "replication: faint lines carry steady bytes/s, dashed orange arrows catch-up into the broker they point at; wider is more",
  clock: (time: string, rate: string) => `Cluster time ${time}${rate}`,
  clockRate: (x: number) => ` · running at ≈${num(x, { maximumSignificantDigits: 2 })}×`,
  clockPaused: " · paused",
  clockStopped: " · stopped",

  // Brokers and controllers panels.
  brokersHeading: "Brokers",
  brokersHint: "Select a broker with its number key (1–9), then press K to kill it, S to start it, D for a controlled shutdown or R to replace its disk.",
  controllersHeading: "Controllers",
  controllersHint: "The metadata quorum: C kills the active controller, O takes a snapshot on it.",
  brokerName: (id: number) => `Broker ${id}`,
  controllerName: (id: number) => `Controller ${id}`,
  selectBroker: (id: number) => `Select broker ${id}`,
  actKill: "Kill",
  actStart: "Start",
  actShutdown: "Shut down",
  actDiskSwap: "Replace disk",
  actKillController: "Kill",
  actStartController: "Start",
  actSnapshot: "Snapshot",
  brokerStateText: (state: string, fenced: boolean, shuttingDown: boolean, gated: boolean) => {
    const parts: string[] = [];
    const names: Record<string, string> = {
      not_running: "stopped",
      starting: "starting",
      recovery: "recovering its logs",
      running: "running",
      pending_controlled_shutdown: "shutting down (controlled)",
      shutting_down: "shutting down",
    };
    parts.push(names[state] ?? state);
    if (fenced) parts.push("fenced");
    else if (shuttingDown) parts.push("in controlled shutdown");
    else if (state !== "not_running") parts.push("unfenced");
    if (gated) parts.push("gated by wait-for-sync");
    return parts.join(", ");
  },
  brokerCounts: (leaders: number, replicas: number, outOfSync: number) =>
    `leads ${leaders} of ${replicas} replicas; ${outOfSync} out of sync`,
  controllerStateText: (running: boolean, active: boolean, role: string, epoch: number, hw: number) =>
    running
      ? `${active ? "active controller" : role}, epoch ${epoch}, high watermark ${num(hw)}`
      : "stopped",
  actionFailed: (op: string, message: string) => `Could not ${op}: ${message}`,
  noBrokerSelected: "Select a broker first: press its number key (1–9).",

  // Canvas text.
  canvasActive: "ACTIVE",
  canvasStopped: "stopped",
  canvasEpoch: (epoch: number) => `epoch ${epoch}`,
  /**
   * A role's short word, where a compact controller box (render.ts) is too narrow for the
   * whole one; undefined where it has none.
   */
  canvasRoleShort: (role: string): string | undefined => ROLE_SHORT[role],
  canvasOffsets: (hw: number, end: number) => `HW ${num(hw)} · end ${num(end)}`,
  canvasBroker: (id: number) => `broker ${id}`,
  canvasState: (state: string, fenced: boolean, shuttingDown: boolean) => {
    if (state === "not_running") return "STOPPED";
    if (fenced) return "FENCED";
    if (shuttingDown || state === "pending_controlled_shutdown" || state === "shutting_down") return "SHUTTING DOWN";
    if (state === "starting" || state === "recovery") return state.toUpperCase();
    return "RUNNING";
  },
  canvasGated: "GATED",
  canvasCounts: (leaders: number, outOfSync: number) => `leads ${leaders} · ${outOfSync} out of sync`,
  canvasMore: (n: number) => `+${num(n)} not drawn`,
  canvasSummary: (time: string, p99: string, under: number, offline: number) =>
    `${time} · ${p99 === S.noProduceTraffic ? p99 : `produce p99 ${p99}`} · ${under} under-replicated · ${offline} offline`,
  noProduceTraffic: "no produce traffic (no broker running)",
  /** A latency as JMX reports it, in ms: a tenth below 100 ms (13.9 ms), whole and grouped above (8,160 ms). */
  latencyMs: (ms: number) => (ms < 100 ? `${ms.toFixed(1)} ms` : `${num(Math.round(ms))} ms`),
  canvasNextRun: (s: string) => `next electPreferred in ${s}`,
  clusterDesc: (brokers: string, controller: string, under: number, offline: number) =>
    `${brokers}. ${controller}. ${under} partitions under-replicated, ${offline} offline. The event log and the partition table describe the same state in words.`,
  descBroker: (id: number, state: string, leaders: number) => `broker ${id} ${state}, leading ${leaders}`,
  descController: (id: number) => `Controller ${id} is active`,
  descNoController: "No controller is active",

  legendLabel: "Legend",
  legendLeader: "leader",
  legendFollower: "follower in the ISR",
  legendElr: "eligible leader (ELR), out of the ISR",
  legendOutOfSync: "out of sync (hollow)",
  legendOffline: "partition without a leader",
  legendPreferred: "preferred replica (corner cut off); numbers are partitions",
  legendRunning: "running broker (solid border, circle)",
  legendFenced: "fenced (dashed border, triangle)",
  legendShutdown: "controlled shutdown (dotted border, square)",
  legendStopped: "stopped (hatched, cross)",
  legendCatchUp: "catch-up bar: the share of a running broker's replicas back in sync",

  // Event log and partition table.
  eventsHeading: "Event log",
  welcomeHeading: "New here? Three ways in:",
  welcomeKill: "Kill the leader of payments-0 and watch what the controller does",
  welcomeLesson: "Start lesson 1",
  welcomeLab: "Open the config lab",
  welcomeClose: "Dismiss this start card",
  logNewEvents: (n: number) => `${num(n)} new ${n === 1 ? "event" : "events"} ↓`,
  logFollowLabel: "Jump to the newest event and follow the log again",
  logOlderDropped: (n: number, keep: number) =>
    `${num(n)} older ${n === 1 ? "event is" : "events are"} not shown: the log keeps the latest ${num(keep)} (scrub back to see earlier ones)`,
  eventsEmpty: "Nothing has happened yet.",
  partitionsHeading: "Partitions",
  filterLabel: "Filter",
  filterHelp:
    "Words all must match: a partition number, leader:1, replica:2, isr:3, -isr:3 (a replica out of the ISR), elr:2, under, offline, or part of a topic name.",
  partitionCaption: (shown: number, matching: number, total: number) =>
    matching === total
      ? `kafka-topics.sh --describe: ${shown} of ${total} partitions`
      : `kafka-topics.sh --describe: ${shown} of ${matching} matching partitions (${total} in all)`,
  noLeader: "none",

  // Help dialog.
  helpOpen: "Keyboard shortcuts and help",
  helpHeading: "Keyboard shortcuts",
  helpIntro: "Shortcuts work anywhere on the page except while you type in a field.",
  helpKey: "Key",
  helpAction: "Action",
  helpClose: "Close",
  helpCanvas:
    "On the canvas each broker is a box; its small squares are the partition replicas it holds, in partition order. The colours and shapes are explained in the legend under it.",
  shortcuts: [
    ["Space", "Play or pause the simulation"],
    ["1–9", "Select the broker with that id"],
    ["K", "Kill the selected broker (kill -9: no clean shutdown)"],
    ["S", "Start the selected broker"],
    ["D", "Controlled shutdown of the selected broker"],
    ["R", "Replace the selected broker's disk (it must be stopped)"],
    ["C", "Kill the active controller"],
    ["O", "Take a metadata snapshot on the active controller"],
    ["+ / −", "Faster / slower"],
    ["?", "Show this help"],
    ["Esc", "Close this help"],
  ] as readonly (readonly [string, string])[],

  // Configs panel.
  configApply: "Apply now",
  configApplyHint: "Dynamic: applied to the running cluster with set_config.",
  configStaticHint: "Static: used when the cluster (re)starts.",
  configApplied: (name: string) => `${name} sent to the controller.`,

  configsHeading: "Configs",
  configsIntro:
    "Every config the simulated controller understands, with where it comes from. Values are checked the way Kafka checks them, except where a note says the model's range is its own.",
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
  workerRestart: "Restart the simulator",
  workerRestartText:
    "The simulator (the Web Worker that runs the cluster) has stopped, so this run cannot go on here. Restarting it reopens the run from this page's address, paused at the last moment shown; nothing you did is lost. The report below says what happened.",
  workerStoppedSilently: "it stopped without saying why (the browser may have run out of memory for it)",
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
  wasmHTTP: (status: number, file = "kraftlab.wasm") => `could not download ${file}: HTTP ${status}`,
  goExited: (code: number) => `the Go program exited with code ${code}`,

  // Charts (charts.ts), presenter mode (presenter.ts), canvas menus and tooltips
  // (canvas-input.ts), the dense view (render.ts).
  chartsHeading: "Over time",
  chartTime: "time",
  chartMarkerKey: "Marks on the charts: a solid line for each of your actions, a dotted one for each balancer (electPreferred) run. Point at a mark for its event-log line.",
  chartBroker: (id: number) => `broker ${id}`,
  chartLeaders: "Leaders per broker",
  chartOutOfSync: "Out-of-sync replicas per broker",
  chartGate: "wait-for-sync gate per broker (raised = gated)",
  chartGated: "gated",
  chartOpen: "open",
  chartElections: "Elections per electPreferred run",
  chartElected: "elected",
  chartMaxPerRun: "max.per.run",
  chartP99: "Produce p99 against its steady value",
  chartP99Series: "p99",
  chartSteady: "steady (median while healthy)",
  chartPartitions: "Under-replicated and offline partitions",
  chartUnderReplicated: "under-replicated",
  chartOffline: "offline",
  canvasLabel:
    "Cluster view. Arrow keys move between controllers and brokers, Enter opens the actions of the one in focus; Shift with ← → steps through a broker's replicas and follows each one's partition.",
  canvasStrips: (per: number) =>
    per === 1 ? "one column per replica; [ and ] zoom" : `each column: ${num(per)} partitions stacked by state; [ and ] zoom`,
  /** canvasStrips on a box too narrow for it. */
  canvasStripsShort: (per: number) => (per === 1 ? "a column a replica" : `a column: ${num(per)} partitions`),
  canvasRange: (lo: number, hi: number, count: number) =>
    ` · partitions ${num(lo)}–${num(hi)} of ${num(count)}`,
  menuLabel: (who: string) => `Actions for ${who}`,
  menuClose: "Close",
  tooltipReplica: (topic: string, partition: number, broker: number, role: string, leader: string, isr: string, elr: string) =>
    `${topic}-${partition} on broker ${broker}: ${role}\nLeader: ${leader}  Isr: ${isr}  Elr: ${elr || "–"}`,
  tooltipLag: (state: string, lagMs: number, backlogBytes: number) =>
    state === "leader"
      ? "The leader: its followers fetch from it."
      : state === "in-sync"
        ? `In sync: ${bytesText(backlogBytes)} behind the leader's log end, fetching continuously.`
        : `Lag: last caught up ${num(lagMs / 1000, { maximumFractionDigits: 1 })} s ago, ${bytesText(backlogBytes)} behind the leader.`,
  tooltipRole: ["leader", "follower in the ISR", "in the ELR, out of the ISR", "out of sync (catching up)", "no leader: offline"] as readonly string[],
  tooltipBucket: (broker: number, first: string, last: string, counts: readonly number[]) =>
    `broker ${broker}, ${first} … ${last}:\n${counts[0]} leader, ${counts[1]} follower, ${counts[2]} ELR, ${counts[3]} out of sync, ${counts[4]} offline`,
  tooltipController: (id: number, text: string) => `controller ${id}: ${text}`,
  tooltipBroker: (id: number, text: string) => `broker ${id}: ${text}`,
  presenterOn: "Presenter mode on: side panels hidden, everything larger. Press P to leave.",
  presenterOff: "Presenter mode off.",
  viewShortcutsHeading: "Canvas and view",
  viewShortcuts: [
    ["P", "Presenter mode: hide the side panels, enlarge everything"],
    ["Tab to the canvas, then ← → ↑ ↓", "Move between controllers and brokers"],
    ["Enter", "Open the actions of the controller or broker in focus (a click does the same)"],
    ["Shift + ← →", "Step through the replicas of the broker in focus: each one's partition is followed on every broker and in the describe table (Escape lets go)"],
    ["] / [", "Zoom in / out of the partitions on the canvas (or the mouse wheel, on a large cluster)"],
    ["0", "Show all partitions again"],
  ] as readonly (readonly [string, string])[],

  // Time: the timeline and its steps (timeline.ts); more actions (actions.ts); share and keep
  // (share.ts).
  scrubLabel: "Timeline",
  scrubValue: (t: string, end: string) => `${t} of ${end}`,
  scrubRewrites: (n: number) =>
    `You are looking at an earlier moment. An action taken now replaces the ${n === 1 ? "recorded action" : `${n} recorded actions`} after it, like typing after an undo; playing on replays ${n === 1 ? "it" : "them"}.`,
  scrubBehind: "You are looking at an earlier moment; playing on (or the End key on the timeline) goes back to where the run got to.",
  scrubMark: (op: string, t: string) => `${op} at ${t}`,
  stepEvent: "Next event",
  stepRun: "Next balancer run",
  rewind: "Back to 0",
  actSlowDisk: "Slow disk",
  actRestoreDisk: "Restore disk",
  truncated: (n: number) => `${n === 1 ? "1 later action was" : `${n} later actions were`} replaced by this one.`,
  runShortcutsHeading: "Time, network, topics and sharing",
  runShortcuts: [
    ["W", "Slow the selected broker's disk to 20 % (again: full speed)"],
    [".", "Step to the next event"],
    ["N", "Step to the next electPreferred (balancer) run"],
    ["Home", "Back to cluster time 0 (the run is kept: scrub forward again)"],
    ["← → on the timeline", "One second back or forward (Shift: ten; Page Up/Down: a minute; End: the latest)"],
    ["X / H", "Cut / heal the network link chosen under More actions"],
    ["E", "Preferred leader election on every partition now"],
    ["T", "Go to the topic forms: create or delete a topic (Enter creates), set a topic config"],
    ["L", "Copy a link to this run at this moment"],
  ] as readonly (readonly [string, string])[],
  moreActionsHeading: "More actions",
  networkLegend: "Network: cut or heal a link",
  netALabel: "Between",
  netBLabel: "and",
  netCut: "Cut",
  netHeal: "Heal",
  netCuts: (list: string) => `Cut now: ${list}.`,
  netNone: "No link is cut.",
  topicLegend: "Topics (kafka-topics.sh --create / --delete)",
  topicNameLabel: "Name",
  topicPartitionsLabel: "Partitions",
  topicRfLabel: "Replication factor",
  topicCreate: "Create topic",
  topicDelete: "Delete topic",
  topicConfigLegend: "Topic config (kafka-configs.sh --entity-type topics --alter)",
  tcTopicLabel: "Topic",
  tcNameLabel: "Config",
  tcValueLabel: "Value (empty: remove the override)",
  tcApply: "Apply to topic",
  electNow: "Preferred election now",
  electHint: "As kafka-leader-election.sh --election-type PREFERRED --all-topic-partitions; the answer is in the event log.",
  shareHeading: "Share and keep",
  shareIntro:
    "The run (the cluster, its seed and your actions with their times) is kept in this page's address, so a reload or a copied link shows the same moment. Export gives the same run as a scenario file that kraftlab run replays.",
  copyLink: "Copy link",
  linkCopied: "Link copied.",
  linkCopyFallback: "Could not reach the clipboard; the address bar holds the link.",
  exportRun: "Export scenario",
  exported: (name: string, actions: number) => `Exported ${name} with ${actions === 1 ? "1 action" : `${actions} actions`}; also in the box below.`,
  scenarioJsonLabel: "Scenario (JSON, the format of kraftlab run)",
  importFileLabel: "Or a file",
  importRun: "Open scenario",
  importEmpty: "Paste a scenario or choose a file first.",
  importTooLarge: (bytes: number, limit: number) =>
    `The scenario is ${num(bytes)} bytes; the page opens at most ${num(limit)}.`,
  importFailed: (message: string) => `Not opened: ${message}`,
  imported: (actions: number) => `Opened the scenario with ${actions === 1 ? "1 event" : `${actions} events`}; its events happen as time passes.`,
  linkBadBase64: "its scenario (s=) is not valid base64url text",
  linkTooLarge: (limit: number) => `its scenario is too large: the page opens at most ${num(limit)} bytes`,
  linkBadVersion: (v: string) => `its format version (v=) is "${v}", not a whole number`,
  linkVersionZero: (v: string) => `its format version (v=) is ${v}, but link formats start at 1`,
  linkFuture: (v: number, mine: number) =>
    `it was made by a newer KRaft Lab (link format ${v}; this page reads format ${mine} and older)`,
  linkBadTime: (t: string) => `its time (t=) is "${t}", not a whole number of milliseconds`,
  linkNoScenario: "it has no scenario (s=)",
  linkBadCompression: "its scenario (s=) is not deflate-compressed data",
  linkBadJSON: (message: string) => `its scenario is not JSON: ${message}`,
  linkInvalid: (message: string) => `its scenario is not valid: ${message}`,
  linkFailed: (why: string) => `This link could not be opened: ${why}. The default cluster was started instead.`,
  stepRefused: (why: string) => `Nothing to step to: ${why}.`,
  linkOpened: (t: string) => `Opened the shared run at ${t}, paused. Press Space to play on.`,
  replayProgress: (at: string, to: string) => `Replaying the shared run: ${at} of ${to}`,
  replayCancel: "Cancel",
  replayCancelled: (at: string, to: string) =>
    `Stopped replaying the shared run at ${at} (it went on to ${to}), paused. Press Space to play on from here.`,
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

/** A byte count in the reader's units: 0 B, 12.3 KB, 4.5 MB, 1.2 GB (powers of 1,000). */
export function bytesText(n: number): string {
  const units = ["B", "KB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${num(n, { maximumFractionDigits: i === 0 ? 0 : 1 })} ${units[i]}`;
}
