// The lesson runner beside the playground's canvas. A lesson's cluster is the playground's run
// (lesson.open in the worker loads it like a shared scenario and replays the earlier steps),
// so the canvas, log, table, charts, timeline and every action and key work as usual; this
// panel shows the step's text and goals, asks the worker whether the goals hold after each
// frame (lesson.check, one in flight at most), and offers hints, "show me", the step's demo,
// undo, back, forward, reset and the next lesson. The URL holds the step's link (link.ts).
// A step's prediction is asked first, with the step's text, task, goals, their picture and
// "show me" hidden until it is answered (they would give the answer away); once the goals are met the reveal
// says what happened and why. A goal step draws its goal as a picture beside the current state.

import { ProtocolError, type WorkerClient } from "../protocol";
import type { Frame } from "../frame";
import type { Simulation } from "../sim";
import { LessonLinkError, lessonLink, parseLessonLink, parseTalkLink, talkLink } from "./link";
import { MODEL_MARK, render, renderLine } from "./markdown";
import { MomentPicker, offText } from "./moment";
import { clockText } from "../frame";
import { type Picture, diffPicture, drawPicture, type PictureWords } from "./picture";
import { predictionOf, recordPrediction } from "./predictions";
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
  /** A talk turns presenter mode on, and leaving it off. */
  presenter(on: boolean): void;
  /** A prediction answered on the timeline is pending: the canvas hides the next run's countdown, which would give it away. */
  hideNextRun(on: boolean): void;
}

function el<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page skeleton has no #${id}`);
  return e as T;
}

/** Screen seconds "Show me" aims to take, explain stops aside. */
const SHOW_ME_SECONDS = 30;

/**
 * How much of the canvas must show under the pinned strip for it to stay pinned: at least
 * PIN_CANVAS_PX and PIN_CANVAS_SHARE of its height (scrolled to the canvas, the learner sees
 * it whole, not a strip over most of it).
 */
const PIN_CANVAS_PX = 60;
const PIN_CANVAS_SHARE = 0.4;

/** The slowest of the page's speeds (1× up) that plays spanMs of cluster time in about SHOW_ME_SECONDS. */
export function showMeSpeed(spanMs: number): number {
  for (const x of [1, 10, 100, 1000]) if (spanMs / x <= SHOW_ME_SECONDS * 1000) return x;
  return 10_000;
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
  /** The option chosen for this step's prediction, undefined while unanswered; -1 for a moment marked on the timeline. */
  private chose: number | undefined;
  /** The moment marked for a prediction answered on the timeline, in step time. */
  private markedMs: number | undefined;
  /** The timeline a prediction answered on the timeline is marked on. */
  private readonly moment = new MomentPicker((ms) => this.answer(-1, ms));
  /** Brings a pending prediction's answer controls into the panel's view (keepAnswerInView). */
  private answerCheck = (): void => {};
  /** The step's goals have been met since it opened (the reveal stays once shown). */
  private revealed = false;
  /** A check since the step opened said a goal was still open: meeting them now is news. */
  private goalsOpen = false;
  /** A talk is open: its steps are scenes, shown as a caption in presenter mode. */
  private talk = false;
  /** Where the open scene starts and its play list ends: the clock stops there. */
  private sceneStart = -1;
  private sceneEnd = -1;
  /** A frame at the scene's start has been shown: frames before it are the worker's jump to the end. */
  private sceneRolling = false;
  /** Whether explain mode was on before Show me turned it on for its play. */
  private explainBefore = false;
  private readonly words: PictureWords = {
    state: L.picState,
    leaders: L.picLeaders,
    leader: L.picLeader,
    inIsr: L.picInIsr,
    outOfIsr: L.picOutOfIsr,
    noLeader: L.picNoLeader,
    differs: L.picDiffers,
  };

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
    el("lesson-undo").addEventListener("click", () => void this.undo());
    this.pinWhileCanvasShows();
    this.keepAnswerInView();
    el("lesson-read").addEventListener("click", () => this.setRead(el("lesson-read").getAttribute("aria-expanded") !== "true", true));
    // Ctrl+Z (Cmd+Z) undoes too, outside text fields, where it keeps its usual meaning.
    document.addEventListener("keydown", (e) => {
      if (!this.lesson || e.key.toLowerCase() !== "z" || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      e.preventDefault();
      void this.undo();
    });
    // A talk's clicker: PageDown and PageUp (what presentation clickers send) and the arrows
    // move between scenes, Home goes to the first, Escape leaves. Caught before the canvas
    // and the timeline, which use the same keys for focus and scrubbing.
    window.addEventListener(
      "keydown",
      (e) => {
        if (!this.talk || !this.lesson || e.ctrlKey || e.metaKey || e.altKey) return;
        const move = ({ PageDown: 1, ArrowRight: 1, ArrowDown: 1, PageUp: -1, ArrowLeft: -1, ArrowUp: -1 } as Record<string, number>)[e.key];
        if (move === undefined && e.key !== "Home" && e.key !== "Escape") return;
        e.preventDefault();
        e.stopImmediatePropagation();
        if (e.key === "Escape") this.close();
        else void this.go(e.key === "Home" ? 0 : this.step + move);
      },
      true,
    );
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
    let talk;
    try {
      talk = parseTalkLink(location.hash, L.badLink);
    } catch (e) {
      if (!(e instanceof LessonLinkError)) throw e;
      await this.showError(e.message);
      return false;
    }
    if (talk) {
      try {
        await this.load(talk.talk, talk.scene);
        return true;
      } catch (e) {
        if (e instanceof ProtocolError && e.code === "failed") {
          await this.showError(L.openFailed(e.message));
          return false;
        }
        throw e;
      }
    }
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
    if (this.sceneEnd >= 0 && !this.sceneRolling && f.body.timeMs <= this.sceneStart) {
      this.sceneRolling = true;
      if (!this.talk) {
        // Show me: explain mode from the step's start on, so that no frame from before the
        // jump back stops it; and playing, even if such a frame had paused it.
        document.dispatchEvent(new CustomEvent("kraftlab:explain", { detail: { on: true } }));
        if (!this.sim.playing) this.sim.setPlaying(true);
      }
    }
    // The frame that reaches the end may also hold an explain stop (a slow machine draws fewer,
    // longer frames): the learner reads it first, and the scene ends on the frame after Space.
    const readingStop = document.body.dataset.explainStop === "true";
    if (this.sceneRolling && this.sceneEnd >= 0 && f.body.timeMs >= this.sceneEnd && !readingStop) {
      // The scene (or Show me) has played: stop where its play list ended, every time. Seek
      // even when this frame is at the end: the page may have asked for the next step before
      // this frame was shown, and that step's frame, past the end, would be the last drawn.
      const end = this.sceneEnd;
      this.sceneEnd = -1;
      this.sim.setPlaying(false);
      this.sim.seek(end);
      if (this.talk) this.setSceneState("done");
      else {
        document.body.dataset.showMe = "done";
        // Explain mode goes back to what the learner had.
        if (!this.explainBefore) document.dispatchEvent(new CustomEvent("kraftlab:explain", { detail: { on: false } }));
      }
    }
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

  /** The open lesson's number and step (from 1), undefined outside a lesson and in a talk. */
  get where(): { number: number; step: number } | undefined {
    return this.lesson && !this.talk ? { number: this.lesson.lesson.number, step: this.step + 1 } : undefined;
  }

  /** Starts the open step again from its start, on the lesson's own cluster. */
  async restartStep(): Promise<void> {
    await this.go(this.step);
  }

  /** Leaves the lesson; the cluster stays as it is, as a sandbox. */
  close(): void {
    if (this.talk) {
      this.talk = false;
      this.sceneEnd = -1;
      document.body.classList.remove("talk-mode");
      delete document.body.dataset.talk;
      delete document.body.dataset.talkScene;
      delete document.body.dataset.talkState;
      el("talk-caption").hidden = true;
      this.host.presenter(false);
      if (/(^|&)talk=/.test(location.hash.slice(1))) history.replaceState(history.state, "", location.pathname + location.search);
    }
    this.lesson = undefined;
    this.sceneEnd = -1;
    delete document.body.dataset.showMe;
    this.host.hideNextRun(false);
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
    if (!this.talk) {
      this.root.hidden = false;
      document.body.classList.add("lesson-mode");
    }
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
    this.sceneEnd = -1; // a Show me under way ends with its step
    delete document.body.dataset.showMe;
    if (o.talk) {
      await this.openScene(o);
      return;
    }
    const sameStep = this.step === o.step && this.lesson?.lesson.id === o.lesson.id;
    this.lesson = o;
    this.step = o.step;
    this.hintsShown = 0;
    // Reset and "Show me" reopen the step: an answer given stays, a reveal goes until done again.
    if (!sameStep) this.chose = this.markedMs = undefined;
    this.revealed = false;
    this.goalsOpen = false;
    this.error.hidden = true;
    this.pick.hidden = true;
    this.host.holdLink(true);
    history.replaceState(history.state, "", `#${lessonLink(o.lesson.id, o.step)}`);
    document.body.dataset.lesson = o.lesson.id;
    document.body.dataset.lessonStep = String(o.step);
    markOpened(browserStore, o.lesson.id, o.step);
    this.showStep();
    this.showCheck(o.check);
    this.pinOnNarrow();
  }

  /**
   * Stacked on a narrow page, the panel is pinned at the window's top over the canvas
   * (web/css/lesson.css): a lesson opened with the page scrolled above it (the toolbar and
   * the timeline) scrolls down to it, so the goals and the canvas under them are on screen.
   * The page is never scrolled back up: a learner reading the log stays where they are.
   */
  private pinOnNarrow(): void {
    if (!matchMedia(NARROW).matches || document.body.classList.contains("presenter")) return;
    const top = this.root.parentElement!.getBoundingClientRect().top;
    if (top > 0) window.scrollBy(0, top);
  }

  /**
   * Folds or opens the step's text. Folded (the default), a narrow page shows its first lines
   * and the button; a wide page, where the panel scrolls beside the canvas, always shows it
   * all (web/css/lesson.css). The learner's choice is kept per step.
   */
  private setRead(open: boolean, chosen = false): void {
    const button = el("lesson-read");
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? L.foldStep : L.readStep;
    this.root.dataset.read = open ? "open" : "folded";
    if (!chosen || !this.lesson) return;
    const key = readKey(this.lesson.lesson.id, this.step);
    if (open) browserStore.setItem(key, "open");
    else browserStore.removeItem(key);
  }

  /**
   * A talk's scene: the caption in large type, presenter mode, nothing else. The worker plays
   * the scene's actions at once (recording them in the run's history); the page then goes
   * back to the scene's start and lets the clock replay them at its speed, stopping where they
   * ended, so the room watches the same run every time.
   */
  private async openScene(o: LessonOpenBody): Promise<void> {
    this.lesson = o;
    this.step = o.step;
    this.talk = true;
    this.root.hidden = true;
    document.body.classList.remove("lesson-mode");
    document.body.classList.add("talk-mode");
    delete document.body.dataset.lesson;
    this.host.presenter(true);
    this.host.holdLink(true);
    history.replaceState(history.state, "", `#${talkLink(o.lesson.id, o.step)}`);
    document.body.dataset.talk = o.lesson.id;
    document.body.dataset.talkScene = String(o.step);
    const st = o.steps[o.step];
    const cap = el("talk-caption");
    el("talk-caption-text").replaceChildren(renderLine(st.caption ?? ""));
    el("talk-scene-of").textContent = L.sceneOf(o.step, o.steps.length, o.lesson.title);
    el("talk-scene-of").title = L.talkKeys;
    cap.hidden = false;
    const start = o.run.timeMs;
    this.sim.setPlaying(false);
    this.busy = true;
    try {
      const p = await this.client.request("lesson.play", { what: "reference" });
      this.sceneStart = start;
      this.sceneEnd = p.check.timeMs;
      this.sceneRolling = false;
      this.sim.seek(start);
      this.setSceneState("playing");
      this.sim.setPlaying(true);
    } finally {
      this.busy = false;
    }
  }

  private setSceneState(state: "playing" | "done"): void {
    document.body.dataset.talkState = state;
    el("talk-playing").textContent = state === "playing" ? L.scenePlaying : L.sceneDone;
  }

  private showStep(): void {
    const o = this.lesson!;
    const st = o.steps[this.step];
    this.body.hidden = false;
    el("lesson-title").textContent = L.lessonOf(o.lesson.number, o.lesson.title);
    el("lesson-step-of").textContent = L.stepOf(this.step, o.steps.length);
    el<HTMLAnchorElement>("lesson-step-link").href = `#${lessonLink(o.lesson.id, this.step)}`;
    // The tag says "Challenge"; a title that starts with the word too need not say it twice.
    el("lesson-step-name").textContent = st.challenge ? st.title.replace(/^Challenge:\s*/i, "") : st.title;
    el("lesson-challenge").hidden = !st.challenge;
    const text = el("lesson-text");
    text.replaceChildren();
    if (this.step === 0 && o.intro.trim()) text.append(render(o.intro));
    // The step's own text follows a prediction: it explains what the learner is to predict.
    const own = Object.assign(document.createElement("div"), { id: "lesson-step-text" });
    own.append(render(st.text));
    text.append(own);
    this.setRead(browserStore.getItem(readKey(o.lesson.id, this.step)) === "open");
    // The note explains the tag wherever it appears: the text, the task, the hints, the question or the reveal.
    const shown = [this.step === 0 ? o.intro : "", st.text, st.task, ...st.hints, st.predict?.question ?? "", st.predict?.reveal ?? ""];
    el("lesson-model-note").hidden = !shown.some((x) => x.includes(MODEL_MARK));
    if (st.predict && this.chose === undefined) this.chose = predictionOf(browserStore, o.lesson.id, this.step)?.chose;
    if (st.predict && this.chose === -1 && this.markedMs === undefined) this.markedMs = predictionOf(browserStore, o.lesson.id, this.step)?.atMs;
    el("lesson-reveal").hidden = true;
    const task = el("lesson-task");
    task.replaceChildren();
    if (st.task) {
      task.append(Object.assign(document.createElement("strong"), { textContent: `${L.taskLabel}: ` }), renderLine(st.task));
    }
    task.hidden = !st.task;
    el("lesson-hints").replaceChildren();
    el("lesson-hint").hidden = st.hints.length === 0;
    el("lesson-hint").textContent = L.hint;
    el("lesson-picture").hidden = true;
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
    this.showPredict();
  }

  /**
   * Pinned over the canvas on a narrow page (data-canvas-shown, web/css/lesson.css) only while
   * enough of the canvas shows under the strip: scrolled further down (the legend, the metadata
   * log, the charts, the event log) the strip scrolls away with the page rather than cover
   * what is read there. Pinning moves nothing else (a sticky box keeps its place in the flow),
   * so the check cannot flip back and forth.
   */
  private pinWhileCanvasShows(): void {
    const canvas = el("cluster-canvas");
    let queued = false;
    const check = () => {
      queued = false;
      // Beside the canvas the panel scrolls on its own, as tall as the window; until the page
      // scrolls it to the window's top it starts lower (under the toolbar), so it is shortened
      // by as much and its foot (its goals, its buttons, its scroll bar) stays in the window.
      const below = String(Math.max(0, Math.round(this.root.getBoundingClientRect().top - 8))) + "px";
      if (this.root.style.getPropertyValue("--panel-below") !== below) this.root.style.setProperty("--panel-below", below);
      const r = canvas.getBoundingClientRect();
      const shown = String(r.top < innerHeight && r.bottom - this.root.offsetHeight > Math.max(PIN_CANVAS_PX, PIN_CANVAS_SHARE * r.height));
      if (this.root.dataset.canvasShown !== shown) this.root.dataset.canvasShown = shown;
    };
    const queue = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(check);
    };
    addEventListener("scroll", queue, { passive: true });
    const sizes = new ResizeObserver(queue);
    sizes.observe(this.root);
    sizes.observe(canvas);
    queue();
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
    // The goals just met: the way on (Next step) comes into the panel's view, where it was
    // under the fold of a phone's strip or of a long step's text.
    if (c.done && this.goalsOpen) this.scrollPanelTo(el("lesson-forward").parentElement!);
    this.goalsOpen = !c.done;
    el<HTMLButtonElement>("lesson-undo").disabled = !c.undoable;
    if (c.done && st.predict && this.chose !== undefined && !this.revealed) this.reveal(c.answer, c.whenMs);
    this.showPicture(c);
    const demo = el("lesson-demo");
    const stopped = demo.hidden && !!c.paused;
    demo.hidden = !c.paused;
    el("lesson-question").textContent = c.paused ?? "";
    // The demo stopped to ask: its question is why, so it comes into view (in the panel's own
    // scroll and the page's), not below the fold.
    if (stopped) this.bringIntoView(demo);
  }

  /**
   * Scrolls the panel (beside the canvas it scrolls on its own) or, stacked on a narrow page,
   * the page, by as little as brings e into view: scrolling the page when the panel scrolls
   * would take the canvas out of sight.
   */
  private bringIntoView(e: HTMLElement): void {
    this.scrollPanelTo(e);
    // What the panel's own scroll could not bring up (its end is below the window).
    const r = e.getBoundingClientRect();
    if (r.bottom > innerHeight) scrollBy({ top: Math.min(r.top - 8, r.bottom - innerHeight + 8), behavior: "instant" });
    else if (r.top < 0) scrollBy({ top: r.top - 8, behavior: "instant" });
  }

  /** Scrolls the panel, where it scrolls on its own, by as little as brings e into its view. */
  private scrollPanelTo(e: HTMLElement): void {
    const panel = this.root;
    if (panel.scrollHeight <= panel.clientHeight + 1 || getComputedStyle(panel).overflowY === "visible") return;
    const r = e.getBoundingClientRect();
    const p = panel.getBoundingClientRect();
    const bottom = Math.min(p.bottom, innerHeight);
    if (r.bottom > bottom) panel.scrollTop += r.bottom - bottom + 8;
    else if (r.top < p.top) panel.scrollTop -= p.top - r.top + 8;
  }

  /**
   * While a prediction waits for its answer, the controls that answer it (the Mark button, the
   * options) stay in the panel's own view when the panel changes size: presenter mode's larger
   * type pushed them under the panel's fold. Only the panel scrolls, never the page.
   */
  private keepAnswerInView(): void {
    let queued = false;
    this.answerCheck = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        if (!this.predicting || this.root.hidden) return;
        this.scrollPanelTo(el(this.lesson?.steps[this.step].predict?.timeline ? "lesson-moment-mark" : "lesson-predict-options"));
      });
    };
    new ResizeObserver(this.answerCheck).observe(this.root);
  }

  /** Whether the step's prediction is still to be answered: its goals and picture stay hidden. */
  private get predicting(): boolean {
    return !!this.lesson?.steps[this.step].predict && this.chose === undefined;
  }

  /** The prediction box: the question and its options, or the answer given. */
  private showPredict(): void {
    const o = this.lesson!;
    const st = o.steps[this.step];
    const box = el("lesson-predict");
    box.hidden = !st.predict;
    const pending = this.predicting;
    document.body.dataset.prediction = !st.predict ? "none" : pending ? "pending" : `answered:${this.chose}`;
    el("lesson-goal-box").hidden = st.sandbox || pending;
    el("lesson-step-text").hidden = pending;
    // Nothing to read until the prediction is answered (the first step's intro aside).
    el("lesson-read").hidden = pending && !(this.step === 0 && o.intro.trim());
    el("lesson-task").hidden = !st.task || pending;
    el("lesson-show").hidden = st.reference.length === 0 || pending;
    el("lesson-demo-play").hidden = !st.demo || pending;
    this.host.hideNextRun(!!st.predict?.timeline && pending);
    if (!st.predict) return;
    el("lesson-predict-question").replaceChildren(renderLine(st.predict.question));
    if (pending) this.answerCheck();
    const opts = el("lesson-predict-options");
    opts.replaceChildren();
    const tl = st.predict.timeline;
    opts.hidden = !!tl;
    if (tl) {
      if (!this.moment.root.isConnected) opts.after(this.moment.root);
      this.moment.root.hidden = false;
      this.moment.show({ startMs: o.run.timeMs, spanMs: tl.spanMs, toleranceMs: tl.toleranceMs }, pending ? undefined : this.markedMs);
      if (!pending) document.body.dataset.prediction = `marked:${this.markedMs}`;
      el("lesson-predict-click").hidden = true;
      el("lesson-predict-said").textContent = pending ? "" : `${this.markedText()} ${L.predictNext}`;
      return;
    }
    this.moment.root.hidden = true;
    st.predict.options.forEach((opt, i) => {
      const b = Object.assign(document.createElement("button"), { type: "button", textContent: opt.label });
      b.dataset.option = String(i);
      b.disabled = !pending;
      b.setAttribute("aria-pressed", String(this.chose === i));
      b.addEventListener("click", () => this.answer(i));
      opts.append(b);
    });
    el("lesson-predict-click").hidden = !pending || !st.predict.options.some((x) => x.broker >= 0);
    el("lesson-predict-said").textContent = pending ? "" : `${L.predicted(st.predict.options[this.chose!].label)} ${L.predictNext}`;
  }

  /** "You marked 0:05:00.0 on the clock, 4 min 16 s after the step's start." */
  private markedText(): string {
    const ms = this.markedMs ?? 0;
    return L.momentMarked(clockText(this.lesson!.run.timeMs + ms), offText(ms));
  }

  /**
   * Records an answer, then shows the step's goals: the run may play now. i is the option, or
   * -1 with the moment marked on the timeline (step time).
   */
  private answer(i: number, atMs?: number): void {
    const o = this.lesson;
    if (!o || !this.predicting) return;
    this.chose = i;
    this.markedMs = atMs;
    recordPrediction(browserStore, o.lesson.id, this.step, atMs === undefined ? { chose: i } : { chose: i, atMs });
    this.showPredict();
    // The goals and their picture appear now, not with the next frame: the clock may be paused.
    void this.client
      .request("lesson.check", {})
      .then((c) => this.showCheck(c))
      .catch((e: unknown) => {
        if (!(e instanceof ProtocolError && e.code === "failed")) this.host.failure("lesson.check", e);
      });
  }

  /** A broker was selected on the canvas or in the list: it answers a "which broker" prediction. */
  brokerSelected(id: number): void {
    const st = this.lesson?.steps[this.step];
    if (!st?.predict || !this.predicting || id < 0) return;
    const i = st.predict.options.findIndex((x) => x.broker === id);
    if (i >= 0) this.answer(i);
  }

  /**
   * The goals are met: say what happened against what was predicted, and why. answer is the
   * option that holds; whenMs the moment of a prediction answered on the timeline (-1: none).
   */
  private reveal(answer: number, whenMs: number): void {
    const o = this.lesson!;
    const p = o.steps[this.step].predict!;
    this.revealed = true;
    const verdict = el("lesson-reveal-verdict");
    let right: boolean;
    if (p.timeline) {
      const marked = this.markedMs ?? 0;
      const start = o.run.timeMs;
      const said = clockText(start + marked);
      right = whenMs >= 0 && Math.abs(whenMs - marked) <= p.timeline.toleranceMs;
      const tol = offText(p.timeline.toleranceMs);
      verdict.textContent =
        whenMs < 0
          ? L.momentNone(said)
          : right
            ? L.momentRight(said, clockText(start + whenMs), offText(whenMs - marked), tol)
            : L.momentWrong(said, clockText(start + whenMs), offText(whenMs - marked), whenMs < marked, tol);
      this.moment.reveal(whenMs);
      document.body.dataset.prediction = `revealed-at:${marked}:${whenMs}`;
      recordPrediction(browserStore, o.lesson.id, this.step, { chose: -1, atMs: marked, right });
    } else {
      const said = p.options[this.chose!].label;
      right = answer === this.chose;
      verdict.textContent = right ? L.predictRight(said) : answer >= 0 ? L.predictWrong(said, p.options[answer].label) : L.predictNone(said);
      document.body.dataset.prediction = `revealed:${this.chose}:${answer}`;
      recordPrediction(browserStore, o.lesson.id, this.step, { chose: this.chose!, right });
    }
    verdict.dataset.right = String(right);
    el("lesson-reveal-text").replaceChildren(render(p.reveal));
    el("lesson-reveal").hidden = false;
  }

  /** The goal's picture beside the current state, differences marked until the goals are met. */
  private showPicture(c: LessonCheckBody): void {
    const st = this.lesson!.steps[this.step];
    const box = el("lesson-picture");
    box.hidden = !st.picture || !c.now || this.predicting;
    if (box.hidden) return;
    const goal: Picture = st.picture!;
    const diff = diffPicture(goal, c.now!);
    drawPicture(el("lesson-picture-goal"), goal, this.words);
    drawPicture(el("lesson-picture-now"), c.now!, this.words, c.done ? undefined : diff);
    el("lesson-picture-diff").textContent = c.done ? (diff.count ? L.pictureMet : L.pictureSame) : diff.count ? L.pictureDiffers(diff.count) : L.pictureSame;
    box.dataset.differences = String(c.done ? 0 : diff.count);
  }

  /** Takes back the learner's last action of this step (the worker rebuilds that moment). */
  private async undo(): Promise<void> {
    if (!this.lesson || this.busy || el<HTMLButtonElement>("lesson-undo").disabled) return;
    this.sim.setPlaying(false);
    await this.run("lesson.undo", async () => {
      this.busy = true;
      try {
        const c = await this.client.request("lesson.undo", {});
        this.host.note(L.undone);
        this.sim.seek(c.timeMs);
        this.showCheck(c);
      } finally {
        this.busy = false;
      }
    });
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
        // The step's start, where load() put the run (a demo's continue plays from the pause).
        const start = this.lesson!.run.timeMs;
        const p = await this.client.request("lesson.play", { what });
        this.host.note(L.played(p.ran));
        if (what === "reference" && p.check.timeMs > start) {
          this.showPlaying(start, p.check.timeMs);
          return;
        }
        if (what === "reference") document.body.dataset.showMe = "done"; // nothing to play: no time passes
        this.sim.seek(p.check.timeMs);
        this.showCheck(p.check);
        if (p.finished && this.wasPlaying) this.sim.setPlaying(true);
      } finally {
        this.busy = false;
      }
    });
  }

  /**
   * Show me: the worker has played the reference actions (recorded in the run's history);
   * the page goes back to the step's start and lets the clock replay them at a speed that
   * shows the whole in about half a minute, with explain mode on, so that the learner watches
   * each event happen and why, and the charts draw every point on the way. The clock stops
   * where the actions ended.
   */
  private showPlaying(start: number, end: number): void {
    this.sceneStart = start;
    this.sceneEnd = end;
    this.sceneRolling = false;
    document.body.dataset.showMe = "playing";
    this.explainBefore = document.body.dataset.explain === "on";
    this.sim.setSpeed(showMeSpeed(end - start));
    // The learner watches the canvas, wherever the page was scrolled.
    document.getElementById("cluster-canvas")?.scrollIntoView({ block: "nearest" });
    this.sim.seek(start);
    this.sim.setPlaying(true);
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

/** The widths at which the panel is stacked above the canvas outside presenter mode (web/css/lesson.css). */
const NARROW = "(max-width: 64rem)";

/** Where a step's opened text is remembered. */
function readKey(lesson: string, step: number): string {
  return `kraftlab.lessonRead.${lesson}.${step}`;
}
