// Watching the cluster play out: the traffic layer over the canvas, explain mode and the
// narration, wired to the page's toggles. main.ts hands every frame here and says when time
// went back or playback changed; everything else lives in traffic.ts and explain.ts.

import { Explainer, Narrator } from "./explain";
import type { Frame } from "./frame";
import type { Renderer } from "./render";
import type { Simulation } from "./sim";
import { TrafficLayer } from "./traffic";

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

/** The page's view of what happens: call frame for every frame, reset when time goes back, state on play/pause. */
export interface Watch {
  readonly traffic: TrafficLayer;
  readonly explainer: Explainer;
  frame(f: Frame): void;
  reset(): void;
  state(): void;
}

export function setUpWatch(canvas: HTMLCanvasElement, renderer: Renderer, sim: () => Simulation): Watch {
  const traffic = new TrafficLayer(canvas, renderer);
  const narrator = new Narrator(byId("narration"));
  const explainer = new Explainer(byId("explain-card"), canvas, traffic, {
    pause: () => sim().setPlaying(false),
    resume: () => sim().setPlaying(true),
  });
  const trafficToggle = byId<HTMLInputElement>("traffic-toggle");
  const explainToggle = byId<HTMLInputElement>("explain-toggle");
  trafficToggle.addEventListener("change", () => traffic.setVisible(trafficToggle.checked));
  explainToggle.addEventListener("change", () => explainer.setEnabled(explainToggle.checked));
  document.addEventListener("kraftlab:explain-changed", (e) => {
    explainToggle.checked = Boolean((e as CustomEvent<{ on: boolean }>).detail?.on);
  });
  followOne(canvas, renderer, traffic);
  return {
    traffic,
    explainer,
    frame(f: Frame) {
      traffic.take(f, sim().speed);
      markRow(f, traffic.followed);
      const carded = explainer.frame(f);
      narrator.frame(f, carded);
    },
    reset() {
      traffic.clear();
      explainer.resumed(); // a stop's card is about a moment no longer shown
    },
    state() {
      const s = sim();
      traffic.setPlaying(s.playing);
      if (s.playing) explainer.resumed();
    },
  };
}

/**
 * Follow one thing: hovering a replica (or focusing it with Shift + ← → on a focused broker)
 * highlights every replica of its partition on every broker
 * and its row in the describe table; clicking a replica pins it (clicking it again, or Escape,
 * lets go).
 */
function followOne(canvas: HTMLCanvasElement, renderer: Renderer, traffic: TrafficLayer): void {
  let pinned = -1;
  const at = (e: MouseEvent) => {
    const r = canvas.getBoundingClientRect();
    const hit = renderer.hitTest(e.clientX - r.left, e.clientY - r.top);
    return hit?.kind === "replica" ? hit.partition : -1;
  };
  const follow = (p: number) => {
    traffic.followed = p;
    canvas.dataset.followed = String(p);
    if (renderer.frame) markRow(renderer.frame, p);
  };
  canvas.addEventListener("pointermove", (e) => {
    if (pinned < 0) follow(at(e));
  });
  canvas.addEventListener("pointerleave", () => {
    if (pinned < 0) follow(-1);
  });
  canvas.addEventListener("click", (e) => {
    const p = at(e);
    if (p < 0) return;
    pinned = pinned === p ? -1 : p;
    canvas.dataset.pinned = String(pinned);
    follow(pinned >= 0 ? pinned : p);
  });
  // The keyboard's replica focus (canvas-input.ts): followed while it is in focus, as a hover.
  document.addEventListener("kraftlab:follow", (e) => {
    if (pinned < 0) follow((e as CustomEvent<{ partition: number }>).detail?.partition ?? -1);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && pinned >= 0) {
      pinned = -1;
      canvas.dataset.pinned = "-1";
      follow(-1);
    }
  });
}

/** Marks the describe table's row of partition p (an index into the frame's arrays), if shown. */
function markRow(f: Frame, p: number): void {
  const rows = document.getElementById("partition-rows");
  if (!rows) return;
  const t = p >= 0 ? f.layout.topicOf(p) : undefined;
  const row = t
    ? (Array.from(rows.querySelectorAll<HTMLTableRowElement>(`tr[data-partition="${p - t.first}"]`)).find((r) => r.cells[0]?.textContent === t.name) ?? null)
    : null;
  for (const old of Array.from(rows.querySelectorAll("tr.followed"))) if (old !== row) old.classList.remove("followed");
  row?.classList.add("followed");
}
