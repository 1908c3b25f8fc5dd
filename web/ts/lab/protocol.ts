// The lab.* messages (web/PROTOCOL.md, "The config lab"; Go side: wasm/bridge/lab.go), added
// to the playground's Messages by declaration merging so that the shared WorkerClient types
// them without this page editing web/ts/protocol.ts.

import type { WorkerClient } from "../protocol";

export interface Override {
  name: string;
  value: string;
}

export interface Topic {
  name: string;
  partitions: number;
  replication_factor?: number;
  min_insync_replicas?: number;
}

export interface LabEvent {
  kind: string;
  at_ms: number;
  broker: number;
  down_ms: number;
  clean?: boolean;
  brokers?: number;
  interval_ms?: number;
  disk_swap?: boolean;
}

/** A description as lab.Description marshals it; the page may put text where a number is bad. */
export interface Description {
  preset?: string;
  name?: string;
  seed: number | string;
  controllers: number;
  brokers: number;
  topics: Topic[];
  replication_factor: number;
  min_insync_replicas: number;
  produce_bytes_per_sec: number;
  data_bytes_per_broker: number;
  skew: number;
  disk_bytes_per_sec: number;
  nic_bytes_per_sec: number;
  follower_throttle_bytes_per_sec: number;
  leader_throttle_bytes_per_sec: number;
  log_recovery_hard_ms?: number;
  event: LabEvent;
  duration_ms: number;
  config?: Override[];
}

export interface Policy {
  name: string;
  overrides: Override[];
}

export interface Assumption {
  key: string;
  names: string[];
  low: number;
  high: number;
  relative: boolean;
  source: string;
  drives: string[];
}

export interface PresetsBody {
  presets: { name: string; description: Description }[];
  policies: Policy[];
  assumptions: Assumption[];
  maxCells: number;
  maxAxes: number;
  sampleMs: number;
}

export interface PolicyRequest {
  name: string;
  overrides: string[];
}

export interface PlanRequest {
  description: unknown;
  properties?: string;
  policies?: PolicyRequest[];
  sensitivity?: string[];
  grid?: string[];
  sweepBase?: string[];
}

export interface FieldError {
  field: string;
  line?: number;
  message: string;
}

export interface PropertyLine {
  line: number;
  text: string;
  name?: string;
  value?: string;
  status: "used" | "ignored" | "invalid" | "header";
  reason?: string;
}

export interface PlanBody {
  errors: FieldError[];
  description?: Description;
  scenario?: string;
  properties?: { overrides: Override[]; lines: PropertyLine[] };
  runs: string[];
  compare?: { policies: { name: string; overrides: Override[]; run: number }[]; baseline: number };
  sensitivity?: { assumption: string; side: "low" | "high"; overrides: Override[]; runs: number[]; baseline: number }[];
  sweep?: { axes: { name: string; values: string[] }[]; cells: { cell: number; values: string[]; run: number; baseline: number }[] };
}

export interface ProgressBody {
  id: number;
  nowMs: number;
  durationMs: number;
  done: boolean;
}

export interface Summary {
  unfenced_at_ms: number;
  leadership_restored_at_ms: number;
  recovery_time_ms: number;
  p99_steady_ms: number;
  p99_worst_10min_ms: number;
  p99_ratio: number;
  produce_timeouts: number;
  produce_errors: number;
  acked_records_lost: number;
  max_elections_per_run: number;
  unclean_elections: number;
  invariant_violations: number;
}

export interface BrokerSeries {
  id: number;
  preferred_total: number;
  preferred_led: number[];
  leaders: number[];
  out_of_sync: number[];
  gated: boolean[];
}

export interface Series {
  time_ms: number[];
  brokers: BrokerSeries[];
  elections: number[];
  p99_ms: number[];
  p99_ratio: number[];
  produce_timeouts: number[];
  runs: { time_ms: number; elections: number; gated_brokers: number }[] | null;
}

export interface RunResult {
  seed: number;
  duration_ms: number;
  reached_ms: number;
  violation?: string;
  series: Series;
}

export interface ResultBody {
  id: number;
  summary: Summary;
  result: RunResult;
}

export interface Driver {
  key: string;
  names: string;
  value: number;
  source: string;
  in_scenario: boolean;
}

export interface Verdict {
  criterion: string;
  text: string;
  measured: number;
  measured_text: string;
  limit: string;
  status: "pass" | "fail" | "not measured";
  reason?: string;
  drivers: Driver[];
  unseen_assumptions: string[];
}

export interface Baseline {
  recovery_time_ms: number;
  violation?: string;
}

export interface ExportRun {
  name?: string;
  overrides?: Override[];
  summary: Summary;
  violation?: string;
  series?: Series;
  verdicts: Verdict[];
}

export interface ExportRequest {
  kind: "compare" | "sweep";
  format: "csv" | "json";
  seed?: number;
  baseline?: Summary;
  policies?: ExportRun[];
  axes?: { name: string; values: string[] }[];
  cells?: { cell: number; values: string[]; run: ExportRun; baseline: Summary }[];
}

declare module "../protocol" {
  interface Messages {
    "lab.presets": { req: Record<string, never>; res: PresetsBody };
    "lab.plan": { req: PlanRequest; res: PlanBody };
    "lab.run.start": { req: { id: number; scenario: string }; res: ProgressBody };
    "lab.run.step": { req: { ms: number }; res: ProgressBody };
    "lab.run.result": { req: Record<string, never>; res: ResultBody };
    "lab.judge": { req: { ids: number[]; baseline?: Baseline }; res: { verdicts: Verdict[][] } };
    "lab.drop": { req: { ids?: number[] }; res: Record<string, never> };
    "lab.export": { req: ExportRequest; res: { text: string } };
  }
}

export type Client = WorkerClient;
