// The event log: the frames' sentences, newest last. It is the canvas's text alternative over
// time; a screen reader hears its lines from the narration (explain.ts, Narrator), which speaks
// them with the traffic's news in one voice, so the list itself is not live. Each item carries
// its cluster time and kind as data-*.

import { clockText } from "./frame";
import type { LogEvent } from "./protocol";
import { S } from "./strings";

/**
 * How many items the log keeps; older ones are removed so that a long run stays light, and a
 * note at the top says how many went (the run itself keeps them: scrub back to see them again).
 */
const KEEP = 400;
/** How many of the newest lines the strip under the canvas repeats. */
const LATEST = 3;

/** How long after a wheel, touch, key or pointer press a scroll counts as the reader's own. */
const GESTURE_MS = 800;

export class EventLog {
  /**
   * Whether the log follows its newest line. Only the reader changes it: scrolling up stops
   * following, scrolling back to the bottom (or the "new events" button) resumes it. Scroll
   * events the page causes itself (its own scroll to the bottom, lines added or dropped in a
   * burst) never do, however the list's height moved before they arrived.
   */
  private pinned = true;
  private pinQueued = false;
  /** When the reader last touched the list (wheel, touch, key, pointer), in performance.now ms. */
  private gestureAt = -Infinity;
  private pointerHeld = false;
  /** Lines added while not following, for the button's count. */
  private unseen = 0;
  private readonly follow: HTMLButtonElement;
  /** Lines removed from the top since the log was last cleared, and the note that counts them. */
  private dropped = 0;
  private droppedNote: HTMLLIElement | undefined;

  /**
   * list is the log; latest, if given, repeats its newest lines under the canvas (CSS shows it
   * only when the log is not beside the canvas).
   */
  constructor(
    private readonly list: HTMLOListElement,
    private readonly latest?: HTMLElement | null,
  ) {
    const gesture = () => {
      this.gestureAt = performance.now();
    };
    for (const type of ["wheel", "touchstart", "touchmove", "keydown"]) list.addEventListener(type, gesture, { passive: true });
    list.addEventListener("pointerdown", () => {
      this.pointerHeld = true;
      gesture();
    });
    window.addEventListener("pointerup", () => {
      if (this.pointerHeld) gesture();
      this.pointerHeld = false;
    });
    list.addEventListener(
      "scroll",
      () => {
        if (!this.pointerHeld && performance.now() - this.gestureAt > GESTURE_MS) return;
        this.setPinned(list.scrollHeight - list.scrollTop - list.clientHeight < 24);
      },
      { passive: true },
    );
    this.follow = document.createElement("button");
    this.follow.type = "button";
    this.follow.id = "log-follow";
    this.follow.className = "log-follow";
    this.follow.hidden = true;
    this.follow.setAttribute("aria-label", S.logFollowLabel);
    this.follow.addEventListener("click", () => {
      this.setPinned(true);
      this.list.scrollTop = this.list.scrollHeight;
    });
    list.after(this.follow);
  }

  /** Removes every item (a new cluster starts). */
  clear(): void {
    this.list.replaceChildren();
    this.dropped = 0;
    this.droppedNote = undefined;
    this.setPinned(true);
    this.showLatest();
  }

  /** Repeats the log's newest lines in the strip under the canvas (after lines come or go). */
  showLatest(): void {
    if (!this.latest) return;
    const items: Node[] = [];
    for (let li = this.list.lastElementChild; li && items.length < LATEST; li = li.previousElementSibling) items.unshift(li.cloneNode(true));
    this.latest.replaceChildren(...items);
  }

  private setPinned(on: boolean): void {
    if (on === this.pinned) return;
    this.pinned = on;
    this.list.dataset.following = String(on);
    if (on) {
      this.unseen = 0;
      this.follow.hidden = true;
    }
  }

  /** Appends a frame's events; keeps the view pinned to the bottom if the reader had it there. */
  append(events: LogEvent[]): void {
    if (events.length === 0) return;
    const frag = document.createDocumentFragment();
    for (const e of events) frag.append(this.item(e));
    this.list.append(frag);
    this.dropOldest();
    this.showLatest();
    if (!this.pinned) {
      this.unseen += events.length;
      this.follow.textContent = S.logNewEvents(this.unseen);
      this.follow.hidden = false;
    }
    if (this.pinned && !this.pinQueued) {
      // Once per animation frame however many frames arrived: the scroll needs a layout.
      this.pinQueued = true;
      requestAnimationFrame(() => {
        this.pinQueued = false;
        if (this.pinned) this.list.scrollTop = this.list.scrollHeight;
      });
    }
  }

  /** Removes the oldest lines beyond KEEP and says how many went, in a note at the top. */
  private dropOldest(): void {
    const note = this.droppedNote;
    let over = this.list.childElementCount - (note ? 1 : 0) - KEEP;
    if (over <= 0) return;
    for (; over > 0; over--) {
      (note ? note.nextElementSibling : this.list.firstElementChild)?.remove();
      this.dropped++;
    }
    if (!this.droppedNote) {
      const li = document.createElement("li");
      li.className = "event kind-notice log-dropped";
      li.dataset.kind = "notice";
      this.droppedNote = li;
      this.list.prepend(li);
    }
    this.droppedNote.textContent = S.logOlderDropped(this.dropped, KEEP);
  }

  /** Adds a line written by the page itself (a refused action, say); the narration says it too. */
  note(timeMs: number, text: string, kind = "notice"): void {
    this.append([{ timeMs, kind: kind as LogEvent["kind"], text }]);
    document.dispatchEvent(new CustomEvent("kraftlab:narrate", { detail: { text } }));
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
