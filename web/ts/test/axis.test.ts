// Axis labels: counts and durations in a few characters (web/ts/axis.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { msText, siText } from "../axis";

test("counts keep at most four characters and an SI unit", () => {
  assert.deepEqual([0, 0.25, 0.5, 1, 2.5, 12, 950, 1000, 1250, 12_500, 125_000, 3_400_000].map(siText), [
    "0", "0.25", "0.5", "1", "2.5", "12", "950", "1k", "1.3k", "13k", "125k", "3.4M",
  ]);
});

test("durations read in ms, s or min", () => {
  assert.deepEqual([0, 5, 250, 1000, 1500, 12_500, 90_000].map(msText), ["0", "5 ms", "250 ms", "1 s", "1.5 s", "13 s", "1.5 min"]);
});
