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
  return {
    traffic,
    explainer,
    frame(f: Frame) {
      traffic.take(f, sim().speed);
      narrator.frame(f);
      explainer.frame(f);
    },
    reset() {
      traffic.clear();
    },
    state() {
      const s = sim();
      traffic.setPlaying(s.playing);
      if (s.playing) explainer.resumed();
    },
  };
}
