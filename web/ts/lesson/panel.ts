// The lesson runner beside the playground's canvas. A lesson's cluster is the playground's run
// (lesson.open in the worker loads it like a shared scenario and replays the earlier steps),
// so the canvas, log, table, charts, timeline and every action and key work as usual; this
// panel shows the step's text and goals, asks the worker whether the goals hold after each
// frame (lesson.check, one in flight at most), and offers hints, "show me", the step's demo,
// back, forward, reset and the next lesson. The URL holds the step's link (link.ts).

import { ProtocolError, type WorkerClient } from "../protocol";
import type { Frame } from "../frame";
import type { Simulation } from "../sim";
import { LessonLinkError, lessonLink, parseLessonLink } from "./link";
import { render, renderLine } from "./markdown";
import { browserStore, markDone, markOpened } from "./progress";
import type { LessonCheckBody, LessonOpenBody, LessonSummary } from "./protocol";
import { L } from "./strings";

/** What the panel needs from the page around it. */
export interface LessonHost {
  /** A new run is shown: forget the old one's log, charts and panels. */
  newRun(): void;
  /** A line in the event log at the current time. */
  note(text: string): void;
  /** A request failed for an unexpected reason (a bug): report it. */
  failure(what: string, e: unknown): void;
  /** While a lesson is open the URL holds its link, not the run's (share.ts). */
  holdLink(on: boolean): void;
}

function el<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page skeleton has no #${id}`);
  return e as T;
}

export class LessonPanel {
  private readonly root = el("lesson-panel");
  private readonly body = el("lesson-body");
  private readonly error = el("lesson-error");
  private readonly pick = el("lesson-pick");
  private lesson: LessonOpenBody | undefined;
  private step = 0;
  private hintsShown = 0;
  private checking = false;
  private checkedAt = -1;
  private busy = false;
  private wasPlaying = true;

  constructor(
    private readonly client: WorkerClient,
    private readonly sim: Simulation,
    private readonly host: LessonHost,
  ) {
    el("lesson-back").addEventListener("click", () => void this.go(this.step - 1));
    el("lesson-forward").addEventListener("click", () => void this.go(this.step + 1));
    el("lesson-reset").addEventListener("click", () => void this.go(this.step));
    el("lesson-hint").addEventListener("click", () => this.nextHint());
    el("lesson-show").addEventListener("click", () => void this.play("reference"));
    el("lesson-demo-play").addEventListener("click", () => void this.play("demo"));
    el("lesson-continue").addEventListener("click", () => void this.play("continue"));
    el("lesson-close").addEventListener("click", () => this.close());
    // Step links, the next lesson and the pick list are plain fragment links.
    window.addEventListener("hashchange", () => void this.openLink());
  }

  /** Whether a lesson is being followed. */
  get open(): boolean {
    return this.lesson !== undefined;
  }

  /**
   * Opens the lesson the URL names. true: a lesson is open. false: the URL names none, or a
   * malformed one, whose message and the course's list the panel then shows.
   */
  async openLink(): Promise<boolean> {
    let target;
    try {
      target = parseLessonLink(location.hash, L.badLink);
    } catch (e) {
      if (!(e instanceof LessonLinkError)) throw e;
      await this.showError(e.message);
      return false;
    }
    if (!target) return false;
    try {
      await this.load(target.lesson, target.step);
      return true;
    } catch (e) {
      if (e instanceof ProtocolError && e.code === "failed") {
        // A step out of range is said in the link's own counting (from 1), with the lesson's name.
        const t = target;
        await this.showError(L.openFailed(e.message), (lessons) => {
          const l = lessons.find((x) => x.id === t.lesson || String(x.number) === t.lesson.replace(/^0+/, ""));
          return l && e.message.startsWith("step:") ? L.noSuchStep(t.step + 1, l.number, l.title, l.steps.length) : undefined;
        });
        return false;
      }
      throw e;
    }
  }

  /** Called on every frame: re-checks the goals when cluster time or the run moved. */
  frame(f: Frame): void {
    if (!this.lesson || this.checking || this.busy) return;
    const key = f.body.timeMs * 1e3 + f.body.history;
    if (key === this.checkedAt) return;
    this.checkedAt = key;
    this.checking = true;
    this.client
      .request("lesson.check", {})
      .then((c) => this.showCheck(c))
      .catch((e: unknown) => {
        // A restart or an imported run replaced the lesson's cluster: the lesson ends here.
        if (e instanceof ProtocolError && e.code === "failed") {
          this.host.note(L.replaced);
          this.close();
        } else this.host.failure("lesson.check", e);
      })
      .finally(() => {
        this.checking = false;
      });
  }

  /** Leaves the lesson; the cluster stays as it is, as a sandbox. */
  close(): void {
    this.lesson = undefined;
    this.root.hidden = true;
    document.body.classList.remove("lesson-mode");
    delete document.body.dataset.lesson;
    delete document.body.dataset.lessonStep;
    if (/(^|&)lesson=/.test(location.hash.slice(1))) history.replaceState(history.state, "", location.pathname + location.search);
    this.host.holdLink(false);
  }

  private async go(step: number): Promise<void> {
    if (!this.lesson || this.busy) return;
    if (step < 0 || step >= this.lesson.steps.length) return;
    await this.run("lesson.open", () => this.load(this.lesson!.lesson.id, step));
  }

  /** Runs a panel action, reporting unexpected failures; ordinary ones show in the panel. */
  private async run(what: string, f: () => Promise<void>): Promise<void> {
    try {
      await f();
    } catch (e) {
      if (e instanceof ProtocolError && e.code === "failed") this.setDone(e.message, "error");
      else this.host.failure(what, e);
    }
  }

  /** Opens step `step` of a lesson: the worker rebuilds its start, which becomes the run. */
  private async load(lesson: string, step: number): Promise<void> {
    // Every step opens paused at its start: the learner reads first, then plays or acts.
    this.sim.setPlaying(false);
    this.busy = true;
    this.root.hidden = false;
    document.body.classList.add("lesson-mode");
    this.setDone(this.lesson ? L.openingStep(step) : L.opening, "busy");
    this.setButtons(false);
    let out: LessonOpenBody | undefined;
    try {
      await this.sim.open(async () => {
        out = await this.client.request("lesson.open", { lesson, step });
        return out.run;
      });
    } finally {
      this.busy = false;
      this.setButtons(true);
    }
    const o = out!;
    this.host.newRun();
    this.lesson = o;
    this.step = o.step;
    this.hintsShown = 0;
    this.error.hidden = true;
    this.pick.hidden = true;
    this.host.holdLink(true);
    history.replaceState(history.state, "", `#${lessonLink(o.lesson.id, o.step)}`);
    document.body.dataset.lesson = o.lesson.id;
    document.body.dataset.lessonStep = String(o.step);
    markOpened(browserStore, o.lesson.id, o.step);
    this.showStep();
    this.showCheck(o.check);
  }

  private showStep(): void {
    const o = this.lesson!;
    const st = o.steps[this.step];
    this.body.hidden = false;
    el("lesson-title").textContent = L.lessonOf(o.lesson.number, o.lesson.title);
    el("lesson-step-of").textContent = L.stepOf(this.step, o.steps.length);
    el<HTMLAnchorElement>("lesson-step-link").href = `#${lessonLink(o.lesson.id, this.step)}`;
    el("lesson-step-title").textContent = st.title;
    const text = el("lesson-text");
    text.replaceChildren();
    if (this.step === 0 && o.intro.trim()) text.append(render(o.intro));
    text.append(render(st.text));
    const task = el("lesson-task");
    task.replaceChildren();
    if (st.task) {
      task.append(Object.assign(document.createElement("strong"), { textContent: `${L.taskLabel}: ` }), renderLine(st.task));
    }
    task.hidden = !st.task;
    el("lesson-goal-box").hidden = st.sandbox;
    el("lesson-hints").replaceChildren();
    el("lesson-hint").hidden = st.hints.length === 0;
    el("lesson-hint").textContent = L.hint;
    el("lesson-show").hidden = st.reference.length === 0;
    el("lesson-demo-play").hidden = !st.demo;
    el("lesson-demo").hidden = true;
    el<HTMLButtonElement>("lesson-back").disabled = this.step === 0;
    el<HTMLButtonElement>("lesson-forward").disabled = this.step === o.steps.length - 1;
    const next = el<HTMLAnchorElement>("lesson-next");
    const last = this.step === o.steps.length - 1;
    next.hidden = !last || !o.next;
    if (o.next) next.href = `#${lessonLink(o.next, 0)}`;
    const links = el("lesson-links");
    links.replaceChildren();
    for (const k of o.lesson.links) {
      const a = Object.assign(document.createElement("a"), { href: k.url, textContent: k.title, target: "_blank", rel: "noopener noreferrer" });
      const li = document.createElement("li");
      li.append(a);
      links.append(li);
    }
    if (st.sandbox) this.setDone(last && !o.next ? `${L.sandbox} ${L.courseDone}` : L.sandbox, "sandbox");
  }

  private showCheck(c: LessonCheckBody): void {
    const o = this.lesson;
    if (!o || c.lesson !== o.lesson.id || c.step !== this.step) return;
    const list = el("lesson-goals");
    list.replaceChildren();
    for (const g of c.goals) {
      const li = document.createElement("li");
      li.dataset.holds = String(g.holds);
      const mark = Object.assign(document.createElement("span"), { className: "goal-mark", textContent: g.holds ? "✓" : "○" });
      mark.setAttribute("aria-label", g.holds ? L.goalHolds : L.goalOpen);
      const code = Object.assign(document.createElement("code"), { textContent: g.goal });
      const why = Object.assign(document.createElement("span"), { className: "goal-explain", textContent: g.explain });
      li.append(mark, " ", code, " ", why);
      list.append(li);
    }
    const st = o.steps[this.step];
    el("lesson-panel").dataset.done = String(c.done);
    if (c.done) {
      this.setDone(L.allDone, "done");
      markDone(browserStore, o.lesson.id, this.step);
    } else if (!st.sandbox) this.setDone("", "open");
    const demo = el("lesson-demo");
    demo.hidden = !c.paused;
    el("lesson-question").textContent = c.paused ?? "";
  }

  private nextHint(): void {
    const st = this.lesson?.steps[this.step];
    if (!st) return;
    const list = el("lesson-hints");
    if (this.hintsShown < st.hints.length) {
      const li = document.createElement("li");
      li.append(renderLine(st.hints[this.hintsShown++]));
      list.append(li);
    }
    const btn = el("lesson-hint");
    if (this.hintsShown >= st.hints.length) {
      btn.hidden = true;
      if (st.reference.length) list.append(Object.assign(document.createElement("li"), { className: "hint", textContent: L.noMoreHints }));
    } else btn.textContent = L.nextHint;
  }

  /**
   * Show me and the demo start again from the step's start and play in the worker; continue
   * resumes a demo at its pause. The clock is paused meanwhile, so nothing moves between the
   * step's start and the first action, and stays paused at a demo's question.
   */
  private async play(what: "reference" | "demo" | "continue"): Promise<void> {
    if (!this.lesson || this.busy) return;
    if (what !== "continue") this.wasPlaying = this.sim.playing;
    this.sim.setPlaying(false);
    await this.run("lesson.play", async () => {
      if (what !== "continue") await this.load(this.lesson!.lesson.id, this.step);
      this.busy = true;
      try {
        const p = await this.client.request("lesson.play", { what });
        this.host.note(L.played(p.ran));
        this.sim.seek(p.check.timeMs);
        this.showCheck(p.check);
        if (p.finished && this.wasPlaying) this.sim.setPlaying(true);
      } finally {
        this.busy = false;
      }
    });
  }

  private setDone(text: string, state: string): void {
    const done = el("lesson-done");
    done.textContent = text;
    done.dataset.state = state;
  }

  private setButtons(on: boolean): void {
    for (const b of Array.from(this.root.querySelectorAll<HTMLButtonElement>(".lesson-buttons button"))) b.disabled = !on;
    if (on && this.lesson) {
      el<HTMLButtonElement>("lesson-back").disabled = this.step === 0;
      el<HTMLButtonElement>("lesson-forward").disabled = this.step === this.lesson.steps.length - 1;
    }
  }

  /** A lesson link that cannot be opened: say why and offer the course. */
  private async showError(message: string, better?: (lessons: LessonSummary[]) => string | undefined): Promise<void> {
    this.close();
    this.root.hidden = false;
    this.body.hidden = true;
    this.error.textContent = message;
    this.error.hidden = false;
    document.body.dataset.lessonError = message;
    const list = el("lesson-pick-list");
    list.replaceChildren();
    try {
      const { lessons } = await this.client.request("lesson.list", {});
      const m = better?.(lessons);
      if (m) {
        this.error.textContent = m;
        document.body.dataset.lessonError = m;
      }
      for (const l of lessons) {
        const a = Object.assign(document.createElement("a"), { href: `#${lessonLink(l.id, 0)}`, textContent: `${l.number}. ${l.title}` });
        const li = document.createElement("li");
        li.append(a, " ", Object.assign(document.createElement("span"), { className: "hint", textContent: l.summary }));
        list.append(li);
      }
      this.pick.hidden = false;
    } catch (e) {
      this.host.failure("lesson.list", e);
    }
  }
}
