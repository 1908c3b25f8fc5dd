// The page's entry point: fill the skeleton's text, start the worker, show its status, and
// build the Configs panel from the worker's config definitions.
//
// Performance marks (kraftlab:*) record the start-up milestones; the end-to-end test reads
// them, and so can anyone with the browser's performance panel.

import { renderConfigs } from "./configs";
import { ErrorPanel } from "./errors";
import { PROTOCOL, ProtocolError, WorkerClient, type Problem } from "./protocol";
import { S, applyStrings } from "./strings";

function byId<T extends HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page skeleton has no #${id}`);
  return e as T;
}

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

    const defs = await client.request("config.defs", {});
    renderConfigs(
      list,
      defs.configs,
      (req) => client.request("config.validate", req),
      (e) =>
        problem(
          { message: S.problemRequest("config.validate", e.message), detail: e instanceof ProtocolError ? e.detail : e.stack },
          false,
        ),
    );
    list.closest("section")?.setAttribute("aria-busy", "false");
    performance.mark("kraftlab:configs-rendered");
  })().catch((e: unknown) => {
    // A dead worker has already been reported by the client; anything else is news.
    if (!(e instanceof ProtocolError && e.code === "worker_dead")) {
      problem({ message: S.problemRequest("start-up", e instanceof Error ? e.message : String(e)) }, true);
    }
  });
}

main();
