// The page's entry point: fill the skeleton's text, start the worker, build the Configs panel
// from the worker's config definitions, start a cluster and draw its frames.
//
// Performance marks (kraftlab:*) record the start-up milestones (start, first-paint: the
// prebuilt frame drawn, worker-ready, status-ready, sim-started, first-frame-in, first-frame,
// configs-rendered); the end-to-end test
// reads them, and so can anyone with the browser's performance panel.

import { CanvasInput } from "./canvas-input";
import { Charts } from "./charts";
import { ActionsPanel } from "./actions";
import { renderConfigs, type ConfigPanel } from "./configs";
import { Controls } from "./controls";
import { ErrorPanel } from "./errors";
import { clockText, type Frame } from "./frame";
import { EventLog } from "./log";
import { PROTOCOL, ProtocolError, WorkerClient, type ActOp, type ActRequest, type LoadBody, type Problem, type StartRequest } from "./protocol";
import { BOOT_GLOBAL, sameStart, type BootState } from "./early";
import { LogStripView } from "./logstrip";
import { Renderer } from "./render";
import { prebuiltFrame } from "./prebuilt";
import { registerOffline } from "./offline";
import { setUpWatch } from "./watch";
import { Simulation } from "./sim";
import { S, applyStrings } from "./strings";
import { PartitionTable } from "./table";
import { LinkError, LinkKeeper, MAX_SCENARIO_BYTES, decodeRun, download } from "./share";
import { Replay } from "./replay";
import { Timeline } from "./timeline";
import { PRESENTER_SCALE, Presenter } from "./presenter";
import { showWelcome, welcomeActed } from "./welcome";
import { LessonPanel } from "./lesson/panel";
import { applyLessonStrings } from "./lesson/strings";

function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page skeleton has no #${id}`);
  return e as T;
}

/** How often the partition table and the canvas description may change, at most (ms). */
const TABLE_EVERY_MS = 250;
const DESCRIPTION_EVERY_MS = 1000;
/** The end of cluster time: the worker's MaxSeekMs (7 days). */
const MAX_CLUSTER_MS = 7 * 24 * 3600 * 1000;
/** A link's time up to which sim.load runs there in one request; later ones replay in slices. */
const DIRECT_REPLAY_MS = 60_000;
/** How sim.load's refusal of a replay too long for the page begins (wasm/bridge/share.go). */
const REPLAY_REFUSED = "replayToMs: ";

function main(): void {
  performance.mark("kraftlab:start");
  const errors = new ErrorPanel(byId("error-panel"), byId("error-report"), byId("copy-report"), byId("copy-status"));
  const status = byId("status");
  const setStatus = (state: "loading" | "connecting" | "ready" | "failed", text: string) => {
    status.dataset.state = state;
    status.textContent = text;
  };
  // A dead worker takes the run's state with it; the URL keeps the run, so the way back is a
  // reload that reopens it (after writing the last moment), offered on the error panel.
  let workerDead = false;
  const problem = (p: Problem, fatal: boolean) => {
    errors.show(p);
    if (!fatal) return;
    setStatus("failed", S.statusFailed);
    workerDead = true;
    document.body.dataset.worker = "dead";
    byId<HTMLButtonElement>("start-button").disabled = true;
    errors.offerRestart(S.workerRestartText, S.workerRestart, () => {
      keeper.flushNow();
      location.reload();
    });
  };
  const reportFailure = (what: string, e: unknown) => {
    // A dead worker has already been reported by the client; anything else is news.
    if (e instanceof ProtocolError && e.code === "worker_dead") return;
    problem(
      { message: S.problemRequest(what, e instanceof Error ? e.message : String(e)), detail: e instanceof ProtocolError ? e.detail : (e as Error)?.stack },
      false,
    );
  };

  window.addEventListener("error", (e) => {
    // "ResizeObserver loop completed with undelivered notifications" says a layout took two
    // passes to settle; the browser delivers the rest on the next frame. It carries no error
    // object and is not a failure of the page.
    if (!e.error && e.message.startsWith("ResizeObserver loop")) return;
    problem({ message: S.problemPage(e.message), detail: e.error?.stack }, false);
  });
  window.addEventListener("unhandledrejection", (e) =>
    problem({ message: S.problemPage(String(e.reason)), detail: e.reason?.stack }, false),
  );
  // With a strict policy a violation means a bug (or an injected script): never let it pass silently.
  document.addEventListener("securitypolicyviolation", (e) =>
    problem({ message: S.problemCSP(e.effectiveDirective, e.blockedURI) }, false),
  );

  try {
    applyStrings(document);
    applyLessonStrings(document);
  } catch (e) {
    problem({ message: S.problemPage(String(e)) }, false);
  }
  setStatus("loading", S.statusLoading);
  errors.facts.set("page protocol", String(PROTOCOL));

  // The worker the boot script (boot.ts) started while the page was parsed, if it ran first;
  // null tells a boot script that arrives later that it is too late.
  const boots = window as unknown as Record<string, BootState | null | undefined>;
  const boot = boots[BOOT_GLOBAL] ?? undefined;
  boots[BOOT_GLOBAL] = null;
  const client = new WorkerClient(boot ?? "worker.js", problem);
  const canvas = byId<HTMLCanvasElement>("cluster-canvas");
  const renderer = new Renderer(canvas);
  // The default cluster before the wasm arrives (prebuilt.ts); the worker's frames replace it.
  const prebuilt = prebuiltFrame();
  if (prebuilt) {
    renderer.draw(prebuilt);
    performance.mark("kraftlab:first-paint");
  }
  // Traffic, explain mode and narration (watch.ts): views of the frames' stream of happenings.
  const watch = setUpWatch(canvas, renderer, () => sim);
  const log = new EventLog(byId("event-log"), document.getElementById("latest-events"));
  const table = new PartitionTable(byId("partition-rows"), byId("partition-caption"), byId("describe-topic"), byId("partition-filter"));
  const desc = byId("cluster-desc");
  // Charts over time, presenter mode and the canvas's pointer and keyboard input
  // (charts.ts, presenter.ts, canvas-input.ts).
  const charts = new Charts(byId("charts"));
  const logStrip = new LogStripView(byId<HTMLCanvasElement>("log-strip"), byId("log-strip-desc"));
  const presenter = new Presenter({
    changed: (on) => {
      renderer.setScale(on ? PRESENTER_SCALE : 1);
      logStrip.setScale(on ? PRESENTER_SCALE : 1);
      charts.fit();
      log.note(sim.last?.body.timeMs ?? 0, on ? S.presenterOn : S.presenterOff);
    },
  });
  const canvasInput = new CanvasInput(canvas, renderer, byId("canvas-tooltip"), byId("canvas-menu"), () => presenter.toggle(), (topic, partition, broker) =>
    client.request("sim.replica", { topic, partition, broker }),
  );
  for (const [key, action] of S.viewShortcuts) {
    const row = document.createElement("tr");
    const k = document.createElement("td");
    k.append(Object.assign(document.createElement("kbd"), { textContent: key }));
    row.append(k, Object.assign(document.createElement("td"), { textContent: action }));
    byId("view-shortcut-rows").append(row);
  }
  let configs: ConfigPanel | undefined;
  let firstFrame = true;
  // Resolved by the first frame drawn: the Configs panel waits for it (below), so that the
  // worker builds that frame before it answers config.defs (its first answers run cold code).
  let drewFirstFrame = () => {};
  const firstFrameDrawn = new Promise<void>((resolve) => (drewFirstFrame = resolve));
  let tableAt = 0;
  let tableTimer = 0;
  let descAt = 0;
  let stoppedShown = false;

  const onFrame = (f: Frame) => {
    // first-frame-in: the frame is here (where first-frame used to be marked), not yet drawn.
    if (firstFrame) performance.mark("kraftlab:first-frame-in");
    renderer.ticking = sim.playing;
    canvas.dataset.drawMs = renderer.draw(f).toFixed(2);
    if (firstFrame) {
      // Once the frame is on the canvas (not when it arrives): that is what the budget counts.
      performance.mark("kraftlab:first-frame");
      firstFrame = false;
      drewFirstFrame();
    }
    log.append(f.body.events);
    watch.frame(f);
    logStrip.draw(f.body.log ?? undefined);
    controls.update(f);
    // Time going back (scrubbing, a replay) drops the chart points after it; charts.frame
    // also checks, this makes the hook explicit for whoever adds another way back.
    if (f.body.timeMs < charts.lastTimeMs) charts.resetTo(f.body.timeMs);
    charts.frame(f);
    canvasInput.update();
    lesson.frame(f);
    timeline.update(f);
    actions.update(f);
    keeper.setTime(f.body.timeMs, sim.playing);
    // The worker ends cluster time at 7 days and says so in the log; stop playing there.
    if (f.body.timeMs >= MAX_CLUSTER_MS && sim.playing) sim.setPlaying(false);
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

  // Time and sharing (timeline.ts, share.ts, actions.ts): the run's history lives in the
  // worker; the page shows its marks and keeps it in the URL.
  const keeper = new LinkKeeper();
  // The URL is written at most once a second while time moves: write the last moment too
  // when the reader leaves or reloads (pagehide) or switches away (visibilitychange).
  window.addEventListener("pagehide", () => keeper.flushNow());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") keeper.flushNow();
  });
  const eventLogList = byId("event-log");
  // The history version the marks and the link show; a frame with another one refreshes them.
  let historyShown = -1;
  const refreshHistory = async () => {
    const exp = await client.request("sim.export", {});
    historyShown = exp.history.version;
    timeline.setActions(exp.history.actions, exp.history.horizonMs);
    keeper.setScenario(exp.scenario);
  };
  const sim = new Simulation(client, {
    frame: onFrame,
    failure: (what, e) => {
      // A step the worker refuses (N with no balancer run scheduled, as after C) answers the
      // reader: it goes to the event log, not to the error panel as a crash would.
      if (what === "sim.step" && e instanceof ProtocolError && e.code === "failed") log.note(sim.last?.body.timeMs ?? 0, S.stepRefused(e.message));
      else reportFailure(what, e);
    },
    state: () => {
      controls.state();
      watch.state();
      timeline.playing(sim.playing);
      // Paused: the numbers a playing canvas held back (Renderer.ticking) are drawn now.
      if (!sim.playing && sim.last) {
        renderer.ticking = false;
        renderer.draw(sim.last);
      }
      // The "opened paused, press Space" note has done its job once the run plays.
      const note = byId("link-note");
      if (sim.playing && !note.hidden) note.hidden = true;
    },
    // The hook for everything drawn over time: cluster time went back to t (a scrub). The log
    // drops its later lines, the charts their later points, and anyone else can listen to the
    // kraftlab:time-reset event on document (detail.timeMs).
    timeReset: (t) => {
      while (eventLogList.lastElementChild && Number((eventLogList.lastElementChild as HTMLElement).dataset.timeMs) > t) {
        eventLogList.lastElementChild.remove();
      }
      log.showLatest();
      charts.resetTo(t);
      watch.reset();
      document.dispatchEvent(new CustomEvent("kraftlab:time-reset", { detail: { timeMs: t } }));
    },
    history: (version) => {
      if (version !== historyShown) refreshHistory().catch((e: unknown) => reportFailure("sim.export", e));
    },
  });

  const needsBroker = (op: ActOp) => op === "kill" || op === "start" || op === "shutdown" || op === "disk_swap" || op === "slow_disk";
  const actRequest = async (req: ActRequest) => {
    welcomeActed();
    const out = await sim.act(req);
    if (out.truncated) log.note(out.timeMs, S.truncated(out.truncated));
    // The action is in the history now: its mark (and the marks it replaced) change at once,
    // with its log line, rather than after the next frame reports a new history version
    // (a frame and an export later, and only when a frame is asked for).
    refreshHistory().catch((e: unknown) => reportFailure("sim.export", e));
    return out;
  };
  const act = (op: ActOp, target: Omit<ActRequest, "op">) => {
    const t = sim.last?.body.timeMs ?? 0;
    if (needsBroker(op) && target.broker === undefined) {
      log.note(t, S.noBrokerSelected);
      return;
    }
    const req: ActRequest = { op, ...target };
    actRequest(req).catch((e: unknown) => {
      if (e instanceof ProtocolError && e.code === "failed") log.note(t, S.actionFailed(op.replace("_", " "), e.message));
      else reportFailure("sim.act", e);
    });
  };
  const timeline = new Timeline(sim, {
    scrub: byId("scrub"),
    marks: byId("scrub-marks"),
    time: byId("scrub-time"),
    hint: byId("scrub-hint"),
    stepEvent: byId("step-event"),
    stepRun: byId("step-run"),
    rewind: byId("rewind"),
  });
  const actions = new ActionsPanel(
    {
      netA: byId("net-a"),
      netB: byId("net-b"),
      netCut: byId("net-cut"),
      netHeal: byId("net-heal"),
      netError: byId("net-error"),
      netCuts: byId("net-cuts"),
      topicForm: byId("topic-form"),
      topicName: byId("topic-name"),
      topicPartitions: byId("topic-partitions"),
      topicRf: byId("topic-rf"),
      topicDelete: byId("topic-delete"),
      topicErrors: { topic: byId("topic-name-error"), partitions: byId("topic-partitions-error"), replicationFactor: byId("topic-rf-error") },
      tcForm: byId("topic-config-form"),
      tcTopic: byId("tc-topic"),
      tcName: byId("tc-name"),
      tcValue: byId("tc-value"),
      tcError: byId("tc-error"),
      elect: byId("elect-now"),
    },
    actRequest,
    reportFailure,
    (text) => log.note(sim.last?.body.timeMs ?? 0, text),
  );
  for (const [key, action] of S.runShortcuts) {
    const row = document.createElement("tr");
    const k = document.createElement("td");
    k.append(Object.assign(document.createElement("kbd"), { textContent: key }));
    row.append(k, Object.assign(document.createElement("td"), { textContent: action }));
    byId("run-shortcut-rows").append(row);
  }

  const controls = new Controls(
    sim,
    {
      act,
      key: (k) => {
        if (k === ".") timeline.step("event");
        else if (k === "n" || k === "N") timeline.step("run");
        else if (k === "Home") timeline.go(0);
        else if (k === "l" || k === "L") void copyLink();
        else return actions.key(k);
        return true;
      },
      selected: (slot) => {
        renderer.selected = slot;
        renderer.redraw();
        // A click on a broker answers a lesson's "which broker" prediction.
        lesson.brokerSelected(sim.last?.body.brokers[slot]?.id ?? -1);
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
  // adoptEarly: the page's first start may take the cluster the boot script asked for, if it
  // is the one the form asks for.
  const start = async (adoptEarly = false) => {
    const req = readForm();
    if (typeof req === "string") {
      formError.textContent = req;
      return;
    }
    formError.textContent = "";
    startButton.disabled = true;
    startButton.textContent = S.starting;
    try {
      const early = adoptEarly ? client.early("sim.start") : undefined;
      const earlyFrame = adoptEarly ? client.early("sim.advance") : undefined;
      if (early && sameStart(early.body as StartRequest, req)) {
        await sim.adopt(
          early.reply.then((r) => r.body),
          earlyFrame?.reply,
        );
        document.body.dataset.start = "early";
      } else {
        await sim.start(req);
        document.body.dataset.start = "page";
      }
      newRun();
      performance.mark("kraftlab:sim-started");
    } catch (e) {
      if (e instanceof ProtocolError && e.code === "failed") formError.textContent = e.message;
      else reportFailure("sim.start", e);
    } finally {
      startButton.disabled = workerDead;
      startButton.textContent = S.startButton;
    }
  };
  // In a lesson, Restart cluster restarts the lesson's cluster at the step's start; a cluster
  // of other sizes typed into the form leaves the lesson, and the note under the form says so.
  const startNote = byId("start-note");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    startNote.textContent = "";
    const at = lesson.where;
    const req = readForm();
    if (at && typeof req !== "string" && sim.info) {
      const same = String(req.seed) === String(sim.info.seed) && req.brokers === sim.info.brokers.length && req.partitions === sim.info.partitions;
      if (same) {
        void lesson.restartStep().then(() => (startNote.textContent = S.lessonRestarted(at.number, at.step)));
        return;
      }
      lesson.close();
      void start().then(() => (startNote.textContent = S.lessonLeftForStart(at.number)));
      return;
    }
    void start();
  });
  // The new cluster's frames come next: forget the old one's panels and log.
  const newRun = () => {
    controls.reset();
    log.clear();
    charts.clear();
    renderer.selected = -1;
    stoppedShown = false;
  };

  // Share and keep: open a scenario (a link, an import), copy the link, export.
  const shareStatus = byId("share-status");
  const replay = new Replay(byId("link-error"));
  const importError = byId("import-error");
  const scenarioBox = byId<HTMLTextAreaElement>("scenario-json");
  const openRun = async (scenario: string, timeMs: number, replayToMs?: number): Promise<LoadBody> => {
    const info = await sim.load({ scenario, timeMs, replayToMs });
    newRun();
    byId<HTMLInputElement>("seed").value = String(info.seed);
    byId<HTMLInputElement>("broker-count").value = String(info.brokers.length);
    byId<HTMLInputElement>("partition-count").value = String(info.partitions);
    return info;
  };
  const copyLink = async () => {
    const href = await keeper.flush();
    byId("copy-link").dataset.href = href;
    try {
      await navigator.clipboard.writeText(href);
      shareStatus.textContent = S.linkCopied;
    } catch {
      shareStatus.textContent = S.linkCopyFallback;
    }
  };
  byId("copy-link").addEventListener("click", () => void copyLink());
  byId("export-run").addEventListener("click", () => {
    void (async () => {
      const exp = await client.request("sim.export", {});
      scenarioBox.value = exp.scenario;
      const name = `kraftlab-seed${sim.info?.seed ?? 0}-${exp.history.timeMs}ms.json`;
      download(name, exp.scenario);
      shareStatus.textContent = S.exported(name, exp.history.actions.length);
    })().catch((e: unknown) => reportFailure("sim.export", e));
  });
  byId<HTMLInputElement>("import-file").addEventListener("change", (e) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    if (file.size > MAX_SCENARIO_BYTES) {
      importError.textContent = S.importTooLarge(file.size, MAX_SCENARIO_BYTES);
      return;
    }
    void file.text().then((text) => {
      scenarioBox.value = text;
      importError.textContent = "";
    });
  });
  byId("import-run").addEventListener("click", () => {
    const text = scenarioBox.value;
    importError.textContent = "";
    if (!text.trim()) {
      importError.textContent = S.importEmpty;
      return;
    }
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > MAX_SCENARIO_BYTES) {
      importError.textContent = S.importTooLarge(bytes, MAX_SCENARIO_BYTES);
      return;
    }
    openRun(text, 0)
      .then((info) => {
        shareStatus.textContent = S.imported(info.actions);
      })
      .catch((e: unknown) => {
        if (e instanceof ProtocolError && e.code === "failed") importError.textContent = S.importFailed(e.message);
        else reportFailure("sim.load", e);
      });
  });
  // A run in the URL (a shared link, or this tab before a reload) opens paused at its time; a
  // link that cannot be opened says why, and the default cluster starts instead.
  const openLink = async (): Promise<boolean> => {
    const linkError = byId("link-error");
    try {
      const run = await decodeRun(location.hash);
      if (!run) return false;
      // A late time is reached in slices (web/ts/replay.ts), so that the page answers and the
      // reader can stop; the worker refuses at once a replay it cannot do in reasonable time.
      const sliced = run.timeMs > DIRECT_REPLAY_MS;
      await openRun(run.scenario, sliced ? 0 : run.timeMs, run.timeMs);
      sim.setPlaying(false);
      performance.mark("kraftlab:sim-started");
      // The log's first line is scrolled away under the replayed run's: the note also shows
      // above the toolbar.
      const opened = (text: string, at: number) => {
        log.note(at, text);
        const note = byId("link-note");
        note.textContent = text;
        note.hidden = false;
      };
      if (!sliced) {
        opened(S.linkOpened(clockText(run.timeMs)), run.timeMs);
        return true;
      }
      void replay.run(sim, 0, run.timeMs).then(({ reached, cancelled }) => {
        sim.setPlaying(false);
        opened(cancelled ? S.replayCancelled(clockText(reached), clockText(run.timeMs)) : S.linkOpened(clockText(reached)), reached);
      });
      return true;
    } catch (e) {
      let why: string;
      if (e instanceof LinkError) why = e.message;
      else if (e instanceof ProtocolError && e.code === "failed" && e.message.startsWith(REPLAY_REFUSED)) why = e.message.slice(REPLAY_REFUSED.length);
      else if (e instanceof ProtocolError && e.code === "failed") why = S.linkInvalid(e.message);
      else throw e;
      linkError.textContent = S.linkFailed(why);
      linkError.hidden = false;
      document.body.dataset.linkError = why;
      return false;
    }
  };

  // The lesson runner (web/ts/lesson/panel.ts): a lesson's cluster is this run.
  const lesson = new LessonPanel(client, sim, {
    newRun: () => {
      newRun();
      // The toolbar's form says which cluster this is: the lesson's, not the last one typed.
      if (sim.info) {
        byId<HTMLInputElement>("seed").value = String(sim.info.seed);
        byId<HTMLInputElement>("broker-count").value = String(sim.info.brokers.length);
        byId<HTMLInputElement>("partition-count").value = String(sim.info.partitions);
      }
    },
    note: (text) => log.note(sim.last?.body.timeMs ?? 0, text),
    failure: reportFailure,
    holdLink: (on) => keeper.hold(on),
    presenter: (on) => presenter.set(on),
    hideNextRun: (on) => {
      if (renderer.hideNextRun === on) return;
      renderer.hideNextRun = on;
      renderer.redraw();
    },
  });

  const list = byId("config-list");
  void (async () => {
    await client.ready;
    performance.mark("kraftlab:worker-ready");
    setStatus("connecting", S.statusConnecting);
    const hello = (await (client.early("hello")?.reply ?? client.requestData("hello", {}))).body;
    errors.facts.set("version", hello.version);
    errors.facts.set("go", hello.goVersion);
    setStatus("ready", S.statusReady);
    byId("build-stamp").textContent = S.buildStamp(hello.version, hello.goVersion);
    performance.mark("kraftlab:status-ready");

    // The cluster first: the canvas is what the reader came for.
    // A lesson link first, then a shared run, else the default cluster.
    if (!(await lesson.openLink()) && !(await openLink())) {
      await start(true);
      // The default cluster: a first-time visitor gets three ways in.
      showWelcome(() => {
        const leader = sim.last && sim.last.body.partitions.count > 0 ? sim.last.leader(0) : -1;
        if (leader >= 0) act("kill", { broker: leader });
      });
    }

    // A start that failed draws no frame: then the panel comes after a second anyway.
    await Promise.race([firstFrameDrawn, new Promise((resolve) => setTimeout(resolve, 1000))]);
    const defs = await client.request("config.defs", {});
    actions.setDefs(defs.configs);
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
    registerOffline();
  })().catch((e: unknown) => reportFailure("start-up", e));
}

main();
