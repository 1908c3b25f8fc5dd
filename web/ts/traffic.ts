// Traffic on the canvas: what travels between the nodes (heartbeats and their answers, metadata
// fetches, AlterPartition, votes, BeginQuorumEpoch), replication flows between brokers, leader
// moves and balancer runs, drawn on a transparent layer over the cluster canvas with its own
// animation loop. Everything comes from the frames' `traffic` (the cluster's one stream of
// happenings, web/PROTOCOL.md), so the drawing, the explain stops and the narration agree.
//
// Time: a message leaves at the screen moment its cluster time is shown. The model's network
// takes a millisecond or two, which no eye can follow, so every hop is drawn over HOP_MS of
// screen time (the legend says so) and an answer sets off when its request has arrived. When a
// kind of message comes faster than an eye can follow (many per screen second: high speed, many
// nodes), its messages are not drawn one by one: the link they travel pulses and carries a
// count per second instead. Replication flows are lines whose width follows the bytes per
// second the model moves (catch-up and steady), since it replicates in closed form.
//
// prefers-reduced-motion: nothing travels; a message fades in at its destination end of the
// link and out again, and the leader moves are shown in place.

import { Frame, NO_SLOT } from "./frame";
import { GAP, STRIP_COL_PX, STRIP_GAP_PX, cellRing, flowLift, textPlate, type Rect } from "./layout";
import type { BrokerState, ControllerState, DecisionInfo, FlowInfo, MessageInfo, Traffic } from "./protocol";
import { cssReader, type BrokerGeometry, type Renderer } from "./render";

/** Screen milliseconds one hop takes to draw. */
export const HOP_MS = 420;
/**
 * A kind of message is drawn as pulsing links, not one by one, when more than MAX_IN_FLIGHT of
 * it would travel at once or its requests come more often than MAX_PER_SECOND per screen second.
 */
const MAX_IN_FLIGHT = 24;
const MAX_PER_SECOND = 30;
/** How long a leader move, a run's highlight and a link's pulse stay on screen (ms). */
const MOVE_MS = 1100;
const RUN_MS = 3200;
/** How often the steady flows' split is recomputed (a pass over the partitions), screen ms. */
const STEADY_MS = 500;
/** At most this many leader moves are drawn one by one per frame; the rest travel as one. */
const MAX_MOVES = 24;
/**
 * While nothing travels across the canvas (no message dot, no leader move under way), what the
 * layer shows changes slowly: links pulse over a second, labels fade over half a second, the
 * catch-up flows' dashes crawl 25 px a second. Such a picture is drawn at most every SLOW_MS of
 * screen time (20 a second, which reads as smooth for those); a travelling dot is drawn on every
 * animation frame. Each drawing is a canvas the browser rasterizes, composites and copies.
 */
export const SLOW_MS = 50;

/**
 * Whether something crosses the canvas at screen time `now`: a message dot (it travels for
 * `hop` ms from its start) or a leader move (MOVE_MS), under way or setting off within SLOW_MS.
 */
export function travelling(now: number, hop: number, sprites: readonly { start: number }[], moves: readonly { start: number }[]): boolean {
  for (const sp of sprites) if (now - sp.start >= -SLOW_MS && now - sp.start <= hop) return true;
  for (const mv of moves) if (now - mv.start >= -SLOW_MS && now - mv.start <= MOVE_MS) return true;
  return false;
}

/** How long a landed leader move's frame stays around the new leader's cell, fading (screen ms). */
const LANDED_MS = 900;

/**
 * How a leader move looks `ms` after it set off: flying, a filled square `along` its arc
 * (0 at the old leader's cell, 1 at the new one's, eased); landed, a frame around the new
 * leader's cell at opacity `alpha`, gone (alpha 0) LANDED_MS later. A square is never left on a
 * cell: it would hide the cell's number, and a paused run (an explain stop, a speaker talking
 * over it) holds the picture as long as it likes; so a move that the pause catches in flight
 * is drawn landed (`paused`). With reduced motion nothing flies: the frame is there from the
 * start and fades.
 */
export function moveLook(ms: number, reduced: boolean, paused = false): { flying: boolean; along: number; alpha: number } {
  const k = Math.max(0, Math.min(1, ms / MOVE_MS));
  if (reduced) return { flying: false, along: 1, alpha: Math.min(1, 2 * (1 - k) + 0.3) };
  if (ms < MOVE_MS) return paused ? { flying: false, along: 1, alpha: 1 } : { flying: true, along: k < 0.5 ? 2 * k * k : 1 - (-2 * k + 2) ** 2 / 2, alpha: 1 };
  return { flying: false, along: 1, alpha: Math.max(0, 1 - (ms - MOVE_MS) / LANDED_MS) };
}

/**
 * Whether the layer draws again at screen time `now`, when only time, the frame or the
 * canvas under it moved on since it drew at `drawnAt` (`changed`: the frame or the canvas did).
 * Playing, a picture in which nothing travels waits SLOW_MS; paused (the layer's clock stands
 * still), a new frame is a step the reader asked for and is drawn at once.
 */
export function drawDue(now: number, drawnAt: number, changed: boolean, playing: boolean, travels: boolean): boolean {
  if (now === drawnAt && !changed) return false;
  if (!playing || travels) return true;
  return now - drawnAt >= SLOW_MS || now < drawnAt;
}

/**
 * Whether a drawing at screen time `now` in which only message dots travel (`dotsOnly`) takes
 * over the slow picture drawn at `at` (undefined: none is kept) rather than drawing it again:
 * within SLOW_MS of it, as a picture in which nothing travels waits SLOW_MS (drawDue).
 */
export function slowReused(now: number, at: number | undefined, dotsOnly: boolean): boolean {
  return dotsOnly && at !== undefined && now >= at && now - at < SLOW_MS;
}

/** A point in CSS px (or layout units, where said). */
export interface Point {
  x: number;
  y: number;
}

interface Sprite {
  m: MessageInfo;
  start: number;
  drawn?: boolean;
}

/** One thing the layer drew, in the order it first appeared: what tests and the curious read. */
export interface Drawn {
  /** Its number: 0 for the first thing the layer drew, counting on while old entries are dropped. */
  seq: number;
  kind: "message" | "pulse" | "move" | "run" | "decision";
  api?: string;
  response?: boolean;
  from?: number;
  to?: number;
  sentMs?: number;
  note?: string;
  label?: string;
  decision?: string;
  timeMs?: number;
  withheld?: number;
  deferred?: number;
}

/** How many Drawn entries the layer keeps. */
const DRAWN_KEEP = 4000;

/** A label placed in a drawing (label), drawn over its traffic (drawLabels): CSS px. */
interface PendingLabel {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  size: number;
  font: string;
  colour: string;
  alpha: number;
}

/** The slow part of a drawing, kept apart (TrafficLayer.slow): its pixels and what it placed. */
interface SlowPicture {
  canvas: HTMLCanvasElement;
  ctx: CanvasRenderingContext2D;
  /** Whether it holds the slow part of the last drawing, drawn at screen time `at`. */
  valid: boolean;
  at: number;
  captions: Caption[];
  pending: PendingLabel[];
  labels: { kind: string; text: string; x: number; y: number; w: number; h: number }[];
  /** The labels' boxes it placed (not the renderer's texts, which are taken afresh). */
  placed: { x: number; y: number; w: number; h: number }[];
  flowsDrawn: { kind: string; from: number; to: number; rowsBetween: number; pts: number[][] }[];
  linksDrawn: { api: string; from: number; to: number; pts: number[][] }[];
  routes: Map<string, Point[] | undefined>;
}

interface Toast {
  d: DecisionInfo;
  start: number;
}

interface Pulse {
  from: number;
  to: number;
  api: string;
  perSecond: number;
  at: number;
}

interface Move {
  drawn?: boolean;
  partition: number;
  oldLeader: number;
  leader: number;
  label: string;
  count: number;
  start: number;
  /** Its cluster time. */
  timeMs: number;
}

interface RunMark {
  decision: DecisionInfo;
  start: number;
  /** Partition indexes the gate withheld and the cap deferred, as the frame showed them. */
  withheld: number[];
  deferred: number[];
}

/**
 * A line for the caption band (drawCaptions). short, where given, says the same without the
 * legend's word for how it is drawn ("(dashed)"): the band uses it where the whole text does
 * not fit in the lines left (a phone's band holds two).
 */
interface Caption {
  text: string;
  short?: string;
  colour: string;
  rank: number;
}

/**
 * The caption band's order (drawCaptions): a balancer run first, then a node's news (session
 * checks, fences, a new active controller), leader moves, catch-up flows, and last what is
 * drawn as pulsing links.
 */
const RANK_RUN = 0;
const RANK_NEWS = 1;
const RANK_MOVE = 2;
const RANK_FLOW = 3;
const RANK_COUNTED = 4;

/** How long a decision's label stays beside its node (screen ms). */
const TOAST_MS = 2600;

/** A decision's short label on the canvas (the explain card and the narration carry the sentence). */
const TOAST_WORDS: Record<string, (d: DecisionInfo) => string> = {
  session_expired: (d) => `session check: broker ${d.brokers?.[0]} silent → fence`,
  fenced: (d) => `broker ${d.brokers?.[0]} fenced`,
  unfenced: (d) => `broker ${d.brokers?.[0]} unfenced`,
  quorum_leader: (d) => `controller ${d.leader} active`,
  snapshot: (d) => `controller ${d.node} took a snapshot`,
};

/**
 * What a node's news is about, and what it says of it: a later happening about the same
 * subject that says otherwise replaces it (a session check's fence is said again by the
 * fenced record that follows it by a few milliseconds; an unfence says otherwise).
 */
function newsClaim(d: DecisionInfo): string {
  switch (d.decision) {
    case "unfenced":
      return "unfenced";
    case "quorum_leader":
      return String(d.leader);
    case "snapshot":
      return "snapshot";
    default:
      return "fenced";
  }
}

function newsSubject(d: DecisionInfo): string {
  switch (d.decision) {
    case "quorum_leader":
      return "quorum";
    case "snapshot":
      return `snapshot ${d.node}`;
    default:
      return `broker ${d.brokers?.[0]}`;
  }
}

/**
 * The node news (toasts) still worth showing over a frame: a toast is dropped once a later one
 * about the same subject says otherwise (broker 1 unfenced after broker 1 fenced, a new active
 * controller) and when the frame no longer shows what it says (a fenced broker that the frame shows
 * unfenced, an active controller that is not): a paused page or a fast run keeps a toast for
 * TOAST_MS of screen time, which may span minutes of the cluster's, and a caption that
 * contradicts the boxes beside it misleads more than none. A session check and the fence it
 * caused stay together.
 */
export function currentNews<T extends { d: DecisionInfo }>(toasts: readonly T[], brokers: readonly BrokerState[], controllers: readonly ControllerState[]): T[] {
  const fenced = (id: number | undefined) => brokers.find((b) => b.id === id)?.fenced;
  return toasts.filter((t) => {
    const d = t.d;
    const subject = newsSubject(d);
    const claim = newsClaim(d);
    if (toasts.some((u) => u.d.timeMs > d.timeMs && newsSubject(u.d) === subject && newsClaim(u.d) !== claim)) return false;
    switch (d.decision) {
      case "session_expired":
      case "fenced":
        return fenced(d.brokers?.[0]) === true;
      case "unfenced":
        return fenced(d.brokers?.[0]) === false;
      case "quorum_leader":
        return controllers.some((c) => c.id === d.leader && c.active);
      default:
        return true;
    }
  });
}

/**
 * Whether a leader move's caption is out of date: later news (cluster time) says otherwise of
 * one of its brokers: the old leader unfenced (broker 1 back after its fence moved its
 * leaderships away), or the new leader fenced. As with the news (currentNews), a later
 * happening about a broker replaces an earlier one.
 */
export function moveSuperseded(mv: { oldLeader: number; leader: number; timeMs: number }, news: readonly { d: DecisionInfo }[]): boolean {
  return news.some((t) => {
    const d = t.d;
    if (d.timeMs <= mv.timeMs) return false;
    const id = d.brokers?.[0];
    return (d.decision === "unfenced" && id === mv.oldLeader) || ((d.decision === "fenced" || d.decision === "session_expired") && id === mv.leader);
  });
}

/** A message kind's look: colour variable, fallback and whether it is drawn as a square. */
const LOOKS: Record<string, { v: string; fb: string; square?: boolean; label: string }> = {
  BrokerHeartbeat: { v: "--c-leader", fb: "#0072b2", label: "heartbeat" },
  BrokerRegistration: { v: "--c-leader", fb: "#0072b2", square: true, label: "registration" },
  Fetch: { v: "--muted", fb: "#555555", label: "metadata fetch" },
  FetchSnapshot: { v: "--muted", fb: "#555555", square: true, label: "snapshot fetch" },
  AlterPartition: { v: "--s-fenced", fb: "#e69f00", square: true, label: "AlterPartition" },
  Vote: { v: "--s-shutdown", fb: "#cc79a7", label: "vote" },
  BeginQuorumEpoch: { v: "--s-shutdown", fb: "#cc79a7", square: true, label: "BeginQuorumEpoch" },
  EndQuorumEpoch: { v: "--s-shutdown", fb: "#cc79a7", square: true, label: "EndQuorumEpoch" },
};

/** Short words for an election kind, for the leader-move label. */
export function electionWords(d: Pick<DecisionInfo, "election" | "trigger">): string {
  const kind = (d.election ?? "").replace("_", " ");
  return d.trigger ? `${kind} · ${d.trigger}` : kind;
}

/**
 * Splits each broker's steady serving rate (bytes/s its leaders send to in-sync followers) over
 * its followers, in proportion to the in-sync follower replicas each holds of its partitions.
 * Both directions of a pair are summed into one line (from < to).
 */
export function steadyFlows(f: Frame, perBroker: number[]): { from: number; to: number; bps: number }[] {
  const nb = f.body.brokers.length;
  const pairs = new Float64Array(nb * nb);
  const served = new Float64Array(nb);
  const stride = f.layout.stride;
  for (let p = 0; p < f.count; p++) {
    const lp = f.state[4 * p];
    if (lp === NO_SLOT) continue;
    const leader = f.layout.replicas[p * stride + lp];
    if (leader === NO_SLOT || leader >= nb) continue;
    for (let w = f.isrWords[p]; w !== 0; w >>>= 4) {
      const pos = (w & 0xf) - 1;
      if (pos === lp) continue;
      const follower = f.layout.replicas[p * stride + pos];
      if (follower === NO_SLOT || follower >= nb) continue;
      pairs[leader * nb + follower]++;
      served[leader]++;
    }
  }
  const out: { from: number; to: number; bps: number }[] = [];
  for (let a = 0; a < nb; a++) {
    for (let b = a + 1; b < nb; b++) {
      const ab = served[a] ? (perBroker[a] ?? 0) * (pairs[a * nb + b] / served[a]) : 0;
      const ba = served[b] ? (perBroker[b] ?? 0) * (pairs[b * nb + a] / served[b]) : 0;
      if (ab + ba > 0) out.push({ from: a, to: b, bps: ab + ba });
    }
  }
  return out;
}

/** A replication flow's path between two broker boxes: a cubic Bézier from `a` to `b`. */
export interface FlowPath {
  a: Point;
  c1: Point;
  c2: Point;
  b: Point;
}

/**
 * The path a replication flow from broker box `from` to box `to` takes (layout units). Between
 * boxes of one row, an arc over the row from top edge to top edge, as high as flowLift says.
 * Between rows, from the facing edges (the upper box's foot, the lower box's top) through the
 * gap between the rows. It leaves and lands off the boxes' centres, toward each other, so that
 * the flows into one broker from different brokers do not cross: arcs from farther away land
 * nearer the centre (over the nearer ones), flows from another row farther out. Where `land`
 * is given (landings) it lands there, at that x on `to`'s edge.
 */
export function flowPath(from: Rect, to: Rect, land?: number): FlowPath {
  const apart = Math.round((to.x - from.x) / (from.w + GAP));
  const k = Math.abs(apart);
  const row = Math.abs(from.y - to.y) < 0.5;
  // Off the centres toward each other: along a row the farther apart, the nearer the centre
  // (arcs nest); between rows the farther, the farther out (the curves keep their order).
  const spread = row ? Math.max(4, 36 - 10 * (k - 1)) : 14 * k;
  const off = (r: Rect) => Math.sign(apart) * Math.min(r.w / 2 - 10, spread);
  const ax = from.x + from.w / 2 + off(from);
  const bx = land ?? to.x + to.w / 2 - off(to);
  if (row) {
    // Both control points straight over the ends, 4/3 of the lift up: the arc leaves and lands
    // upright (a long flat arc would creep along the edges near its ends) and peaks `lift` over
    // the edge half way.
    const y = from.y;
    const cy = y - (4 / 3) * flowLift(k);
    return { a: { x: ax, y }, c1: { x: ax, y: cy }, c2: { x: bx, y: cy }, b: { x: bx, y } };
  }
  const down = to.y > from.y;
  const ay = down ? from.y + from.h : from.y;
  const by = down ? to.y : to.y + to.h;
  const d = (by - ay) / 2;
  return { a: { x: ax, y: ay }, c1: { x: ax, y: ay + d }, c2: { x: bx, y: by - d }, b: { x: bx, y: by } };
}

/**
 * Where the flows from boxes `froms` into box `to` land (layout units, x on `to`'s edge that
 * faces each, for flowPath), so that their arrowheads sit apart instead of piling into a blot:
 * those onto one edge spread evenly along it, one in each of as many equal parts, in an order in
 * which no two cross. Onto the top edge, from the left along the row first (the nearest
 * leftmost: its arc is the lowest, and the higher arcs from farther away land inside it), then
 * from the rows above from left to right, then from the right along the row (the farthest
 * first); onto the bottom edge, from the rows below from left to right. A flow alone on its
 * edge lands where flowPath puts it (undefined).
 */
export function landings(to: Rect, froms: readonly Rect[]): (number | undefined)[] {
  const out: (number | undefined)[] = new Array(froms.length).fill(undefined);
  const top: { i: number; key: number }[] = [];
  const bottom: { i: number; key: number }[] = [];
  froms.forEach((f, i) => {
    const dx = f.x + f.w / 2 - (to.x + to.w / 2);
    if (Math.abs(f.y - to.y) < 0.5) top.push({ i, key: dx < 0 ? -1e6 - dx : 1e6 - dx });
    else (f.y < to.y ? top : bottom).push({ i, key: dx });
  });
  for (const edge of [top, bottom]) {
    if (edge.length < 2) continue;
    edge.sort((a, b) => a.key - b.key || a.i - b.i);
    edge.forEach(({ i }, k) => {
      out[i] = to.x + (to.w * (k + 0.5)) / edge.length;
    });
  }
  return out;
}

/** The point of path p at parameter t in [0, 1]. */
export function flowPoint(p: FlowPath, t: number): Point {
  const u = 1 - t;
  const w0 = u * u * u;
  const w1 = 3 * u * u * t;
  const w2 = 3 * u * t * t;
  const w3 = t * t * t;
  return { x: w0 * p.a.x + w1 * p.c1.x + w2 * p.c2.x + w3 * p.b.x, y: w0 * p.a.y + w1 * p.c1.y + w2 * p.c2.y + w3 * p.b.y };
}

/**
 * How far over the first row of brokers a link down a gutter turns into it (layout units):
 * inside the row's lane, clear of the boxes' top edges by more than a line and its offset.
 */
const GUTTER_TURN = 6;

/**
 * The way a controller's link to broker box `to` runs (layout units), as a polyline from
 * `from` (the foot of the controller's box) to the box's top centre. Into the first row of
 * brokers it runs straight. Into a lower row a straight line would cut across the boxes of
 * the rows above, their texts and cells, so it runs to the top of the gutter beside the box
 * (between it and its neighbour, the one nearer the controller; the canvas's margin only for
 * a single column), down the gutter past the rows above and, through the middle of the gap
 * over the box's row, to its top centre. Message dots travel it (routePoint), and the links
 * into one box all come down its one gutter.
 */
export function linkRoute(from: Point, to: Rect, boxes: readonly Rect[]): Point[] {
  const top = { x: to.x + to.w / 2, y: to.y };
  const first = Math.min(...boxes.map((b) => b.y));
  const above = boxes.filter((b) => b.y + b.h <= to.y);
  if (to.y <= first + 0.5 || from.y >= to.y || above.length === 0) return [from, top];
  const left = Math.min(...boxes.map((b) => b.x));
  const right = Math.max(...boxes.map((b) => b.x + b.w));
  const sides = [to.x - GAP / 2, to.x + to.w + GAP / 2];
  const inner = sides.filter((x) => x > left && x < right);
  const gx = (inner.length ? inner : sides).reduce((a, b) => (Math.abs(b - from.x) < Math.abs(a - from.x) ? b : a));
  // The gap over the box's row begins at the foot of the row above it.
  const gy = Math.max(...above.map((b) => b.y + b.h)) + GAP / 2;
  return [from, { x: gx, y: first - GUTTER_TURN }, { x: gx, y: gy }, top];
}

/**
 * The way down from the foot of box `from` (its bottom centre) to depth `until`, past the
 * boxes below it that begin above `until` (the controllers' later rows, on a canvas too narrow
 * for them side by side), as a polyline (layout units). Straight down where no such box is in
 * the way; else through the middle of the gap under `from`'s row to the nearest gutter free of
 * all of them (between two boxes of a row, or beside a row: a short row is centred, so its
 * sides are free) and down it. A line down it is GAP/2 from the boxes, room for a link's two
 * directions side by side (offsetRoute). Returns just the foot when `until` is not below it.
 */
export function gutterDown(from: Rect, until: number, boxes: readonly Rect[]): Point[] {
  const foot = { x: from.x + from.w / 2, y: from.y + from.h };
  if (until <= foot.y) return [foot];
  const between = boxes.filter((b) => b.y > foot.y && b.y < until);
  const free = (x: number) => between.every((b) => x <= b.x - GAP / 2 + 1e-6 || x >= b.x + b.w + GAP / 2 - 1e-6);
  if (free(foot.x)) return [foot, { x: foot.x, y: until }];
  let gx = foot.x;
  let best = Infinity;
  for (const b of between) {
    for (const x of [b.x - GAP / 2, b.x + b.w + GAP / 2]) {
      const d = Math.abs(x - foot.x);
      if (free(x) && d < best - 1e-6) {
        best = d;
        gx = x;
      }
    }
  }
  const gy = foot.y + GAP / 2;
  return [foot, { x: foot.x, y: gy }, { x: gx, y: gy }, { x: gx, y: until }];
}

/**
 * The way a link between two controllers' boxes in different rows runs (layout units), from
 * the upper box's foot to the lower box's top centre: down to the gap over the lower box's
 * row (gutterDown, around the rows between them), along it and down into the box. (Within a
 * row the link runs straight along under the row, never through a box.)
 */
export function controllersRoute(upper: Rect, lower: Rect, controllers: readonly Rect[]): Point[] {
  const gy = lower.y - GAP / 2;
  const down = gutterDown(upper, gy, controllers);
  const x = lower.x + lower.w / 2;
  return [...down, { x, y: gy }, { x, y: lower.y }];
}

/**
 * The way a link from controller box `from` to broker box `to` runs (layout units): out of the
 * controllers' rows (down to `bottom`, their last row's foot) by gutterDown, so that it
 * crosses no controller's box of a later row, then on as linkRoute says, around the rows of
 * brokers above `to`.
 */
export function controllerToBroker(from: Rect, to: Rect, controllers: readonly Rect[], bottom: number, brokers: readonly Rect[]): Point[] {
  const out = gutterDown(from, bottom, controllers);
  return [...out, ...linkRoute(out[out.length - 1], to, brokers).slice(1)];
}

/** The point of a polyline at fraction t in [0, 1] of its length. */
export function routePoint(route: readonly Point[], t: number): Point {
  if (t <= 0) return route[0];
  if (t >= 1) return route[route.length - 1];
  let total = 0;
  for (let i = 1; i < route.length; i++) total += Math.hypot(route[i].x - route[i - 1].x, route[i].y - route[i - 1].y);
  let left = t * total;
  for (let i = 1; i < route.length; i++) {
    const a = route[i - 1];
    const b = route[i];
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (left <= len || i === route.length - 1) {
      const k = len ? Math.min(1, left / len) : 1;
      return { x: a.x + (b.x - a.x) * k, y: a.y + (b.y - a.y) * k };
    }
    left -= len;
  }
  return route[route.length - 1];
}

/**
 * The polyline `d` to the left of `route` (to its right for d < 0), its corners mitred: a
 * link's requests and answers run side by side along it.
 */
export function offsetRoute(route: readonly Point[], d: number): Point[] {
  const normal = (a: Point, b: Point) => {
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    return { x: -(b.y - a.y) / len, y: (b.x - a.x) / len };
  };
  return route.map((p, i) => {
    const n1 = i > 0 ? normal(route[i - 1], p) : normal(p, route[i + 1]);
    const n2 = i < route.length - 1 ? normal(p, route[i + 1]) : n1;
    const mx = n1.x + n2.x;
    const my = n1.y + n2.y;
    const m = Math.hypot(mx, my) || 1;
    // The mitre: along the bisector, as far as keeps both sides d from the line.
    const k = d / Math.max(0.5, (mx * n1.x + my * n1.y) / m);
    return { x: p.x + (mx / m) * k, y: p.y + (my / m) * k };
  });
}

/** Formats bytes per second for a flow's label. */
export function rateText(bps: number): string {
  if (bps >= 1e9) return `${(bps / 1e9).toFixed(1)} GB/s`;
  if (bps >= 1e6) return `${(bps / 1e6).toFixed(bps >= 1e8 ? 0 : 1)} MB/s`;
  if (bps >= 1e3) return `${(bps / 1e3).toFixed(0)} KB/s`;
  return `${bps.toFixed(0)} B/s`;
}

/**
 * TrafficLayer draws the traffic over the cluster canvas. The page hands it every frame
 * (frame) with the speed it plays at; it draws on its own animation loop.
 */
export class TrafficLayer {
  readonly canvas: HTMLCanvasElement;
  /** The context drawn on: the layer's, or the slow picture's while that is drawn (drawSlow). */
  private ctx: CanvasRenderingContext2D;
  private readonly layerCtx: CanvasRenderingContext2D;
  /**
   * The slow part of the last drawing (flows, news, balancer runs, leader moves, pulsing links)
   * while message dots travel and nothing else does, with what it placed: the drawings of the
   * next SLOW_MS reuse it and draw only the dots and what goes over them. See draw.
   */
  private readonly slow: SlowPicture;
  private visible = true;
  private reduced = false;
  private speed = 1;
  private sprites: Sprite[] = [];
  private pulses = new Map<string, Pulse>();
  private moves: Move[] = [];
  private runs: RunMark[] = [];
  private toasts: Toast[] = [];
  /** What was drawn, oldest first (at most DRAWN_KEEP): the canvas element's `drawnLog`. */
  readonly drawnLog: Drawn[] = [];
  private drawnSeq = 0;
  /** Per API: an estimate of its messages per screen second. */
  private rates = new Map<string, number>();
  private lastFrameWall = 0;
  /** The layer's own clock (screen ms): it stands still while the simulation is paused. */
  private clock = 0;
  private lastWall = 0;
  private playing = true;
  /** Steady replication per (leader slot, follower slot), bytes/s, recomputed every STEADY_MS. */
  private steady: { from: number; to: number; bps: number }[] = [];
  private steadyAt = -Infinity;
  private frame: Frame | undefined;
  private traffic: Traffic | undefined;
  /** Actors to ring (explain mode): controller or broker ids. */
  private highlighted: number[] = [];
  /** The partition followed (hover or pin), or -1. */
  followed = -1;
  /** Frames drawn, and the last draw's cost in ms (data-* for tests and the benchmark). */
  private drawn = 0;
  private colours = new Map<string, string>();
  /**
   * Lines for the caption band at the canvas's foot, gathered during a drawing: the band shows
   * the most urgent (lowest rank, then the first given) that fit.
   */
  private captions: Caption[] = [];
  /**
   * What the drawing under way must not cover (label): the renderer's texts, badges, bars and
   * replica cells, then the labels placed so far (CSS px).
   */
  private placed: { x: number; y: number; w: number; h: number }[] = [];
  /**
   * The flows of the drawing under way, while the canvas records its texts (data-flow-paths):
   * points along each (layout units) and how many rows of brokers lie between its two boxes.
   */
  private flowsDrawn: { kind: string; from: number; to: number; rowsBetween: number; pts: number[][] }[] = [];
  /** The controllers' links of the drawing under way (routes' corners, layout units), for data-link-paths likewise. */
  private linksDrawn: { api: string; from: number; to: number; pts: number[][] }[] = [];
  /**
   * The routes of the drawing under way, by "from>to": every message dot and pulse of a link
   * runs the same way, so a route is worked out once a drawing, not once per message.
   */
  private readonly routes = new Map<string, Point[] | undefined>();
  /**
   * The labels placed in the drawing under way, drawn after all of its traffic (drawLabels):
   * where, in which font and colour (CSS px).
   */
  private pending: PendingLabel[] = [];
  /** The labels of the drawing under way (layout units), for data-labels while the canvas records its texts. */
  private labels: { kind: string; text: string; x: number; y: number; w: number; h: number }[] = [];
  private fg = "#1b1b1b";
  /** The font set last on the context (setFont; "" after anything that may reset it), and texts' widths by font. */
  private font = "";
  private widths = new Map<string, number>();
  private bg = "#ffffff";
  private focus = "#0072b2";
  /** What the canvas shows was drawn with (see draw); stale: something else changed since. */
  private drawnWith: { now: number; frame?: Frame; followed: number; highlighted: number[]; ink: readonly unknown[] } = { now: -1, followed: -1, highlighted: [], ink: [] };
  /** Something besides time and the frames changed (a resize, the palette, a toggle): draw at once. */
  private stale = true;
  /** The layer's (and the cluster canvas's) content box in CSS px, as last placed. */
  private cssW = 1;
  private cssH = 1;

  constructor(
    private readonly base: HTMLCanvasElement,
    private readonly renderer: Renderer,
  ) {
    this.canvas = document.createElement("canvas");
    this.canvas.className = "traffic-layer";
    (this.canvas as HTMLCanvasElement & { drawnLog: Drawn[] }).drawnLog = this.drawnLog;
    this.canvas.setAttribute("aria-hidden", "true");
    base.insertAdjacentElement("afterend", this.canvas);
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("no 2D canvas context");
    this.ctx = ctx;
    this.layerCtx = ctx;
    const slowCanvas = document.createElement("canvas");
    const slowCtx = slowCanvas.getContext("2d");
    if (!slowCtx) throw new Error("no 2D canvas context");
    this.slow = { canvas: slowCanvas, ctx: slowCtx, valid: false, at: 0, captions: [], pending: [], labels: [], placed: [], flowsDrawn: [], linksDrawn: [], routes: new Map() };
    const mq = matchMedia("(prefers-reduced-motion: reduce)");
    const motion = () => {
      this.reduced = mq.matches;
      this.stale = true;
      this.canvas.dataset.motion = this.reduced ? "fade" : "travel";
    };
    motion();
    mq.addEventListener("change", motion);
    this.readPalette();
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => this.readPalette());
    // Placed when the canvas or its section changes size (what lies above the canvas in its
    // section moves it), not by reading layout in each frame's draw: the panels have just
    // changed the DOM then, and a read would force a layout in the middle of every frame.
    const placing = new ResizeObserver(() => this.place());
    placing.observe(base);
    if (base.parentElement) placing.observe(base.parentElement);
    this.place();
    const loop = (wall: number) => {
      requestAnimationFrame(loop);
      if (this.lastWall && this.playing) this.clock += Math.min(wall - this.lastWall, 250);
      this.lastWall = wall;
      this.draw(this.clock);
    };
    requestAnimationFrame(loop);
  }

  private readPalette(): void {
    this.stale = true;
    const v = cssReader(this.base);
    for (const look of Object.values(LOOKS)) this.colours.set(look.v, v(look.v, look.fb));
    this.fg = v("--fg", "#1b1b1b");
    this.bg = v("--bg", "#ffffff");
    this.focus = v("--focus", "#0072b2");
    this.colours.set("--c-leader", v("--c-leader", "#0072b2"));
    this.colours.set("--c-follower", v("--c-follower", "#56b4e9"));
    this.colours.set("--c-oos", v("--c-oos", "#d55e00"));
    this.colours.set("--s-running", v("--s-running", "#009e73"));
  }

  /**
   * Lays the layer exactly over the cluster canvas: its border box on the canvas's, so that
   * inside its own (transparent) border its content box is the canvas's.
   */
  private place(): void {
    const b = this.base;
    const style = this.canvas.style;
    const set = (name: "left" | "top" | "width" | "height", px: number) => {
      if (style[name] !== `${px}px`) style[name] = `${px}px`;
    };
    set("left", b.offsetLeft);
    set("top", b.offsetTop);
    set("width", b.offsetWidth);
    set("height", b.offsetHeight);
    this.fitPixels();
  }

  /**
   * Gives the layer the canvas's pixels, one for one: as many, in the same content box, so the
   * browser scales both alike and a line the layer draws in the gap between two replica cells
   * lands in that gap, not half over a cell. It draws in the renderer's CSS pixels (the
   * canvas's pixels over the device pixel ratio). Only what changed is written: a canvas's
   * width or height written clears it and reallocates its pixels. Reads no layout, so each
   * drawing checks it (the renderer may have resized its pixels since the layer was placed).
   */
  private fitPixels(): void {
    const b = this.base;
    const dpr = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    this.cssW = b.width / dpr;
    this.cssH = b.height / dpr;
    if (this.canvas.width !== b.width || this.canvas.height !== b.height) this.stale = true;
    if (this.canvas.width !== b.width) this.canvas.width = b.width;
    if (this.canvas.height !== b.height) this.canvas.height = b.height;
  }

  /** Shows or hides the traffic (the toolbar's toggle). */
  setVisible(on: boolean): void {
    this.visible = on;
    this.stale = true;
    this.canvas.hidden = !on;
    if (!on) this.clear();
  }

  get shown(): boolean {
    return this.visible;
  }

  /** Forgets what is travelling: time went back, or a new run began. */
  clear(): void {
    this.stale = true;
    this.sprites = [];
    this.pulses.clear();
    this.moves = [];
    this.runs = [];
    this.toasts = [];
    this.rates.clear();
    this.steadyAt = -Infinity;
    this.lastFrameWall = 0;
  }

  /**
   * Freezes the drawing while the simulation is paused (an explain stop holds the world still),
   * after drawing it once more paused: leader moves under way land (moveLook).
   */
  setPlaying(on: boolean): void {
    if (on !== this.playing) this.stale = true;
    this.playing = on;
  }

  /** Rings these actors (node ids) until called again; [] clears. */
  highlight(ids: number[]): void {
    this.highlighted = ids;
  }

  /** Takes a frame's traffic, played at `speed` (cluster ms per screen ms). */
  take(f: Frame, speed: number): void {
    this.frame = f;
    this.speed = Math.max(speed, 0.01);
    const t = f.body.traffic;
    this.traffic = t;
    if (!t || !this.visible) return;
    const now = this.clock;
    const wallSpan = Math.max(16, this.lastFrameWall ? now - this.lastFrameWall : 16);
    this.lastFrameWall = now;
    // A kind of message is crowded when too many of it would be in flight at once, or when its
    // requests keep coming faster than an eye can follow (smoothed, so a burst of votes is not).
    const counts = new Map<string, number>();
    for (const l of t.links) if (!l.response) counts.set(l.api, (counts.get(l.api) ?? 0) + l.count);
    for (const api of new Set([...counts.keys(), ...this.rates.keys()])) {
      // Decaying over a screen second: a burst of a few votes counts as a few per second.
      this.rates.set(api, (this.rates.get(api) ?? 0) * Math.exp(-wallSpan / 1000) + (counts.get(api) ?? 0));
    }
    const flying = new Map<string, number>();
    for (const sp of this.sprites) flying.set(sp.m.api, (flying.get(sp.m.api) ?? 0) + 1);
    for (const m of t.messages) flying.set(m.api, (flying.get(m.api) ?? 0) + 1);
    const crowded = (api: string) =>
      t.messages.length === 0 || (flying.get(api) ?? 0) > MAX_IN_FLIGHT || (this.rates.get(api) ?? 0) > MAX_PER_SECOND;
    for (const m of t.messages) {
      if (crowded(m.api)) continue;
      // Leaves when its cluster time is on screen: the frame shows t.toMs now. A slow frame
      // (a loaded machine) brings messages whose time has already gone by: they still set off,
      // half a hop late at most, so that a vote exchange is never skipped for being late.
      let start = Math.max(now - (t.toMs - m.sentMs) / this.speed, now - this.hop() / 2);
      if (m.response) start += this.hop(); // its request is drawn arriving first
      this.sprites.push({ m, start });
    }
    for (const l of t.links) {
      if (!crowded(l.api)) continue;
      const key = `${l.api}|${l.response ? 1 : 0}|${l.from}|${l.to}`;
      const p = this.pulses.get(key);
      if (p) {
        // Messages per screen second, decaying over a second (as the rates above).
        p.perSecond = p.perSecond * Math.exp(-(now - p.at) / 1000) + l.count;
        p.at = now;
      } else {
        this.pulses.set(key, { from: l.from, to: l.to, api: l.api, perSecond: l.count, at: now });
        this.record({ kind: "pulse", api: l.api, response: l.response ?? false, from: l.from, to: l.to, timeMs: t.toMs });
      }
    }
    if (now - this.steadyAt > STEADY_MS) {
      this.steadyAt = now;
      this.steady = steadyFlows(f, t.steadyBytesPerSec);
    }
    let moves = 0;
    for (const d of t.decisions) {
      if (d.decision === "leader" && d.oldLeader >= 0 && d.leader >= 0 && moves < MAX_MOVES) {
        const start = now - (t.toMs - d.timeMs) / this.speed;
        this.moves.push({ partition: d.partitions?.[0] ?? -1, oldLeader: d.oldLeader, leader: d.leader,
          label: electionWords(d), count: d.count, start: Math.max(start, now - MOVE_MS / 2), timeMs: d.timeMs });
        moves++;
      } else if (d.decision === "balancer_run") {
        const run = { decision: d, start: now, ...this.runSets(f, d) };
        this.runs.push(run);
        this.record({ kind: "run", timeMs: d.timeMs, label: this.runText(d), withheld: run.withheld.length, deferred: run.deferred.length });
      } else if (d.decision === "session_expired" || d.decision === "fenced" || d.decision === "unfenced" || d.decision === "quorum_leader" || d.decision === "snapshot") {
        this.toasts.push({ d, start: now - (t.toMs - d.timeMs) / this.speed });
        this.record({ kind: "decision", decision: d.decision, timeMs: d.timeMs, label: d.reason });
      }
    }
    // For tests; an attribute written is a DOM mutation even when its value is the same.
    const d = this.canvas.dataset;
    if (d.sprites !== String(this.sprites.length)) d.sprites = String(this.sprites.length);
    if (d.pulses !== String(this.pulses.size)) d.pulses = String(this.pulses.size);
    if (d.moves !== String(this.moves.length)) d.moves = String(this.moves.length);
    if (d.flows !== String(t.flows.length)) d.flows = String(t.flows.length);
  }

  /**
   * What a balancer run left alone, read from the frame: partitions whose preferred replica is
   * gated (withheld by the gate) and those whose preferred replica is in the ISR, ungated and
   * not leading (deferred by the cap). Capped: the drawing rings at most a few hundred.
   */
  private runSets(f: Frame, d: DecisionInfo): { withheld: number[]; deferred: number[] } {
    const withheld: number[] = [];
    const deferred: number[] = [];
    const gated = new Set(d.brokers ?? []);
    const slots = f.body.brokers;
    const n = f.count;
    const stride = f.layout.stride;
    for (let p = 0; p < n && withheld.length + deferred.length < 600; p++) {
      const pref = f.layout.replicas[p * stride];
      if (pref === NO_SLOT || f.state[4 * p] === 0) continue; // no replicas, or the preferred leads
      const id = slots[pref]?.id;
      if (id === undefined) continue;
      if (gated.has(id)) withheld.push(p);
      else if (d.deferred && f.isrMaskOf(p) & 1 && f.state[4 * p] !== NO_SLOT) deferred.push(p);
    }
    return { withheld, deferred };
  }

  private record(d: Omit<Drawn, "seq">): void {
    this.drawnLog.push({ seq: this.drawnSeq++, ...d });
    if (this.drawnLog.length > DRAWN_KEEP) this.drawnLog.splice(0, this.drawnLog.length - DRAWN_KEEP);
  }

  private runText(d: DecisionInfo): string {
    const parts = [`electPreferred run ${d.run}: elected ${d.elected ?? 0}`];
    if (d.deferred) parts.push(`${d.deferred} deferred by the cap`);
    if (d.withheld) parts.push(`${d.withheld} withheld by the gate (broker ${(d.brokers ?? []).join(", ")})`);
    return parts.join(" · ");
  }

  /** Where node id is drawn (CSS px of the canvas), for placing a card beside it. */
  anchorOf(id: number): Point | undefined {
    return this.anchor(id);
  }

  /**
   * The way a message between nodes `from` and `to` runs (CSS px): between a controller and a
   * broker out of the controllers' rows down a gutter and around the rows of brokers above the
   * broker (controllerToBroker), between controllers of different rows around the rows between
   * them (controllersRoute), else a straight line between their anchors: no link crosses a box
   * it does not start or end at. Recorded for tests while the canvas records its texts, under
   * the kind of the first message that took it in this drawing.
   */
  private route(from: number, to: number, api: string): Point[] | undefined {
    const key = `${from}>${to}`;
    if (this.routes.has(key)) return this.routes.get(key);
    const pts = this.routeOf(from, to);
    this.routes.set(key, pts);
    if (pts && this.base.dataset.recordTexts) {
      const s = this.renderer.drawScale;
      this.linksDrawn.push({ api, from, to, pts: pts.map((q) => [q.x / s, q.y / s]) });
    }
    return pts;
  }

  /** Works out route(from, to). */
  private routeOf(from: number, to: number): Point[] | undefined {
    const a = this.anchor(from, to);
    const b = this.anchor(to, from);
    if (!a || !b) return undefined;
    const s = this.renderer.drawScale;
    const boxes = this.renderer.brokersDrawn.map((g) => g.box);
    const box = (id: number) => boxes[this.slotOf(id)];
    const cs = this.renderer.controllersDrawn;
    const cbox = (id: number) => {
      const i = this.frame?.body.controllers.findIndex((c) => c.id === id) ?? -1;
      return i >= 0 ? cs[i] : undefined;
    };
    const bottom = Math.max(...cs.map((r) => r.y + r.h));
    const css = (pts: Point[]) => pts.map((q) => ({ x: q.x * s, y: q.y * s }));
    const cf = cbox(from);
    const ct = cbox(to);
    if (cf && box(to)) return css(controllerToBroker(cf, box(to), cs, bottom, boxes));
    if (ct && box(from)) return css(controllerToBroker(ct, box(from), cs, bottom, boxes)).reverse();
    // Two controllers in different rows (a narrow canvas): around the rows between them.
    if (cf && ct && Math.abs(cf.y - ct.y) > 0.5) return cf.y < ct.y ? css(controllersRoute(cf, ct, cs)) : css(controllersRoute(ct, cf, cs)).reverse();
    return [a, b];
  }

  /** A node's anchor in CSS pixels: controllers at their bottom edge, brokers at their top. */
  private anchor(id: number, toward?: number): Point | undefined {
    const f = this.frame;
    if (!f) return undefined;
    const s = this.renderer.drawScale;
    const ci = f.body.controllers.findIndex((c) => c.id === id);
    if (ci >= 0) {
      const r = this.renderer.controllersDrawn[ci];
      if (!r) return undefined;
      // From the bottom edge: between controllers the traffic runs just under their row, so
      // it never covers their text.
      const between = toward !== undefined && f.body.controllers.some((c) => c.id === toward);
      return { x: (r.x + r.w / 2) * s, y: (r.y + r.h + (between ? 5 : 0)) * s };
    }
    const slot = f.body.brokers.findIndex((b) => b.id === id);
    const g = slot >= 0 ? this.renderer.brokersDrawn[slot] : undefined;
    if (!g) return undefined;
    return { x: (g.box.x + g.box.w / 2) * s, y: g.box.y * s };
  }

  /**
   * The centre of partition p's replica cell on broker `id` (CSS px) with half the cell's pitch
   * (`half`), else its box's centre (no `half`: the partition has no cell of its own drawn).
   */
  private cell(id: number, p: number): (Point & { half?: number }) | undefined {
    const g = this.geometry(id);
    if (!g) return undefined;
    const at = this.cellCorner(g, id, p);
    if (at) {
      const dpr = this.base.width / Math.max(1, this.cssW);
      const c = g.cells!.cell;
      return { x: (at.x + c / 2) / dpr, y: (at.y + c / 2) / dpr, half: c / 2 / dpr };
    }
    const s = this.renderer.drawScale;
    return { x: (g.box.x + g.box.w / 2) * s, y: (g.box.y + g.box.h / 2) * s };
  }

  /** Where broker id's box, grid and replicas were drawn, if it was. */
  private geometry(id: number): BrokerGeometry | undefined {
    const slot = this.slotOf(id);
    return slot >= 0 ? this.renderer.brokersDrawn[slot] : undefined;
  }

  /**
   * The top-left corner (device pixels) of partition p's replica cell in broker id's grid `g`,
   * if the grid draws it as a cell.
   */
  private cellCorner(g: BrokerGeometry, id: number, p: number): Point | undefined {
    const f = this.frame;
    if (!f || !g.cells || p < 0) return undefined;
    const hosted = f.layout.hosted[this.slotOf(id)].partitions;
    let lo = g.from;
    let hi = g.to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (hosted[mid] < p) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= g.to || hosted[lo] !== p || lo - g.from >= g.cells.fits) return undefined;
    const i = lo - g.from;
    const c = g.cells.cell;
    return { x: g.gx + (i % g.cells.cols) * c, y: g.gy + Math.floor(i / g.cells.cols) * c };
  }

  private colour(api: string): string {
    const look = LOOKS[api];
    return look ? (this.colours.get(look.v) ?? look.fb) : this.fg;
  }

  private draw(now: number): void {
    this.fitPixels();
    // The same moment of the same frame, drawn the same way, is on the canvas already (the
    // run is paused): a canvas drawn again is rasterized, composited and copied again.
    const d = this.drawnWith;
    const same = !this.stale && d.followed === this.followed && d.highlighted === this.highlighted;
    if (same) {
      // Only time, the frame or the canvas under the layer moved on.
      const changed = d.frame !== this.frame || d.ink !== this.renderer.ink;
      // With reduced motion nothing travels: messages and moves fade in place.
      const travels = !this.reduced && this.visible && travelling(now, this.hop(), this.sprites, this.moves);
      if (!drawDue(now, d.now, changed, this.playing, travels)) return;
    }
    // Only message dots travel (playing, no leader move under way): the rest of the picture
    // changes as slowly as when nothing travels, so it is drawn apart at most every SLOW_MS
    // and copied under the dots in between. Its strokes are most of what rasterizing the
    // layer costs, and a dot is nearly always on its way at 1× and 10×.
    const dotsOnly = this.playing && this.visible && !this.reduced && travelling(now, this.hop(), this.sprites, []) && !travelling(now, this.hop(), [], this.moves);
    const slow = this.slow;
    const fits = slow.canvas.width === this.canvas.width && slow.canvas.height === this.canvas.height;
    const reuse = same && fits && slowReused(now, slow.valid ? slow.at : undefined, dotsOnly);
    if (!dotsOnly) slow.valid = false;
    this.stale = false;
    // Kept in place, not a new object: draw runs on every animation frame.
    d.now = now;
    d.frame = this.frame;
    d.followed = this.followed;
    d.highlighted = this.highlighted;
    d.ink = this.renderer.ink;
    const t0 = performance.now();
    const ctx = this.ctx;
    const dpr = this.canvas.width / Math.max(1, this.cssW);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.visible || !this.frame) return;
    // A resize resets the context's state, the font with it.
    this.font = "";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    // Every stroke has round joins (the pulses' polylines, the dots' squares, the rings), set
    // here rather than left over from the last pulse, which a resize would reset to miters.
    ctx.lineJoin = "round";
    const s = this.renderer.drawScale;
    // Labels go around what the learner reads on the canvas, never over it.
    this.placed.length = 0;
    for (const r of this.renderer.ink) this.placed.push({ x: r.x * s, y: r.y * s, w: r.w * s, h: r.h * s });
    this.captions.length = 0;
    this.labels.length = 0;
    this.pending.length = 0;
    this.flowsDrawn.length = 0;
    this.linksDrawn.length = 0;
    this.routes.clear();
    if (reuse) this.reuseSlow();
    else if (dotsOnly) this.drawSlowApart(now, s, dpr);
    else this.drawSlow(now, s);
    if (dotsOnly) {
      // The slow picture's pixels, one for one, under the dots.
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(slow.canvas, 0, 0);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    this.drawSprites(now, s);
    this.drawHighlights(s);
    this.erasePlates(s);
    this.drawCaptions(s);
    // The labels last, over all the traffic: no line crosses their words either.
    this.drawLabels();
    if (this.base.dataset.recordTexts) {
      this.canvas.dataset.labels = JSON.stringify(this.labels);
      this.canvas.dataset.flowPaths = JSON.stringify(this.flowsDrawn);
      this.canvas.dataset.linkPaths = JSON.stringify(this.linksDrawn);
      this.canvas.dataset.scale = String(s);
    }
    this.drawn++;
    if (this.drawn % 15 === 0) this.canvas.dataset.drawMs = (performance.now() - t0).toFixed(2);
  }

  /**
   * The slow part of a drawing, in this order (decisions before traffic: their labels claim
   * their places first, see label): everything but the message dots and what goes over them.
   */
  private drawSlow(now: number, s: number): void {
    this.drawFlows(s);
    this.drawToasts(now, s);
    this.drawRuns(now, s);
    this.drawMoves(now, s);
    this.drawPulses(now, s);
  }

  /**
   * Draws the slow part on the slow picture's canvas instead of the layer's, and keeps what it
   * placed (captions, labels, the texts' plates it claimed, the routes worked out), so that the
   * drawings of the next SLOW_MS can take it over as it is (reuseSlow).
   */
  private drawSlowApart(now: number, s: number, dpr: number): void {
    const slow = this.slow;
    if (slow.canvas.width !== this.canvas.width) slow.canvas.width = this.canvas.width;
    if (slow.canvas.height !== this.canvas.height) slow.canvas.height = this.canvas.height;
    const ctx = slow.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, slow.canvas.width, slow.canvas.height);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.lineJoin = "round";
    const inked = this.placed.length;
    this.ctx = ctx;
    this.font = "";
    try {
      this.drawSlow(now, s);
    } finally {
      this.ctx = this.layerCtx;
      this.font = "";
    }
    slow.valid = true;
    slow.at = now;
    slow.captions = this.captions.slice();
    slow.pending = this.pending.slice();
    slow.labels = this.labels.slice();
    slow.placed = this.placed.slice(inked);
    slow.flowsDrawn = this.flowsDrawn.slice();
    slow.linksDrawn = this.linksDrawn.slice();
    slow.routes = new Map(this.routes);
  }

  /** Takes over what the slow picture placed, as if its part had just been drawn (drawSlowApart). */
  private reuseSlow(): void {
    const slow = this.slow;
    this.captions.push(...slow.captions);
    this.pending.push(...slow.pending);
    this.labels.push(...slow.labels);
    this.placed.push(...slow.placed);
    this.flowsDrawn.push(...slow.flowsDrawn);
    this.linksDrawn.push(...slow.linksDrawn);
    for (const [k, v] of slow.routes) this.routes.set(k, v);
  }

  /**
   * Clears the traffic from the plate around each text and badge the renderer drew (textPlate):
   * the links, messages, flows and rings drawn so far stop a few units short of its letters, and
   * the canvas's background shows round them, so that a text reads whatever traffic passes. A
   * clip could not do it: plates that overlap (a broker's name and its state) would cancel out
   * in an even-odd clip. The labels, drawn next, are placed clear of the texts anyway (label).
   */
  private erasePlates(s: number): void {
    const ctx = this.ctx;
    ctx.globalCompositeOperation = "destination-out";
    ctx.globalAlpha = 1;
    ctx.fillStyle = "#000";
    for (const r of this.renderer.ink) {
      if (r.kind !== "text" && r.kind !== "badge") continue;
      const p = textPlate(r);
      ctx.fillRect(p.x * s, p.y * s, p.w * s, p.h * s);
    }
    ctx.globalCompositeOperation = "source-over";
  }

  private drawFlows(s: number): void {
    const t = this.traffic;
    const f = this.frame;
    if (!t || !f) return;
    const ctx = this.ctx;
    // Steady replication: each broker's serving rate split over the brokers it replicates to,
    // drawn faint; catch-up flows on top, strong and dashed, with an arrowhead at the broker
    // catching up. Width grows with the log of the rate, to at most 6 px (the rows' lanes hold
    // that much: flowPath). Between brokers of a row the flows arc over it through its lane.
    const width = (bps: number) => Math.max(1, Math.min(6, Math.log10(Math.max(1, bps / 1e5)) * 2)) * s;
    ctx.strokeStyle = this.colours.get("--c-follower") ?? "#56b4e9";
    ctx.globalAlpha = 0.35;
    for (const fl of this.steady) {
      const p = this.flowPathOf(fl.from, fl.to, s);
      if (!p) continue;
      ctx.lineWidth = width(fl.bps);
      this.strokePath(p);
      this.recordFlow("steady", fl.from, fl.to, p, s);
    }
    const dash = (this.clock / 40) % 16;
    const into = new Map<number, { bps: number; leaders: number }>();
    const oos = this.colours.get("--c-oos") ?? "#d55e00";
    // Where each catch-up flow lands on the broker it goes into: spread along its edge.
    const boxes = this.renderer.brokersDrawn;
    const land = new Map<FlowInfo, number | undefined>();
    const byFollower = new Map<number, FlowInfo[]>();
    for (const fl of t.flows) byFollower.set(fl.follower, [...(byFollower.get(fl.follower) ?? []), fl]);
    for (const [id, fls] of byFollower) {
      const to = boxes[this.slotOf(id)]?.box;
      const froms = fls.map((fl) => boxes[this.slotOf(fl.leader)]?.box);
      if (!to || froms.some((b) => !b)) continue;
      landings(to, froms as Rect[]).forEach((x, i) => land.set(fls[i], x));
    }
    for (const fl of t.flows) {
      const from = this.slotOf(fl.leader);
      const to = this.slotOf(fl.follower);
      const p = this.flowPathOf(from, to, s, land.get(fl));
      if (!p) continue;
      this.recordFlow("catch-up", from, to, p, s);
      ctx.strokeStyle = oos;
      ctx.fillStyle = oos;
      ctx.globalAlpha = 0.8;
      const lw = width(fl.catchUpBytesPerSec);
      ctx.lineWidth = lw;
      // The arrowhead covers the line's last `head` px, where the dashes would blur its tip.
      const head = 5 * s + lw;
      ctx.setLineDash([8 * s, 8 * s]);
      ctx.lineDashOffset = this.reduced ? 0 : -dash * s;
      this.strokePath(p);
      ctx.setLineDash([]);
      // Which way: toward the broker catching up, along the path's last stretch.
      const last = p.b.x !== p.c2.x || p.b.y !== p.c2.y ? p.c2 : p.a;
      const dx = p.b.x - last.x;
      const dy = p.b.y - last.y;
      const len = Math.hypot(dx, dy) || 1;
      const ux = dx / len;
      const uy = dy / len;
      const bx = p.b.x - ux * head;
      const by = p.b.y - uy * head;
      ctx.beginPath();
      ctx.moveTo(p.b.x, p.b.y);
      ctx.lineTo(bx - uy * head * 0.45, by + ux * head * 0.45);
      ctx.lineTo(bx + uy * head * 0.45, by - ux * head * 0.45);
      ctx.closePath();
      ctx.fill();
      const sum = into.get(fl.follower) ?? { bps: 0, leaders: 0 };
      sum.bps += fl.catchUpBytesPerSec;
      sum.leaders++;
      into.set(fl.follower, sum);
    }
    ctx.globalAlpha = 1;
    for (const [id, sum] of into) {
      const short = `catch-up into broker ${id}: ${rateText(sum.bps)} from ${sum.leaders} leader${sum.leaders > 1 ? "s" : ""}`;
      this.captions.push({ text: `${short} (dashed)`, short, colour: oos, rank: RANK_FLOW });
    }
  }

  /** Broker id's slot in the frame, or -1. */
  private slotOf(id: number): number {
    return this.frame?.body.brokers.findIndex((b) => b.id === id) ?? -1;
  }

  /** The path of a flow between the boxes of broker slots `from` and `to`, in CSS px (flowPath). */
  private flowPathOf(from: number, to: number, s: number, land?: number): FlowPath | undefined {
    const a = this.renderer.brokersDrawn[from]?.box;
    const b = this.renderer.brokersDrawn[to]?.box;
    if (!a || !b || from === to) return undefined;
    const p = flowPath(a, b, land);
    const px = (q: Point) => ({ x: q.x * s, y: q.y * s });
    return { a: px(p.a), c1: px(p.c1), c2: px(p.c2), b: px(p.b) };
  }

  /** Notes a flow drawn, while the canvas records its texts (flowsDrawn). */
  private recordFlow(kind: string, from: number, to: number, p: FlowPath, s: number): void {
    if (!this.base.dataset.recordTexts) return;
    const boxes = this.renderer.brokersDrawn.map((g) => g.box);
    const lo = Math.min(boxes[from].y, boxes[to].y);
    const hi = Math.max(boxes[from].y, boxes[to].y);
    const rowsBetween = new Set(boxes.filter((b) => b.y > lo + 0.5 && b.y < hi - 0.5).map((b) => b.y)).size;
    const pts = Array.from({ length: 33 }, (_, i) => {
      const q = flowPoint(p, i / 32);
      return [q.x / s, q.y / s];
    });
    this.flowsDrawn.push({ kind, from, to, rowsBetween, pts });
  }

  private strokePath(p: FlowPath): void {
    const ctx = this.ctx;
    ctx.beginPath();
    ctx.moveTo(p.a.x, p.a.y);
    ctx.bezierCurveTo(p.c1.x, p.c1.y, p.c2.x, p.c2.y, p.b.x, p.b.y);
    ctx.stroke();
  }

  private drawPulses(now: number, s: number): void {
    const ctx = this.ctx;
    // One count per kind of message, on its busiest link: a label per link would bury the controller.
    const busiest = new Map<string, { p: Pulse; total: number }>();
    for (const [key, p] of this.pulses) {
      const age = now - p.at;
      if (age > 1500) {
        this.pulses.delete(key);
        continue;
      }
      const route = this.route(p.from, p.to, p.api);
      if (!route) continue;
      // Requests and answers of a link share it: offset them to either side.
      const line = offsetRoute(route, 3 * s);
      const phase = this.reduced ? 0.5 : 0.5 + 0.5 * Math.sin(now / 160);
      // Thin and translucent: the links run past the boxes (under their texts, see erasePlates).
      ctx.strokeStyle = this.colour(p.api);
      ctx.globalAlpha = (0.15 + 0.3 * phase) * Math.max(0, 1 - age / 1500);
      ctx.lineWidth = Math.min(3, 0.75 + Math.log2(1 + p.perSecond / 8) / 2) * s;
      ctx.beginPath();
      ctx.moveTo(line[0].x, line[0].y);
      for (const q of line.slice(1)) ctx.lineTo(q.x, q.y);
      ctx.stroke();
      ctx.globalAlpha = 1;
      if (key.includes("|1|")) continue; // answers pulse too, but the count is of requests
      const best = busiest.get(p.api);
      if (!best) busiest.set(p.api, { p, total: p.perSecond });
      else {
        best.total += p.perSecond;
        if (p.perSecond > best.p.perSecond) best.p = p;
      }
    }
    const plural = (w: string) => (w.endsWith("h") ? `${w}es` : `${w}s`);
    const counted = [...busiest].map(([api, b]) => `${plural(LOOKS[api]?.label ?? api)} ×${Math.round(b.total)}/s`);
    const short = `${this.narrow() ? "" : "too many to draw one by one: "}${counted.join(" · ")}`;
    if (counted.length) this.captions.push({ text: `${short} (pulsing links)`, short, colour: this.fg, rank: RANK_COUNTED });
  }

  private drawSprites(now: number, s: number): void {
    const few = this.sprites.filter((sp) => sp.m.api !== "Fetch").length <= 6;
    const hop = this.hop();
    this.sprites = this.sprites.filter((sp) => now - sp.start <= hop);
    for (const sp of this.sprites) {
      const k = (now - sp.start) / hop;
      if (k < 0) continue;
      const a = this.anchor(sp.m.from, sp.m.to);
      if (!a) continue;
      const route = this.route(sp.m.from, sp.m.to, sp.m.api) ?? [a, { x: a.x, y: a.y + 40 * s }];
      // A message that never arrives (a cut link, a stopped node) stops halfway and fades.
      const lost = sp.m.arriveMs < 0;
      const reach = lost ? Math.min(k, 0.5) : k;
      let { x, y } = routePoint(route, reach);
      let alpha = lost && k > 0.5 ? Math.max(0, 1 - (k - 0.5) * 2) : 1;
      if (this.reduced) {
        // No travel: the message fades in and out near where it is going.
        ({ x, y } = routePoint(route, lost ? 0.5 : 0.85));
        alpha = Math.sin(Math.PI * k);
      }
      if (!sp.drawn) {
        sp.drawn = true;
        this.record({ kind: "message", api: sp.m.api, response: sp.m.response ?? false, from: sp.m.from, to: sp.m.to, sentMs: sp.m.sentMs, note: sp.m.note });
      }
      this.dot(sp.m, x, y, s, alpha);
      if (few && sp.m.note && sp.m.api !== "Fetch" && k > 0.15 && k < 0.85) this.label(sp.m.note, x + 10 * s, y - 8 * s, s, this.colour(sp.m.api), alpha, false);
    }
  }

  /** A narrow canvas (a phone) gets shorter labels. */
  private narrow(): boolean {
    return this.cssW / this.renderer.drawScale < 560;
  }

  /** Screen ms one hop takes: HOP_MS, stretched in slow motion so that ¼× looks ¼ as fast. */
  private hop(): number {
    return HOP_MS / Math.min(1, this.speed);
  }

  private dot(m: MessageInfo, x: number, y: number, s: number, alpha: number): void {
    const ctx = this.ctx;
    const look = LOOKS[m.api];
    const r = (m.api === "Fetch" ? 3 : 5) * s;
    ctx.globalAlpha = alpha;
    ctx.fillStyle = this.colour(m.api);
    ctx.strokeStyle = this.colour(m.api);
    ctx.lineWidth = 2 * s;
    ctx.beginPath();
    if (look?.square) ctx.rect(x - r, y - r, 2 * r, 2 * r);
    else ctx.arc(x, y, r, 0, 2 * Math.PI);
    // Answers are hollow, requests solid (shape as well as colour).
    if (m.response) {
      ctx.fillStyle = this.bg;
      ctx.fill();
      ctx.stroke();
    } else ctx.fill();
    ctx.globalAlpha = 1;
  }

  private drawMoves(now: number, s: number): void {
    const ctx = this.ctx;
    this.moves = this.moves.filter((mv) => now - mv.start < MOVE_MS + LANDED_MS);
    const labels = new Map<string, { n: number; label: string; leader: number }>();
    for (const mv of this.moves) {
      const a = this.cell(mv.oldLeader, mv.partition);
      const b = this.cell(mv.leader, mv.partition);
      if (!a || !b) continue;
      const look = moveLook(now - mv.start, this.reduced, !this.playing);
      ctx.strokeStyle = this.fg;
      ctx.lineWidth = 2 * s;
      ctx.globalAlpha = look.alpha;
      if (look.flying) {
        const e = look.along;
        const x = a.x + (b.x - a.x) * e;
        const y = a.y + (b.y - a.y) * e - Math.sin(Math.PI * e) * 30 * s;
        const size = 12 * s;
        ctx.fillStyle = this.colours.get("--c-leader") ?? "#0072b2";
        ctx.fillRect(x - size / 2, y - size / 2, size, size);
        ctx.strokeRect(x - size / 2, y - size / 2, size, size);
      } else if (look.alpha > 0) {
        // Landed: a ring in the gaps around the new leader's cell (ringAround), as a followed
        // partition's, not over the cell's edge or its neighbours.
        this.ringAround(mv.leader, mv.partition, s);
      }
      ctx.globalAlpha = 1;
      const text = mv.count > 1 ? `${mv.count} leaders → broker ${mv.leader} · ${mv.label}` : `leader → broker ${mv.leader} · ${mv.label}`;
      if (!mv.drawn) {
        mv.drawn = true;
        this.record({ kind: "move", from: mv.oldLeader, to: mv.leader, label: text });
      }
      if (moveSuperseded(mv, this.toasts)) continue;
      const key = `${mv.leader}|${mv.label}`;
      const lb = labels.get(key) ?? { n: 0, label: mv.label, leader: mv.leader };
      lb.n += mv.count;
      labels.set(key, lb);
    }
    // One caption per destination and reason: the moving squares show where, the caption
    // band says what (over the cells it would hide the replicas it is about).
    for (const lb of labels.values()) {
      const what = this.narrow() ? lb.label.split(" · ")[0] : lb.label;
      const text = lb.n > 1 ? `${lb.n} leaders → broker ${lb.leader} · ${what}` : `leader → broker ${lb.leader} · ${what}`;
      this.captions.push({ text, colour: this.fg, rank: RANK_MOVE });
    }
  }

  private drawRuns(now: number, s: number): void {
    const f = this.frame;
    if (!f) return;
    const ctx = this.ctx;
    this.runs = this.runs.filter((r) => now - r.start < RUN_MS);
    const dpr = this.base.width / Math.max(1, this.cssW);
    for (const r of this.runs) {
      const fade = Math.min(1, (RUN_MS - (now - r.start)) / 600);
      ctx.globalAlpha = fade;
      for (const [set, colour, dashed] of [
        [r.withheld, this.fg, true],
        [r.deferred, this.focus, false],
      ] as const) {
        ctx.strokeStyle = colour;
        // Brokers whose partitions of the set have no cell a ring fits around.
        const whole = new Set<number>();
        for (const p of set) {
          const pref = f.layout.replicas[p * f.layout.stride];
          const id = f.body.brokers[pref]?.id;
          const g = id === undefined ? undefined : this.geometry(id);
          if (!g || id === undefined) continue;
          const at = this.cellCorner(g, id, p);
          const ring = at && cellRing(at.x, at.y, g.cells!.cell);
          if (!ring) {
            if (g.strips || (g.cells && !cellRing(0, 0, g.cells.cell))) whole.add(id);
            continue;
          }
          // In the gaps around the cell, device pixel for pixel: the cell and its neighbours
          // read through, the ring around them. Dashed (withheld) where a side has room for it.
          ctx.lineWidth = ring.lw / dpr;
          ctx.setLineDash(dashed && ring.w >= 12 ? [3 / dpr, 2 / dpr] : []);
          ctx.strokeRect(ring.x / dpr, ring.y / dpr, ring.w / dpr, ring.h / dpr);
        }
        // Cells too small for a ring between them, or strips: one ring around the broker's
        // replicas, outside them.
        ctx.lineWidth = 1.5 * s;
        ctx.setLineDash(dashed ? [3 * s, 2 * s] : []);
        for (const id of whole) {
          const e = this.gridExtent(this.geometry(id)!);
          ctx.strokeRect(e.x / dpr - 3 * s, e.y / dpr - 3 * s, e.w / dpr + 6 * s, e.h / dpr + 6 * s);
        }
      }
      ctx.setLineDash([]);
      const d = r.decision;
      const active = f.body.controllers.find((c) => c.active)?.id ?? f.body.controllers[0]?.id;
      const at = active !== undefined ? this.anchor(active) : undefined;
      if (at && r === this.runs[this.runs.length - 1]) this.captions.push({ text: this.runText(d), colour: this.fg, rank: RANK_RUN });
      ctx.globalAlpha = 1;
    }
  }

  /** The part of a broker's grid its cells or strips cover (device pixels). */
  private gridExtent(g: BrokerGeometry): Rect {
    if (g.cells) {
      const n = g.cells.fits;
      return { x: g.gx, y: g.gy, w: Math.min(n, g.cells.cols) * g.cells.cell, h: Math.ceil(n / g.cells.cols) * g.cells.cell };
    }
    const st = g.strips!;
    return { x: g.gx, y: g.gy, w: Math.min(st.buckets, st.colsPerRow) * STRIP_COL_PX, h: st.rows * (st.rowPx + STRIP_GAP_PX) - STRIP_GAP_PX };
  }

  /** Decisions about a node (session expiry, fence, new controller, snapshot): a label beside it for a while. */
  private drawToasts(now: number, s: number): void {
    const f = this.frame;
    if (!f) return;
    this.toasts = currentNews(
      this.toasts.filter((t) => now - t.start < TOAST_MS),
      f.body.brokers,
      f.body.controllers,
    );
    const stacked = new Map<number, number>();
    for (const t of this.toasts) {
      if (now < t.start) continue;
      const d = t.d;
      const id = d.decision === "quorum_leader" ? d.leader : d.node !== undefined && d.node > 0 ? d.node : (d.brokers?.[0] ?? -1);
      const at = this.anchor(id);
      if (!at) continue;
      const n = stacked.get(id) ?? 0;
      stacked.set(id, n + 1);
      const fade = Math.min(1, (TOAST_MS - (now - t.start)) / 500);
      const colour = d.decision === "fenced" || d.decision === "session_expired" ? (this.colours.get("--s-fenced") ?? "#e69f00") : this.fg;
      const text = TOAST_WORDS[d.decision]?.(d) ?? d.decision;
      // A controller's news goes to the caption band (under its box is the summary line); a
      // broker's inside its box, below its header lines where that row is free (no catch-up
      // bar, no GATED badge), else to the band too.
      if (f.body.controllers.some((c) => c.id === id)) {
        this.captions.push({ text, colour, rank: RANK_NEWS });
        continue;
      }
      const y = at.y + 60 * s + 16 * n * s;
      this.setFont(`700 ${11 * s}px system-ui, sans-serif`);
      if (!this.label(text, at.x - this.width(text) / 2, y, s, colour, fade, true)) this.captions.push({ text, colour, rank: RANK_NEWS });
    }
  }

  /**
   * The caption band at the foot of the canvas, under the brokers: the latest balancer run,
   * the controller's news, leader moves, catch-up flows and what is counted, the most urgent
   * first, as many lines as the room under the brokers holds (the event log has them all). A
   * caption wider than the canvas (a phone) wraps onto the next line rather than lose its end:
   * it is shown whole (in its short form where only that fits) or not at all, unless it alone
   * is longer than the band, when its last line ends in "…".
   */
  private drawCaptions(s: number): void {
    const step = 19 * s;
    let under = 0;
    for (const g of this.renderer.brokersDrawn) under = Math.max(under, (g.box.y + g.box.h) * s);
    const room = Math.max(1, Math.floor((this.cssH - 4 * s - under) / step));
    // The font label() writes a caption in, to measure its lines.
    this.setFont(`700 ${11 * s}px system-ui, sans-serif`);
    const max = this.cssW - 12;
    const lines: { text: string; colour: string }[] = [];
    const sorted = this.captions
      .map((c, i) => ({ c, i }))
      .sort((a, b) => a.c.rank - b.c.rank || a.i - b.i)
      .map(({ c }) => c);
    for (const c of sorted) {
      const left = room - lines.length;
      if (left <= 0) break;
      let parts = this.wrap(c.text, max);
      if (parts.length > left && c.short) parts = this.wrap(c.short, max);
      if (parts.length > left) {
        if (lines.length > 0) continue;
        parts = [...parts.slice(0, left - 1), parts.slice(left - 1).join(" ")];
      }
      for (const text of parts) lines.push({ text, colour: c.colour });
    }
    let y = this.cssH - 8 * s - (lines.length - 1) * step;
    for (const l of lines) {
      this.label(l.text, 10 * s, y, s, l.colour, 1, true, "caption");
      y += step;
    }
  }

  /**
   * text in lines no wider than maxWidth in the context's font, broken between words (a word
   * wider than maxWidth alone is its own line, for label to cut).
   */
  private wrap(text: string, maxWidth: number): string[] {
    if (this.width(text) <= maxWidth) return [text];
    const out: string[] = [];
    let line = "";
    for (const word of text.split(" ")) {
      const next = line ? `${line} ${word}` : word;
      if (line && this.width(next) > maxWidth) {
        out.push(line);
        line = word;
      } else line = next;
    }
    if (line) out.push(line);
    return out;
  }

  private drawHighlights(s: number): void {
    const f = this.frame;
    if (!f) return;
    const ctx = this.ctx;
    ctx.strokeStyle = this.focus;
    ctx.lineWidth = 4 * s;
    for (const id of this.highlighted) {
      const ci = f.body.controllers.findIndex((c) => c.id === id);
      const r = ci >= 0 ? this.renderer.controllersDrawn[ci] : this.renderer.brokersDrawn[f.body.brokers.findIndex((b) => b.id === id)]?.box;
      if (!r) continue;
      ctx.strokeRect((r.x - 5) * s, (r.y - 5) * s, (r.w + 10) * s, (r.h + 10) * s);
    }
    if (this.followed >= 0 && this.followed < f.count) {
      ctx.strokeStyle = this.fg;
      for (const slot of f.layout.replicaSlots(this.followed)) {
        const id = f.body.brokers[slot]?.id;
        if (id !== undefined) this.ringAround(id, this.followed, s);
      }
    }
  }

  /**
   * Rings partition p's replica cell on broker `id` in the stroke style set: in the gaps around
   * the cell (cellRing, device pixel for pixel), so that the cell and its neighbours read
   * through, whatever the cells' size. Where the cells have no gaps (under 5 px), a square out
   * from the cell's centre by its pitch and 3 units (small cells leave no room for a ring that
   * covers nothing); where the broker draws strips, or the partition has no cell of its own on
   * screen, one 18 units wide in the box's middle.
   */
  private ringAround(id: number, p: number, s: number): void {
    const ctx = this.ctx;
    const g = this.geometry(id);
    if (!g) return;
    const dpr = this.base.width / Math.max(1, this.cssW);
    const at = this.cellCorner(g, id, p);
    const ring = at && cellRing(at.x, at.y, g.cells!.cell);
    if (ring) {
      ctx.lineWidth = ring.lw / dpr;
      ctx.strokeRect(ring.x / dpr, ring.y / dpr, ring.w / dpr, ring.h / dpr);
      return;
    }
    const c = this.cell(id, p);
    if (!c) return;
    const half = c.half === undefined ? 9 * s : 2 * c.half + 3 * s;
    ctx.lineWidth = 2 * s;
    ctx.strokeRect(c.x - half, c.y - half, 2 * half, 2 * half);
  }

  /**
   * Places a small label, drawn on an opaque plate over all the traffic once the drawing's
   * traffic is done (drawLabels), so that no line crosses it. It is never placed over what the
   * canvas's reader reads (texts, badges, bars, replica cells) nor over another label: it moves
   * a line up or down to a free spot, or is left out (returns false). A text wider than the
   * canvas ends in "…".
   */
  private label(text: string, x: number, y: number, s: number, colour: string, alpha: number, bold: boolean, kind = "label"): boolean {
    const size = 11 * s;
    this.setFont(`${bold ? 700 : 600} ${size}px system-ui, sans-serif`);
    const cw = this.cssW;
    text = this.fit(text, cw - 12);
    const w = this.width(text);
    const lx = Math.max(3, Math.min(x, cw - w - 6));
    const h = size + 5;
    const free = (ty: number) => !this.placed.some((r) => lx - 3 < r.x + r.w && r.x < lx + w + 3 && ty - size < r.y + r.h && r.y < ty - size + h);
    const ly = [y, y - h, y + h, y - 2 * h, y + 2 * h].find(free);
    if (ly === undefined) return false;
    this.placed.push({ x: lx - 3, y: ly - size, w: w + 6, h });
    if (this.base.dataset.recordTexts) this.labels.push({ kind, text, x: (lx - 3) / s, y: (ly - size) / s, w: (w + 6) / s, h: h / s });
    this.pending.push({ text, x: lx, y: ly, w, h, size, font: this.font, colour, alpha });
    return true;
  }

  /** Draws the labels placed in this drawing (label), each on its plate, over the traffic. */
  private drawLabels(): void {
    const ctx = this.ctx;
    for (const l of this.pending) {
      ctx.globalAlpha = l.alpha;
      ctx.fillStyle = this.bg;
      ctx.fillRect(l.x - 3, l.y - l.size, l.w + 6, l.h);
      ctx.fillStyle = l.colour;
      this.setFont(l.font);
      ctx.fillText(l.text, l.x, l.y);
    }
    ctx.globalAlpha = 1;
  }

  /** text, cut to end in "…" where it is wider than maxWidth in the context's font. */
  private fit(text: string, maxWidth: number): string {
    if (this.width(text) <= maxWidth) return text;
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.width(`${text.slice(0, mid).trimEnd()}…`) <= maxWidth) lo = mid;
      else hi = mid - 1;
    }
    return `${text.slice(0, lo).trimEnd()}…`;
  }

  /**
   * Sets the context's font unless it is the one set last: assigning ctx.font parses a CSS
   * font string, and a drawing writes its labels in one or two fonts.
   */
  private setFont(font: string): void {
    if (font === this.font) return;
    this.font = font;
    this.ctx.font = font;
  }

  /**
   * The width of text in the font set last, remembered: the layer is drawn up to 60 times a
   * second with nearly the same labels and captions each time.
   */
  private width(text: string): number {
    const key = `${this.font}\n${text}`;
    let w = this.widths.get(key);
    if (w === undefined) {
      if (this.widths.size > 2000) this.widths.clear();
      w = this.ctx.measureText(text).width;
      this.widths.set(key, w);
    }
    return w;
  }
}
