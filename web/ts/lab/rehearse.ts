// "Rehearse a rollout on your cluster" on the lab page: the tools' outputs are pasted or
// dropped, the Go side imports them and checks the plan (lab.rehearse.start, errors shown
// next to the input they name), workers of its own play the runs (one each, in parallel) slice
// by slice (lab.rehearse.step: progress between slices, cancel at the next one), the first
// gathers the others' (lab.rehearse.export, lab.rehearse.adopt), and the report is the
// CLI's (lab.rehearse.report), shown in the page and offered for download as it is.

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
  /**
   * The byte lengths of the tools' outputs (topics, log-dirs, quorum, rates), which travel as
   * the request's attachment, UTF-8, one after the other.
   */
  attached?: number[];
  plan: string;
  candidate: PolicyRequest;
  /** The one run this worker plays (the page spreads the runs over its workers). */
  only?: number;
  /** Reply with the imported cluster as the attachment, for the other workers. */
  share?: boolean;
  /** The attachment is the cluster a worker imported (its reply to share), not the texts. */
  imported?: boolean;
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
    "lab.rehearse.export": { req: Record<string, never>; res: { run: number; data: string } };
    "lab.rehearse.adopt": { req: { run: number; data: string }; res: Record<string, never> };
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
  // One worker per run (two or three; three are started, since the count is known only once a
  // worker has read the plan), made once and kept: as soon as something is pasted or typed in
  // this section, so that rehearse.wasm downloads and compiles while the person fills it in
  // rather than after the click.
  const workers: WorkerClient[] = [];
  const grow = (n: number) => {
    while (workers.length < n) workers.push(new WorkerClient("worker.js?wasm=rehearse", ctx.problem));
  };
  section.addEventListener("input", () => grow(MAX_RUNS), { once: true });
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
    delete section.dataset.importMs;
    const started = performance.now();
    try {
      grow(MAX_RUNS);
      const { attached, bytes } = encodeTexts(["r-topics", "r-logdirs", "r-quorum", "r-rates"].map((id) => $<HTMLTextAreaElement>(id).value));
      const req: RehearseRequest = {
        description: ctx.description(),
        properties: ctx.properties(),
        attached,
        plan: $<HTMLTextAreaElement>("r-plan").value,
        candidate: { name: "candidate", overrides: $<HTMLTextAreaElement>("r-candidate").value.split("\n") },
      };
      // The first worker imports the texts (moved to it, not copied) and checks the plan; the
      // workers of the other runs are handed the cluster it imported, a few MB that decode in
      // milliseconds, rather than each parsing the texts again. The progress bar stays still
      // (an indeterminate one would repaint the page, 40 MB textarea and all, every frame).
      status.textContent = RS.statusImportingOf(bytes.byteLength / 1e6);
      const { body: res, data: cluster } = await workers[0].requestData("lab.rehearse.start", { ...req, only: 0, share: true }, bytes, true);
      showErrors(res.errors);
      if (res.errors.length > 0) {
        status.textContent = RS.statusFix;
        section.dataset.state = "invalid";
        return;
      }
      const mine = workers.slice(0, res.runs);
      // A worker the plan has no run for drops any earlier rehearsal it holds (a cluster of
      // up to 200,000 partitions) rather than keep it until the next.
      for (const w of workers.slice(res.runs)) w.request("lab.rehearse.cancel", {}).catch(() => undefined);
      let ready = 1;
      status.textContent = RS.statusPreparing(ready, res.runs);
      const handed: RehearseRequest = { ...req, attached: undefined, imported: true };
      await Promise.all(
        mine.slice(1).map(async (w, k) => {
          await w.request("lab.rehearse.start", { ...handed, only: k + 1 }, new Uint8Array(cluster!));
          status.textContent = RS.statusPreparing(++ready, res.runs);
        }),
      );
      showImport(res.import!);
      // The import's time in the page, from the click to every worker ready to run (the
      // measurement docs/performance.md reads; e2e TestLabRehearseImportTime).
      section.dataset.importMs = String(Math.round(performance.now() - started));
      const shares = new Float64Array(res.runs);
      const play = async (w: WorkerClient, k: number) => {
        for (;;) {
          if (cancelled) return;
          const st = await w.request("lab.rehearse.step", { ms: SLICE_MS });
          shares[k] = st.progress;
          const total = shares.reduce((a, b) => a + b, 0) / res.runs;
          progress.value = total;
          status.textContent = RS.statusRunning(res.runs, Math.floor(total * 100));
          if (st.done) return;
        }
      };
      await Promise.all(mine.map((w, k) => play(w, k)));
      if (cancelled) {
        await Promise.all(mine.map((w) => w.request("lab.rehearse.cancel", {})));
        status.textContent = RS.statusCancelled;
        section.dataset.state = "cancelled";
        return;
      }
      for (const w of mine.slice(1)) await workers[0].request("lab.rehearse.adopt", await w.request("lab.rehearse.export", {}));
      report = await workers[0].request("lab.rehearse.report", {});
      showReport(report.html);
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

/** The most runs a rehearsal plays: current, candidate and the immediate baseline. */
const MAX_RUNS = 3;

/**
 * The texts as UTF-8, one after the other, and each one's byte length: encoded straight into
 * one buffer sized for ASCII, which is what the tools print (a 40 MB describe is not copied
 * again); text with other characters is encoded anew into room for the worst case.
 */
export function encodeTexts(texts: string[]): { attached: number[]; bytes: Uint8Array } {
  const enc = new TextEncoder();
  const chars = texts.reduce((n, t) => n + t.length, 0);
  for (const size of [chars, 3 * chars]) {
    const bytes = new Uint8Array(size);
    const attached: number[] = [];
    let at = 0;
    for (const t of texts) {
      const { read, written } = enc.encodeInto(t, bytes.subarray(at));
      if (read < t.length) break;
      attached.push(written);
      at += written;
    }
    if (attached.length === texts.length) return { attached, bytes: bytes.subarray(0, at) };
  }
  throw new Error("unreachable: 3 bytes a UTF-16 unit always suffice");
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

/**
 * Shows the report's body in the page. Its own <style> stays out (the page's CSP refuses inline
 * styles, and lab.css styles .rehearse-report instead); the report is lab's own HTML, every
 * imported text escaped, parsed inertly (DOMParser runs nothing) and holding no script.
 */
function showReport(html: string): void {
  // The <style> goes before parsing: even an inert document parsed here is held to the page's
  // CSP, which reports the inline style.
  const doc = new DOMParser().parseFromString(html.replace(/<style>[\s\S]*?<\/style>/g, ""), "text/html");
  for (const el of doc.querySelectorAll("style, script")) el.remove();
  // In the page the report sits under the section's h2: its h1 and h2 become h3 and h4.
  for (const [from, to] of [["h2", "h4"], ["h1", "h3"]]) {
    for (const el of doc.body.querySelectorAll(from)) {
      const h = doc.createElement(to);
      h.append(...Array.from(el.childNodes));
      el.replaceWith(h);
    }
  }
  $("r-report").replaceChildren(...Array.from(doc.body.childNodes));
}
