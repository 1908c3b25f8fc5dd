// The lesson runner's pure parts: the Markdown subset, lesson links and progress.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parse, parseInline, safeHref } from "../lesson/markdown";
import { type Picture, diffPicture } from "../lesson/picture";
import { PREDICTIONS_KEY, predictionOf, recordPrediction } from "../lesson/predictions";
import { LessonLinkError, lessonLink, parseLessonLink } from "../lesson/link";
import { PROGRESS_KEY, lessonState, markDone, markOpened, readProgress, resetProgress, type Store } from "../lesson/progress";

test("inline markdown: code, emphasis, strong and safe links only", () => {
  assert.deepEqual(parseInline("the *preferred* leader, `payments-0` and **ELR**"), [
    { kind: "text", text: "the " },
    { kind: "em", children: [{ kind: "text", text: "preferred" }] },
    { kind: "text", text: " leader, " },
    { kind: "code", text: "payments-0" },
    { kind: "text", text: " and " },
    { kind: "strong", children: [{ kind: "text", text: "ELR" }] },
  ]);
  assert.deepEqual(parseInline("[KIP](https://cwiki.apache.org/x)"), [
    { kind: "link", href: "https://cwiki.apache.org/x", children: [{ kind: "text", text: "KIP" }] },
  ]);
  // A script URL loses its link; HTML stays text (render() only ever uses textContent).
  assert.deepEqual(parseInline("[x](javascript:alert(1))"), [{ kind: "text", text: "x" }, { kind: "text", text: ")" }]);
  assert.deepEqual(parseInline("<b>hi</b>"), [{ kind: "text", text: "<b>hi</b>" }]);
  assert.deepEqual(parseInline("2 * 3 * 4 and leader_epoch_x"), [{ kind: "text", text: "2 * 3 * 4 and leader_epoch_x" }]);
  assert.equal(safeHref("data:text/html,x"), undefined);
});

test("block markdown: paragraphs, lists and code blocks", () => {
  const blocks = parse("One\nline.\n\n- a\n- b\n  more\n\n1. x\n\n```\nkill 1\n```\nEnd");
  assert.deepEqual(
    blocks.map((b) => b.kind),
    ["p", "ul", "ol", "pre", "p"],
  );
  assert.deepEqual(blocks[0], { kind: "p", children: [{ kind: "text", text: "One line." }] });
  assert.deepEqual(blocks[1], { kind: "ul", items: [[{ kind: "text", text: "a" }], [{ kind: "text", text: "b more" }]] });
  assert.deepEqual(blocks[3], { kind: "pre", text: "kill 1" });
});

test("lesson links count steps from 1 and refuse malformed values", () => {
  const bad = (w: string) => `bad ${w}`;
  assert.equal(parseLessonLink("#v=1&t=0&s=abc", bad), undefined, "a share link is not a lesson link");
  assert.deepEqual(parseLessonLink("#lesson=06-the-wait-for-sync-gate&step=3", bad), { lesson: "06-the-wait-for-sync-gate", step: 2 });
  assert.deepEqual(parseLessonLink("#lesson=1", bad), { lesson: "1", step: 0 });
  let caught: unknown;
  try {
    parseLessonLink("#lesson=1&step=0", bad);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof LessonLinkError && caught.message === "bad step=0");
  assert.throws(() => parseLessonLink("#lesson=1&step=x", bad), /bad step=x/);
  assert.throws(() => parseLessonLink("#lesson=%3Cscript%3E", bad), /bad lesson=<script>/);
  assert.equal(lessonLink("01-a", 2), "lesson=01-a&step=3");
});

function memory(): Store & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v), removeItem: (k) => void data.delete(k) };
}

test("progress: done steps, last step, reset, and corrupt storage read as none", () => {
  const s = memory();
  markOpened(s, "01-a", 1);
  markDone(s, "01-a", 0);
  markDone(s, "01-a", 0);
  markDone(s, "01-a", 2);
  assert.deepEqual(readProgress(s)["01-a"], { done: [0, 2], last: 1 });
  assert.equal(lessonState(readProgress(s)["01-a"], [0, 1, 2]), "started");
  markDone(s, "01-a", 1);
  assert.equal(lessonState(readProgress(s)["01-a"], [0, 1, 2]), "done");
  assert.equal(lessonState(undefined, [0]), "new");
  resetProgress(s);
  assert.deepEqual(readProgress(s), {});
  s.data.set(PROGRESS_KEY, "{not json");
  assert.deepEqual(readProgress(s), {});
  s.data.set(PROGRESS_KEY, JSON.stringify({ "01-a": { done: [1, "x", -3, 1], last: "y" }, "<bad>": { done: [1] } }));
  assert.deepEqual(readProgress(s), { "01-a": { done: [1], last: 0 } });
});

test("model figures: {model: X} is its own inline kind; an empty or unclosed one stays text", () => {
  assert.deepEqual(parseInline("log recovery takes {model: 120 s} here"), [
    { kind: "text", text: "log recovery takes " },
    { kind: "model", text: "120 s" },
    { kind: "text", text: " here" },
  ]);
  assert.deepEqual(parseInline("{model: } and {model: 5 s"), [{ kind: "text", text: "{model: } and {model: 5 s" }]);
});

test("goal picture: differences are broker states, leader counts, leaders and ISR members", () => {
  const goal: Picture = {
    brokers: [{ id: 0, state: "up", leaders: 0 }, { id: 1, state: "stopped", leaders: 0 }, { id: 2, state: "up", leaders: 1 }],
    partitions: [{ name: "payments-0", leader: 2, isr: [2, 0], replicas: [1, 2, 0] }],
  };
  assert.equal(diffPicture(goal, goal).count, 0);
  const now: Picture = {
    brokers: [{ id: 0, state: "up", leaders: 0 }, { id: 1, state: "up", leaders: 1 }, { id: 2, state: "up", leaders: 0 }],
    partitions: [{ name: "payments-0", leader: 1, isr: [1, 2, 0], replicas: [1, 2, 0] }],
  };
  const d = diffPicture(goal, now);
  assert.deepEqual([...d.brokerState], [1]);
  assert.deepEqual([...d.brokerLeaders], [1, 2]);
  assert.deepEqual([...d.leader], ["payments-0"]);
  assert.deepEqual([...d.isr], ["payments-0/1"], "only broker 1's membership differs; the ISR's order is the goal's business");
  assert.equal(d.count, 5);
});

test("predictions: recorded per lesson step, with the outcome once known; corrupt storage reads as none", () => {
  const m = new Map<string, string>();
  const store = { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k) };
  assert.equal(predictionOf(store, "01-x", 3), undefined);
  recordPrediction(store, "01-x", 3, { chose: 1 });
  assert.deepEqual(predictionOf(store, "01-x", 3), { chose: 1 });
  recordPrediction(store, "01-x", 3, { chose: 1, right: false });
  recordPrediction(store, "02-y", 0, { chose: 0 });
  assert.deepEqual(predictionOf(store, "01-x", 3), { chose: 1, right: false });
  assert.equal(predictionOf(store, "01-x", 2), undefined);
  m.set(PREDICTIONS_KEY, "{not json");
  assert.equal(predictionOf(store, "01-x", 3), undefined);
});

test("a moment's timeline: round clock ticks within the span, and spans in words", async () => {
  const { ticks, tickText, offText } = await import("../lesson/moment");
  // Lesson 1, step 3: from 0:00:44.4 for 400 s: a tick every minute, at round clock minutes.
  assert.deepEqual(ticks(44_440, 400_000), { step: 120_000, at: [120_000, 240_000, 360_000] });
  assert.deepEqual(ticks(0, 60_000), { step: 10_000, at: [0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000] });
  assert.equal(tickText(300_000), "5:00");
  assert.equal(tickText(3_750_000), "1:02:30");
  assert.equal(offText(-12_400), "12 s");
  assert.equal(offText(255_560), "4 min 16 s");
  assert.equal(offText(240_000), "4 min");
});

test("a moment marked on the timeline is recorded and read back", () => {
  const mem = new Map<string, string>();
  const store: Store = { getItem: (k) => mem.get(k) ?? null, setItem: (k, v) => void mem.set(k, v), removeItem: (k) => void mem.delete(k) };
  recordPrediction(store, "01-x", 2, { chose: -1, atMs: 256_000 });
  assert.deepEqual(predictionOf(store, "01-x", 2), { chose: -1, atMs: 256_000 });
  // A marked moment without its time is no answer.
  recordPrediction(store, "01-x", 3, { chose: -1 });
  assert.equal(predictionOf(store, "01-x", 3), undefined);
});
