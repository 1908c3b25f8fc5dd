// The traffic layer's pure parts and explain mode's choices (web/ts/traffic.ts, explain.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { isNews, isStop, linesOf } from "../explain";
import { markersOf } from "../charts";
import { Frame, Layout } from "../frame";
import type { BrokerState, ControllerState, DecisionInfo, FrameBody, LogEvent } from "../protocol";
import { S } from "../strings";
import { FLOW_LIFT_MAX, GAP, SUMMARY_H, brokerBoxes, cellInner, cellRing, controllerBoxes, controllersBottom, flowLane, flowLift, type Rect } from "../layout";
import { HOP_MS, SLOW_MS, controllerToBroker, controllersRoute, currentNews, drawDue, moveSuperseded, electionWords, flowPath, flowPoint, landings, linkRoute, moveLook, offsetRoute, rateText, routePoint, slowReused, steadyFlows, travelling, type FlowPath, type Point } from "../traffic";

/** A frame of partitions with replicas `reps` (broker slots), leader positions and ISR positions. */
function frame(reps: number[][], leaders: number[], isrs: number[][], brokers: number): Frame {
  const n = reps.length;
  const data = new ArrayBuffer(8 * n);
  const isr = new Uint32Array(data, 0, n);
  const state = new Uint8Array(data, 4 * n, 4 * n);
  reps.forEach((_, p) => {
    isr[p] = isrs[p].reduce((w, pos, k) => w | ((pos + 1) << (4 * k)), 0);
    state[4 * p] = leaders[p];
  });
  const replicas = new Uint8Array(n * 3).fill(0xff);
  reps.forEach((r, p) => r.forEach((slot, k) => (replicas[p * 3 + k] = slot)));
  const body = {
    brokers: Array.from({ length: brokers }, (_, i) => ({ id: i + 1 })),
    partitions: { count: n, isr: 0, state: 4 * n },
  } as unknown as FrameBody;
  return new Frame(body, data, new Layout(1, n, 3, [], replicas, brokers));
}

test("steady replication splits each leader's bytes over the followers in sync with it", () => {
  // Broker slot 0 leads two partitions, one followed in sync by slot 1 and one by slot 2;
  // slot 1 leads one, followed by slot 2 in sync and slot 0 out of sync.
  const f = frame(
    [
      [0, 1],
      [0, 2],
      [1, 2, 0],
    ],
    [0, 0, 0],
    [[0, 1], [0, 1], [0, 1]],
    3,
  );
  const flows = steadyFlows(f, [200, 100, 0]);
  assert.deepEqual(flows, [
    { from: 0, to: 1, bps: 100 },
    { from: 0, to: 2, bps: 100 },
    { from: 1, to: 2, bps: 100 },
  ]);
});

test("a partition without a leader carries no steady flow", () => {
  const f = frame([[0, 1]], [0xff], [[]], 2);
  assert.deepEqual(steadyFlows(f, [100, 100]), []);
});

test("rates and election labels read as a person says them", () => {
  assert.equal(rateText(20_000_000), "20.0 MB/s");
  assert.equal(rateText(512_000), "512 KB/s");
  assert.equal(electionWords({ election: "controlled_shutdown", trigger: "controlled shutdown of broker 2" }), "controlled shutdown · controlled shutdown of broker 2");
  assert.equal(electionWords({ election: "preferred", trigger: "electPreferred run 4" }), "preferred · electPreferred run 4");
});

const decision = (d: Partial<DecisionInfo>): DecisionInfo => ({ timeMs: 0, decision: "leader", reason: "", count: 1, leader: 1, oldLeader: 2, ...d });

test("explain mode stops at fences, elections, ISR changes and runs that did something", () => {
  for (const kind of ["session_expired", "fenced", "leader", "isr", "quorum_leader", "snapshot"] as const) {
    assert.ok(isStop(decision({ decision: kind })), kind);
  }
  assert.ok(!isStop(decision({ decision: "balancer_run", elected: 0 })), "a run that found nothing to do");
  assert.ok(isStop(decision({ decision: "balancer_run", elected: 0, withheld: 80, brokers: [2] })), "a run the gate held back");
  assert.ok(isStop(decision({ decision: "balancer_run", elected: 3 })));
});

test("the narration leaves out the steady heartbeats and fetches", () => {
  const m = { api: "BrokerHeartbeat", from: 1, to: 3000, sentMs: 0, arriveMs: 1 };
  assert.ok(!isNews({ ...m, note: "ready: unfence me" }));
  assert.ok(!isNews({ ...m, api: "Fetch", note: "brings 3 records" }));
  assert.ok(isNews({ ...m, note: "I want to shut down" }));
  assert.ok(isNews({ ...m, api: "Vote", note: "vote for me in epoch 3" }));
  assert.equal(S.narrateMessage({ ...m, api: "Vote", from: 3001, to: 3000, note: "granted", response: true }), "controller 3001 to controller 3000: Vote answer, granted");
});

test("the speed says what a screen second is in cluster time", () => {
  assert.equal(S.speedMeaning(1), "1 s on screen = 1 s in the cluster · a heartbeat every 2 s");
  assert.equal(S.speedMeaning(0.25), "1 s on screen = 0.25 s in the cluster · a heartbeat every 8 s");
  assert.equal(S.speedMeaning(100), "1 s on screen = 1.7 min in the cluster · a heartbeat every 20 ms");
  assert.equal(S.speedOption(0.25), "¼× slow motion");
});

test("an explain stop shows the log's lines of its moments, in the log's order, notices left out", () => {
  const events: LogEvent[] = [
    { timeMs: 9000, kind: "broker", text: "controller 3000's session check: broker 1 sent no heartbeat for 9,001 ms" },
    { timeMs: 9020, kind: "broker", text: "broker 1 fenced: no heartbeat for 9,021 ms" },
    { timeMs: 9020, kind: "partition", text: "payments-0: leader moved from broker 1 to broker 2 because broker 1 was fenced" },
    { timeMs: 9020, kind: "notice", text: "3 more events in this frame were left out" },
    { timeMs: 9500, kind: "partition", text: "payments-3: broker 4 rejoined the ISR" },
  ];
  const stop = (decision: string, timeMs: number) => ({ decision, timeMs }) as DecisionInfo;
  assert.deepEqual(
    linesOf(events, [stop("fenced", 9020), stop("leader", 9020)]).map((e) => e.text),
    [events[1].text, events[2].text],
  );
  assert.deepEqual(
    linesOf(events, [stop("session_expired", 9000), stop("fenced", 9020)]).map((e) => e.timeMs),
    [9000, 9020, 9020],
    "cause first, as the log has them",
  );
  assert.deepEqual(linesOf(events, [stop("leader", 7000)]), [], "a decision the log tells at another time has none");
});

test("the charts mark the user's actions and the balancer runs with their log lines", () => {
  const events: LogEvent[] = [
    { timeMs: 3000, kind: "action", text: "you killed broker 1 (as kill -9)" },
    { timeMs: 9020, kind: "broker", text: "broker 1 fenced" },
    { timeMs: 300000, kind: "balancer", text: "electPreferred elected 3 partitions (3 to broker 1)" },
  ];
  assert.deepEqual(markersOf(events), [
    { timeMs: 3000, kind: "action", text: events[0].text },
    { timeMs: 300000, kind: "balancer", text: events[2].text },
  ]);
});

test("the layer is drawn on every animation frame while a dot travels, at most every SLOW_MS while its picture only pulses and fades", () => {
  const frame = 1000 / 60;
  // A dot that set off 100 ms ago, one that sets off within SLOW_MS, one that has arrived.
  assert.equal(travelling(1000, HOP_MS, [{ start: 900 }], []), true);
  assert.equal(travelling(1000, HOP_MS, [{ start: 1000 + SLOW_MS / 2 }], []), true);
  assert.equal(travelling(1000, HOP_MS, [{ start: 1000 - HOP_MS - 1 }], []), false);
  assert.equal(travelling(1000, HOP_MS, [], [{ start: 500 }]), true, "a leader move under way");
  assert.equal(travelling(1000, HOP_MS, [], [{ start: -1000 }]), false, "a leader move that has landed");
  // Playing: a travelling dot, every frame; pulses alone, not one frame after the last
  // drawing (not even with a new frame or canvas under it), but SLOW_MS after it.
  assert.equal(drawDue(1000 + frame, 1000, false, true, true), true);
  assert.equal(drawDue(1000 + frame, 1000, false, true, false), false);
  assert.equal(drawDue(1000 + frame, 1000, true, true, false), false);
  assert.equal(drawDue(1000 + SLOW_MS, 1000, false, true, false), true);
  // Paused: the clock stands still; a new frame (a step) is drawn at once, nothing else is.
  assert.equal(drawDue(1000, 1000, true, false, false), true);
  assert.equal(drawDue(1000, 1000, false, false, false), false);
  assert.equal(drawDue(1000, 1000, false, true, true), false, "the same moment is on the canvas already");
});

test("a leader move flies as a square, then frames the new leader's cell and fades: no square is left on a cell", () => {
  assert.deepEqual(moveLook(0, false), { flying: true, along: 0, alpha: 1 });
  const mid = moveLook(550, false);
  assert.ok(mid.flying && mid.along > 0.4 && mid.along < 0.6, `half way: ${JSON.stringify(mid)}`);
  const landed = moveLook(1100, false);
  assert.equal(landed.flying, false, "at the new leader's cell it is a frame, not a square over the number");
  assert.equal(landed.alpha, 1);
  const fading = moveLook(1550, false);
  assert.ok(!fading.flying && fading.alpha > 0 && fading.alpha < 1, `fading: ${JSON.stringify(fading)}`);
  assert.equal(moveLook(2000, false).alpha, 0, "gone");
  // Paused in flight (an explain stop, a speaker's pause): drawn landed, where it holds.
  assert.deepEqual(moveLook(550, false, true), { flying: false, along: 1, alpha: 1 });
  assert.equal(moveLook(1550, false, true).alpha, moveLook(1550, false).alpha, "a landed move fades the same, paused or not");
  // Reduced motion: never flies, fades in place.
  for (const ms of [0, 500, 1100, 1900]) assert.equal(moveLook(ms, true).flying, false);
  assert.ok(moveLook(0, true).alpha > moveLook(1000, true).alpha);
});

/** Points along a flow's path, densely enough to read its height over any pixel. */
function along(p: FlowPath): { x: number; y: number }[] {
  return Array.from({ length: 401 }, (_, i) => flowPoint(p, i / 400));
}

/** The widest flow line (traffic.ts drawFlows), layout units at scale 1. */
const WIDEST = 6;

test("a flow between brokers of one row arcs over the row through its lane: clear of the boxes' edges, higher the farther apart", () => {
  // Six brokers in one row under three controllers, as at 1440 px.
  const width = 1400;
  const top = controllersBottom(3, width) + SUMMARY_H;
  const boxes = brokerBoxes(6, width, 900, top, 200);
  const edge = boxes[0].y;
  // The summary line's words end 23 units under the controllers (render.ts drawSummary: a
  // 13 px line's baseline at 20), the lane under them.
  const ceiling = top - SUMMARY_H + 23;
  assert.equal(edge, top + flowLane(6));
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j < 6; j++) {
      if (i === j) continue;
      const pts = along(flowPath(boxes[i], boxes[j]));
      const highest = Math.min(...pts.map((q) => q.y));
      const apart = Math.abs(i - j);
      assert.ok(edge - highest >= 8, `${i}→${j}: rises ${edge - highest} over the edge`);
      assert.ok(highest - WIDEST / 2 >= ceiling + 3, `${i}→${j}: its line reaches ${highest - WIDEST / 2}, within 3 of the summary's words at ${ceiling}`);
      assert.ok(Math.abs(edge - highest - flowLift(apart)) < 0.01, `${i}→${j}: rises flowLift(${apart})`);
      // Over the boxes it passes (those between the two), well clear of their top edges.
      for (let k = Math.min(i, j) + 1; k < Math.max(i, j); k++) {
        const over = pts.filter((q) => q.x >= boxes[k].x && q.x <= boxes[k].x + boxes[k].w);
        assert.ok(over.length > 0 && over.every((q) => edge - q.y >= 8), `${i}→${j} over box ${k}: ${Math.max(...over.map((q) => q.y)) - edge}`);
      }
      // It leaves and lands on the boxes' top edges, within the boxes.
      assert.equal(pts[0].y, edge);
      assert.ok(pts[0].x > boxes[i].x && pts[0].x < boxes[i].x + boxes[i].w);
      assert.ok(pts[400].x > boxes[j].x && pts[400].x < boxes[j].x + boxes[j].w);
    }
  }
  // Into one broker from 1 to 4 columns away: four heights, the widest line's width apart up
  // to the lane's top, and nested: a farther one is over a nearer one everywhere the two run
  // side by side, and lands nearer the centre, so they never cross.
  const lifts = [1, 2, 3, 4, 5].map(flowLift);
  for (let k = 1; k < 4; k++) assert.ok(lifts[k] - lifts[k - 1] >= WIDEST, `lifts ${lifts}`);
  assert.ok(lifts[3] === FLOW_LIFT_MAX && lifts[4] === FLOW_LIFT_MAX, `lifts ${lifts}`);
  for (let from = 0; from < 3; from++) {
    const near = along(flowPath(boxes[from + 1], boxes[0]));
    const far = along(flowPath(boxes[from + 2], boxes[0]));
    // From the right, landing right of box 0's centre; the farther one nearer it (outside the nearer arc).
    assert.ok(far[400].x < near[400].x && near[400].x > boxes[0].x + boxes[0].w / 2, `from ${from + 2} lands left of from ${from + 1}`);
    for (const q of near) {
      const over = far.reduce((b, r) => (Math.abs(r.x - q.x) < Math.abs(b.x - q.x) ? r : b));
      if (Math.abs(over.x - q.x) < 2) assert.ok(over.y <= q.y + 0.5, `${from + 2}→0 under ${from + 1}→0 at x ${q.x}: ${over.y} vs ${q.y}`);
    }
  }
});

test("a flow between rows runs through the gap between them, from the upper box's foot to the lower box's top", () => {
  // Four brokers three to a row (a canvas 600 layout units wide): one in the second row.
  const boxes = brokerBoxes(4, 600, 900, 120, 150);
  assert.equal(boxes[3].x, boxes[0].x);
  const gap = (r: Rect) => ({ lo: r.y + r.h, hi: boxes[3].y });
  for (const [a, b] of [
    [1, 3],
    [3, 2],
    [0, 3],
  ]) {
    const upper = Math.min(a, b);
    const { lo, hi } = gap(boxes[upper]);
    assert.equal(hi - lo, GAP + flowLane(3));
    const pts = along(flowPath(boxes[a], boxes[b]));
    assert.ok(pts.every((q) => q.y >= lo - 1e-9 && q.y <= hi + 1e-9), `${a}→${b} stays between the rows`);
    assert.equal(a < b ? pts[0].y : pts[400].y, lo, "from the upper box's foot");
    assert.equal(a < b ? pts[400].y : pts[0].y, hi, "to the lower box's top");
  }
  // Into broker 3 from the three above it: three curves side by side, never crossing (at every
  // height the farther source's is to the right), landing apart.
  const into = [0, 1, 2].map((a) => along(flowPath(boxes[a], boxes[3])));
  for (let i = 0; i <= 400; i++) {
    assert.ok(into[0][i].x < into[1][i].x && into[1][i].x < into[2][i].x, `at ${i / 400}: ${into.map((p) => p[i].x)}`);
  }
  assert.ok(into[2][400].x - into[1][400].x >= 8 && into[1][400].x - into[0][400].x >= 8, "landing a head's width apart");
});

test("catch-up flows into one broker land spread along its edge, one per leader, in an order where none cross", () => {
  // Does an arc (or curve) a cross b between their ends? Sampled: where both run at one x, the
  // one on top stays on top.
  const crosses = (a: Point[], b: Point[]) => {
    let sign = 0;
    for (const q of a) {
      const r = b.reduce((m, o) => (Math.abs(o.x - q.x) < Math.abs(m.x - q.x) ? o : m));
      if (Math.abs(r.x - q.x) > 1 || Math.abs(r.y - q.y) < 1) continue;
      const s = Math.sign(r.y - q.y);
      if (sign && s !== sign) return true;
      sign = s;
    }
    return false;
  };
  for (const width of [370, 780, 1400]) {
    const boxes = brokerBoxes(8, width, 1200, 120, 200);
    const cols = boxes.filter((b) => b.y === boxes[0].y).length;
    for (let to = 0; to < boxes.length; to++) {
      // From every other broker in the target's row and the row above it.
      const froms = boxes.map((_, i) => i).filter((i) => i !== to && (boxes[i].y === boxes[to].y || boxes[i].y + boxes[i].h < boxes[to].y) && Math.abs(boxes[i].y - boxes[to].y) < 2 * boxes[to].h);
      if (froms.length < 2) continue;
      const xs = landings(boxes[to], froms.map((i) => boxes[i]));
      const paths = froms.map((i, k) => along(flowPath(boxes[i], boxes[to], xs[k])));
      const ends = paths.map((p) => p[400].x).sort((a, b) => a - b);
      const part = boxes[to].w / froms.length;
      // On the box's top edge, inside the box, a part of it apart: arrowheads (11 units wide at
      // most) do not touch while a part is wider than that.
      for (const p of paths) assert.equal(p[400].y, boxes[to].y);
      assert.ok(ends[0] > boxes[to].x && ends[ends.length - 1] < boxes[to].x + boxes[to].w, `${width}: into ${to} at ${ends}`);
      for (let k = 1; k < ends.length; k++) assert.ok(ends[k] - ends[k - 1] >= part - 1e-6, `${width}: into ${to} at ${ends}`);
      // None crosses another flow into the same broker from its own row (arcs nest) or from the
      // row above (curves side by side).
      for (let a = 0; a < froms.length; a++) {
        for (let b = a + 1; b < froms.length; b++) {
          if ((boxes[froms[a]].y === boxes[to].y) !== (boxes[froms[b]].y === boxes[to].y)) continue;
          assert.ok(!crosses(paths[a], paths[b]), `${width} px, ${cols} a row: ${froms[a]}→${to} crosses ${froms[b]}→${to}`);
        }
      }
    }
  }
  // A flow alone into its broker lands where flowPath puts it.
  const row = brokerBoxes(3, 800, 900, 120, 200);
  assert.deepEqual(landings(row[0], [row[1]]), [undefined]);
  assert.deepEqual(flowPath(row[1], row[0], undefined), flowPath(row[1], row[0]));
});

test("a node's news leaves the canvas once a later happening about it, or the frame, says otherwise", () => {
  const news = (decision: DecisionInfo["decision"], timeMs: number, more: Partial<DecisionInfo> = {}) => ({
    d: { timeMs, decision, reason: "", count: 1, leader: -1, oldLeader: -1, brokers: [1], ...more } as DecisionInfo,
  });
  const brokers = (fenced: boolean) => [{ id: 1, fenced }, { id: 2, fenced: false }] as BrokerState[];
  const controllers = [{ id: 3000, active: false }, { id: 3001, active: true }] as ControllerState[];
  const check = news("session_expired", 14_600, { node: 3001 });
  // The fenced record commits a few milliseconds after the session check that decided it.
  const fence = news("fenced", 14_604);
  const unfence = news("unfenced", 140_200);
  const other = news("fenced", 20_000, { brokers: [2] });
  // Fenced: the session check and the fence it caused stay together.
  assert.deepEqual(currentNews([check, fence], brokers(true), controllers), [check, fence]);
  // Broker 1 unfenced later: only that is news about broker 1; broker 2's news is its own,
  // but the frame shows broker 2 unfenced, so its fence is out of date too.
  assert.deepEqual(currentNews([check, fence, unfence, other], brokers(false), controllers), [unfence]);
  // A paused page whose toasts outlived what they say (no later toast came): the frame decides.
  assert.deepEqual(currentNews([check, fence], brokers(false), controllers), []);
  assert.deepEqual(currentNews([unfence], brokers(true), controllers), []);
  // A new active controller replaces the last one's news; a snapshot stays.
  const was = news("quorum_leader", 1_000, { leader: 3000 });
  const now = news("quorum_leader", 9_000, { leader: 3001 });
  const snap = news("snapshot", 5_000, { node: 3000 });
  assert.deepEqual(currentNews([was, snap, now], brokers(false), controllers), [snap, now]);
  assert.deepEqual(currentNews([was], brokers(false), controllers), []);
});

/** Points along a polyline, a unit or less apart. */
function alongRoute(route: { x: number; y: number }[]): { x: number; y: number }[] {
  const out = [route[0]];
  for (let i = 1; i < route.length; i++) {
    const a = route[i - 1];
    const b = route[i];
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y)));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}

test("a controller's link to a broker runs around the rows of boxes above it, never over a box", () => {
  // Rows of two (a phone), three (presenter mode at 800 px), one (a very narrow canvas), under
  // three controllers; 4, 4, 6 and 3 brokers, so that a last row may be short.
  for (const [width, n] of [
    [366, 4],
    [366, 6],
    [520, 4],
    [300, 3],
  ]) {
    const top = controllersBottom(3, width) + SUMMARY_H;
    const boxes = brokerBoxes(n, width, 2000, top, 150);
    const first = boxes[0].y;
    for (const c of controllerBoxes(3, width)) {
      const from = { x: c.x + c.w / 2, y: c.y + c.h };
      boxes.forEach((to, j) => {
        const name = `${width} px, ${n} brokers, controller at ${from.x} to broker ${j}`;
        const route = linkRoute(from, to, boxes);
        assert.deepEqual(route[0], from, name);
        assert.deepEqual(route[route.length - 1], { x: to.x + to.w / 2, y: to.y }, `${name}: ends at the box's top centre`);
        if (to.y === first) assert.equal(route.length, 2, `${name}: into the first row, straight`);
        // Nowhere inside a box (its own included: it ends on its top edge), nor within the
        // widest pulsing line's half and its offset (3 + 1.5) of another box's sides.
        const pts = alongRoute(route);
        for (const q of pts) {
          for (const [k, b] of boxes.entries()) {
            const clear = k === j ? 0 : 4.5;
            const inside = q.x > b.x - clear && q.x < b.x + b.w + clear && q.y > b.y - (k === j ? 0 : 0.01) && q.y < b.y + b.h + clear;
            assert.ok(!inside || (k !== j && q.y <= b.y), `${name}: at (${q.x}, ${q.y}) over box ${k}`);
          }
        }
        if (to.y > first) {
          // Down a gutter: between two columns where there are two, else the canvas's margin.
          const gx = route[1].x;
          const cols = new Set(boxes.map((b) => b.x)).size;
          const between = boxes.some((b) => b.x + b.w < gx) && boxes.some((b) => b.x > gx);
          assert.equal(between, cols > 1, `${name}: gutter at ${gx}`);
          assert.ok(boxes.every((b) => gx <= b.x - GAP / 2 + 1e-9 || gx >= b.x + b.w + GAP / 2 - 1e-9), `${name}: the gutter's middle`);
          assert.equal(route[1].y, first - 6, `${name}: turns down over the first row`);
        }
      });
    }
  }
});

test("no controller's link crosses a box it does not start or end at, the controllers' rows wrapped or not", () => {
  // 3 controllers in one row of compact boxes (a phone), 5 in two rows of them (3 and 2), 3
  // full boxes in one row; any broker.
  for (const [width, nc, nb] of [
    [366, 3, 4],
    [366, 5, 6],
    [300, 3, 3],
    [800, 3, 4],
  ]) {
    const cs = controllerBoxes(nc, width);
    const bottom = controllersBottom(nc, width);
    const bs = brokerBoxes(nb, width, 2000, bottom + SUMMARY_H, 150);
    const all = [...cs, ...bs];
    const clear = (route: { x: number; y: number }[], ends: Rect[], name: string) => {
      const pts = alongRoute(route);
      for (const q of pts.slice(1, -1)) {
        for (const [k, b] of all.entries()) {
          // Strictly inside, or in a gutter nearer a box's side than the link's offset and
          // half its width (3 + 1.5), past the box's top (a link ends on its own box's top).
          const m = ends.includes(b) ? 0 : 4.5;
          const inside = q.x > b.x - m && q.x < b.x + b.w + m && q.y > b.y && q.y < b.y + b.h;
          assert.ok(!inside, `${name}: at (${q.x}, ${q.y}) over box ${k}`);
        }
      }
    };
    for (const [i, c] of cs.entries()) {
      bs.forEach((b, j) => {
        const name = `${width} px, ${nc} controllers, controller ${i} to broker ${j}`;
        const route = controllerToBroker(c, b, cs, bottom, bs);
        assert.deepEqual(route[0], { x: c.x + c.w / 2, y: c.y + c.h }, name);
        assert.deepEqual(route[route.length - 1], { x: b.x + b.w / 2, y: b.y }, name);
        clear(route, [c, b], name);
      });
      cs.forEach((o, j) => {
        if (Math.abs(o.y - c.y) < 0.5) return; // along under the row: the anchors' own rule
        const name = `${width} px, ${nc} controllers, controller ${i} to controller ${j}`;
        const route = c.y < o.y ? controllersRoute(c, o, cs) : controllersRoute(o, c, cs);
        clear(route, [c, o], name);
      });
    }
  }
});

test("a ring around a replica cell lies in the gaps around it, never over a cell", () => {
  for (let cell = 1; cell <= 30; cell++) {
    const inner = cellInner(cell);
    const ring = cellRing(10 * cell, 10 * cell, cell);
    if (inner === cell) {
      assert.equal(ring, undefined, `${cell} px: no gap, no ring`);
      continue;
    }
    assert.ok(ring, `${cell} px`);
    // The stroke's band, on each side, is the gap between this cell's square and the next's.
    const gap = cell - inner;
    assert.equal(ring.lw, gap, `${cell} px`);
    assert.equal(ring.x - ring.lw / 2, 10 * cell - gap, `${cell} px: the gap left of the cell`);
    assert.equal(ring.x + ring.w + ring.lw / 2, 10 * cell + inner + gap, `${cell} px: the gap right of it`);
    assert.equal(ring.y - ring.lw / 2, 10 * cell - gap, `${cell} px: above`);
    assert.equal(ring.y + ring.h - ring.lw / 2, 10 * cell + inner, `${cell} px: below, from the cell's edge`);
  }
});

test("a message travels a route by its length, and a link's two directions run side by side along it", () => {
  const route = [
    { x: 0, y: 0 },
    { x: 30, y: 40 },
    { x: 30, y: 140 },
    { x: 90, y: 148 },
  ];
  assert.deepEqual(routePoint(route, 0), route[0]);
  assert.deepEqual(routePoint(route, 1), route[3]);
  // 50 + 100 + ~60.5 long: a fifth of the way is 42 along the first segment.
  const total = 50 + 100 + Math.hypot(60, 8);
  const q = routePoint(route, 42 / total);
  assert.ok(Math.abs(q.x - 25.2) < 1e-9 && Math.abs(q.y - 33.6) < 1e-9, JSON.stringify(q));
  assert.deepEqual(routePoint(route, 100 / total), { x: 30, y: 90 });
  // Offset by 3: every segment parallel to its own, 3 to its left.
  const off = offsetRoute(route, 3);
  for (let i = 1; i < route.length; i++) {
    const [a, b, c, d] = [route[i - 1], route[i], off[i - 1], off[i]];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    const cross = (p: { x: number; y: number }) => ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) / len;
    assert.ok(Math.abs(cross(c) - 3) < 1e-9 && Math.abs(cross(d) - 3) < 1e-9, `segment ${i}: ${cross(c)}, ${cross(d)}`);
  }
});

test("a leader move's caption gives way to later news that says otherwise of its brokers", () => {
  const news = (decision: DecisionInfo["decision"], broker: number, timeMs: number) => ({
    d: { timeMs, decision, reason: "", count: 1, leader: -1, oldLeader: -1, brokers: [broker] } as DecisionInfo,
  });
  // Broker 1's fence moved two leaderships to broker 4; the news of the fence stays with it.
  const mv = { oldLeader: 1, leader: 4, timeMs: 14_604 };
  assert.equal(moveSuperseded(mv, [news("session_expired", 1, 14_600), news("fenced", 1, 14_604), news("fenced", 1, 14_610)]), false);
  // Broker 1 unfenced later: the move's "fence of broker 1" is history, not news.
  assert.equal(moveSuperseded(mv, [news("fenced", 1, 14_604), news("unfenced", 1, 140_200)]), true);
  // Broker 4, the new leader, fenced later.
  assert.equal(moveSuperseded(mv, [news("fenced", 4, 20_000)]), true);
  // Another broker's news, or broker 1 unfenced before the move, leaves it.
  assert.equal(moveSuperseded(mv, [news("unfenced", 2, 20_000), news("unfenced", 1, 10_000)]), false);
});

test("while only dots travel, the slow picture is drawn again every SLOW_MS, not on every animation frame", () => {
  assert.equal(slowReused(1000, 1000, true), true, "the drawing that drew it");
  assert.equal(slowReused(1000 + SLOW_MS - 1, 1000, true), true);
  assert.equal(slowReused(1000 + SLOW_MS, 1000, true), false, "SLOW_MS on: drawn again");
  assert.equal(slowReused(999, 1000, true), false, "the clock went back");
  assert.equal(slowReused(1010, undefined, true), false, "none kept");
  assert.equal(slowReused(1010, 1000, false), false, "a leader move travels, or nothing does: drawn whole");
});
