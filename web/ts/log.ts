// The event log: the frames' sentences, newest last, in an aria-live="polite" list so that a
// screen reader announces what happens without being interrupted. It is also the canvas's
// text alternative over time. Each item carries its cluster time and kind as data-*.

import { clockText } from "./frame";
import type { LogEvent } from "./protocol";

/** How many items the log keeps; older ones are removed so that a long run stays light. */
const KEEP = 400;

export class EventLog {
  /**
   * Whether the reader has the list scrolled to the bottom, as of the last scroll. It is kept
   * from scroll events rather than measured in append: reading scrollHeight right after the
   * frame's other DOM writes would force a layout in the middle of every frame with events.
   */
  private pinned = true;
  private pinQueued = false;

  constructor(private readonly list: HTMLOListElement) {
    list.addEventListener(
      "scroll",
      () => {
        this.pinned = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
      },
      { passive: true },
    );
  }

  /** Removes every item (a new cluster starts). */
  clear(): void {
    this.list.replaceChildren();
    this.pinned = true;
  }

  /** Appends a frame's events; keeps the view pinned to the bottom if the reader had it there. */
  append(events: LogEvent[]): void {
    if (events.length === 0) return;
    const frag = document.createDocumentFragment();
    for (const e of events) frag.append(this.item(e));
    this.list.append(frag);
    while (this.list.childElementCount > KEEP) this.list.firstElementChild?.remove();
    if (this.pinned && !this.pinQueued) {
      // Once per animation frame however many frames arrived: the scroll needs a layout.
      this.pinQueued = true;
      requestAnimationFrame(() => {
        this.pinQueued = false;
        if (this.pinned) this.list.scrollTop = this.list.scrollHeight;
      });
    }
  }

  /** Adds a line written by the page itself (a refused action, say). */
  note(timeMs: number, text: string, kind = "notice"): void {
    this.append([{ timeMs, kind: kind as LogEvent["kind"], text }]);
  }

  private item(e: LogEvent): HTMLLIElement {
    const li = document.createElement("li");
    li.className = `event kind-${e.kind}`;
    li.dataset.kind = e.kind;
    li.dataset.timeMs = String(e.timeMs);
    const time = document.createElement("time");
    time.textContent = clockText(e.timeMs);
    const text = document.createElement("span");
    text.textContent = e.text;
    li.append(time, " ", text);
    return li;
  }
}
