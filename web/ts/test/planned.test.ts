// A Compare or Sweep click's plan kept with the form it was asked of (web/ts/lab/planned.ts):
// the reader edits the form while the plan is with the worker, and what the page keeps of the
// run — the cap the "same results" note compares with, the comparison a heatmap cell opens,
// the link that names the comparison — must still be the clicked form's.

import assert from "node:assert/strict";
import { test } from "node:test";
import { FormCheck } from "../lab/formcheck";
import { cellOverrides, planClick, plannedCap, runLink, type ClickForm } from "../lab/planned";
import type { PlanBody, PlanRequest, PolicyRequest } from "../lab/protocol";
import { HeldWorker, TestTimers, settle } from "./held";

/** The Go side's lab.plan, as far as these tests look: the policies' and the grid's parts. */
function planOf(req: PlanRequest): PlanBody {
  const parse = (l: string) => {
    const [name, value] = l.split("=").map((x) => x.trim());
    return { name, value };
  };
  const nonBlank = (l: string) => l.trim() !== "";
  return {
    errors: [],
    runs: [],
    ...(req.policies ? { compare: { baseline: 0, policies: req.policies.map((p, i) => ({ name: p.name, overrides: p.overrides.filter(nonBlank).map(parse), run: i + 1 })) } } : {}),
    ...(req.grid ? { sweep: { axes: req.grid.map((g) => ({ name: parse(g).name, values: parse(g).value.split(",") })), cells: [] } } : {}),
  };
}

/** The parts of the lab form these tests edit. */
interface Form {
  policies: PolicyRequest[];
  sweepBase: string[];
  grid: string[];
}

/** The lab page as far as a click's plan goes: the form the reader edits, its check, the worker. */
function page() {
  const worker = new HeldWorker<PlanRequest, PlanBody>(planOf);
  const timers = new TestTimers();
  const p = {
    worker,
    timers,
    /** The form as the reader left it. */
    form: <Form>{
      policies: [
        { name: "today", overrides: ["leader.imbalance.election.algorithm=immediate"] },
        { name: "KIP-1358", overrides: ["leader.imbalance.election.algorithm=wait-for-sync", "leader.imbalance.election.max.per.run=200"] },
      ],
      sweepBase: ["leader.imbalance.election.algorithm=wait-for-sync"],
      grid: ["leader.imbalance.election.max.per.run=50,200"],
    },
    check: new FormCheck<PlanBody>({ ask: () => worker.request({ description: {} }), show: () => {}, pending: () => {} }, timers),
    /** The reader edits the form: the page's input listener calls changed(). */
    edit(f: (form: Form) => void) {
      f(p.form);
      p.check.changed();
    },
    /** What main.ts's clickForm reads from the DOM: fresh copies of the form's values. */
    read(extra: Partial<PlanRequest>): ClickForm {
      return {
        state: { d: {}, preset: "small", p: "", pol: structuredClone(p.form.policies), g: [p.form.grid[0] ?? "", p.form.grid[1] ?? ""], b: p.form.sweepBase.join("\n") },
        request: { description: {}, ...structuredClone(extra) },
      };
    },
    compareClick() {
      return planClick(p.check, () => p.read({ policies: p.form.policies }), (req) => worker.request(req), () => {});
    },
    sweepClick() {
      return planClick(p.check, () => p.read({ grid: p.form.grid, sweepBase: p.form.sweepBase }), (req) => worker.request(req), () => {});
    },
  };
  return p;
}

test("the cap a comparison's 'same results' note uses is the planned policies', not the form's when the runs end", async () => {
  const p = page();
  const click = p.compareClick();
  // While the plan (and then the runs) are out, the reader lowers the cap in the form.
  p.edit((f) => (f.policies = [f.policies[0], { name: "KIP-1358", overrides: ["leader.imbalance.election.max.per.run=10"] }]));
  p.worker.release();
  const planned = await click;
  assert.equal(plannedCap(planned.plan.compare!.policies), 200, "the runs ran with max.per.run 200");
  assert.deepEqual(planned.form.state.pol, [
    { name: "today", overrides: ["leader.imbalance.election.algorithm=immediate"] },
    { name: "KIP-1358", overrides: ["leader.imbalance.election.algorithm=wait-for-sync", "leader.imbalance.election.max.per.run=200"] },
  ]);
});

test("plannedCap takes the smallest cap any planned policy sets, and none when none does", () => {
  const pol = (v: string[]) => ({ name: "p", run: 0, overrides: v.map((x) => ({ name: "leader.imbalance.election.max.per.run", value: x })) });
  assert.equal(plannedCap([pol(["1000"]), pol(["50"])]), 50);
  assert.equal(plannedCap([pol(["not a number"])]), undefined);
  assert.equal(plannedCap([{ name: "p", run: 0, overrides: [{ name: "linger.ms", value: "5" }] }]), undefined);
});

test("a heatmap cell opens the sweep's base lines as planned, not as the form has them after the sweep", async () => {
  const p = page();
  const click = p.sweepClick();
  p.edit((f) => (f.sweepBase = ["leader.imbalance.election.algorithm=immediate", "linger.ms=50"]));
  p.worker.release();
  const planned = await click;
  assert.deepEqual(cellOverrides(planned, { cell: 1, values: ["200"], run: 2, baseline: 0 }), [
    "leader.imbalance.election.algorithm=wait-for-sync",
    "leader.imbalance.election.max.per.run=200",
  ]);
});

test("the link names the comparison with the planned form when the reader left it as it was", async () => {
  const p = page();
  const click = p.compareClick();
  p.worker.release();
  const link = runLink(await click, "compare");
  assert.equal(link?.r, "compare");
  assert.deepEqual(link?.pol, p.form.policies);
});

test("a form edited after the click is not replaced in the link by the planned one, nor named as the comparison", async () => {
  const p = page();
  const click = p.compareClick();
  p.edit((f) => (f.policies = [f.policies[0]]));
  p.worker.release();
  assert.equal(runLink(await click, "compare"), undefined);
});

test("a check of the form (not an edit) between the click and its plan leaves the link naming the comparison", async () => {
  const p = page();
  p.edit((f) => (f.grid = ["leader.imbalance.election.max.per.run=1,2"]));
  const click = p.compareClick();
  // The edit's check is asked for after the click: the form is still the one the click read.
  p.timers.pass(p.check.delayMs);
  p.worker.release();
  p.worker.release();
  await settle();
  assert.equal(runLink(await click, "compare")?.r, "compare");
});
