// The playground's Configs panel (web/ts/configs.ts) against a worker whose check replies the
// test holds: what Start (values()) and "Apply now" send while a field's check is out, and
// which answer the field shows when replies come after the reader typed on. In the page the
// worker answers in milliseconds, so a Chromium test meets these moments only by chance.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { ConfigDef, ConfigValue } from "../protocol";
import { FakeElement, installFakeDom } from "./fakedom";

installFakeDom();
// configs.ts tells a checkbox from a text field with instanceof; the fake elements are both.
Object.assign(globalThis, { HTMLInputElement: FakeElement });

const { renderConfigs } = await import("../configs");

/** A dynamic integer config whose default is 200, as leader.imbalance.election.max.per.run. */
const DEF = {
  name: "max.per.run",
  type: "int",
  default: 200,
  defaultText: "200",
  dynamic: true,
  scope: "cluster",
  source: "KIP-1358",
  sourceKey: "kip",
  allowed: "an integer ≥ 1",
  doc: "",
} as unknown as ConfigDef;

/** A worker that holds every config.validate until the test releases it; it accepts integers ≥ 1. */
class HeldChecks {
  readonly held: { value: ConfigValue; resolve: (b: { valid: boolean; error?: string }) => void }[] = [];
  request(value: ConfigValue): Promise<{ valid: boolean; error?: string }> {
    return new Promise((resolve) => this.held.push({ value, resolve }));
  }
  /** Releases the oldest held check with the engine's verdict on its value. */
  answer(): void {
    const h = this.held.shift();
    assert.ok(h, "no check is held");
    const ok = typeof h.value === "number" && h.value >= 1;
    h.resolve(ok ? { valid: true } : { valid: false, error: `Invalid value ${h.value} for configuration max.per.run` });
  }
}

const settle = () => new Promise<void>((r) => setTimeout(r, 0));

function panel() {
  const checks = new HeldChecks();
  const applied: { name: string; value: ConfigValue; resolve: () => void; reject: (e: Error) => void }[] = [];
  const list = new FakeElement("UL");
  const p = renderConfigs(
    list as unknown as HTMLElement,
    [DEF],
    (req) => checks.request(req.value as ConfigValue) as never,
    (e) => assert.fail(e.message),
    (name, value) => new Promise<void>((resolve, reject) => applied.push({ name, value, resolve, reject })),
  );
  const li = list.children[0];
  const all = [...li.descendants()];
  const input = all.find((e) => e.tagName === "INPUT") as FakeElement & { value: string };
  const button = all.find((e) => e.tagName === "BUTTON")!;
  const error = all.find((e) => e.getAttribute("class") === "config-error")!;
  return {
    panel: p,
    checks,
    applied,
    li,
    button,
    error,
    /** The reader types text into the field: the page's input listener sends its check. */
    type(text: string) {
      input.value = text;
      input.dispatchEvent(new Event("input"));
    },
  };
}

test("Start right after a corrected value sends the corrected value, not the default", async () => {
  const p = panel();
  p.type("0");
  p.checks.answer();
  await settle();
  assert.match(p.error.textContent, /Invalid value 0/);
  // The reader corrects it and presses Start before the check of "50" has answered.
  p.type("50");
  assert.deepEqual(p.panel.values(), { "max.per.run": 50 }, "the value on screen is the one that starts");
  p.checks.answer();
  await settle();
  assert.deepEqual(p.panel.values(), { "max.per.run": 50 });
  assert.equal(p.error.textContent, "");
});

test("Start right after typing, before the first check answers, sends the typed value", () => {
  const p = panel();
  p.type("7");
  assert.deepEqual(p.panel.values(), { "max.per.run": 7 });
});

test("a value the check refused is still sent, for sim.start to refuse aloud, never replaced by the default", async () => {
  const p = panel();
  p.type("0");
  p.checks.answer();
  await settle();
  assert.deepEqual(p.panel.values(), { "max.per.run": 0 });
  p.type("200");
  assert.deepEqual(p.panel.values(), {}, "the default itself is not sent");
});

test("Apply right after a corrected value applies the corrected value", async () => {
  const p = panel();
  p.type("0");
  p.checks.answer();
  await settle();
  assert.equal(p.button.disabled, true, "a refused value cannot be applied");
  p.type("5");
  p.button.click();
  assert.deepEqual(
    p.applied.map((a) => [a.name, a.value]),
    [["max.per.run", 5]],
    "the click applies the text on screen, though its check has not answered",
  );
  p.applied[0].resolve();
  await settle();
  assert.equal(p.li.dataset.applied, "5");
});

test("an Apply that answers after the reader typed on marks what it applied and leaves the new text's error", async () => {
  const p = panel();
  p.type("5");
  p.checks.answer();
  await settle();
  p.button.click();
  p.type("0");
  p.checks.answer();
  await settle();
  assert.match(p.error.textContent, /Invalid value 0/);
  p.applied[0].resolve();
  await settle();
  assert.equal(p.li.dataset.applied, "5", "what was applied is the text at the click");
  assert.match(p.error.textContent, /Invalid value 0/, "the apply's success does not clear the error of the text the field holds now");
  assert.equal(p.button.disabled, true);
});

test("a check's reply about an older text is not shown", async () => {
  const p = panel();
  p.type("0");
  p.type("9");
  p.checks.answer();
  await settle();
  assert.equal(p.error.textContent, "", "the reply about \"0\" does not speak for \"9\"");
  assert.equal(p.li.dataset.check, "pending");
  p.checks.answer();
  await settle();
  assert.equal(p.li.dataset.check, "valid");
});
