// The default cluster's first frame, computed when the site was built (web/build's FirstFrame)
// and carried in index.html as a JSON data block: the page draws it as soon as app.js runs,
// before the wasm has downloaded and compiled, and the worker's own first frame (the same: a
// run is deterministic) follows. A URL that opens another run (a share link, a lesson) draws
// nothing early, as boot.ts starts no default cluster for it.

import { Frame, layoutFrom } from "./frame";
import type { FrameBody } from "./protocol";

/** The prebuilt first frame, or undefined when the page holds none or opens another run. */
export function prebuiltFrame(doc: Document = document, hash: string = location.hash): Frame | undefined {
  if (hash.replace(/^#/, "") !== "") return undefined;
  const text = doc.getElementById("first-frame")?.textContent;
  if (!text) return undefined;
  const { body, data } = JSON.parse(text) as { body: FrameBody; data: string };
  const bin = atob(data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Frame(body, bytes.buffer, layoutFrom(body, bytes.buffer, undefined));
}
