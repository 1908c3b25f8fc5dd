// The boot script's default start and the page's comparison (web/ts/early.ts): the page takes
// the boot script's cluster only when it is the one its start form asks for.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_START, sameStart } from "../early";

test("the form's default request is the boot script's, whatever the key order or seed type", () => {
  assert.equal(sameStart(DEFAULT_START, { seed: 1, brokers: 4, partitions: 12, configs: {} }), true);
  assert.equal(sameStart(DEFAULT_START, { configs: {}, partitions: 12, brokers: 4, seed: "1" }), true);
  assert.equal(sameStart({ seed: 1, configs: { b: 2, a: 1 } }, { seed: 1, configs: { a: 1, b: 2 } }), true);
});

test("any difference in what the cluster is means a different request", () => {
  assert.equal(sameStart(DEFAULT_START, { ...DEFAULT_START, seed: 2 }), false);
  assert.equal(sameStart(DEFAULT_START, { ...DEFAULT_START, brokers: 5 }), false);
  assert.equal(sameStart(DEFAULT_START, { ...DEFAULT_START, partitions: 13 }), false);
  assert.equal(sameStart(DEFAULT_START, { ...DEFAULT_START, configs: { "min.insync.replicas": 2 } }), false);
  assert.equal(sameStart(DEFAULT_START, { ...DEFAULT_START, controllers: 3 }), false, "a field the default leaves out");
  assert.equal(sameStart({ seed: "18446744073709551615" }, { seed: "18446744073709551614" }), false, "seeds beyond 2^53 compare as text");
});
