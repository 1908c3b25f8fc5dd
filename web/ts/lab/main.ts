// The config lab page (lab.html): the form that describes a cluster, the comparison of
// policies with KIP-1358's verdicts, the sensitivity view and the sweep. Every check of the
// input is the Go side's (lab.plan), shown next to the field it names; nothing runs while any
// remains. The page's whole state (the form) lives in the URL fragment.

import type { Problem } from "../protocol";
import { allPass, drawCompare, drawHeatmap, type HeatCell, type HeatLayout } from "./charts";
import { Cancelled, Pool, type Done } from "./pool";
import type { Description, ExportRequest, ExportRun, FieldError, PlanBody, PlanRequest, PolicyPlan, PolicyRequest, PresetsBody, RunResult, Summary, Verdict } from "./protocol";
import { LabLinkError, decodeLabLink, encodeLabLink, type LabState } from "./link";
import { LS, applyLabStrings } from "./strings";
import { initRehearse } from "./rehearse";
import { FormCheck } from "./formcheck";
import { blocked, checks, type CheckScope } from "./errorscope";
import { cellOverrides, planClick, plannedCap, runLink, type ClickForm, type Planned } from "./planned";

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

type State = LabState;

let presets: PresetsBody;
let pool: Pool;
let busy = false;
let lastCompare: { req: ExportRequest; scenarios: { name: string; text: string }[] } | undefined;
let lastSweep: ExportRequest | undefined;

// ---- the description form ----

/** How each description field is shown: the factor from the form's unit to the field's. */
const FIELDS: { field: string; scale: number; int?: boolean }[] = [
  { field: "seed", scale: 1, int: true },
  { field: "controllers", scale: 1, int: true },
  { field: "brokers", scale: 1, int: true },
  { field: "replication_factor", scale: 1, int: true },
  { field: "min_insync_replicas", scale: 1, int: true },
  { field: "produce_bytes_per_sec", scale: 1e6 },
  { field: "data_bytes_per_broker", scale: 1e9 },
  { field: "skew", scale: 1 },
  { field: "disk_bytes_per_sec", scale: 1e6 },
  { field: "nic_bytes_per_sec", scale: 1e6 },
  { field: "follower_throttle_bytes_per_sec", scale: 1e6 },
  { field: "leader_throttle_bytes_per_sec", scale: 1e6 },
  { field: "event.broker", scale: 1, int: true },
  { field: "event.at_ms", scale: 60_000, int: true },
  { field: "event.down_ms", scale: 1000, int: true },
  { field: "event.brokers", scale: 1, int: true },
  { field: "event.interval_ms", scale: 1000, int: true },
  { field: "duration_ms", scale: 60_000, int: true },
];

function input(field: string): HTMLInputElement {
  return $<HTMLInputElement>("f-" + field);
}

function get(obj: unknown, path: string): unknown {
  return path.split(".").reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], obj);
}

function set(obj: Record<string, unknown>, path: string, v: unknown): void {
  const keys = path.split(".");
  let o = obj;
  for (const k of keys.slice(0, -1)) o = (o[k] ??= {}) as Record<string, unknown>;
  o[keys[keys.length - 1]] = v;
}

/** A number in the form's unit, without float noise (0.1 × 3 stays 0.3). */
function shown(v: number): string {
  return String(Number(v.toPrecision(12)));
}

/**
 * The event's fields by kind: a rolling restart's count, interval and disk swap mean nothing
 * to a single restart, nor its broker and downtime to a rolling one.
 */
const EVENT_FIELDS: Record<string, string[]> = {
  restart: ["event.broker", "event.down_ms", "event.clean"],
  // clean stays shown: checked, it is an error for a disk swap, and the learner must see it.
  disk_swap: ["event.broker", "event.down_ms", "event.clean"],
  rolling_restart: ["event.brokers", "event.interval_ms", "event.disk_swap"],
};

/** Shows the event's fields that apply to its kind and hides the others (keeping their values). */
function eventFields(): void {
  const on = new Set(EVENT_FIELDS[$<HTMLSelectElement>("f-event.kind").value] ?? []);
  for (const f of new Set(Object.values(EVENT_FIELDS).flat())) {
    const box = input(f).closest<HTMLElement>(".lab-field");
    if (box) box.hidden = !on.has(f);
  }
}

/** Fills the form from a description (a preset, or the URL's state). */
function fillForm(d: Description): void {
  for (const f of FIELDS) {
    const v = get(d, f.field);
    input(f.field).value = typeof v === "number" ? shown(v / f.scale) : v === undefined ? "" : String(v);
  }
  $<HTMLSelectElement>("f-event.kind").value = d.event.kind;
  input("event.clean").checked = !!d.event.clean;
  input("event.disk_swap").checked = !!d.event.disk_swap;
  $<HTMLTextAreaElement>("f-topics").value = d.topics
    .map((t) => [t.name, t.partitions, t.replication_factor || "", t.min_insync_replicas || ""].join(" ").trim())
    .join("\n");
  $("preset-name").textContent = d.preset ? LS.presetFrom(d.preset) : "";
  eventFields();
}

/** A form value as the description wants it: a number when it is one, else the text (Go names the field). */
function value(raw: string, scale: number, int?: boolean): number | string {
  const t = raw.trim();
  if (t === "" || !Number.isFinite(Number(t))) return t;
  const v = Number(t) * scale;
  return int ? Math.round(v) : v;
}

/** The description the form states: every field, so the preset only names where it began. */
function formDescription(preset: string): Record<string, unknown> {
  const d: Record<string, unknown> = { preset };
  for (const f of FIELDS) {
    const raw = input(f.field).value;
    // Rolling-restart fields are left out of other events (and vice versa), as the CLI's files do.
    if (raw.trim() === "" && (f.field === "event.brokers" || f.field === "event.interval_ms")) continue;
    set(d, f.field, value(raw, f.scale, f.int));
  }
  set(d, "event.kind", $<HTMLSelectElement>("f-event.kind").value);
  set(d, "event.clean", input("event.clean").checked);
  set(d, "event.disk_swap", input("event.disk_swap").checked);
  d.topics = $<HTMLTextAreaElement>("f-topics")
    .value.split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((l) => {
      const [name, partitions, rf, minIsr] = l.split(/[\s:,]+/);
      const t: Record<string, unknown> = { name, partitions: value(partitions ?? "", 1, true) };
      if (rf) t.replication_factor = value(rf, 1, true);
      if (minIsr) t.min_insync_replicas = value(minIsr, 1, true);
      return t;
    });
  // The preset's configs are kept unless the paste sets them (the paste's lines are added), and
  // so is a log recovery time it fixes (the form has no field for it).
  const p = presets.presets.find((x) => x.name === preset);
  if (p?.description.config) d.config = p.description.config;
  if (p?.description.log_recovery_hard_ms) d.log_recovery_hard_ms = p.description.log_recovery_hard_ms;
  return d;
}

// ---- state in the URL ----

function state(): State {
  const d: Record<string, string | boolean> = {};
  for (const f of FIELDS) d[f.field] = input(f.field).value;
  d["event.kind"] = $<HTMLSelectElement>("f-event.kind").value;
  d["event.clean"] = input("event.clean").checked;
  d["event.disk_swap"] = input("event.disk_swap").checked;
  d.topics = $<HTMLTextAreaElement>("f-topics").value;
  return {
    d,
    preset: currentPreset,
    p: $<HTMLTextAreaElement>("f-properties").value,
    pol: policies(),
    g: [$<HTMLInputElement>("f-grid0").value, $<HTMLInputElement>("f-grid1").value],
    b: $<HTMLTextAreaElement>("f-sweepBase").value,
  };
}

function applyState(s: State): void {
  currentPreset = s.preset;
  for (const [k, v] of Object.entries(s.d)) {
    const el = document.getElementById("f-" + k) as HTMLInputElement | null;
    if (!el) continue;
    if (typeof v === "boolean") el.checked = v;
    else el.value = v;
  }
  $("preset-name").textContent = LS.presetFrom(s.preset);
  $<HTMLTextAreaElement>("f-properties").value = s.p ?? "";
  renderPolicies(s.pol?.length ? s.pol : defaultPolicies());
  $<HTMLInputElement>("f-grid0").value = s.g?.[0] ?? "";
  $<HTMLInputElement>("f-grid1").value = s.g?.[1] ?? "";
  $<HTMLTextAreaElement>("f-sweepBase").value = s.b ?? "";
  eventFields();
}

/** The names of the form's fields a link may set (the inputs' ids without "f-"). */
function formFields(): string[] {
  return [...FIELDS.map((f) => f.field), "event.kind", "event.clean", "event.disk_swap", "topics"];
}

/** The state a link holds, or why it cannot be opened (the page then starts from its defaults). */
function stateFromLink(fragment: string): { state?: State; refused?: string } {
  try {
    return { state: decodeLabLink(fragment, formFields()) };
  } catch (e) {
    if (e instanceof LabLinkError) return { refused: e.message };
    throw e;
  }
}

function saveState(run?: string): void {
  const s = state();
  if (run) s.r = run;
  keepLink(s);
}

/** Puts a state in the URL (replacing the entry: the form's edits are not history steps). */
function keepLink(s: State): void {
  history.replaceState(null, "", "#lab=" + encodeLabLink(s));
}

// ---- policies ----

let currentPreset = "small";

function defaultPolicies(): PolicyRequest[] {
  return presets.policies.map((p) => ({ name: p.name, overrides: p.overrides.map((o) => `${o.name}=${o.value}`) }));
}

function policies(): PolicyRequest[] {
  return [...document.querySelectorAll<HTMLElement>("#policies .lab-policy")].map((el) => ({
    name: el.querySelector<HTMLInputElement>("input")!.value,
    overrides: el.querySelector<HTMLTextAreaElement>("textarea")!.value.split("\n"),
  }));
}

function renderPolicies(ps: PolicyRequest[]): void {
  const root = $("policies");
  root.replaceChildren();
  ps.forEach((p, i) => {
    const box = document.createElement("fieldset");
    box.className = "lab-policy";
    box.dataset.field = `policies[${i}]`;
    const nameId = `policy-name-${i}`;
    const ovId = `policy-ov-${i}`;
    const errId = `policy-err-${i}`;
    const nameLabel = document.createElement("label");
    nameLabel.htmlFor = nameId;
    nameLabel.textContent = LS.policyName;
    const name = document.createElement("input");
    name.id = nameId;
    name.value = p.name;
    name.setAttribute("aria-describedby", errId);
    const ovLabel = document.createElement("label");
    ovLabel.htmlFor = ovId;
    ovLabel.textContent = LS.policyOverrides;
    const ov = document.createElement("textarea");
    ov.id = ovId;
    ov.rows = Math.min(9, Math.max(3, p.overrides.length));
    ov.spellcheck = false;
    ov.value = p.overrides.join("\n");
    ov.setAttribute("aria-describedby", errId);
    const err = document.createElement("span");
    err.id = errId;
    err.className = "form-error";
    err.setAttribute("role", "alert");
    err.dataset.errorFor = `policies[${i}]`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = LS.removePolicy;
    remove.disabled = ps.length <= 1;
    remove.addEventListener("click", () => {
      renderPolicies(policies().filter((_, j) => j !== i));
      changed();
    });
    box.append(nameLabel, name, ovLabel, ov, err, remove);
    root.append(box);
  });
}

// ---- validation ----

/** The request for a plan of what the form states. */
function planRequest(extra: Partial<PlanRequest>): PlanRequest {
  return {
    description: formDescription(currentPreset),
    properties: $<HTMLTextAreaElement>("f-properties").value,
    ...extra,
  };
}

function gridLines(): string[] {
  return [$<HTMLInputElement>("f-grid0").value, $<HTMLInputElement>("f-grid1").value].map((s) => s.trim()).filter((s) => s !== "");
}

function sweepBaseLines(): string[] {
  return $<HTMLTextAreaElement>("f-sweepBase").value.split("\n");
}

/** Where an error's field is shown: the longest data-error-for that is the field or a parent of it. */
function errorSlot(field: string): HTMLElement {
  let best: HTMLElement | undefined;
  for (const el of document.querySelectorAll<HTMLElement>("[data-error-for]")) {
    const k = el.dataset.errorFor!;
    if (field === k || field.startsWith(k + ".") || field.startsWith(k + "[")) {
      if (!best || k.length > best.dataset.errorFor!.length) best = el;
    }
  }
  if (best) return best;
  return field.startsWith("grid") || field.startsWith("sweep") ? $("e-grid") : $("e-description");
}

/**
 * Shows a check's errors beside their fields. scope is what the check was sent: the errors of
 * the parts it was not sent (a Compare click's plan has no grid) are left as they are.
 */
function showErrors(errs: FieldError[], scope: CheckScope): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-error-for]")) if (checks(scope, el.dataset.errorFor!)) el.textContent = "";
  for (const el of document.querySelectorAll<HTMLElement>("[aria-invalid]")) {
    const field = el.closest<HTMLElement>("[data-field]")?.dataset.field;
    if (field === undefined || checks(scope, field)) el.removeAttribute("aria-invalid");
  }
  for (const e of errs) {
    const slot = errorSlot(e.field);
    slot.textContent = (slot.textContent ? slot.textContent + " " : "") + e.message;
    const owner = document.querySelector<HTMLElement>(`[data-field="${CSS.escape(slot.dataset.errorFor ?? "")}"]`);
    owner?.setAttribute("aria-invalid", "true");
    owner?.querySelectorAll("input, textarea").forEach((x) => x.setAttribute("aria-invalid", "true"));
  }
  const b = blocked(scope, errs);
  if (b.compare !== undefined) document.body.dataset.compareBlocked = String(b.compare);
  if (b.sweep !== undefined) document.body.dataset.sweepBlocked = String(b.sweep);
}

function showProperties(plan: PlanBody): void {
  const list = $("property-lines");
  list.replaceChildren();
  for (const l of plan.properties?.lines ?? []) {
    const li = document.createElement("li");
    li.dataset.status = l.status;
    li.dataset.line = String(l.line);
    const head = document.createElement("strong");
    head.textContent = LS.lineStatus(l.line, l.status);
    const text = document.createElement("code");
    text.textContent = l.text;
    li.append(head, " ", text);
    if (l.reason) li.append(" — " + l.reason);
    list.append(li);
  }
}

/** The form as a click reads it: its link state and its plan request with the click's parts. */
function clickForm(extra: Partial<PlanRequest>): ClickForm {
  return { state: state(), request: planRequest(extra) };
}

/** Asks the Go side for the plan of a click's request. */
function askClickPlan(req: PlanRequest): Promise<PlanBody> {
  return pool.first.request("lab.plan", req);
}

/** Asks the Go side to check everything the form states (the answer is shown by formCheck). */
function askPlan(): Promise<PlanBody> {
  const grid = gridLines();
  return pool.first.request("lab.plan", planRequest({ policies: policies(), ...(grid.length ? { grid, sweepBase: sweepBaseLines() } : {}) }));
}

/** Shows the Go side's check of the form (of scope's parts): its errors beside their fields, the properties' lines. */
function showPlan(plan: PlanBody, scope: CheckScope = "form"): void {
  showErrors(plan.errors, scope);
  showProperties(plan);
}

/**
 * The form's check as the reader edits it: 200 ms after the last change, and shown only while
 * it is about the form as it stands (body[data-validated] is then its number, "pending" while
 * one is awaited).
 */
const formCheck = new FormCheck<PlanBody>(
  {
    ask: askPlan,
    show: (plan, n) => {
      showPlan(plan);
      document.body.dataset.validated = String(n);
    },
    pending: () => (document.body.dataset.validated = "pending"),
  },
  window,
);

function changed(): void {
  saveState();
  formCheck.changed();
}

// ---- compare ----

/**
 * How often a progress bar moves while runs play: at most every PROGRESS_MS (4 times a second),
 * and always to its start and its end. Every write is a style, layout and paint of the page on
 * the main thread, which shares the machine's cores with the workers: the KIP preset's compare
 * reports 60 slices in about 2.5 s.
 */
const PROGRESS_MS = 250;
const progressAt = new Map<string, number>();

function progressTo(id: string, f: number): void {
  const now = performance.now();
  if (f > 0 && f < 1 && now - (progressAt.get(id) ?? -Infinity) < PROGRESS_MS) return;
  progressAt.set(id, now);
  $<HTMLProgressElement>(id).value = f;
}

/** Recycles that have not ended yet (body[data-workers] is "recycling" meanwhile). */
let recycles = 0;

/**
 * Once the page holds a comparison's or a sweep's results itself (or they were cancelled),
 * replaces the workers that hold a large run's memory by fresh ones (Pool.recycle): what the
 * runs needed is given back while the reader reads, not kept until the page closes.
 */
function recycleWorkers(): void {
  recycles++;
  document.body.dataset.workers = "recycling";
  void pool.recycle().finally(() => {
    if (--recycles === 0) delete document.body.dataset.workers;
  });
}

async function runCompare(sensitivity: boolean): Promise<void> {
  if (busy) return;
  const status = $("compare-status");
  // The plan is of the form at the click: its errors are shown only if the form is unchanged
  // when it comes (else the form's own check, asked for since, shows the form's), and what the
  // results say of the policies comes from the plan, not from the form when the runs end.
  const planned = await planClick(formCheck, () => clickForm({ policies: policies(), ...(sensitivity ? { sensitivity: ["all"] } : {}) }), askClickPlan, (p) => showPlan(p, "compare"));
  const plan = planned.plan;
  if (plan.errors.length || !plan.compare) {
    status.textContent = LS.blocked;
    return;
  }
  // The link names the comparison only with the form it is of (see runLink).
  const link = runLink(planned, "compare");
  if (link) keepLink(link);
  busy = true;
  $<HTMLButtonElement>("compare-cancel").disabled = false;
  const width = Math.max(plan.compare.policies.length, Math.min(plan.runs.length, navigator.hardwareConcurrency || 2));
  status.textContent = LS.running(plan.runs.length, Math.min(width, plan.runs.length));
  progressTo("compare-progress", 0);
  const t0 = performance.now();
  performance.mark("kraftlab:lab-compare-start");
  try {
    const done = await pool.run(plan.runs, width, (f) => progressTo("compare-progress", f));
    const cmp = plan.compare;
    const pairs = cmp.policies.map((p) => ({ run: p.run, baseline: cmp.baseline }));
    for (const v of plan.sensitivity ?? []) for (const r of v.runs) pairs.push({ run: r, baseline: v.baseline });
    const verdicts = await pool.judge(done, pairs);
    const elapsed = performance.now() - t0;
    performance.mark("kraftlab:lab-compare-end");
    showCompare(plan, done, verdicts, elapsed);
    status.textContent = LS.doneIn(plan.runs.length, elapsed / 1000);
  } catch (e) {
    status.textContent = e instanceof Cancelled ? LS.cancelled : LS.failed(e instanceof Error ? e.message : String(e));
  } finally {
    busy = false;
    $<HTMLButtonElement>("compare-cancel").disabled = true;
    recycleWorkers();
  }
}

function showCompare(plan: PlanBody, done: Done[], verdicts: Verdict[][], elapsedMs: number): void {
  const cmp = plan.compare!;
  const res = $("compare-results");
  res.hidden = false;
  res.dataset.elapsedMs = String(Math.round(elapsedMs));
  res.dataset.runs = String(plan.runs.length);
  const nPol = cmp.policies.length;
  const base = verdicts.slice(0, nPol);
  // Flips: a variant's verdict that differs from the base one.
  const fragile = new Set<string>();
  plan.sensitivity?.forEach((v, vi) =>
    v.runs.forEach((_, pi) =>
      verdicts[nPol + vi * nPol + pi].forEach((x, ci) => {
        if (x.status !== base[pi][ci].status) fragile.add(`${pi}/${ci}`);
      }),
    ),
  );
  const rows = $("verdict-rows");
  rows.replaceChildren();
  // Each cell carries its column's name: on a phone a row is a card of named lines (lab.css).
  const labels = [...document.querySelectorAll("#verdict-table thead th")].map((th) => th.textContent ?? "");
  cmp.policies.forEach((p, pi) =>
    base[pi].forEach((v, ci) => {
      const tr = document.createElement("tr");
      tr.dataset.policy = p.name;
      tr.dataset.criterion = v.criterion;
      tr.dataset.status = v.status;
      const td = (text: string) => {
        const c = document.createElement("td");
        c.textContent = text;
        c.dataset.label = labels[tr.cells.length] ?? "";
        tr.append(c);
        return c;
      };
      td(p.name);
      td(v.text);
      td(v.measured_text);
      td(v.limit);
      let verdict: string = v.status + (v.reason ? `: ${v.reason}` : "");
      if (v.status === "pass" && v.unseen_assumptions.length) verdict += ` (${LS.passOnDefaults(v.unseen_assumptions.join(", "))})`;
      if (fragile.has(`${pi}/${ci}`)) verdict += ` — ${LS.flipsWarn}`;
      const vc = td(verdict);
      vc.className = "verdict-" + v.status.replace(" ", "-");
      td(v.drivers.map((d) => `${d.key} = ${d.value.toLocaleString("en")} (${d.in_scenario ? LS.inScenario : LS.modelDefault})`).join("; "));
      rows.append(tr);
    }),
  );
  showSame(
    cmp.policies.map((p) => ({ name: p.name, result: done[p.run].result, summary: done[p.run].summary })),
    cmp.policies,
  );
  showNotes(plan, base);
  showSensitivity(plan, verdicts, base);
  drawCompare(
    $("compare-charts"),
    cmp.policies.map((p) => ({ name: p.name, result: done[p.run].result })),
  );
  const bs = done[cmp.baseline];
  const req: ExportRequest = {
    kind: "compare",
    format: "csv",
    seed: bs.result.seed,
    baseline: bs.summary,
    policies: cmp.policies.map((p, pi): ExportRun => ({
      name: p.name,
      overrides: p.overrides,
      summary: done[p.run].summary,
      violation: done[p.run].result.violation,
      series: done[p.run].result.series,
      verdicts: base[pi],
    })),
  };
  lastCompare = { req, scenarios: cmp.policies.map((p) => ({ name: p.name, text: plan.runs[p.run] })) };
  const sc = $("export-scenarios");
  sc.replaceChildren();
  lastCompare.scenarios.forEach((s, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.scenario = String(i);
    b.textContent = LS.exportScenario(s.name);
    b.addEventListener("click", () => download(`kraftlab-scenario-${i}.json`, s.text, "application/json"));
    sc.append(b);
  });
}

/**
 * When every policy came to the same numbers, says why under the verdicts' heading, from what
 * the runs did: the gate never held a broker, no run had more to hand back than the smallest
 * cap. Otherwise the reader takes identical rows for a broken comparison.
 */
function showSame(runs: { name: string; result: RunResult; summary: Summary }[], planned: PolicyPlan[]): void {
  const box = $("compare-same");
  const first = JSON.stringify(runs[0]?.summary);
  if (runs.length < 2 || runs.some((r) => JSON.stringify(r.summary) !== first)) {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  const gated = runs.some((r) => (r.result.series.runs ?? []).some((x) => x.gated_brokers > 0) || r.result.series.brokers.some((b) => b.gated.some(Boolean)));
  const most = Math.max(0, ...runs.map((r) => r.summary.max_elections_per_run));
  // The cap the runs ran with: the plan's, whatever the form's lines say now.
  const cap = plannedCap(planned) ?? Infinity;
  const why: string[] = [];
  if (!gated) why.push(LS.sameNoGate);
  if (Number.isFinite(cap) && most <= cap) why.push(LS.sameUnderCap(most, cap));
  const names = runs.map((r) => r.name).join(" and ");
  box.textContent = `${LS.sameResults(names, why.length ? why.join("; ") : LS.sameNothing)}. ${LS.sameTry}`;
  box.hidden = false;
}

/** Says, next to the results, which inputs and which assumptions drive them. */
function showNotes(plan: PlanBody, base: Verdict[][]): void {
  const d = plan.description!;
  const notes = $("model-notes");
  notes.replaceChildren();
  const partitions = d.topics.reduce((n, t) => n + t.partitions, 0);
  const p1 = document.createElement("p");
  p1.textContent = LS.notesDriven(
    [
      `${d.brokers} brokers`,
      `${partitions.toLocaleString("en")} partitions`,
      `RF ${d.replication_factor}`,
      `min.insync.replicas ${d.min_insync_replicas}`,
      `produce ${shown(d.produce_bytes_per_sec / 1e6)} MB/s`,
      `${shown(d.data_bytes_per_broker / 1e9)} GB per broker`,
      `skew σ ${d.skew}`,
      `disk ${shown(d.disk_bytes_per_sec / 1e6)} MB/s`,
      `NIC ${shown(d.nic_bytes_per_sec / 1e6)} MB/s`,
      `event ${d.event.kind} at ${shown(d.event.at_ms / 60_000)} min`,
      `seed ${d.seed}`,
    ].join(", "),
  );
  const p2 = document.createElement("p");
  p2.textContent = LS.notesAssumed;
  const ul = document.createElement("ul");
  const seen = new Set<string>();
  for (const vs of base)
    for (const v of vs)
      for (const dr of v.drivers) {
        if (seen.has(dr.key)) continue;
        seen.add(dr.key);
        const li = document.createElement("li");
        li.dataset.assumption = dr.key;
        li.textContent = `${dr.key} (${dr.names}) = ${dr.value.toLocaleString("en")}: ${dr.in_scenario ? LS.inScenario : LS.modelDefault} — ${dr.source}`;
        ul.append(li);
      }
  notes.append(p1, p2, ul);
}

function showSensitivity(plan: PlanBody, verdicts: Verdict[][], base: Verdict[][]): void {
  const box = $("sensitivity");
  box.replaceChildren();
  const vars = plan.sensitivity ?? [];
  box.hidden = vars.length === 0;
  if (!vars.length) return;
  const nPol = plan.compare!.policies.length;
  const h = document.createElement("h3");
  h.textContent = LS.sensitivityHeading;
  const table = document.createElement("table");
  table.className = "verdicts sensitivity-table";
  const head = document.createElement("tr");
  const th = (t: string) => {
    const c = document.createElement("th");
    c.scope = "col";
    c.textContent = t;
    head.append(c);
  };
  th(LS.colPolicy);
  th(LS.colCriterion);
  th(LS.sensBase);
  for (let i = 0; i < vars.length; i += 2) th(LS.sensLowHigh(vars[i].assumption));
  th(LS.sensRobust);
  table.append(head);
  const short = (s: string) => (s === "not measured" ? "n/m" : s);
  plan.compare!.policies.forEach((p, pi) =>
    base[pi].forEach((b, ci) => {
      const tr = document.createElement("tr");
      let flips = false;
      const cells = [p.name, b.criterion, short(b.status)];
      for (let i = 0; i + 1 < vars.length; i += 2) {
        const lo = verdicts[nPol + i * nPol + pi][ci].status;
        const hi = verdicts[nPol + (i + 1) * nPol + pi][ci].status;
        flips ||= lo !== b.status || hi !== b.status;
        cells.push(`${short(lo)} / ${short(hi)}`);
      }
      cells.push(flips ? LS.sensFlips : LS.sensYes);
      for (const c of cells) {
        const td = document.createElement("td");
        td.textContent = c;
        tr.append(td);
      }
      tr.dataset.flips = String(flips);
      table.append(tr);
    }),
  );
  box.append(h, table);
}

// ---- sweep ----

/** The heatmaps' layout, and the sweep they show with the form it was planned from (openCell's). */
let heat: { layout: HeatLayout; planned: Planned<PlanBody> } | undefined;

async function runSweep(): Promise<void> {
  if (busy) return;
  const status = $("sweep-status");
  // As the comparison's: its errors are shown only if the form is unchanged when it comes.
  const planned = await planClick(formCheck, () => clickForm({ grid: gridLines(), sweepBase: sweepBaseLines() }), askClickPlan, (p) => showPlan(p, "sweep"));
  const plan = planned.plan;
  if (plan.errors.length || !plan.sweep) {
    status.textContent = LS.blocked;
    return;
  }
  saveState();
  busy = true;
  $<HTMLButtonElement>("sweep-cancel").disabled = false;
  const width = Math.max(1, navigator.hardwareConcurrency || 2);
  status.textContent = LS.running(plan.runs.length, Math.min(width, plan.runs.length));
  progressTo("sweep-progress", 0);
  const t0 = performance.now();
  try {
    const done = await pool.run(plan.runs, width, (f) => progressTo("sweep-progress", f));
    const sw = plan.sweep;
    const verdicts = await pool.judge(done, sw.cells.map((c) => ({ run: c.run, baseline: c.baseline })));
    showSweep(planned, done, verdicts);
    status.textContent = LS.doneIn(plan.runs.length, (performance.now() - t0) / 1000);
  } catch (e) {
    status.textContent = e instanceof Cancelled ? LS.cancelled : LS.failed(e instanceof Error ? e.message : String(e));
  } finally {
    busy = false;
    $<HTMLButtonElement>("sweep-cancel").disabled = true;
    recycleWorkers();
  }
}

function showSweep(planned: Planned<PlanBody>, done: Done[], verdicts: Verdict[][]): void {
  const sw = planned.plan.sweep!;
  $("sweep-results").hidden = false;
  const rowsAx = sw.axes[0];
  const colsAx = sw.axes[1];
  const ncols = colsAx ? colsAx.values.length : 1;
  const rec: HeatCell[] = [];
  const p99: HeatCell[] = [];
  sw.cells.forEach((c, i) => {
    const s = done[c.run].summary;
    const pass = allPass(verdicts[i]);
    const at = { row: Math.floor(c.cell / ncols), col: c.cell % ncols, pass };
    rec.push({ ...at, value: s.recovery_time_ms < 0 ? -1 : s.recovery_time_ms / 1000, label: s.recovery_time_ms < 0 ? LS.never : (s.recovery_time_ms / 1000).toFixed(0) });
    p99.push({ ...at, value: s.p99_ratio, label: s.p99_ratio < 0 ? "—" : s.p99_ratio.toFixed(2) });
  });
  const cols = colsAx ? colsAx.values : ["—"];
  const layout = drawHeatmap($<HTMLCanvasElement>("heat-recovery"), rowsAx.values, cols, rowsAx.name, colsAx?.name ?? "", rec, LS.heatUnitSeconds);
  drawHeatmap($<HTMLCanvasElement>("heat-p99"), rowsAx.values, cols, rowsAx.name, colsAx?.name ?? "", p99, LS.heatUnitRatio);
  heat = { layout, planned };
  for (const id of ["heat-recovery", "heat-p99"]) {
    const c = $(id);
    c.dataset.cells = String(sw.cells.length);
    c.dataset.pass = rec.map((x) => (x.pass ? "1" : "0")).join("");
  }
  lastSweep = {
    kind: "sweep",
    format: "csv",
    axes: sw.axes,
    cells: sw.cells.map((c, i) => ({
      cell: c.cell,
      values: c.values,
      baseline: done[c.baseline].summary,
      run: { summary: done[c.run].summary, violation: done[c.run].result.violation, verdicts: verdicts[i] },
    })),
  };
}

/** A click on a heatmap opens that cell's comparison: today's Kafka against the cell's configs. */
function openCell(ev: MouseEvent): void {
  if (!heat || busy) return;
  const canvas = ev.currentTarget as HTMLCanvasElement;
  const r = canvas.getBoundingClientRect();
  const x = ((ev.clientX - r.left) * canvas.width) / r.width;
  const y = ((ev.clientY - r.top) * canvas.height) / r.height;
  const L = heat.layout;
  const col = Math.floor((x - L.left) / L.cw);
  const row = Math.floor((y - L.top) / L.ch);
  if (col < 0 || row < 0 || col >= L.cols || row >= L.rows) return;
  const cell = heat.planned.plan.sweep!.cells[row * L.cols + col];
  // The sweep's base lines as it was planned, not as the form has them now: the cell's
  // numbers are of those.
  const overrides = cellOverrides(heat.planned, cell);
  renderPolicies([defaultPolicies()[0], { name: LS.cellPolicy(cell.cell), overrides }]);
  $("compare-heading").scrollIntoView();
  void runCompare(false);
}

// ---- export ----

function download(name: string, text: string, type: string): void {
  $<HTMLTextAreaElement>("export-text").value = text;
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

async function exportRun(req: ExportRequest | undefined, format: "csv" | "json", name: string): Promise<void> {
  if (!req) return;
  const res = await pool.first.request("lab.export", { ...req, format });
  download(`${name}.${format}`, res.text, format === "csv" ? "text/csv" : "application/json");
}

// ---- start ----

/**
 * Reports a problem; a fatal one shows the error panel. source says what failed, so that the
 * heading blames the right thing: the worker (it could not start, or died) or the page's own
 * script, whose failure leaves the worker running.
 */
function problem(p: Problem, fatal: boolean, source: "worker" | "page" = "worker"): void {
  if (!fatal) return console.error(p.message, p.detail ?? "");
  const panel = $("error-panel");
  panel.hidden = false;
  panel.dataset.source = source;
  panel.querySelector("h2")!.textContent = source === "page" ? LS.errorHeadingPage : LS.errorHeading;
  $("error-report").textContent = p.message + (p.detail ? "\n\n" + p.detail : "");
  const st = $("status");
  st.dataset.state = "failed";
  st.textContent = source === "page" ? LS.statusFailedPage : LS.statusFailed;
}

async function main(): Promise<void> {
  applyLabStrings(document);
  const st = $("status");
  st.textContent = LS.statusLoading;
  pool = new Pool(problem);
  // Two workers from the start: a comparison's two runs then find them ready.
  pool.grow(2);
  presets = await pool.first.request("lab.presets", {});
  const link = location.hash.startsWith("#lab=") ? stateFromLink(location.hash.slice(5)) : {};
  const fromURL = link.state;
  if (fromURL) {
    const p = presets.presets.find((x) => x.name === fromURL.preset) ?? presets.presets[0];
    fillForm(p.description);
    applyState(fromURL);
  } else {
    fillForm(presets.presets[0].description);
    renderPolicies(defaultPolicies());
    $<HTMLTextAreaElement>("f-sweepBase").value = "leader.imbalance.election.algorithm=wait-for-sync";
    $<HTMLInputElement>("f-grid0").value = "leader.imbalance.election.wait.for.sync.threshold.percent=0..20:5";
    $<HTMLInputElement>("f-grid1").value = "leader.imbalance.election.max.per.run=50,200,1000";
  }
  for (const b of document.querySelectorAll<HTMLButtonElement>("[data-preset]"))
    b.addEventListener("click", () => {
      const p = presets.presets.find((x) => x.name === b.dataset.preset)!;
      currentPreset = p.name;
      fillForm(p.description);
      changed();
    });
  document.querySelector("main")!.addEventListener("input", (e) => {
    if ((e.target as HTMLElement).id !== "export-text") changed();
  });
  document.querySelector("main")!.addEventListener("change", (e) => {
    if ((e.target as HTMLElement).id === "f-event.kind") eventFields();
    if ((e.target as HTMLElement).tagName === "SELECT" || (e.target as HTMLInputElement).type === "checkbox") changed();
  });
  $("add-policy").addEventListener("click", () => {
    const ps = policies();
    ps.push({ name: `policy ${ps.length + 1}`, overrides: ["leader.imbalance.election.algorithm=wait-for-sync"] });
    renderPolicies(ps);
    changed();
  });
  $("compare-run").addEventListener("click", () => void runCompare(false));
  $("sensitivity-run").addEventListener("click", () => void runCompare(true));
  $("sweep-run").addEventListener("click", () => void runSweep());
  $("compare-cancel").addEventListener("click", () => pool.cancel());
  $("sweep-cancel").addEventListener("click", () => pool.cancel());
  $("export-compare-csv").addEventListener("click", () => void exportRun(lastCompare?.req, "csv", "kraftlab-compare"));
  $("export-compare-json").addEventListener("click", () => void exportRun(lastCompare?.req, "json", "kraftlab-compare"));
  $("export-sweep-csv").addEventListener("click", () => void exportRun(lastSweep, "csv", "kraftlab-sweep"));
  $("export-sweep-json").addEventListener("click", () => void exportRun(lastSweep, "json", "kraftlab-sweep"));
  initRehearse({
    problem,
    description: () => formDescription(currentPreset),
    properties: () => $<HTMLTextAreaElement>("f-properties").value,
    candidate: { name: presets.policies[1].name, overrides: presets.policies[1].overrides.map((o) => `${o.name}=${o.value}`) },
    download,
  });
  $("heat-recovery").addEventListener("click", openCell);
  $("heat-p99").addEventListener("click", openCell);
  await formCheck.now();
  saveState(fromURL?.r);
  st.dataset.state = "ready";
  st.textContent = LS.statusReady;
  if (link.refused) {
    st.dataset.link = "refused";
    st.textContent += " " + LS.linkRefused(link.refused);
  }
  if (fromURL?.r === "compare") void runCompare(false);
}

// A failure of main is the page's own: the workers are not what stopped.
main().catch((e: unknown) =>
  problem({ message: e instanceof Error ? e.message : String(e), detail: e instanceof Error ? e.stack : undefined }, true, "page"),
);
