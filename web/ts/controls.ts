// The page's controls: play/pause and speed, the broker and controller panels with their
// action buttons, the keyboard shortcuts and the help dialog. Every action is a real button
// (so it works with a mouse, a keyboard or a screen reader); the shortcuts are a faster way to
// press the same buttons, documented in the help dialog.

import { Pace, setAttr, setText } from "./dom";
import { clockText, type Frame } from "./frame";
import type { ActOp, ActRequest, BrokerState, ControllerState } from "./protocol";
import { brokerLook } from "./render";
import { SPEEDS, type Simulation } from "./sim";
import { S } from "./strings";

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

/** Which broker actions make sense in a state; the cluster still has the last word. */
export function brokerActions(b: BrokerState): Record<"kill" | "start" | "shutdown" | "disk_swap" | "slow_disk", boolean> {
  const down = b.state === "not_running";
  return {
    kill: !down,
    start: down,
    shutdown: b.state === "running" || b.state === "starting" || b.state === "recovery",
    disk_swap: down,
    slow_disk: true,
  };
}

/**
 * Wall-clock ms between writes of the toolbar's clock while a run plays: ten a second. At 10×
 * and above its tenths change every frame, faster than anyone reads them, and the cluster
 * canvas's summary line shows the time every frame anyway; ten writes a second still show the
 * seconds moving smoothly at 1× and 10×. Paused, a step or a scrub writes at once.
 */
export const CLOCK_EVERY_MS = 100;

/**
 * Wall-clock ms between writes of a controller's high watermark while a run plays and nothing
 * else in its line changed: four a second. The watermark moves with every record committed
 * (20 a second at 10×); a number read at a glance needs to hold still for a quarter second,
 * and the log strip draws it every frame. Its role, epoch or running state are written at once.
 */
export const WATERMARK_EVERY_MS = 250;

/** The share of its capacity a disk keeps when the page slows it (W). */
export const SLOW_DISK_FACTOR = 0.2;

/** slow_disk's request for a broker: slow a disk at full speed, restore a slowed one. */
export function slowDiskToggle(b: BrokerState | undefined): number {
  return b?.diskFactor ? 1 : SLOW_DISK_FACTOR;
}

export interface ControlsHooks {
  /** Runs a cluster action; failures are shown by the caller. */
  act(op: ActOp, target: Omit<ActRequest, "op">): void;
  /** Other shortcuts (the timeline's, the actions panel's); true when the key was one of them. */
  key?(k: string): boolean;
  /** The selection changed (the renderer outlines the selected broker). */
  selected(slot: number): void;
}

export class Controls {
  private selectedId = -1;
  /** The last keydown was Space toggling play: its keypress must not scroll the page. */
  private spaceToggled = false;
  private frame: Frame | undefined;
  private brokerItems = new Map<
    number,
    { li: HTMLLIElement; state: HTMLElement; counts: HTMLElement; buttons: Record<string, HTMLButtonElement>; select: HTMLButtonElement; said: string }
  >();
  private controllerItems = new Map<
    number,
    { li: HTMLLIElement; state: HTMLElement; kill: HTMLButtonElement; start: HTMLButtonElement; snapshot: HTMLButtonElement; said: string }
  >();
  private clockPace = new Pace(CLOCK_EVERY_MS);
  // One pace for all the controllers: their watermarks move together, and written in the same
  // frame they cost one layout, not one each.
  private watermarkPace = new Pace(WATERMARK_EVERY_MS);

  constructor(
    private readonly sim: Simulation,
    private readonly hooks: ControlsHooks,
    private readonly dom: {
      play: HTMLButtonElement;
      speed: HTMLSelectElement;
      speedMeaning: HTMLElement;
      clock: HTMLOutputElement;
      brokers: HTMLUListElement;
      controllers: HTMLUListElement;
      help: HTMLDialogElement;
      helpButton: HTMLButtonElement;
      shortcutRows: HTMLTableSectionElement;
    },
  ) {
    for (const x of SPEEDS) {
      const o = el("option", { value: String(x) }, S.speedOption(x));
      o.selected = x === sim.speed;
      dom.speed.append(o);
    }
    dom.speed.addEventListener("change", () => sim.setSpeed(Number(dom.speed.value)));
    dom.play.addEventListener("click", () => sim.setPlaying(!sim.playing));
    dom.helpButton.addEventListener("click", () => this.toggleHelp());
    for (const [key, action] of S.shortcuts) {
      dom.shortcutRows.append(el("tr", {}, el("td", {}, el("kbd", {}, key)), el("td", {}, action)));
    }
    document.addEventListener("keydown", (e) => this.key(e));
    // Space is play/pause, not "scroll a screen down". Cancelling its keydown suppresses the
    // keypress for a physical keyboard, but input that delivers the keypress on its own (the
    // DevTools protocol's "char" events, some virtual keyboards) would still scroll the page,
    // smoothly, under the reader's pointer: cancel that keypress too.
    document.addEventListener("keypress", (e) => {
      if (e.key === " " && this.spaceToggled) e.preventDefault();
      this.spaceToggled = false;
    });
    this.state();
  }

  /**
   * Reflects the simulation's play state, speed and rate in the toolbar. Called whenever the
   * measured rate moves by 5 % (several times a second on a loaded machine), so it writes only
   * what changed (dom.ts).
   */
  state(): void {
    const { play, speed, speedMeaning } = this.dom;
    setText(play, this.sim.playing ? S.pause : S.play);
    setAttr(play, "aria-pressed", String(this.sim.playing));
    if (speed.value !== String(this.sim.speed)) speed.value = String(this.sim.speed);
    setText(speedMeaning, S.speedMeaning(this.sim.speed));
    const sim = this.sim.stopped ? "stopped" : this.sim.playing ? "playing" : "paused";
    if (document.body.dataset.sim !== sim) document.body.dataset.sim = sim;
    this.clock();
    // What a paced write held back shows as soon as the run pauses or stops.
    if (this.frame) this.syncControllers(this.frame.body.controllers);
  }

  /** Writes the clock: at once while paused or stopped, else at most every CLOCK_EVERY_MS. */
  private clock(): void {
    const f = this.sim.last;
    if (!f) return;
    if (this.sim.playing && !this.clockPace.due(performance.now())) return;
    let rate: string = S.clockPaused;
    if (this.sim.stopped) rate = S.clockStopped;
    else if (this.sim.playing) rate = this.sim.rate > 0 ? S.clockRate(this.sim.rate) : "";
    setText(this.dom.clock, S.clock(clockText(f.body.timeMs), rate));
  }

  /** Updates the panels from a frame. */
  update(f: Frame): void {
    this.frame = f;
    this.clock();
    this.syncBrokers(f.body.brokers);
    this.syncControllers(f.body.controllers);
  }

  /** Forgets the previous cluster's panels (a restart may change the broker count). */
  reset(): void {
    this.dom.brokers.replaceChildren();
    this.dom.controllers.replaceChildren();
    this.brokerItems.clear();
    this.controllerItems.clear();
    this.frame = undefined;
  }

  private syncBrokers(bs: BrokerState[]): void {
    for (const b of bs) {
      let item = this.brokerItems.get(b.id);
      if (!item) {
        const select = el("button", { type: "button", class: "select", "aria-pressed": "false", "aria-keyshortcuts": b.id <= 9 ? String(b.id) : "" },
          S.brokerName(b.id));
        select.addEventListener("click", () => this.select(b.id));
        const state = el("span", { class: "actor-state" });
        const counts = el("span", { class: "actor-counts" });
        const buttons: Record<string, HTMLButtonElement> = {};
        const row = el("div", { class: "actor-buttons" });
        for (const [op, label, key] of [
          ["kill", S.actKill, "K"],
          ["start", S.actStart, "S"],
          ["shutdown", S.actShutdown, "D"],
          ["disk_swap", S.actDiskSwap, "R"],
          ["slow_disk", S.actSlowDisk, "W"],
        ] as const) {
          const btn = el("button", { type: "button", "data-op": op, "aria-keyshortcuts": key }, label);
          btn.addEventListener("click", () => {
            this.select(b.id);
            if (op === "slow_disk") this.hooks.act(op, { broker: b.id, factor: slowDiskToggle(this.broker(b.id)) });
            else this.hooks.act(op, { broker: b.id });
          });
          buttons[op] = btn;
          row.append(btn);
        }
        const li = el("li", { class: "actor", "data-broker": String(b.id) }, select, state, counts, row);
        this.dom.brokers.append(li);
        item = { li, state, counts, buttons, select, said: "" };
        this.brokerItems.set(b.id, item);
      }
      // Everything the item is written from: a broker that did not change (nearly every frame)
      // costs no text, number format or DOM read.
      const said = `${b.state} ${b.fenced} ${b.inControlledShutdown} ${b.gated} ${b.leaders} ${b.replicas} ${b.outOfSync} ${b.diskFactor}`;
      if (said === item.said) continue;
      item.said = said;
      setText(item.state, S.brokerStateText(b.state, b.fenced, b.inControlledShutdown, b.gated));
      setText(item.counts, S.brokerCounts(b.leaders, b.replicas, b.outOfSync));
      setAttr(item.li, "data-look", brokerLook(b));
      const ok = brokerActions(b);
      for (const [op, btn] of Object.entries(item.buttons)) setAttr(btn, "disabled", ok[op as keyof typeof ok] ? null : "");
      setText(item.buttons.slow_disk, b.diskFactor ? S.actRestoreDisk : S.actSlowDisk);
      setAttr(item.buttons.slow_disk, "aria-pressed", String(!!b.diskFactor));
    }
  }

  /**
   * Writes the controllers' lines: at once while paused or stopped, or when more than the high
   * watermark changed, else at most every WATERMARK_EVERY_MS.
   */
  private syncControllers(cs: ControllerState[]): void {
    let due: boolean | undefined;
    for (const c of cs) {
      let item = this.controllerItems.get(c.id);
      if (!item) {
        const state = el("span", { class: "actor-state" });
        const kill = el("button", { type: "button", "data-op": "kill_controller" }, S.actKillController);
        const start = el("button", { type: "button", "data-op": "start_controller" }, S.actStartController);
        const snapshot = el("button", { type: "button", "data-op": "snapshot" }, S.actSnapshot);
        kill.addEventListener("click", () => this.hooks.act("kill_controller", { controller: String(c.id) }));
        start.addEventListener("click", () => this.hooks.act("start_controller", { controller: String(c.id) }));
        snapshot.addEventListener("click", () => this.hooks.act("snapshot", { controller: String(c.id) }));
        const li = el("li", { class: "actor", "data-controller": String(c.id) },
          el("span", { class: "actor-name" }, S.controllerName(c.id)), state, el("div", { class: "actor-buttons" }, kill, start, snapshot));
        this.dom.controllers.append(li);
        item = { li, state, kill, start, snapshot, said: "" };
        this.controllerItems.set(c.id, item);
      }
      // All of the line but the watermark: when it changed, the line is written at once.
      const said = `${c.running} ${c.active} ${c.role} ${c.epoch}`;
      if (said !== item.said || !this.sim.playing || (due ??= this.watermarkPace.due(performance.now()))) {
        item.said = said;
        setText(item.state, S.controllerStateText(c.running, c.active, c.role, c.epoch, c.highWatermark));
      }
      setAttr(item.li, "data-active", String(c.active));
      setAttr(item.kill, "disabled", c.running ? null : "");
      setAttr(item.start, "disabled", c.running ? "" : null);
      setAttr(item.snapshot, "disabled", c.running ? null : "");
      setAttr(item.kill, "aria-keyshortcuts", c.active ? "C" : null);
      setAttr(item.snapshot, "aria-keyshortcuts", c.active ? "O" : null);
    }
  }

  private broker(id: number): BrokerState | undefined {
    return this.frame?.body.brokers.find((b) => b.id === id);
  }

  /** The selected broker's id, or -1. */
  get selected(): number {
    return this.selectedId;
  }

  private select(id: number): void {
    this.selectedId = id;
    for (const [bid, item] of this.brokerItems) {
      item.select.setAttribute("aria-pressed", String(bid === id));
      item.li.classList.toggle("selected", bid === id);
    }
    const slot = this.frame?.body.brokers.findIndex((b) => b.id === id) ?? -1;
    this.hooks.selected(slot);
  }

  private toggleHelp(): void {
    const d = this.dom.help;
    if (d.open) d.close();
    else {
      // showModal focuses the first control, the Close button at the bottom, and scrolls the
      // dialog there; the reader starts at the top, on the heading.
      d.showModal();
      byIdIn(d, "help-heading")?.focus({ preventScroll: true });
      d.scrollTop = 0;
    }
  }

  /** Keyboard shortcuts; ignored while the reader types in a field or uses a modifier. */
  private key(e: KeyboardEvent): void {
    this.spaceToggled = false; // each keydown decides afresh for its own keypress
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(t.tagName))) return;
    if (this.dom.help.open && e.key !== "?") return; // the dialog handles Esc itself
    const k = e.key;
    // Space and Enter on a focused button press that button; do not also toggle play.
    if (k === " " && t?.tagName === "BUTTON") return;
    let handled = true;
    if (k === "?") this.toggleHelp();
    else if (k === " ") {
      this.sim.setPlaying(!this.sim.playing);
      this.spaceToggled = true;
    } else if (/^[1-9]$/.test(k)) {
      if (this.brokerItems.has(Number(k))) this.select(Number(k));
    } else if (k === "+" || k === "=") this.stepSpeed(1);
    else if (k === "-" || k === "_") this.stepSpeed(-1);
    else if (k === "c" || k === "C") this.hooks.act("kill_controller", { controller: "active" });
    else if (k === "o" || k === "O") this.hooks.act("snapshot", { controller: "active" });
    else if ("kKsSdDrR".includes(k)) {
      const op = ({ k: "kill", s: "start", d: "shutdown", r: "disk_swap" } as const)[k.toLowerCase() as "k" | "s" | "d" | "r"];
      if (this.selectedId < 0) this.hooks.act(op, {});
      else this.hooks.act(op, { broker: this.selectedId });
    } else if (k === "w" || k === "W") {
      if (this.selectedId < 0) this.hooks.act("slow_disk", {});
      else this.hooks.act("slow_disk", { broker: this.selectedId, factor: slowDiskToggle(this.broker(this.selectedId)) });
    } else handled = this.hooks.key?.(k) ?? false;
    if (handled) e.preventDefault();
  }

  private stepSpeed(dir: number): void {
    const i = SPEEDS.indexOf(this.sim.speed as (typeof SPEEDS)[number]);
    const next = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i + dir))];
    this.sim.setSpeed(next);
  }
}

function byIdIn(root: HTMLElement, id: string): HTMLElement | null {
  return root.querySelector<HTMLElement>(`#${id}`);
}
