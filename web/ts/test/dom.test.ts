// Writing to the DOM only what changed, and no faster than a person reads it (web/ts/dom.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { Pace } from "../dom";

test("a paced write is due at once, then once every span", () => {
  const p = new Pace(100);
  assert.equal(p.due(1000), true, "the first write is never held back");
  assert.equal(p.due(1016), false);
  assert.equal(p.due(1099.9), false, "less than a span after the last write");
  assert.equal(p.due(1100), true, "a span after it");
  assert.equal(p.due(1150), false, "the span counts from the write, not from the asking");
  assert.equal(p.due(1250), true);
});
