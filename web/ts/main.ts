// The page's entry point: fill the skeleton's text, start the worker, build the Configs panel
// from the worker's config definitions, start a cluster and draw its frames.
//
// Performance marks (kraftlab:*) record the start-up milestones (start, worker-ready,
// status-ready, configs-rendered, sim-started, first-frame); the end-to-end test reads them,
// and so can anyone with the browser's performance panel.

import { renderConfigs, type ConfigPanel } from "./configs";
import { Controls } from "./controls";
import { ErrorPanel } from "./errors";
import type { Frame } from "./frame";
import { EventLog } from "./log";
import { PROTOCOL, ProtocolError, WorkerClient, type ActOp, type ActRequest, type Problem, type StartRequest } from "./protocol";
import { Renderer } from "./render";
import { Simulation } from "./sim";
import { S, applyStrings } from "./strings";
import { PartitionTable } from "./table";

function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page skeleton has no #${id}`);
  return e as T;
}

/** How often the partition table and the canvas description may change, at most (ms). */
const TABLE_EVERY_MS = 150;
const DESCRIPTION_EVERY_MS = 1000;

function main(): void {
  performance.mark("kraftlab:start");
  const errors = new ErrorPanel(byId("error-panel"), byId("error-report"), byId("copy-report"), byId("copy-status"));
  const status = byId("status");
  const setStatus = (state: "loading" | "connecting" | "ready" | "failed", text: string) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  const problem = (p: Problem, fatal: boolean) => {
    errors.show(p);
    if (fatal) setStatus("failed", S.statusFailed);
  };
  const reportFailure = (what: string, e: unknown) => {
    // A dead worker has already been reported by the client; anything else is news.
    if (e instanceof ProtocolError && e.code === "worker_dead") return;
    problem(
      { message: S.problemRequest(what, e instanceof Error ? e.message : String(e)), detail: e instanceof ProtocolError ? e.detail : (e as Error)?.stack },
      false,
    );
  };

  window.addEventListener("error", (e) => problem({ message: S.problemPage(e.message), detail: e.error?.stack }, false));
  window.addEventListener("unhandledrejection", (e) =>
    problem({ message: S.problemPage(String(e.reason)), detail: e.reason?.stack }, false),
  );
  // With a strict policy a violation means a bug (or an injected script): never let it pass silently.
  document.addEventListener("securitypolicyviolation", (e) =>
    problem({ message: S.problemCSP(e.effectiveDirective, e.blockedURI) }, false),
  );

  try {
    applyStrings(document);
  } catch (e) {
    problem({ message: S.problemPage(String(e)) }, false);
  }
  setStatus("loading", S.statusLoading);
  errors.facts.set("page protocol", String(PROTOCOL));

  const client = new WorkerClient("worker.js", problem);
  const canvas = byId<HTMLCanvasElement>("cluster-canvas");
  const renderer = new Renderer(canvas);
  const log = new EventLog(byId("event-log"));
  const table = new PartitionTable(byId("partition-rows"), byId("partition-caption"), byId("describe-topic"), byId("partition-filter"));
  const desc = byId("cluster-desc");
  let configs: ConfigPanel | undefined;
  let firstFrame = true;
  let tableAt = 0;
  let tableTimer = 0;
  let descAt = 0;
  let stoppedShown = false;

  const onFrame = (f: Frame) => {
    if (firstFrame) {
      performance.mark("kraftlab:first-frame");
      firstFrame = false;
    }
    canvas.dataset.drawMs = renderer.draw(f).toFixed(2);
    log.append(f.body.events);
    controls.update(f);
    const now = performance.now();
    // The table rebuilds at most every TABLE_EVERY_MS, with a trailing update so the last
    // frame is always shown.
    window.clearTimeout(tableTimer);
    if (now - tableAt >= TABLE_EVERY_MS) {
      tableAt = now;
      table.update(f);
    } else {
      tableTimer = window.setTimeout(() => {
        tableAt = performance.now();
        table.update(f);
      }, TABLE_EVERY_MS);
    }
    if (now - descAt >= DESCRIPTION_EVERY_MS) {
      descAt = now;
      desc.textContent = renderer.description(f);
    }
    if (f.body.stopped && !stoppedShown) {
      stoppedShown = true;
      problem({ message: f.body.stopped }, false);
      controls.state();
    }
  };

  const sim = new Simulation(client, {
    frame: onFrame,
    failure: reportFailure,
    state: () => controls.state(),
  });

  const needsBroker = (op: ActOp) => op === "kill" || op === "start" || op === "shutdown" || op === "disk_swap";
  const act = (op: ActOp, target: { broker?: number; controller?: string }) => {
    const t = sim.last?.body.timeMs ?? 0;
    if (needsBroker(op) && target.broker === undefined) {
      log.note(t, S.noBrokerSelected);
      return;
    }
    const req: ActRequest = { op, ...target };
    sim.act(req).catch((e: unknown) => {
      if (e instanceof ProtocolError && e.code === "failed") log.note(t, S.actionFailed(op.replace("_", " "), e.message));
      else reportFailure("sim.act", e);
    });
  };

  const controls = new Controls(
    sim,
    {
      act,
      selected: (slot) => {
        renderer.selected = slot;
        renderer.redraw();
      },
    },
    {
      play: byId("play-button"),
      speed: byId("speed"),
      speedMeaning: byId("speed-meaning"),
      clock: byId("clock"),
      brokers: byId("broker-list"),
      controllers: byId("controller-list"),
      help: byId("help-dialog"),
      helpButton: byId("help-button"),
      shortcutRows: byId("shortcut-rows"),
    },
  );

  // The start form: a new cluster with the seed, the sizes and the Configs panel's values.
  const form = byId<HTMLFormElement>("start-form");
  const formError = byId("start-error");
  const startButton = byId<HTMLButtonElement>("start-button");
  const readForm = (): StartRequest | string => {
    const seed = byId<HTMLInputElement>("seed").value.trim();
    if (!/^\d{1,20}$/.test(seed)) return `${S.seedLabel}: ${seed || "?"}`;
    const req: StartRequest = { seed: Number.isSafeInteger(Number(seed)) ? Number(seed) : seed };
    for (const [id, key] of [
      ["broker-count", "brokers"],
      ["partition-count", "partitions"],
    ] as const) {
      const input = byId<HTMLInputElement>(id);
      const n = Number(input.value);
      if (!Number.isInteger(n) || n < Number(input.min) || n > Number(input.max)) {
        return `${input.labels?.[0]?.textContent ?? key}: ${input.min}–${input.max}`;
      }
      req[key] = n;
    }
    req.configs = configs?.values() ?? {};
    return req;
  };
  const start = async () => {
    const req = readForm();
    if (typeof req === "string") {
      formError.textContent = req;
      return;
    }
    formError.textContent = "";
    startButton.disabled = true;
    startButton.textContent = S.starting;
    try {
      await sim.start(req);
      // The new cluster's frames come next: forget the old one's panels and log.
      controls.reset();
      log.clear();
      renderer.selected = -1;
      stoppedShown = false;
      performance.mark("kraftlab:sim-started");
    } catch (e) {
      if (e instanceof ProtocolError && e.code === "failed") formError.textContent = e.message;
      else reportFailure("sim.start", e);
    } finally {
      startButton.disabled = false;
      startButton.textContent = S.startButton;
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void start();
  });

  const list = byId("config-list");
  void (async () => {
    await client.ready;
    performance.mark("kraftlab:worker-ready");
    setStatus("connecting", S.statusConnecting);
    const hello = await client.request("hello", {});
    errors.facts.set("version", hello.version);
    errors.facts.set("go", hello.goVersion);
    setStatus("ready", S.statusReady(hello.version, hello.goVersion));
    performance.mark("kraftlab:status-ready");

    // The cluster first: the canvas is what the reader came for.
    await start();

    const defs = await client.request("config.defs", {});
    configs = renderConfigs(
      list,
      defs.configs,
      (req) => client.request("config.validate", req),
      (e) => reportFailure("config.validate", e),
      async (name, value) => {
        await sim.act({ op: "set_config", name, value });
      },
    );
    list.closest("section")?.setAttribute("aria-busy", "false");
    performance.mark("kraftlab:configs-rendered");
  })().catch((e: unknown) => reportFailure("start-up", e));
}

main();
