// Pointer and keyboard on the canvas: a click (or tap) on a broker or a controller opens its
// action menu; hovering a replica cell or a strip shows a tooltip (partition, leader, ISR,
// ELR, state); with the canvas focused, the arrow keys move a visible focus between
// controllers and brokers and Enter opens the menu of the one in focus. [ and ] (or the
// wheel) zoom the partition range, 0 shows everything again.
//
// The menu does not act by itself: each item forwards to the matching button of the broker or
// controller panel (controls.ts), so the action code, its enabled state and whatever actions
// the panels gain later are shared, not duplicated.

import type { Frame } from "./frame";
import { moveFocus, panRange, zoomRange } from "./layout";
import type { Hit, Renderer } from "./render";
import type { ReplicaBody } from "./protocol";
import { S } from "./strings";

/** The panel that holds an actor's buttons: li[data-broker] or li[data-controller]. */
function panelItem(kind: "broker" | "controller", id: number): HTMLElement | null {
  return document.querySelector<HTMLElement>(`li[data-${kind}="${id}"]`);
}

/** The text of a replica's tooltip. */
export function replicaTooltip(f: Frame, partition: number, slot: number, position: number): string {
  const t = f.layout.topicOf(partition);
  const lp = f.leaderPos(partition);
  const bit = 1 << position;
  const role = lp === 0xff ? 4 : lp === position ? 0 : f.isrMaskOf(partition) & bit ? 1 : f.elrMask(partition) & bit ? 2 : 3;
  const leader = f.leader(partition);
  return S.tooltipReplica(
    t?.name ?? "?",
    t ? partition - t.first : partition,
    f.brokerId(slot),
    S.tooltipRole[role],
    leader < 0 ? S.noLeader : String(leader),
    f.isr(partition).join(","),
    f.members(partition, f.elrMask(partition)).join(","),
  );
}

function partitionName(f: Frame, p: number): string {
  const t = f.layout.topicOf(p);
  return t ? `${t.name}-${p - t.first}` : String(p);
}

export class CanvasInput {
  private menuFor: { kind: "broker" | "controller"; id: number } | undefined;
  private lastFocused = -1;
  /**
   * Whether the menu's items may act: set by a key pressed or a pointer pressed inside the
   * menu. An Enter that opened the menu from the canvas can deliver its keypress to the item
   * that just took focus; that must not press it.
   */
  private armed = false;
  /** The replica in keyboard focus: its index among the focused broker's hosted partitions, or -1. */
  private replicaAt = -1;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly renderer: Renderer,
    private readonly tooltip: HTMLElement,
    private readonly menu: HTMLElement,
    /** Presenter mode's toggle: P works from the canvas as everywhere. */
    private readonly onPresenter: () => void,
    /** Asks the worker how far a replica trails its leader (sim.replica), for its tooltip. */
    private readonly replicaLag?: (topic: string, partition: number, broker: number) => Promise<ReplicaBody>,
  ) {
    canvas.tabIndex = 0;
    canvas.setAttribute("role", "application");
    canvas.setAttribute("aria-roledescription", "cluster view");
    canvas.setAttribute("aria-label", S.canvasLabel);
    canvas.addEventListener("click", (e) => this.click(e));
    canvas.addEventListener("pointermove", (e) => this.hover(e));
    canvas.addEventListener("pointerleave", () => this.hideTooltip());
    canvas.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
    canvas.addEventListener("keydown", (e) => this.canvasKey(e));
    canvas.addEventListener("focus", () => {
      // Back from a menu or a Tab: the actor focused last, else the first broker.
      if (this.renderer.focused < 0) {
        this.focusTo(this.lastFocused >= 0 ? this.lastFocused : moveFocus(-1, this.controllers(), this.brokers(), "ArrowRight"));
      }
    });
    canvas.addEventListener("blur", (e) => {
      // Into the menu the focus ring stays: the menu belongs to the actor in focus.
      if (!this.menu.contains(e.relatedTarget as Node | null)) this.focusTo(-1);
    });
    menu.addEventListener("keydown", (e) => {
      this.armed = true;
      this.menuKey(e);
    });
    menu.addEventListener("pointerdown", () => {
      this.armed = true;
    });
    menu.addEventListener("focusout", (e) => {
      const to = e.relatedTarget as Node | null;
      if (!to || (!menu.contains(to) && to !== canvas)) this.closeMenu(false);
    });
    document.addEventListener("keydown", (e) => this.pageKey(e));
    document.addEventListener("pointerdown", (e) => {
      if (!this.menu.hidden && !this.menu.contains(e.target as Node) && e.target !== canvas) this.closeMenu(false);
    });
  }

  private controllers(): number {
    return this.renderer.frame?.body.controllers.length ?? 0;
  }

  private brokers(): number {
    return this.renderer.frame?.body.brokers.length ?? 0;
  }

  private focusTo(i: number): void {
    if (i !== this.renderer.focused) this.focusReplica(-1);
    if (i >= 0) this.lastFocused = i;
    this.renderer.focused = i;
    this.canvas.dataset.focus = i < 0 ? "" : this.actorName(i);
    this.renderer.redraw();
  }

  /**
   * Puts the keyboard focus on the i-th replica the focused broker hosts (-1: none): its
   * tooltip shows, and its partition is followed as a hovered replica's is (the
   * kraftlab:follow event, watch.ts): every replica of it on every broker, and its row.
   */
  private focusReplica(i: number): void {
    const f = this.renderer.frame;
    const nc = f?.body.controllers.length ?? 0;
    const slot = this.renderer.focused - nc;
    const hosted = f && slot >= 0 ? f.layout.hosted[slot] : undefined;
    if (!f || !hosted || i < 0 || i >= hosted.partitions.length) {
      if (this.replicaAt < 0) return;
      this.replicaAt = -1;
      this.canvas.dataset.focusReplica = "";
      this.hideTooltip();
      document.dispatchEvent(new CustomEvent("kraftlab:follow", { detail: { partition: -1 } }));
      return;
    }
    this.replicaAt = i;
    const p = hosted.partitions[i];
    this.canvas.dataset.focusReplica = partitionName(f, p);
    this.tooltip.textContent = replicaTooltip(f, p, slot, hosted.positions[i]);
    this.tooltip.hidden = false;
    // Under the replica's cell when it is drawn one by one, else under the broker's header.
    const geo = this.renderer.brokersDrawn[slot];
    const s = this.renderer.drawScale;
    const dpr = this.canvas.width / Math.max(1, this.canvas.clientWidth);
    const k = i - (geo?.from ?? 0);
    if (geo?.cells && k >= 0 && k < geo.cells.fits) {
      const c = geo.cells.cell;
      this.place(this.tooltip, (geo.gx + (k % geo.cells.cols) * c) / dpr, (geo.gy + (Math.floor(k / geo.cells.cols) + 1) * c) / dpr + 6);
    } else if (geo) this.place(this.tooltip, (geo.box.x + 12) * s, (geo.box.y + 60) * s);
    document.dispatchEvent(new CustomEvent("kraftlab:follow", { detail: { partition: p } }));
  }

  /** "controller 3000" or "broker 1" for focus index i. */
  private actorName(i: number): string {
    const f = this.renderer.frame;
    if (!f) return "";
    const nc = f.body.controllers.length;
    return i < nc ? `controller ${f.body.controllers[i]?.id}` : `broker ${f.body.brokers[i - nc]?.id}`;
  }

  /** The pointer in the drawing's CSS pixels: from the content box's corner, inside the border. */
  private point(e: MouseEvent): { x: number; y: number } {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left - this.canvas.clientLeft, y: e.clientY - r.top - this.canvas.clientTop };
  }

  private click(e: MouseEvent): void {
    const { x, y } = this.point(e);
    const hit = this.renderer.hitTest(x, y);
    const f = this.renderer.frame;
    if (!hit || !f) {
      this.closeMenu(false);
      return;
    }
    const nc = f.body.controllers.length;
    if (hit.kind === "controller") {
      this.focusTo(hit.index);
      this.openMenu("controller", f.body.controllers[hit.index].id, x, y);
    } else {
      this.focusTo(nc + hit.slot);
      this.openMenu("broker", f.body.brokers[hit.slot].id, x, y);
    }
  }

  private hover(e: PointerEvent): void {
    const { x, y } = this.point(e);
    const hit = this.renderer.hitTest(x, y);
    const text = hit ? this.describe(hit) : "";
    if (!text) {
      this.hideTooltip();
      return;
    }
    const lagKey = hit?.kind === "replica" ? `${hit.partition}/${hit.slot}/${this.renderer.frame?.body.timeMs}` : "";
    this.tooltip.textContent = lagKey && lagKey === this.lag.key && this.lag.text ? `${text}\n${this.lag.text}` : text;
    this.tooltip.hidden = false;
    this.place(this.tooltip, x + 14, y + 14);
    if (hit?.kind === "replica" && lagKey !== this.lag.key) this.askLag(hit.partition, hit.slot, lagKey, text);
    this.canvas.style.cursor = hit && hit.kind !== "replica" && hit.kind !== "bucket" ? "pointer" : "default";
  }

  /** The lag line of the replica under the pointer, for the frame it was asked in. */
  private lag = { key: "", text: "" };
  private lagPending = false;

  private askLag(partition: number, slot: number, key: string, text: string): void {
    const f = this.renderer.frame;
    const t = f?.layout.topicOf(partition);
    if (!f || !t || !this.replicaLag || this.lagPending) return; // one question at a time
    this.lag = { key, text: "" };
    this.lagPending = true;
    this.replicaLag(t.name, partition - t.first, f.brokerId(slot)).finally(() => (this.lagPending = false)).then(
      (r) => {
        if (this.lag.key !== key) return; // the pointer moved on
        this.lag.text = S.tooltipLag(r.state, r.lagMs, r.backlogBytes);
        this.tooltip.dataset.replica = `${r.state} ${r.lagMs} ${r.backlogBytes}`;
        if (!this.tooltip.hidden && this.tooltip.textContent === text) this.tooltip.textContent = `${text}\n${this.lag.text}`;
      },
      () => {}, // a replica that went away between the frame and the reply: no lag line
    );
  }

  private describe(hit: Hit): string {
    const f = this.renderer.frame;
    if (!f) return "";
    switch (hit.kind) {
      case "replica":
        return replicaTooltip(f, hit.partition, hit.slot, hit.position);
      case "bucket":
        return S.tooltipBucket(f.brokerId(hit.slot), partitionName(f, hit.first), partitionName(f, hit.last), hit.counts);
      case "broker": {
        const b = f.body.brokers[hit.slot];
        return S.tooltipBroker(b.id, S.brokerStateText(b.state, b.fenced, b.inControlledShutdown, b.gated));
      }
      case "controller": {
        const c = f.body.controllers[hit.index];
        return S.tooltipController(c.id, S.controllerStateText(c.running, c.active, c.role, c.epoch, c.highWatermark));
      }
    }
  }

  private hideTooltip(): void {
    this.tooltip.hidden = true;
  }

  /** Positions a floating element at canvas coordinates, kept inside the canvas. */
  private place(el: HTMLElement, x: number, y: number): void {
    const r = this.canvas.getBoundingClientRect();
    const w = el.offsetWidth;
    const h = el.offsetHeight;
    el.style.left = `${this.canvas.offsetLeft + Math.max(0, Math.min(x, r.width - w - 4))}px`;
    el.style.top = `${this.canvas.offsetTop + Math.max(0, Math.min(y, r.height - h - 4))}px`;
  }

  /** Opens the menu of a broker or controller: one item per button of its panel. */
  openMenu(kind: "broker" | "controller", id: number, x: number, y: number): void {
    const item = panelItem(kind, id);
    if (!item) return;
    this.hideTooltip();
    const who = kind === "broker" ? S.brokerName(id) : S.controllerName(id);
    const heading = document.createElement("p");
    heading.className = "canvas-menu-title";
    heading.textContent = who;
    const items: HTMLButtonElement[] = [];
    for (const src of Array.from(item.querySelectorAll<HTMLButtonElement>("button[data-op]"))) {
      const b = document.createElement("button");
      b.type = "button";
      b.setAttribute("role", "menuitem");
      b.dataset.op = src.dataset.op ?? "";
      b.textContent = src.textContent;
      b.disabled = src.disabled;
      const keys = src.getAttribute("aria-keyshortcuts");
      if (keys) b.setAttribute("aria-keyshortcuts", keys);
      b.addEventListener("click", () => {
        if (!this.armed) return;
        // The panel's own button does the work (and re-checks it is still enabled).
        if (!src.disabled) src.click();
        this.closeMenu(true);
      });
      items.push(b);
    }
    const close = document.createElement("button");
    close.type = "button";
    close.setAttribute("role", "menuitem");
    close.className = "canvas-menu-close";
    close.textContent = S.menuClose;
    close.addEventListener("click", () => {
      if (this.armed) this.closeMenu(true);
    });
    this.menu.replaceChildren(heading, ...items, close);
    this.menu.setAttribute("aria-label", S.menuLabel(who));
    this.menu.dataset.for = `${kind}-${id}`;
    this.menuFor = { kind, id };
    this.armed = false;
    this.menu.hidden = false;
    this.place(this.menu, x, y);
    (items.find((b) => !b.disabled) ?? close).focus({ preventScroll: true });
  }

  closeMenu(refocus: boolean): void {
    if (this.menu.hidden) return;
    this.menu.hidden = true;
    this.menu.dataset.for = "";
    this.menuFor = undefined;
    if (refocus) this.canvas.focus({ preventScroll: true });
  }

  /** Keeps an open menu's items in step with the panels (a frame may enable or disable them). */
  update(): void {
    const m = this.menuFor;
    if (!m || this.menu.hidden) return;
    const item = panelItem(m.kind, m.id);
    if (!item) return this.closeMenu(false);
    for (const b of Array.from(this.menu.querySelectorAll<HTMLButtonElement>("button[data-op]"))) {
      const src = item.querySelector<HTMLButtonElement>(`button[data-op="${b.dataset.op}"]`);
      if (src) b.disabled = src.disabled;
    }
  }

  private menuKey(e: KeyboardEvent): void {
    const items = Array.from(this.menu.querySelectorAll<HTMLButtonElement>("button:not(:disabled)"));
    const i = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === "Escape") this.closeMenu(true);
    else if (e.key === "ArrowDown") items[(i + 1) % items.length]?.focus();
    else if (e.key === "ArrowUp") items[(i - 1 + items.length) % items.length]?.focus();
    else if (e.key === "Tab") this.closeMenu(false);
    else return;
    if (e.key !== "Tab") e.preventDefault();
    e.stopPropagation();
  }

  private canvasKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const f = this.renderer.frame;
    if (!f) return;
    const nc = f.body.controllers.length;
    if (e.shiftKey && (e.key === "ArrowLeft" || e.key === "ArrowRight") && this.renderer.focused >= nc) {
      const hosted = f.layout.hosted[this.renderer.focused - nc]?.partitions;
      if (!hosted || hosted.length === 0) return;
      const step = e.key === "ArrowRight" ? 1 : -1;
      this.focusReplica(this.replicaAt < 0 ? (step > 0 ? 0 : hosted.length - 1) : (this.replicaAt + step + hosted.length) % hosted.length);
    } else if (e.key === "Escape" && this.replicaAt >= 0) {
      this.focusReplica(-1);
    } else if (e.key === "ArrowLeft" || e.key === "ArrowRight" || e.key === "ArrowUp" || e.key === "ArrowDown") {
      const next = moveFocus(this.renderer.focused, nc, f.body.brokers.length, e.key, this.renderer.brokerCols);
      this.focusTo(next);
      // A focused broker is also the selected one, so K, S, D and R act on it.
      if (next >= nc) panelItem("broker", f.body.brokers[next - nc].id)?.querySelector<HTMLButtonElement>("button.select")?.click();
    } else if (e.key === "Enter") {
      const i = this.renderer.focused;
      if (i < 0) return;
      const g = i < nc ? this.renderer.controllersDrawn[i] : this.renderer.brokersDrawn[i - nc]?.box;
      const at = { x: ((g?.x ?? 0) + 16) * this.renderer.drawScale, y: ((g?.y ?? 0) + 30) * this.renderer.drawScale };
      if (i < nc) this.openMenu("controller", f.body.controllers[i].id, at.x, at.y);
      else this.openMenu("broker", f.body.brokers[i - nc].id, at.x, at.y);
    } else return;
    e.preventDefault();
    e.stopPropagation(); // the page's shortcuts do not also see it
  }

  /** Page-wide view keys: P, [ and ], 0. Ignored while typing or with a modifier. */
  private pageKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(t.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    if (e.key === "p" || e.key === "P") this.onPresenter();
    else if (e.key === "]") this.zoom(0.25, undefined);
    else if (e.key === "[") this.zoom(4, undefined);
    else if (e.key === "0") this.zoom(Infinity, undefined);
    else return;
    e.preventDefault();
  }

  private wheel(e: WheelEvent): void {
    if (e.ctrlKey || !this.renderer.frame) return;
    // The page scrolls where the wheel would change nothing on the canvas: out or sideways at
    // the whole range, or in while every replica is a cell already (a small cluster). A reader
    // scrolling down the page over the canvas, as large as the screen at 1440 px, is not caught.
    if (!this.renderer.range && (e.shiftKey || e.deltaY >= 0 || this.renderer.showsEveryReplica)) return;
    const { x, y } = this.point(e);
    const hit = this.renderer.hitTest(x, y);
    const at = hit?.kind === "replica" ? hit.partition : hit?.kind === "bucket" ? hit.first : undefined;
    if (e.shiftKey) {
      // Shift+wheel pans along the partitions at the current zoom.
      const f = this.renderer.frame;
      const r = this.renderer.range;
      if (r) this.renderer.range = panRange(r, f.count, e.deltaY > 0 ? 0.25 : -0.25);
      this.renderer.redraw();
    } else this.zoom(e.deltaY < 0 ? 0.5 : 2, at);
    e.preventDefault();
  }

  /** Zooms the partition range by factor around partition `at` (the range's middle if none). */
  zoom(factor: number, at: number | undefined): void {
    const f = this.renderer.frame;
    if (!f) return;
    const r = this.renderer.range ?? { lo: 0, hi: f.count };
    const next = factor === Infinity ? { lo: 0, hi: f.count } : zoomRange(r, f.count, factor, at ?? Math.floor((r.lo + r.hi) / 2));
    this.renderer.range = next.lo === 0 && next.hi === f.count ? undefined : next;
    this.canvas.dataset.range = this.renderer.range ? `${next.lo}-${next.hi}` : "";
    this.renderer.redraw();
  }
}
