// Writing to the DOM only what changed. An attribute or a text written is a DOM mutation even
// when its value is the same: the element's style is invalidated, mutation observers are told,
// and the browser lays out and paints it again. The panels follow every frame (60 a second),
// so each write they skip is work the main thread does not do.

/** Sets an attribute only when its value differs; null removes it. */
export function setAttr(e: Element, name: string, value: string | null): void {
  if (e.getAttribute(name) === value) return;
  if (value === null) e.removeAttribute(name);
  else e.setAttribute(name, value);
}

/** Sets a node's text only when it differs. */
export function setText(e: Node, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

/**
 * Paces a write to at most one every everyMs of wall time: for a value that changes faster
 * than a person reads it (a number moving every frame while a run plays), each write skipped
 * is a style, layout and paint the frame does not do, and a text node Blink does not leave
 * for its collector. The caller writes unpaced wherever the value must be exact at once
 * (paused, a step, a scrub).
 */
export class Pace {
  private at = -Infinity;
  constructor(private readonly everyMs: number) {}

  /** True when a write is due at now (performance.now()'s ms), which then counts as written. */
  due(now: number): boolean {
    if (now - this.at < this.everyMs) return false;
    this.at = now;
    return true;
  }
}
