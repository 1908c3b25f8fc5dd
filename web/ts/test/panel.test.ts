// The lesson panel (web/ts/lesson/panel.ts) on a page of its own: the real panel and the real
// Simulation (web/ts/sim.ts) over a fake DOM (fakedom.ts) and a fake worker that answers every
// message in the order it came, as the worker does, when the test says. The test plays the
// page as a loaded machine does: each animation frame finds the last message unanswered, so
// the Simulation asks for its next step when a reply comes, before it draws the reply's frame.
// That is where a talk's scene or a Show me must stop exactly at its end (the frame drawn
// last is the end, whatever step was in flight), and where the learner's view of a stop and
// of a prediction is decided.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_SPEED, Simulation } from "../sim";
import { LessonPanel, showMeSpeed } from "../lesson/panel";
import type { LessonCheckBody, LessonOpenBody, LessonPlayBody, LessonStep } from "../lesson/protocol";
import type { LoadBody, WorkerClient } from "../protocol";
import { type FakePage, installFakeDom } from "./fakedom";
import { emptyFrame } from "./frames";

/** What the fake worker plays: one step (a Show me's) or one talk scene, from startMs to endMs. */
interface Script {
  talk: boolean;
  startMs: number;
  /** Where the step's reference actions (the scene's play list) end. */
  endMs: number;
  predict?: LessonStep["predict"];
}

/**
 * The worker: one cluster clock, and every message (lesson.* and sim.*) waiting in one queue
 * until answer(). lesson.open puts the run at the step's start, lesson.play at the end of its
 * reference actions, sim.seek where asked, sim.advance as far as asked.
 */
class FakeWorker {
  /** The cluster time the worker's run is at. */
  at = 0;
  readonly queue: { type: string; body: { ms?: number; timeMs?: number }; resolve: (reply: unknown) => void }[] = [];

  constructor(private readonly script: Script) {}

  request(type: string, body: object): Promise<unknown> {
    return new Promise((resolve) => this.queue.push({ type, body, resolve }));
  }
  requestData(type: string, body: object): Promise<unknown> {
    return this.request(type, body);
  }

  /** The types of the messages waiting, oldest first. */
  get waiting(): string[] {
    return this.queue.map((m) => m.type);
  }

  /** Answers the oldest message; false when none waits. */
  answer(): boolean {
    const m = this.queue.shift();
    if (!m) return false;
    const s = this.script;
    switch (m.type) {
      case "lesson.open":
        this.at = s.startMs;
        m.resolve(this.opened());
        break;
      case "lesson.play":
        this.at = s.endMs;
        m.resolve({ ran: 1, finished: true, check: this.check() } satisfies LessonPlayBody);
        break;
      case "lesson.check":
        m.resolve(this.check());
        break;
      case "sim.seek":
        this.at = m.body.timeMs!;
        m.resolve(emptyFrame(this.at));
        break;
      case "sim.advance":
        this.at += m.body.ms!;
        m.resolve(emptyFrame(this.at));
        break;
      default:
        assert.fail(`the fake worker does not answer ${m.type}`);
    }
    return true;
  }

  private check(): LessonCheckBody {
    return { lesson: "l", step: 0, timeMs: this.at, goals: [], done: false, stepTimeMs: this.at - this.script.startMs, answer: -1, undoable: false, whenMs: -1 };
  }

  private opened(): LessonOpenBody {
    const s = this.script;
    const step: LessonStep = {
      title: "Kill the leader",
      text: "Broker 1 leads.",
      task: "Kill broker 1.",
      goals: ["leader(payments-0) != 1"],
      hints: [],
      sandbox: false,
      demo: false,
      pauses: 0,
      reference: ["kill 1"],
      challenge: false,
      caption: s.talk ? "A leader dies" : "",
      ...(s.predict ? { predict: s.predict } : {}),
    };
    return {
      run: { timeMs: s.startMs } as LoadBody,
      lesson: { id: "l", number: 1, title: "Leaders", summary: "", minutes: 1, steps: [step.title], links: [] },
      intro: "",
      steps: [step],
      step: 0,
      next: "",
      talk: s.talk,
      check: this.check(),
    };
  }
}

/** Lets the promise callbacks that are due run. */
const settle = () => new Promise<void>((r) => setTimeout(r, 0));

interface Page {
  dom: FakePage;
  worker: FakeWorker;
  sim: Simulation;
  panel: LessonPanel;
  /** The cluster time of every frame drawn, in order. */
  drawn: number[];
  /** Called with each frame before the panel sees it: what the page's other views do first (explain mode). */
  beforePanel: (timeMs: number) => void;
}

/** The page: a fake DOM, the Simulation and the panel, wired as web/ts/main.ts wires them. */
function page(script: Script): Page {
  const dom = installFakeDom();
  const worker = new FakeWorker(script);
  const client = worker as unknown as WorkerClient;
  const p = { dom, worker, drawn: [] as number[], beforePanel: (_t: number) => {} } as Page;
  p.sim = new Simulation(client, {
    frame: (f) => {
      p.drawn.push(f.body.timeMs);
      p.beforePanel(f.body.timeMs);
      p.panel.frame(f);
    },
    failure: (what, e) => assert.fail(`${what}: ${String(e)}`),
    state: () => {},
  });
  p.panel = new LessonPanel(client, p.sim, {
    newRun: () => {},
    note: () => {},
    failure: (what, e) => assert.fail(`${what}: ${String(e)}`),
    holdLink: () => {},
    presenter: () => {},
    hideNextRun: () => {},
  });
  return p;
}

/** Answers every message waiting, and those they lead to, with no animation frame meanwhile. */
async function answerAll(p: Page): Promise<void> {
  while (p.worker.answer()) await settle();
}

/**
 * Plays as a loaded page does until nothing is left to answer: the worker answers a message
 * only after an animation frame (100 ms of wall time apart, the longest step the Simulation
 * asks for) has found it waiting, so each step's animation frame is missed and the next step
 * goes out when it is answered, before its frame is drawn.
 */
async function playOn(p: Page): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const waited = p.worker.queue.length > 0;
    p.dom.animationFrame(100);
    if (waited) p.worker.answer();
    else if (p.worker.queue.length === 0) return;
    await settle();
  }
  assert.fail("still playing after 200 animation frames");
}

/** Opens the page's talk scene or lesson step by its link, as a visit does. */
async function openLink(p: Page, talk: boolean): Promise<void> {
  location.hash = talk ? "#talk=t&scene=1" : "#lesson=l&step=1";
  const opened = p.panel.openLink();
  await answerAll(p);
  assert.equal(await opened, true);
}

/** Opens the script's talk scene, or its lesson step and clicks Show me, up to the frame at its start. */
async function openAndPlay(script: Script): Promise<Page> {
  const p = page(script);
  await openLink(p, script.talk);
  if (!script.talk) {
    p.dom.document.getElementById("lesson-show").click();
    await answerAll(p);
  }
  assert.equal(p.drawn.at(-1), script.startMs, "the scene plays from its start");
  assert.ok(p.sim.playing);
  return p;
}

/** What says the scene is over: the talk's state, or Show me's. */
function state(p: Page, script: Script): string | undefined {
  const body = p.dom.document.body.dataset;
  return script.talk ? body.talkState : body.showMe;
}

/** Explain mode's on/off events from the panel, in order. */
function explainEvents(p: Page): boolean[] {
  return p.dom.document.dispatched.filter((e) => e.type === "kraftlab:explain").map((e) => (e as CustomEvent<{ on: boolean }>).detail.on);
}

for (const kind of ["talk scene", "Show me"] as const) {
  const talk = kind === "talk scene";

  test(`a ${kind} whose frame lands exactly on its end stops there, whatever step was in flight`, async () => {
    // Steps of 1,000 ms at the page's 10x (a talk), 100 ms at Show me's 1x: one lands on 35,000.
    const script = { talk, startMs: 34_000, endMs: 35_000 };
    const p = await openAndPlay(script);
    assert.deepEqual([p.sim.speed, showMeSpeed(1_000)], [talk ? DEFAULT_SPEED : 1, 1]);
    await playOn(p);
    const atEnd = p.drawn.indexOf(35_000);
    assert.ok(atEnd > 0, `a frame at the end itself was drawn: ${p.drawn}`);
    assert.ok(
      p.drawn.slice(atEnd).some((t) => t > 35_000),
      `the test's own premise: the step asked for before the end was drawn went past it (${p.drawn})`,
    );
    assert.equal(p.drawn.at(-1), 35_000, `the last frame drawn is the end, not the step that was in flight (${p.drawn})`);
    assert.equal(p.worker.at, 35_000, "the run is at the end");
    assert.equal(p.sim.playing, false);
    assert.equal(state(p, script), "done");
    p.dom.animationFrame(100);
    p.dom.animationFrame(100);
    assert.deepEqual(p.worker.waiting, [], "paused at the end: nothing more is asked for");
  });

  test(`a ${kind} whose frame goes past its end goes back to the end`, async () => {
    // From 34,050 the steps (1,000 or 100 ms) step over 35,000: the first past it is at 35,050.
    const script = { talk, startMs: 34_050, endMs: 35_000 };
    const p = await openAndPlay(script);
    await playOn(p);
    const past = p.drawn.indexOf(35_050);
    assert.ok(past > 0 && p.drawn.slice(0, past).every((t) => t < 35_000), `the step over the end was drawn: ${p.drawn}`);
    assert.equal(p.drawn.at(-1), 35_000, `the last frame drawn is the end (${p.drawn})`);
    assert.equal(p.worker.at, 35_000);
    assert.equal(p.sim.playing, false);
    assert.equal(state(p, script), "done");
  });
}

test("a frame from before Show me's jump back to the step's start does not end it", async () => {
  const p = page({ talk: false, startMs: 34_000, endMs: 35_000 });
  await openLink(p, false);
  p.dom.document.getElementById("lesson-show").click();
  // The step opens again; an animation frame asks for the new run's first frame while the
  // worker plays the reference actions, so that frame shows the run where they ended.
  assert.ok(p.worker.answer());
  await settle();
  p.dom.animationFrame(100);
  assert.deepEqual(p.worker.waiting, ["lesson.play", "sim.advance"]);
  await answerAll(p);
  assert.deepEqual(p.drawn, [35_000, 34_000], "the end, then the jump back to the start");
  assert.equal(p.dom.document.body.dataset.showMe, "playing", "the frame at the end came before the jump back: Show me goes on");
  assert.ok(p.sim.playing);
  await playOn(p);
  assert.equal(p.dom.document.body.dataset.showMe, "done");
  assert.equal(p.drawn.at(-1), 35_000);
});

test("Show me waits while an explain stop on its last frame is read, and ends on the frame after", async () => {
  const script = { talk: false, startMs: 34_000, endMs: 35_000 };
  const p = await openAndPlay(script);
  assert.deepEqual(explainEvents(p), [true], "Show me plays in explain mode");
  // Explain mode (web/ts/explain.ts) stops on the frame that reaches the end: it marks the
  // stop and pauses, before the panel sees the frame.
  let stopped = false;
  p.beforePanel = (t) => {
    if (t < 35_000 || stopped) return;
    stopped = true;
    p.dom.document.body.dataset.explainStop = "true";
    p.sim.setPlaying(false);
  };
  await playOn(p);
  assert.ok(stopped);
  assert.equal(p.dom.document.body.dataset.showMe, "playing", "the card is being read: Show me has not ended");
  assert.deepEqual(explainEvents(p), [true], "explain mode stays on while its card is read");
  // Space: the stop is over and the run plays on.
  delete p.dom.document.body.dataset.explainStop;
  p.sim.setPlaying(true);
  await playOn(p);
  assert.equal(p.dom.document.body.dataset.showMe, "done");
  assert.deepEqual(explainEvents(p), [true, false], "explain mode goes back to off, as the learner had it");
  assert.equal(p.drawn.at(-1), 35_000, `and the run goes back to the end (${p.drawn})`);
  assert.equal(p.sim.playing, false);
});

test("a step's prediction hides its text, goals and Show me until it is answered", async () => {
  const predict = {
    question: "Which broker leads payments-0 next?",
    options: [
      { label: "Broker 2", broker: 2 },
      { label: "Broker 3", broker: 3 },
    ],
    reveal: "Broker 2 was first in the ISR.",
  };
  const p = page({ talk: false, startMs: 34_000, endMs: 35_000, predict });
  await openLink(p, false);
  const el = (id: string) => p.dom.document.getElementById(id);
  const hidden = () => ["lesson-step-text", "lesson-goal-box", "lesson-task", "lesson-show"].filter((id) => el(id).hidden);
  assert.equal(p.dom.document.body.dataset.prediction, "pending");
  assert.deepEqual(hidden(), ["lesson-step-text", "lesson-goal-box", "lesson-task", "lesson-show"], "they would give the answer away");
  assert.match(el("lesson-predict-question").text, /Which broker leads/);
  const options = el("lesson-predict-options").children;
  assert.deepEqual(options.map((b) => b.text), ["Broker 2", "Broker 3"]);
  assert.ok(el("lesson-step-text").isConnected, "the step's own text, in the panel, is the one hidden");

  options[1].click();
  await answerAll(p);
  assert.equal(p.dom.document.body.dataset.prediction, "answered:1");
  assert.deepEqual(hidden(), [], "answered: the step reads whole and Show me is offered");
  assert.match(el("lesson-predict-said").text, /Broker 3/);
  assert.ok(el("lesson-predict-options").children.every((b) => b.disabled), "the answer is given once");
});
