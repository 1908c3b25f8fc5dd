// Which of the lab form's errors a check may clear (web/ts/lab/errorscope.ts): a Compare click's
// plan is sent no grid and a Sweep click's no policies, so neither may wipe the errors of what
// it did not check, nor say that the other button is unblocked.

import assert from "node:assert/strict";
import { test } from "node:test";
import { blocked, checks } from "../lab/errorscope";

/** The lab page's error slots (data-error-for), as web/lab.templ lays them out. */
const SLOTS = ["brokers", "event.kind", "topics", "properties", "description", "policies[0]", "policies[1]", "sweepBase", "grid[0]", "grid[1]", "grid"];

/** The slots a check of scope clears before showing its errors. */
const cleared = (scope: "form" | "compare" | "sweep") => SLOTS.filter((s) => checks(scope, s));

test("a Compare click's plan leaves the grid's and the sweep base's errors shown", () => {
  assert.deepEqual(cleared("compare"), ["brokers", "event.kind", "topics", "properties", "description", "policies[0]", "policies[1]"]);
});

test("a Sweep click's plan leaves the policies' errors shown", () => {
  assert.deepEqual(cleared("sweep"), ["brokers", "event.kind", "topics", "properties", "description", "sweepBase", "grid[0]", "grid[1]", "grid"]);
});

test("the form's own check speaks for every slot", () => {
  assert.deepEqual(cleared("form"), SLOTS);
});

test("a field whose name only begins like a part is not that part", () => {
  assert.equal(checks("compare", "gridlock"), true);
  assert.equal(checks("sweep", "policiesX"), true);
});

test("a check says only whether the buttons whose input it was sent are blocked", () => {
  // A grid of 2100 cells: the form's check blocks the sweep, not the comparison.
  assert.deepEqual(blocked("form", [{ field: "grid" }]), { compare: false, sweep: true });
  // A Compare click's plan knows nothing of the grid: it says nothing of the sweep.
  assert.deepEqual(blocked("compare", []), { compare: false });
  assert.deepEqual(blocked("compare", [{ field: "brokers" }]), { compare: true });
  // A Sweep click's plan knows nothing of the policies.
  assert.deepEqual(blocked("sweep", [{ field: "sweepBase" }]), { sweep: true });
  assert.deepEqual(blocked("form", [{ field: "policies[1]" }]), { compare: true, sweep: false });
});
