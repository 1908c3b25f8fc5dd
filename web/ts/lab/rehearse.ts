// "Rehearse a rollout on your cluster" on the lab page: the tools' outputs are pasted or
// dropped, the Go side imports them and checks the plan (lab.rehearse.start, errors shown
// next to the input they name), a worker of its own plays the runs slice by slice
// (lab.rehearse.step: progress between slices, cancel at the next one), and the report is the
// CLI's (lab.rehearse.report), shown in a sandboxed frame and offered for download as it is.

import { WorkerClient, type Problem } from "../protocol";
import type { FieldError, PolicyRequest, Verdict } from "./protocol";
import { RS, applyRehearseStrings } from "./rehearse-strings";

export interface ImportReport {
  summary: string;
  sources: string[];
  notes: string[];
  unused: { source: string; line: number; text: string; reason: string }[] | null;
}

export interface RehearseRequest {
  description: Record<string, unknown>;
  properties: string;
  topics: string;
  logDirs: string;
  quorum: string;
  rates: string;
  plan: string;
  candidate: PolicyRequest;
}

export interface RehearseStartBody {
  errors: FieldError[];
  import?: ImportReport;
  steps?: string[];
  runs: number;
}

declare module "../protocol" {
  interface Messages {
    "lab.rehearse.start": { req: RehearseRequest; res: RehearseStartBody };
    "lab.rehearse.step": { req: { ms: number }; res: { done: boolean; progress: number } };
    "lab.rehearse.report": { req: Record<string, never>; res: { html: string; markdown: string; verdicts: Record<string, Verdict[]> } };
    "lab.rehearse.cancel": { req: Record<string, never>; res: Record<string, never> };
  }
}

/** Scenario time per lab.rehearse.step, as the comparison's pool steps. */
const SLICE_MS = 120_000;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

export interface RehearseContext {
  problem: (p: Problem, fatal: boolean) => void;
  /** The described cluster's fields (disks, throttles, seed) the import starts from. */
  description: () => Record<string, unknown>;
  /** The current config: the properties pasted in the description. */
  properties: () => string;
  /** The candidate the page offers first: the KIP's example's overrides. */
  candidate: PolicyRequest;
  download: (name: string, text: string, type: string) => void;
}

export function initRehearse(ctx: RehearseContext): void {
  const section = $("rehearse");
  applyRehearseStrings(section);
  // The description form validates on every input; these fields are checked when run.
  for (const type of ["input", "change"]) section.addEventListener(type, (e) => e.stopPropagation());
  $<HTMLTextAreaElement>("r-plan").value = RS.defaultPlan;
  $<HTMLTextAreaElement>("r-candidate").value = ctx.candidate.overrides.join("\n");
  for (const file of section.querySelectorAll<HTMLInputElement>("input[type=file]")) {
    const area = $<HTMLTextAreaElement>(file.dataset.for!);
    file.addEventListener("change", () => void readInto(area, file.files?.[0]));
    area.addEventListener("dragover", (e) => e.preventDefault());
    area.addEventListener("drop", (e) => {
      e.preventDefault();
      void readInto(area, e.dataTransfer?.files[0]);
    });
  }
  let worker: WorkerClient | undefined;
  let cancelled = false;
  let report: { html: string; markdown: string } | undefined;
  $("r-cancel").addEventListener("click", () => {
    cancelled = true;
  });
  $("r-download").addEventListener("click", () => report && ctx.download("kraftlab-rehearsal.html", report.html, "text/html"));
  $("r-download-md").addEventListener("click", () => report && ctx.download("kraftlab-rehearsal.md", report.markdown, "text/markdown"));
  $("r-run").addEventListener("click", async () => {
    const run = $<HTMLButtonElement>("r-run");
    const cancel = $<HTMLButtonElement>("r-cancel");
    const status = $("r-status");
    const progress = $<HTMLProgressElement>("r-progress");
    if (run.disabled) return;
    run.disabled = true;
    cancel.disabled = false;
    cancelled = false;
    progress.value = 0;
    status.textContent = RS.statusImporting;
    section.dataset.state = "running";
    const started = performance.now();
    try {
      worker ??= new WorkerClient("worker.js?wasm=lab", ctx.problem);
      const res = await worker.request("lab.rehearse.start", {
        description: ctx.description(),
        properties: ctx.properties(),
        topics: $<HTMLTextAreaElement>("r-topics").value,
        logDirs: $<HTMLTextAreaElement>("r-logdirs").value,
        quorum: $<HTMLTextAreaElement>("r-quorum").value,
        rates: $<HTMLTextAreaElement>("r-rates").value,
        plan: $<HTMLTextAreaElement>("r-plan").value,
        candidate: { name: "candidate", overrides: $<HTMLTextAreaElement>("r-candidate").value.split("\n") },
      });
      showErrors(res.errors);
      if (res.errors.length > 0) {
        status.textContent = RS.statusFix;
        section.dataset.state = "invalid";
        return;
      }
      showImport(res.import!);
      for (;;) {
        if (cancelled) {
          await worker.request("lab.rehearse.cancel", {});
          status.textContent = RS.statusCancelled;
          section.dataset.state = "cancelled";
          return;
        }
        const st = await worker.request("lab.rehearse.step", { ms: SLICE_MS });
        progress.value = st.progress;
        status.textContent = RS.statusRunning(res.runs, Math.floor(st.progress * 100));
        if (st.done) break;
      }
      report = await worker.request("lab.rehearse.report", {});
      $<HTMLIFrameElement>("r-report").srcdoc = report.html;
      $("r-results").hidden = false;
      status.textContent = RS.statusDone((performance.now() - started) / 1000);
      section.dataset.state = "done";
    } catch (e) {
      status.textContent = RS.statusFailed(e instanceof Error ? e.message : String(e));
      section.dataset.state = "failed";
    } finally {
      run.disabled = false;
      cancel.disabled = true;
    }
  });
}

async function readInto(area: HTMLTextAreaElement, file: File | undefined): Promise<void> {
  if (!file) return;
  area.value = await file.text();
  $("r-status").textContent = RS.readFile(file.name);
}

function showErrors(errs: FieldError[]): void {
  const section = $("rehearse");
  for (const el of section.querySelectorAll<HTMLElement>("[data-rerror-for]")) el.textContent = "";
  for (const el of section.querySelectorAll<HTMLElement>("[aria-invalid]")) el.removeAttribute("aria-invalid");
  for (const e of errs) {
    const slot = section.querySelector<HTMLElement>(`[data-rerror-for="${CSS.escape(e.field)}"]`) ?? $("r-e-other");
    slot.textContent = (slot.textContent ? slot.textContent + " " : "") + e.message;
    section.querySelector(`[data-rfield="${CSS.escape(e.field)}"] textarea`)?.setAttribute("aria-invalid", "true");
  }
}

function showImport(rep: ImportReport): void {
  const box = $("r-import");
  const head = document.createElement("p");
  head.textContent = RS.imported(rep.summary);
  const list = document.createElement("ul");
  for (const s of [...rep.sources, ...rep.notes]) {
    const li = document.createElement("li");
    li.textContent = s;
    list.append(li);
  }
  box.replaceChildren(head, list);
  const unused = rep.unused ?? [];
  if (unused.length > 0) {
    const det = document.createElement("details");
    const sum = document.createElement("summary");
    sum.textContent = RS.unused(unused.length);
    const ol = document.createElement("ul");
    for (const u of unused) {
      const li = document.createElement("li");
      li.textContent = `${u.source}, line ${u.line}: ${u.text} — ${u.reason}`;
      ol.append(li);
    }
    det.append(sum, ol);
    box.append(det);
  }
  box.hidden = false;
}
