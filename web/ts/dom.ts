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
