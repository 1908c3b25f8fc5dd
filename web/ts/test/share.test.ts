// The link keeper (web/ts/share.ts) on a fake DOM: what the URL holds when a slow write of the
// whole link and a synchronous write of a later moment cross.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LinkKeeper } from "../share";
import { installFakeDom } from "./fakedom";

const SCENARIO = JSON.stringify({ mode: "cluster", duration_ms: 600000, events: [] });

test("a page hidden while the whole link is being written keeps its later moment", async () => {
  installFakeDom();
  const keeper = new LinkKeeper();
  keeper.setScenario(SCENARIO);
  // The scenario is compressed in the background; a synchronous write needs it.
  for (let i = 0; i < 1000 && !keeper["packed"]; i++) await new Promise((r) => setTimeout(r, 1));
  assert.ok(keeper["packed"], "the scenario was compressed");
  keeper.setTime(300000);
  // The whole link's write starts at 300,000 ms and compresses again, asynchronously; meanwhile
  // the reader steps on and the page is hidden, which writes at once.
  const writing = keeper.flush();
  keeper.setTime(600000);
  assert.ok(keeper.flushNow(), "the hidden page could write synchronously");
  assert.match(location.hash, /[#&]t=600000&/);
  await writing;
  assert.match(location.hash, /[#&]t=600000&/, "the slower write of an earlier moment did not land after it");
});
