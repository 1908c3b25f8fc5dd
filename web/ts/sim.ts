// The simulation as the page drives it: the cluster lives in the worker; this module asks for
// frames at requestAnimationFrame pace and never waits on the worker in an event handler, so
// input stays responsive however long a step takes.
//
// Pacing: each animation frame with no request in flight asks the worker to advance by
// (wall time since the last request) × speed, capped so that a hidden tab or a slow step
// never asks for a huge jump, and gives the step a budget of wall time (stepBudget): the
// worker stops there and the frame says how far it got, so a frame stays a frame however much
// happens in the cluster time asked for. When the cluster cannot keep up, the simulation simply
// runs slower than asked; the measured rate is shown next to the clock. An animation frame that
// finds a request in flight is not lost: the next request goes out as soon as that reply
// arrives, before it is drawn, so that the worker runs the next step while the page draws this
// one. While the worker cannot keep up (its last step spent its budget short of the time asked
// for), one more request is kept waiting in its queue, so that it starts the next step the
// moment it has sent a frame instead of idling until the page, busy drawing on a shared core,
// gets to the reply. The wall clock is used only here and for the worker's budget, for pacing:
// the simulation's own time is virtual and deterministic, and where a step stops changes no
// result.

import { Frame, Layout, layoutFrom } from "./frame";
import { MAX_BUDGET_MS } from "./protocol";
import type { ActBody, ActRequest, FrameBody, LoadBody, LoadRequest, StartBody, StartRequest, StepRequest, WithData, WorkerClient } from "./protocol";

/** Speeds offered, in cluster time per wall time: ¼× slow motion (for talks), real time up to 10,000×. */
export const SPEEDS = [0.25, 1, 10, 100, 1000, 10_000] as const;
export const DEFAULT_SPEED = 10;

/** The longest wall-clock span one request may cover, in ms. */
const MAX_STEP_WALL_MS = 100;

/**
 * The wall time a frame may take, in ms: 30 frames a second. A step's budget (sim.advance's
 * budgetMs, the time the worker may spend running the cluster) is this less what the rest of
 * a step costs (building the frame, sending it, the worker's other messages), as measured on
 * the last steps that spent their budget: a few ms at 12 partitions, tens at 100,000. The page
 * draws a frame while the worker runs the next step, so drawing is not part of that cost.
 */
const FRAME_MS = 30;
/** The least budget a step gets, in ms: below it the cluster would barely move. */
const MIN_STEP_BUDGET_MS = 5;

export interface SimEvents {
  /** A new frame arrived (every frame, playing or not). */
  frame(f: Frame): void;
  /** A request failed for a reason other than a dead worker (which the client reports). */
  failure(what: string, err: unknown): void;
  /** Playing, speed or the measured rate changed. */
  state(): void;
  /**
   * Cluster time went back to t (scrubbing, a replay): whatever was drawn or logged for a later
   * time belongs to a timeline that is no longer shown. Called before that frame's frame().
   */
  timeReset?(t: number): void;
  /** The run's history changed (an action recorded, a run loaded): time to refresh marks and link. */
  history?(version: number): void;
}

export class Simulation {
  playing = true;
  speed: number = DEFAULT_SPEED;
  /** Cluster time per wall time over the last second, as achieved. */
  rate = 0;
  info: StartBody | undefined;
  last: Frame | undefined;
  /** Set when the run stopped at an invariant violation. */
  stopped: string | undefined;

  private layout: Layout | undefined;
  /** The first frame of an adopted run, asked for before this page ran (adopt). */
  private earlyFrame: Promise<WithData<FrameBody>> | undefined;
  /** sim.advance requests sent and not yet answered: 1, or 2 while the worker is behind. */
  private inFlight = 0;
  /** The last step stopped short of the time asked for, having spent its budget. */
  private behind = false;
  /** performance.now() when the last sim.advance reply arrived: a request queued behind it started about then. */
  private lastReplyAt = 0;
  /** The cluster time of the latest frame received: where the next step starts. */
  private clusterAt = 0;
  /** What a step costs besides its budget (ms), smoothed over the steps that spent it. */
  private stepOverhead = 0;
  /** An animation frame came while a request was in flight; the reply sends the next at once. */
  private missedTick = false;
  private starting = false;
  private seeking = false;
  private pendingSeek: number | undefined;
  private historyVersion = -1;
  private wantFrame = false;
  private lastWall = 0;
  private carry = 0;
  private generation = 0;
  private samples: { wall: number; sim: number }[] = [];

  constructor(
    private readonly client: WorkerClient,
    private readonly on: SimEvents,
  ) {
    const loop = (now: number) => {
      requestAnimationFrame(loop);
      this.tick(now);
    };
    requestAnimationFrame(loop);
  }

  /**
   * Builds a new cluster and shows its first frame. If the worker refuses the request, the
   * running cluster goes on as it was.
   */
  async start(req: StartRequest): Promise<StartBody> {
    // No frame is asked for while the start is pending: its reply would carry the new
    // cluster's first events (the worker answers in order) under the old generation.
    this.starting = true;
    let info: StartBody;
    try {
      info = await this.client.request("sim.start", req);
    } finally {
      this.starting = false;
    }
    this.begin(info);
    return info;
  }

  /**
   * Opens a scenario (a share link, an imported file) at a cluster time, replacing the running
   * cluster; if the worker refuses it, the running cluster goes on as it was.
   */
  async load(req: LoadRequest): Promise<LoadBody> {
    this.starting = true;
    let info: LoadBody;
    try {
      info = await this.client.request("sim.load", req);
    } finally {
      this.starting = false;
    }
    this.begin(info);
    return info;
  }

  /**
   * Replaces the running cluster by one another message builds in the worker (a lesson's
   * step, web/ts/lesson/panel.ts), as load does: `build` sends that message and returns the
   * new run's description.
   */
  async open<T extends StartBody>(build: () => Promise<T>): Promise<T> {
    this.starting = true;
    let info: T;
    try {
      info = await build();
    } finally {
      this.starting = false;
    }
    this.begin(info);
    return info;
  }

  /**
   * Takes on a run the boot script started before this page ran (web/ts/boot.ts): `info` is
   * its sim.start reply, `first` the reply to the sim.advance a new run's first animation
   * frame sends ({ms: 0, layout: 0}), which that frame then uses instead of asking again.
   */
  async adopt(info: Promise<StartBody>, first: Promise<WithData<FrameBody>> | undefined): Promise<StartBody> {
    const body = await this.open(() => info);
    this.earlyFrame = first;
    return body;
  }

  private begin(info: StartBody): void {
    this.earlyFrame = undefined;
    this.generation++;
    this.info = info;
    this.clusterAt = info.timeMs ?? 0;
    this.layout = undefined;
    this.last = undefined;
    this.stopped = undefined;
    this.samples = [];
    this.lastWall = 0;
    this.carry = 0;
    this.behind = false;
    this.wantFrame = true;
  }

  /**
   * Shows the run at cluster time t: back is a replay in the worker, forward runs on. Calls made
   * while one is in flight coalesce to the latest, so dragging the timeline never queues up.
   */
  seek(t: number): void {
    this.pendingSeek = Math.max(0, Math.round(t));
    if (!this.seeking) void this.drainSeeks();
  }

  private async drainSeeks(): Promise<void> {
    this.seeking = true;
    try {
      while (this.pendingSeek !== undefined && this.info) {
        const timeMs = this.pendingSeek;
        this.pendingSeek = undefined;
        await this.framed("sim.seek", { timeMs, layout: this.layout?.version ?? 0 });
      }
    } finally {
      this.seeking = false;
      this.lastWall = 0;
    }
  }

  /**
   * Shows the run at t and resolves with the time then shown, once its frame is: one slice of
   * a long replay (web/ts/replay.ts), which needs each slice done before it asks the next.
   */
  async seekNow(t: number): Promise<number> {
    this.seeking = true;
    try {
      await this.framed("sim.seek", { timeMs: Math.max(0, Math.round(t)), layout: this.layout?.version ?? 0 });
    } finally {
      this.seeking = false;
      this.lastWall = 0;
    }
    return this.last?.body.timeMs ?? 0;
  }

  /** Runs to the next event-log line ("event") or the next electPreferred run ("run"). */
  async step(to: StepRequest["to"]): Promise<void> {
    if (!this.info) return;
    this.seeking = true;
    try {
      await this.framed("sim.step", { to, layout: this.layout?.version ?? 0 });
    } finally {
      this.seeking = false;
      this.lastWall = 0;
    }
  }

  /** Sends a request that answers with a frame, and shows it (seek and step; advance's path differs only in pacing). */
  private async framed(type: "sim.seek" | "sim.step", body: { timeMs: number; layout: number } | StepRequest): Promise<void> {
    const gen = this.generation;
    try {
      const { body: fb, data } = await this.client.requestData(type, body as never);
      if (gen === this.generation) this.show(fb as FrameBody, data);
    } catch (e) {
      this.on.failure(type, e);
    }
  }

  /** Turns a frame reply into a Frame and hands it on; every frame passes here. */
  private show(body: FrameBody, data: ArrayBuffer | undefined): Frame {
    if (!data) throw new Error("frame without its attachment");
    this.layout = layoutFrom(body, data, this.layout);
    this.clusterAt = body.timeMs;
    const f = new Frame(body, data, this.layout);
    if (this.last && body.timeMs < this.last.body.timeMs) {
      this.stopped = undefined; // an earlier moment of a stopped run is not stopped
      this.on.timeReset?.(body.timeMs);
    }
    if (body.stopped && !this.stopped) this.stopped = body.stopped;
    this.last = f;
    this.on.frame(f);
    if (body.history !== this.historyVersion) {
      this.historyVersion = body.history;
      this.on.history?.(body.history);
    }
    return f;
  }

  setPlaying(on: boolean): void {
    this.playing = on;
    this.lastWall = 0;
    this.carry = 0;
    this.behind = false;
    this.samples = [];
    this.rate = 0;
    this.on.state();
  }

  setSpeed(x: number): void {
    this.speed = x;
    this.behind = false;
    this.samples = [];
    this.on.state();
  }

  /** Applies an action at the current cluster time; the next frame shows its effects. */
  async act(req: ActRequest): Promise<ActBody> {
    const body = await this.client.request("sim.act", req);
    this.wantFrame = true;
    return body;
  }

  private tick(now: number): void {
    if (this.inFlight >= this.depth()) {
      this.missedTick = true;
      return;
    }
    if (this.starting || this.seeking || !this.info) return;
    // Clamped at 0 as well: an animation frame's timestamp is when its frame began, which can
    // be a little before the performance.now() of a request made up after a reply.
    const wall = this.lastWall === 0 ? 0 : Math.max(0, Math.min(now - this.lastWall, MAX_STEP_WALL_MS));
    this.lastWall = now;
    const advancing = this.playing && !this.stopped;
    if (!advancing && !this.wantFrame) return;
    let ms = 0;
    if (advancing) {
      const want = wall * this.speed + this.carry;
      ms = Math.floor(want);
      this.carry = want - ms;
    }
    this.wantFrame = false;
    this.inFlight++;
    // Ends this request, once: on its reply, or when it fails.
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.nextIfMissed();
    };
    const gen = this.generation;
    const sent = now;
    const sentAt = performance.now();
    const budgetMs = this.stepBudget();
    // An adopted run's first frame was asked for already, with this very request.
    const early = ms === 0 && !this.layout ? this.earlyFrame : undefined;
    this.earlyFrame = undefined;
    (early ?? this.client.requestData("sim.advance", { ms, layout: this.layout?.version ?? 0, budgetMs }))
      .then(({ body, data }) => {
        const at = performance.now();
        if (gen === this.generation) {
          // The worker answers in order, so this step began at the latest frame received,
          // even when it was asked for before that frame came.
          this.behind = body.timeMs < this.clusterAt + ms;
          // A step that stopped short spent its budget: the rest of its time is the overhead.
          // One that waited in the worker's queue began when the reply before it was sent.
          if (this.behind) this.learnOverhead(at - Math.max(sentAt, this.lastReplyAt) - budgetMs);
          this.lastReplyAt = at;
          this.clusterAt = body.timeMs;
        }
        end();
        if (gen !== this.generation) return; // a restart happened meanwhile
        this.measure(sent, body.timeMs);
        this.show(body, data);
      })
      .catch((e: unknown) => {
        // A failing step (a bug: the worker turns a Go panic into an error reply with its
        // stack) would fail again on every frame; stop so the report shows it once.
        if (this.playing) this.setPlaying(false);
        this.on.failure("sim.advance", e);
      })
      .finally(end);
  }

  /**
   * How many sim.advance requests may be in flight: two while the worker is behind and the
   * run plays, so that one waits in its queue; else one, so that a pause or a slower speed
   * takes effect on the next step.
   */
  private depth(): number {
    return this.behind && this.playing && !this.stopped ? 2 : 1;
  }

  /**
   * Once a request has ended: if an animation frame came meanwhile, sends the next one at once,
   * on a reply, before it is drawn, so that the worker runs while the page draws.
   */
  private nextIfMissed(): void {
    if (this.missedTick && this.inFlight < this.depth()) {
      this.missedTick = false;
      this.tick(performance.now());
    }
  }

  /**
   * The budget of the next step: what is left of a frame once the step's overhead is paid. When
   * the overhead alone takes most of a frame (a 100,000-partition frame, a loaded machine), 30
   * frames a second are out of reach whatever the budget, and a budget of half the overhead
   * keeps a third of the worker's time for the cluster instead of starving it, up to the most
   * the worker takes (MAX_BUDGET_MS, generated from the bridge's limit): a refused step pauses
   * the run and reports a failure. Half the overhead passes it where a step's overhead passes
   * 2 s, as a 100,000-partition cluster's can on a loaded machine.
   */
  private stepBudget(): number {
    return Math.min(MAX_BUDGET_MS, Math.round(Math.max(MIN_STEP_BUDGET_MS, FRAME_MS - this.stepOverhead, this.stepOverhead / 2)));
  }

  private learnOverhead(ms: number): void {
    this.stepOverhead += (Math.max(0, ms) - this.stepOverhead) / 4;
  }

  /** Tracks the achieved rate: cluster ms per wall ms over about the last second. */
  private measure(wall: number, sim: number): void {
    if (!this.playing) return;
    this.samples.push({ wall, sim });
    while (this.samples.length > 2 && wall - this.samples[0].wall > 1000) this.samples.shift();
    const first = this.samples[0];
    const dt = wall - first.wall;
    const rate = dt > 250 ? (sim - first.sim) / dt : 0;
    if (Math.abs(rate - this.rate) > this.rate * 0.05) {
      this.rate = rate;
      this.on.state();
    }
  }
}
