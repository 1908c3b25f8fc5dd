// Listening for the device pixel ratio's changes (web/ts/pixelratio.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { onPixelRatioChange } from "../pixelratio";

test("a change of device pixel ratio is told once, and the next change too", () => {
  const queries: string[] = [];
  const listeners: (() => void)[] = [];
  const w = {
    devicePixelRatio: 1,
    matchMedia(query: string) {
      queries.push(query);
      return {
        addEventListener(_type: "change", listener: () => void, options: { once: boolean }) {
          assert.equal(options.once, true, "each query is listened to once, then replaced");
          listeners.push(listener);
        },
      };
    },
  };
  let told = 0;
  onPixelRatioChange(() => told++, w);
  assert.equal(queries.length, 1);
  assert.match(queries[0], /min-resolution: 0\.999dppx\) and \(max-resolution: 1\.001dppx/);
  w.devicePixelRatio = 2; // the window moved to a denser screen: the query for 1 stops matching
  listeners[0]();
  assert.equal(told, 1);
  assert.equal(queries.length, 2, "armed again for the new ratio");
  assert.match(queries[1], /1\.999dppx.*2\.001dppx/);
  w.devicePixelRatio = 1.5;
  listeners[1]();
  assert.equal(told, 2);
  assert.match(queries[2], /1\.499dppx.*1\.501dppx/);
});

test("a window without matchMedia (a fake DOM) is never told, and nothing throws", () => {
  let told = 0;
  onPixelRatioChange(() => told++, { devicePixelRatio: 2 });
  assert.equal(told, 0);
});
