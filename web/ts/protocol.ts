// The page's side of the worker protocol (web/PROTOCOL.md; Go side: wasm/bridge). Every
// message is one JSON text string; this module owns the encoding, the request ids and the
// matching of replies, so the rest of the page sees typed promises.

import type { BootState } from "./early";
import { S } from "./strings";

/** The protocol version this page speaks; the worker announces its own in the ready event. */
export const PROTOCOL = 3;

export interface ReplyError {
  code: string;
  message: string;
  detail?: string;
}

export interface ReadyBody {
  protocol: number;
}

export interface HelloBody {
  version: string;
  goVersion: string;
  protocol: number;
  types: string[];
}

export type ConfigType = "boolean" | "int" | "long" | "string";
export type SourceKey = "kafka" | "kip-1358" | "pr-22934" | "model";

export interface ConfigDef {
  name: string;
  type: ConfigType;
  default: boolean | number | string;
  defaultText: string;
  allowed: string;
  choices?: string[];
  min?: number;
  max?: number;
  dynamic: boolean;
  scope: "cluster" | "topic";
  source: string;
  sourceKey: SourceKey;
  doc: string;
  note?: string;
}

export interface ConfigDefsBody {
  configs: ConfigDef[];
}

export interface ValidateRequest {
  name: string;
  value: boolean | number | string | null;
  scope?: "cluster" | "topic";
}

export interface ValidateBody {
  valid: boolean;
  value?: boolean | number | string;
  text?: string;
  error?: string;
  reason?: string;
}

export type ConfigValue = boolean | number | string | null;

export interface StartRequest {
  seed?: number | string;
  controllers?: number;
  brokers?: number;
  topic?: string;
  partitions?: number;
  replicationFactor?: number;
  configs?: Record<string, ConfigValue>;
}

export interface StartBody {
  timeMs: number;
  seed: number;
  controllers: number[];
  brokers: number[];
  topic: string;
  partitions: number;
}

export interface AdvanceRequest {
  ms: number;
  layout?: number;
  /** Wall ms the step may spend running the cluster; it stops short when they are spent. */
  budgetMs?: number;
}

export type ActOp =
  | "kill"
  | "start"
  | "shutdown"
  | "disk_swap"
  | "slow_disk"
  | "kill_controller"
  | "start_controller"
  | "cut"
  | "heal"
  | "set_config"
  | "create_topic"
  | "delete_topic"
  | "elect_leaders"
  | "snapshot";

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface ActRequest {
  op: ActOp;
  broker?: number;
  controller?: string;
  name?: string;
  value?: ConfigValue;
  topic?: string;
  /** slow_disk: the share of the disk's capacity left, in (0, 1]. */
  factor?: number;
  /** cut, heal: "broker-1", "controller-3000" or "producers". */
  a?: string;
  b?: string;
  /** create_topic. */
  partitions?: number;
  replicationFactor?: number;
  /** elect_leaders: "preferred" (default) or "unclean"; targets: none means all partitions. */
  election?: "preferred" | "unclean";
  targets?: TopicPartition[];
}

export interface ElectionResult {
  topic: string;
  partition: number;
  error?: string;
  message?: string;
}

export interface ActBody {
  timeMs: number;
  lastHeartbeatMs?: number;
  /** Recorded actions after timeMs that this one replaced (it was taken after scrubbing back). */
  truncated?: number;
  elections?: ElectionResult[];
}

export interface SeekRequest {
  timeMs: number;
  layout?: number;
}

export interface StepRequest {
  to: "event" | "run";
  layout?: number;
}

export interface ActionMark {
  timeMs: number;
  op: string;
  applied: boolean;
}

export interface HistoryBody {
  timeMs: number;
  horizonMs: number;
  version: number;
  actions: ActionMark[];
}

export interface ExportBody {
  /** The run as a cluster-mode scenario file (docs/scenario.md). */
  scenario: string;
  history: HistoryBody;
}

export interface LoadRequest {
  /** A cluster-mode scenario: the parsed object, or its text. */
  scenario: unknown;
  timeMs?: number;
  /** The time the page will then reach in slices of sim.seek (web/ts/replay.ts): only checked. */
  replayToMs?: number;
}

export interface LoadBody extends StartBody {
  horizonMs: number;
  actions: number;
}

/** One replica's lag behind its leader (sim.replica), for the canvas's tooltip. */
export interface ReplicaBody {
  timeMs: number;
  /** dead, stalled, leader, in-sync or catching-up. */
  state: string;
  logEndBytes: number;
  /** How far its log end trails the leader's. */
  backlogBytes: number;
  /** When it was last caught up, and how long ago: what replica.lag.time.max.ms is compared with. */
  lastCaughtUpMs: number;
  lagMs: number;
}

/** Where one controller or broker stands along the metadata log (frame.log.nodes). */
export interface LogNode {
  id: number;
  controller: boolean;
  running: boolean;
  /** The next offset it writes (a controller) or fetches (a broker). */
  endOffset: number;
  /** The high watermark as this node knows it. */
  highWatermark: number;
  /** A controller's committed image reaches it; a broker applies from it next. */
  applied: number;
  /** End offset of its latest snapshot, -1 none. */
  snapshot: number;
}

/** The tail of the metadata log (frame.log): the record type of each offset from start. */
export interface LogStrip {
  start: number;
  records: string[];
  /** Offsets below it are committed. */
  highWatermark: number;
  /** The controller whose log the uncommitted cells come from, -1 none. */
  leader: number;
  /** Controllers, then brokers. */
  nodes: LogNode[];
}

export interface ControllerState {
  id: number;
  running: boolean;
  role: string;
  active: boolean;
  epoch: number;
  endOffset: number;
  highWatermark: number;
}

export type BrokerLifecycle =
  | "not_running"
  | "starting"
  | "recovery"
  | "running"
  | "pending_controlled_shutdown"
  | "shutting_down";

export interface BrokerState {
  id: number;
  state: BrokerLifecycle;
  fenced: boolean;
  inControlledShutdown: boolean;
  epoch: number;
  gated: boolean;
  leaders: number;
  replicas: number;
  outOfSync: number;
  preferred: number;
  preferredLed: number;
  /** The share of its disk's capacity a slow_disk left it, when below 1. */
  diskFactor?: number;
}

export interface TopicInfo {
  name: string;
  id: string;
  first: number;
  count: number;
  deleted?: boolean;
  configs?: Record<string, string>;
}

/** Where the per-partition arrays sit in the frame's binary attachment (see PROTOCOL.md). */
export interface PartitionsInfo {
  count: number;
  layout: number;
  stride: number;
  topics?: TopicInfo[];
  underReplicated: number;
  offline: number;
  imbalanced: number;
  isr: number;
  state: number;
  replicas: number;
}

export interface SampleInfo {
  timeMs: number;
  produceP50Ms: number;
  produceP99Ms: number;
  produceP999Ms: number;
  produceErrors: number;
  produceTimeouts: number;
}

export interface RunInfo {
  timeMs: number;
  elected: number;
  maxPerRun: number;
  gatedBrokers?: number[];
  nextRunMs: number;
}

export interface ConfigState {
  name: string;
  value: string;
  source: "static" | "log";
}

export type EventKind = "action" | "broker" | "partition" | "controller" | "balancer" | "config" | "topic" | "stopped" | "notice";

export interface LogEvent {
  timeMs: number;
  kind: EventKind;
  text: string;
  brokers?: number[];
  partitions?: number;
}

/** The JSON part of a frame; the partition arrays arrive as the reply's attachment. */
export interface FrameBody {
  timeMs: number;
  seed: number;
  controllers: ControllerState[];
  brokers: BrokerState[];
  partitions: PartitionsInfo;
  sample?: SampleInfo;
  lastRun?: RunInfo;
  nextElectPreferredMs: number;
  configs: ConfigState[];
  events: LogEvent[];
  eventsDropped?: number;
  stopped?: string;
  /** The end of the run's timeline (the latest time reached, or an imported scenario's duration). */
  horizonMs: number;
  /** Network links cut and not healed, each as its two node names. */
  cuts?: [string, string][];
  /** The history's version: it changes when an action is recorded or the run replaced. */
  history: number;
  /** The metadata log's tail and every node's place along it. */
  log: LogStrip | null;
  /** What travelled and what was decided since the previous frame (bridge.Traffic). */
  traffic?: Traffic;
}

/** One message between nodes (node ids; -1: the broker knew no controller). */
export interface MessageInfo {
  api: string;
  response?: boolean;
  from: number;
  to: number;
  sentMs: number;
  /** -1: it never arrives (the link is cut, the receiver down). */
  arriveMs: number;
  note?: string;
}

/** The messages of one API and direction on one link, counted. */
export interface LinkInfo {
  api: string;
  response?: boolean;
  from: number;
  to: number;
  count: number;
}

export type DecisionKind =
  | "session_expired"
  | "fenced"
  | "unfenced"
  | "leader"
  | "isr"
  | "balancer_run"
  | "quorum_leader"
  | "snapshot";

/** A controller decision with its reason, or `count` alike ones folded together. */
export interface DecisionInfo {
  timeMs: number;
  decision: DecisionKind;
  reason: string;
  node?: number;
  brokers?: number[];
  /** Partition indexes into the frame's arrays. */
  partitions?: number[];
  count: number;
  leader: number;
  oldLeader: number;
  election?: "preferred" | "online" | "unclean" | "controlled_shutdown" | "offline";
  trigger?: string;
  run?: number;
  elected?: number;
  deferred?: number;
  withheld?: number;
}

/** Catch-up replication from a leader broker to a follower broker. */
export interface FlowInfo {
  leader: number;
  follower: number;
  catchUpBytesPerSec: number;
}

/** A frame's share of the cluster's stream of happenings, for (fromMs, toMs]. */
export interface Traffic {
  fromMs: number;
  toMs: number;
  /** One by one when few; empty when the window had too many (then only links count them). */
  messages: MessageInfo[];
  links: LinkInfo[];
  decisions: DecisionInfo[];
  decisionsDropped?: number;
  flows: FlowInfo[];
  /** Per broker slot: bytes/s its leaders serve to in-sync followers. */
  steadyBytesPerSec: number[];
}

/** Request and reply body types, by message type. */
export interface Messages {
  hello: { req: Record<string, never>; res: HelloBody };
  "config.defs": { req: Record<string, never>; res: ConfigDefsBody };
  "config.validate": { req: ValidateRequest; res: ValidateBody };
  "sim.start": { req: StartRequest; res: StartBody };
  "sim.advance": { req: AdvanceRequest; res: FrameBody };
  "sim.frame": { req: { layout?: number }; res: FrameBody };
  "sim.replica": { req: { topic: string; partition: number; broker: number }; res: ReplicaBody };
  "sim.act": { req: ActRequest; res: ActBody };
  "sim.seek": { req: SeekRequest; res: FrameBody };
  "sim.step": { req: StepRequest; res: FrameBody };
  "sim.history": { req: Record<string, never>; res: HistoryBody };
  "sim.export": { req: Record<string, never>; res: ExportBody };
  "sim.load": { req: LoadRequest; res: LoadBody };
}

/** A reply body with its binary attachment, when the reply has one. */
export interface WithData<T> {
  body: T;
  data: ArrayBuffer | undefined;
}

/** A failed reply, or a request that could not be sent. */
export class ProtocolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** Something that ends or endangers the session, for the error panel. */
export interface Problem {
  message: string;
  detail?: string;
}

interface Pending {
  type: string;
  resolve: (reply: WithData<unknown>) => void;
  reject: (err: Error) => void;
}

interface Envelope {
  id?: number;
  type: string;
  ok?: boolean;
  body?: unknown;
  error?: ReplyError;
  /** Length of the binary attachment posted with this reply. */
  data?: number;
}

/** A request the boot script (web/ts/boot.ts) sent before app.js ran, and its reply. */
export interface EarlyRequest<K extends keyof Messages> {
  body: unknown;
  reply: Promise<WithData<Messages[K]["res"]>>;
}

/**
 * WorkerClient starts the worker and talks to it. Requests made before the worker is ready are
 * held back until it is (the worker drops messages that arrive before Go listens).
 *
 * Given the boot script's BootState instead of a URL, it takes over the worker the boot
 * script started: the messages that arrived meanwhile are handled as if they arrived now, and
 * the boot script's requests wait for their replies like any other (early() hands them out).
 */
export class WorkerClient {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly earlyRequests = new Map<string, EarlyRequest<keyof Messages>>();
  private dead: Problem | undefined;
  /** Whether the worker said it was ready. */
  private started = false;
  /** Resolves with the ready event's body; rejects if the worker dies first. */
  readonly ready: Promise<ReadyBody>;
  private markReady!: (b: ReadyBody) => void;
  private failReady!: (e: Error) => void;

  constructor(
    from: string | BootState,
    private readonly onProblem: (p: Problem, fatal: boolean) => void,
  ) {
    this.ready = new Promise<ReadyBody>((resolve, reject) => {
      this.markReady = resolve;
      this.failReady = reject;
    });
    // Keep an unobserved rejection from surfacing as a second, duplicate page error.
    this.ready.catch(() => undefined);
    const url = typeof from === "string" ? from : "worker.js";
    this.worker = typeof from === "string" ? new Worker(url, { name: "kraftlab" }) : from.worker;
    this.worker.addEventListener("message", (e) => this.receive(e.data));
    this.worker.addEventListener("error", (e) => {
      e.preventDefault();
      // An error event without a message: the worker was ready (it crashed later) or not (it
      // could not even load).
      this.die({ message: S.problemWorkerError(e.message || (this.started ? S.workerStoppedSilently : "could not load " + url)) });
    });
    this.worker.addEventListener("messageerror", () => this.onProblem({ message: S.problemMessageError }, false));
    if (typeof from !== "string") this.adopt(from);
  }

  /** Takes over the boot script's worker (see the class comment); no event runs in between. */
  private adopt(boot: BootState): void {
    boot.release();
    for (const r of boot.sent) {
      const reply = new Promise<WithData<unknown>>((resolve, reject) => this.pending.set(r.id, { type: r.type, resolve, reject }));
      reply.catch(() => undefined); // an early reply nobody claims is not an error
      this.earlyRequests.set(r.type, { body: r.body, reply } as EarlyRequest<keyof Messages>);
      this.nextId = Math.max(this.nextId, r.id + 1);
    }
    for (const m of boot.inbox.splice(0)) this.receive(m);
    for (const e of boot.errors.splice(0)) this.die({ message: S.problemWorkerError(e) });
  }

  /**
   * The boot script's request of this type, once: its body and its reply. Undefined when the
   * boot script sent none (or it was already claimed).
   */
  early<K extends keyof Messages>(type: K): EarlyRequest<K> | undefined {
    const r = this.earlyRequests.get(type);
    this.earlyRequests.delete(type);
    return r as EarlyRequest<K> | undefined;
  }

  /** Sends one request and resolves with the reply's body, or rejects with a ProtocolError. */
  async request<K extends keyof Messages>(type: K, body?: Messages[K]["req"]): Promise<Messages[K]["res"]> {
    return (await this.requestData(type, body)).body;
  }

  /** As request, but also resolves with the reply's binary attachment (a frame's arrays). */
  async requestData<K extends keyof Messages>(type: K, body?: Messages[K]["req"]): Promise<WithData<Messages[K]["res"]>> {
    await this.ready;
    if (this.dead) throw new ProtocolError("worker_dead", S.workerUnavailable);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { type, resolve: resolve as (r: WithData<unknown>) => void, reject });
      this.worker.postMessage(JSON.stringify(body === undefined ? { id, type } : { id, type, body }));
    });
  }

  private receive(raw: unknown): void {
    let msg: Envelope;
    let data: ArrayBuffer | undefined;
    try {
      // A reply with an attachment arrives as {text, data}; everything else as a string.
      let text = raw;
      if (typeof raw === "object" && raw !== null && "text" in raw && "data" in raw) {
        text = (raw as { text: unknown }).text;
        data = (raw as { data: ArrayBuffer }).data;
        if (!(data instanceof ArrayBuffer)) throw new Error("attachment is not an ArrayBuffer");
      }
      if (typeof text !== "string") throw new Error("not a string");
      msg = JSON.parse(text) as Envelope;
      if (data && (msg.data ?? 0) !== data.byteLength) throw new Error(`attachment of ${data.byteLength} bytes, ${msg.data} announced`);
    } catch (e) {
      this.onProblem({ message: S.problemMessageError, detail: `${String(e)}\n${String(raw).slice(0, 2000)}` }, false);
      return;
    }
    if (msg.type === "ready" && msg.id === undefined) {
      const body = msg.body as ReadyBody;
      if (body.protocol !== PROTOCOL) {
        this.die({ message: S.problemProtocol(PROTOCOL, body.protocol) });
        return;
      }
      this.started = true;
      this.markReady(body);
      return;
    }
    if (msg.type === "fatal" && msg.id === undefined) {
      this.die({ message: S.problemWorkerFatal(msg.error?.message ?? "?"), detail: msg.error?.detail });
      return;
    }
    const p = msg.id ? this.pending.get(msg.id) : undefined;
    if (!p) {
      // A reply to nothing we sent (id 0): the worker could not read one of our messages. That
      // is a bug on one side or the other, so make it visible.
      const e = msg.error ?? { code: "?", message: String(raw) };
      this.onProblem({ message: S.problemUnmatchedReply(e.code, e.message), detail: e.detail }, false);
      return;
    }
    this.pending.delete(msg.id!);
    if (msg.ok) p.resolve({ body: msg.body, data });
    else p.reject(new ProtocolError(msg.error?.code ?? "?", msg.error?.message ?? "?", msg.error?.detail));
  }

  /** Marks the worker dead: every pending and future request fails, and the page is told once. */
  private die(p: Problem): void {
    if (this.dead) return;
    this.dead = p;
    this.worker.terminate();
    const err = new ProtocolError("worker_dead", p.message, p.detail);
    this.failReady(err);
    for (const q of this.pending.values()) q.reject(err);
    this.pending.clear();
    this.onProblem(p, true);
  }
}
