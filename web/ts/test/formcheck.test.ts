// The lab form's check (web/ts/lab/formcheck.ts) against a worker whose replies the test holds
// and releases when it says, and timers that fire when it says: the interleavings that decide
// which answer the page shows as the form's, played deterministically. In the page they happen
// only when a reply is slow (a busy machine) or the reader types slowly, so a Chromium test
// meets them by chance; here each one is played on purpose.

import assert from "node:assert/strict";
import { test } from "node:test";
import { FormCheck } from "../lab/formcheck";
import { HeldWorker, TestTimers, settle } from "./held";

/** The worker's answer: the form it was sent, as the Go side's lab.plan answers about what it is sent. */
interface Answer {
  form: string;
}

/** The lab page as far as its form's check goes: the form's text, what is shown, body[data-validated]. */
function page() {
  const worker = new HeldWorker<string, Answer>((form) => ({ form }));
  const timers = new TestTimers();
  const p = {
    worker,
    timers,
    /** The form as the reader left it. */
    form: "",
    /** The form each shown answer was about, in order. */
    shown: [] as string[],
    /** body[data-validated]: the number of the check shown, or "pending". */
    validated: "",
    check: undefined as unknown as FormCheck<Answer>,
    /** The reader edits the form: the page's input listener calls changed(). */
    type(text: string) {
      p.form = text;
      p.check.changed();
    },
    /** The errors on screen are about the form as it stands, and the page says it was checked. */
    assertShowsForm(why: string) {
      assert.match(p.validated, /^\d+$/, `${why}: body[data-validated] says the form was checked`);
      assert.equal(p.shown.at(-1), p.form, `${why}: the answer shown is about the form as it stands`);
    },
  };
  p.check = new FormCheck<Answer>(
    {
      ask: () => worker.request(p.form),
      show: (a, n) => {
        p.shown.push(a.form);
        p.validated = String(n);
      },
      pending: () => (p.validated = "pending"),
    },
    timers,
  );
  return p;
}

/** A page whose first check (the one main() waits for) has come back for form. */
async function loaded(form: string) {
  const p = page();
  p.form = form;
  const first = p.check.now();
  p.worker.release();
  assert.deepEqual(await first, { form }, "the first check resolves with its answer");
  p.assertShowsForm("after loading");
  return p;
}

test("a reply that comes after the reader changed the form, before the next check is asked for, is not shown", async () => {
  const p = await loaded("brokers=6");
  p.type("brokers=");
  p.timers.pass(p.check.delayMs);
  assert.deepEqual(p.worker.waiting, ["brokers="], "the form is checked once it has stayed unchanged");
  // The reader types on while that check is with the worker...
  p.type("brokers=1");
  // ...and its reply arrives before the next check is asked for (the timer still waits).
  p.worker.release();
  await settle();
  assert.equal(p.timers.waiting, 1, "the next check has not been asked for yet");
  assert.deepEqual(p.shown, ["brokers=6"], "the reply about \"brokers=\" is not shown: the form says \"brokers=1\"");
  assert.equal(p.validated, "pending", "the page still says a check is awaited");
  p.timers.pass(p.check.delayMs);
  p.worker.release();
  await settle();
  p.assertShowsForm("once the form as it stands is checked");
});

test("a reply that comes after the next check was asked for is not shown, and that check's is", async () => {
  const p = await loaded("a");
  p.type("ab");
  p.timers.pass(p.check.delayMs);
  p.type("abc");
  p.timers.pass(p.check.delayMs);
  assert.deepEqual(p.worker.waiting, ["ab", "abc"]);
  p.worker.release();
  await settle();
  assert.equal(p.validated, "pending", "the older check's reply is dropped");
  p.worker.release();
  await settle();
  p.assertShowsForm("the later check's reply");
  assert.deepEqual(p.shown, ["a", "abc"]);
});

test("replies in the reverse order: the newer is shown and the older does not replace it", async () => {
  const p = await loaded("a");
  p.type("ab");
  p.timers.pass(p.check.delayMs);
  p.type("abc");
  p.timers.pass(p.check.delayMs);
  p.worker.release(1);
  await settle();
  p.assertShowsForm("the newer reply");
  p.worker.release(0);
  await settle();
  p.assertShowsForm("after the older reply came");
  assert.deepEqual(p.shown, ["a", "abc"]);
});

test("changes closer together than the delay ask for one check, of the last form", async () => {
  const p = await loaded("");
  for (const form of ["1", "12", "120"]) {
    p.type(form);
    p.timers.pass(p.check.delayMs - 1);
  }
  assert.deepEqual(p.worker.waiting, [], "no check while the reader types");
  p.timers.pass(1);
  assert.deepEqual(p.worker.waiting, ["120"]);
  p.worker.release();
  await settle();
  p.assertShowsForm("after the pause");
});

test("a first check still out when the reader changes the form is not shown, though main() gets its answer", async () => {
  const p = page();
  p.form = "default";
  const first = p.check.now();
  p.type("edited");
  p.worker.release();
  assert.deepEqual(await first, { form: "default" });
  assert.equal(p.validated, "pending");
  assert.deepEqual(p.shown, []);
});

/** A Compare click on page p: its plan asked for beside the form's check, and the plans shown for it. */
function compareClick(p: ReturnType<typeof page>) {
  const shown: string[] = [];
  const plan = p.check.sideRequest(
    () => p.worker.request(p.form),
    (a) => shown.push(a.form),
  );
  return { plan, shown };
}

test("a Compare click's plan is shown when the form is unchanged when it comes", async () => {
  const p = await loaded("a");
  const c = compareClick(p);
  p.worker.release();
  assert.deepEqual(await c.plan, { form: "a" });
  assert.deepEqual(c.shown, ["a"]);
});

test("a Compare click's plan that comes after the reader changed the form is run but not shown", async () => {
  const p = await loaded("a");
  const c = compareClick(p);
  p.type("ab");
  p.worker.release();
  assert.deepEqual(await c.plan, { form: "a" }, "the click gets the plan it asked for");
  assert.deepEqual(c.shown, [], "its errors are not the form's any more");
  assert.equal(p.validated, "pending");
  p.timers.pass(p.check.delayMs);
  p.worker.release();
  await settle();
  p.assertShowsForm("the form's own check");
});

test("a Compare click's plan that comes after a later check was asked for leaves the showing to that check", async () => {
  const p = await loaded("a");
  p.type("ab");
  // The click comes while the check waits for its timer: the plan is of "ab", and so is the check.
  const c = compareClick(p);
  p.timers.pass(p.check.delayMs);
  assert.deepEqual(p.worker.waiting, ["ab", "ab"]);
  p.worker.release();
  await c.plan;
  assert.deepEqual(c.shown, [], "the later check's answer is the one shown");
  p.worker.release();
  await settle();
  p.assertShowsForm("the check asked for after the click");
});
