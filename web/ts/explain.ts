// "Explain as it happens" and the narration: readers of the frames' decisions and event-log
// lines, which the worker reads from the cluster's one stream of happenings (web/PROTOCOL.md
// "traffic" and "events"), so that what stops the world, what the canvas draws, what the log
// says and what a screen reader hears are the same account.
//
// Explain mode pauses playback at each decision that matters (a session expiry and the fence it
// writes, a leader election, an ISR change, a balancer run that elected, deferred or withheld
// something, a new active controller, a snapshot), shows the event log's lines of that moment
// (its why-sentences, cause first) in a card beside the actors, rings them on the canvas, and
// goes on when playback resumes (Space, or the card's button). The narrator speaks the event
// log's lines and every message that is news (not the steady heartbeats and fetches) in an
// aria-live region, in cluster-time order, a few at a time.

import type { Frame } from "./frame";
import type { DecisionInfo, LogEvent, MessageInfo } from "./protocol";
import { S } from "./strings";
import type { TrafficLayer } from "./traffic";

/** Whether a decision is worth stopping for. */
export function isStop(d: DecisionInfo): boolean {
  switch (d.decision) {
    case "session_expired":
    case "fenced":
    case "unfenced":
    case "leader":
    case "isr":
    case "quorum_leader":
    case "snapshot":
      return true;
    case "balancer_run":
      return (d.elected ?? 0) > 0 || (d.deferred ?? 0) > 0 || (d.withheld ?? 0) > 0 || (d.brokers?.length ?? 0) > 0;
  }
  return false;
}

/** Which of a moment's decisions the card tells first: causes before their effects. */
const RANK: Record<string, number> = {
  session_expired: 0,
  fenced: 1,
  quorum_leader: 2,
  balancer_run: 3,
  leader: 4,
  isr: 5,
  unfenced: 6,
  snapshot: 7,
};

/**
 * The event log's lines that explain a stop: the frame's lines at the stop's decisions' cluster
 * times, in the log's order (cause first), notices left out. A decision the log tells at
 * another time (a balancer run's leader changes, told by the run's line when it ran) has none.
 */
export function linesOf(events: readonly LogEvent[], stops: readonly DecisionInfo[]): LogEvent[] {
  const times = new Set(stops.map((d) => d.timeMs));
  return events.filter((e) => e.kind !== "notice" && times.has(e.timeMs));
}

/** The node ids a decision is about, for ringing them. */
export function actorsOf(d: DecisionInfo): number[] {
  const ids = new Set<number>(d.brokers ?? []);
  if (d.node !== undefined && d.node > 0) ids.add(d.node);
  if (d.decision === "leader") {
    if (d.oldLeader >= 0) ids.add(d.oldLeader);
    if (d.leader >= 0) ids.add(d.leader);
  }
  if (d.decision === "quorum_leader" && d.leader >= 0) ids.add(d.leader);
  return [...ids];
}

export interface ExplainHooks {
  /** Pauses playback (the stop). */
  pause(): void;
  /** Resumes playback (the card's button). */
  resume(): void;
}

/** Explainer stops playback at the decisions that matter and explains them. */
export class Explainer {
  private on = false;
  private stopped = false;

  constructor(
    private readonly card: HTMLElement,
    private readonly canvas: HTMLCanvasElement,
    private readonly traffic: TrafficLayer,
    private readonly hooks: ExplainHooks,
  ) {
    card.querySelector("button")?.addEventListener("click", () => hooks.resume());
    // Lessons (and anyone else) turn it on or off with an event, without importing this module.
    document.addEventListener("kraftlab:explain", (e) => this.setEnabled(Boolean((e as CustomEvent<{ on: boolean }>).detail?.on)));
  }

  get enabled(): boolean {
    return this.on;
  }

  setEnabled(on: boolean): void {
    this.on = on;
    document.body.dataset.explain = on ? "on" : "off";
    document.dispatchEvent(new CustomEvent("kraftlab:explain-changed", { detail: { on } }));
    if (!on) this.resumed();
  }

  /** Looks at a frame's decisions; stops and explains when one matters. Returns the log lines its card shows. */
  frame(f: Frame): readonly LogEvent[] {
    if (!this.on || this.stopped) return [];
    const stops = (f.body.traffic?.decisions ?? []).filter(isStop).sort((a, b) => RANK[a.decision] - RANK[b.decision]);
    if (stops.length === 0) return [];
    this.stopped = true;
    // Others that end something on a frame (a lesson's Show me) wait while a stop is read.
    document.body.dataset.explainStop = "true";
    this.hooks.pause();
    const lines = linesOf(f.body.events, stops);
    this.show(stops, lines);
    return lines;
  }

  /** Playback resumed: the stop is over. */
  resumed(): void {
    if (!this.stopped && this.card.hidden) return;
    this.stopped = false;
    delete document.body.dataset.explainStop;
    this.card.hidden = true;
    this.traffic.highlight([]);
  }

  private show(stops: DecisionInfo[], lines: LogEvent[]): void {
    const first = stops[0];
    const title = this.card.querySelector<HTMLElement>(".explain-title");
    const list = this.card.querySelector<HTMLElement>(".explain-reasons");
    if (title) title.textContent = S.explainTitle(first.decision, first.timeMs);
    // The log's own lines; a stop the log tells at another moment shows the decisions' reasons.
    const said = lines.length ? lines.map((e) => e.text) : stops.map((d) => d.reason);
    this.card.dataset.from = lines.length ? "log" : "decisions";
    if (list) {
      list.replaceChildren();
      for (const text of said.slice(0, 4)) {
        const li = document.createElement("li");
        li.textContent = text;
        list.append(li);
      }
      if (said.length > 4) {
        const li = document.createElement("li");
        li.textContent = S.explainMore(said.length - 4);
        list.append(li);
      }
    }
    const actors = [...new Set(stops.flatMap(actorsOf))];
    this.traffic.highlight(actors);
    this.card.dataset.decision = first.decision;
    this.card.hidden = false;
    // Beside the first actor, inside the canvas: left of it when it sits on the right half.
    const at = actors.length ? this.traffic.anchorOf(actors[0]) : undefined;
    const cw = this.canvas.clientWidth;
    const cardW = Math.min(this.card.offsetWidth || 320, cw - 16);
    let x = at ? at.x + 24 : 16;
    if (at && at.x > cw / 2) x = at.x - cardW - 24;
    x = Math.max(8, Math.min(x, cw - cardW - 8));
    const y = Math.max(8, Math.min(at ? at.y + 16 : 16, this.canvas.clientHeight - (this.card.offsetHeight || 120) - 8));
    this.card.style.left = `${this.canvas.offsetLeft + x}px`;
    this.card.style.top = `${this.canvas.offsetTop + y}px`;
  }
}

/** Messages that are news: not the steady heartbeats and metadata fetches. */
export function isNews(m: MessageInfo): boolean {
  if (m.api === "Fetch") return false;
  if (m.api === "BrokerHeartbeat") return m.note !== "ready: unfence me" && m.note !== "you are unfenced";
  return true;
}

/**
 * Narrator speaks the event log's lines and the messages that are news in an aria-live region,
 * in cluster-time order. Announcements are gathered per frame and spoken at most every GAP_MS,
 * the latest few kept, so a screen reader follows the story without drowning in it. (The log
 * itself is not live: this is its voice.)
 */
export class Narrator {
  private queue: string[] = [];
  private last = 0;
  private timer = 0;
  private static readonly GAP_MS = 1500;
  private static readonly KEEP = 4;

  constructor(private readonly region: HTMLElement) {
    // The page's own log lines (EventLog.note: a refused action, presenter mode) are spoken too.
    document.addEventListener("kraftlab:narrate", (e) => {
      const text = (e as CustomEvent<{ text: string }>).detail?.text;
      if (!text) return;
      this.queue.push(text);
      this.trim();
      this.flush();
    });
  }

  /** Takes a frame; carded: the log lines the explain card shows (a status region says them). */
  frame(f: Frame, carded: readonly LogEvent[] = []): void {
    const said: { at: number; text: string }[] = [];
    for (const m of f.body.traffic?.messages ?? []) if (isNews(m)) said.push({ at: m.sentMs, text: S.narrateMessage(m) });
    for (const e of f.body.events) if (!carded.includes(e)) said.push({ at: e.timeMs, text: e.text });
    said.sort((a, b) => a.at - b.at); // stable: the log's own order at one time
    for (const s of said) this.queue.push(s.text);
    this.trim();
    this.flush();
  }

  /** Keeps the latest few, saying how many earlier ones were skipped. */
  private trim(): void {
    if (this.queue.length > Narrator.KEEP) this.queue = [S.narrateSkipped(this.queue.length - Narrator.KEEP + 1), ...this.queue.slice(-(Narrator.KEEP - 1))];
  }

  private flush(): void {
    if (this.queue.length === 0 || this.timer) return;
    const wait = Math.max(0, this.last + Narrator.GAP_MS - performance.now());
    this.timer = window.setTimeout(() => {
      this.timer = 0;
      this.last = performance.now();
      this.region.textContent = this.queue.join(". ");
      this.queue = [];
    }, wait);
  }
}
