// Property-based tests (fast-check) of what the pages decode from text that comes from
// anywhere: the share link, the lab link and the lessons' Markdown. They need fast-check, an
// npm package the build does not carry: `make fuzz` installs it and runs these through
// web/tstest (TestTypeScriptProperties); KRAFTLAB_PROP_RUNS sets how many inputs each tries.

import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { LinkError, decodeRun, encodeRun } from "../../share";
import { LabLinkError, decodeLabLink, encodeLabLink, type LabState } from "../../lab/link";
import { parse, parseInline, safeHref, type Inline } from "../../lesson/markdown";

declare const process: { env: Record<string, string | undefined> };
const numRuns = Number(process.env.KRAFTLAB_PROP_RUNS ?? "") || 1000;

const FIELDS = ["brokers", "seed", "topics", "event.kind", "event.clean", "event.disk_swap"];
const b64 = (s: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/** Runs f and says whether it threw an error of class cls (any other throw fails the property). */
function refusedAs(f: () => unknown, cls: new (...a: never[]) => Error): boolean {
  try {
    f();
    return false;
  } catch (e) {
    if (!(e instanceof cls)) throw e;
    assert.ok(e.message.length > 0, "a refusal has words");
    return true;
  }
}

test("lab link: any text, and any JSON behind base64url, is a state or a LabLinkError", () => {
  fc.assert(fc.property(fc.string({ maxLength: 300 }), (s) => void refusedAs(() => decodeLabLink(s, FIELDS), LabLinkError)), { numRuns });
  fc.assert(
    fc.property(fc.jsonValue(), (v) => void refusedAs(() => decodeLabLink(b64(JSON.stringify(v)), FIELDS), LabLinkError)),
    { numRuns },
  );
  // Near misses: a valid state with one field replaced by anything.
  const key = fc.constantFrom("d", "preset", "p", "pol", "g", "b", "r");
  fc.assert(
    fc.property(key, fc.jsonValue(), (k, v) => {
      const s: Record<string, unknown> = { d: { brokers: "3" }, preset: "small", p: "", pol: [], g: ["", ""], b: "" };
      s[k] = v;
      refusedAs(() => decodeLabLink(b64(JSON.stringify(s)), FIELDS), LabLinkError);
    }),
    { numRuns },
  );
});

test("lab link: every state the page writes is read back as written", () => {
  const text = fc.string({ maxLength: 40 });
  const state = fc.record({
    d: fc.record({ brokers: text, seed: text, "event.clean": fc.boolean() }),
    preset: text,
    p: text,
    pol: fc.array(fc.record({ name: text, overrides: fc.array(text, { maxLength: 4 }) }), { maxLength: 5 }),
    g: fc.tuple(text, text),
    b: text,
  });
  // fast-check's records have no prototype; JSON gives them the page's.
  fc.assert(fc.property(state, (s) => assert.deepEqual(decodeLabLink(encodeLabLink(s as LabState), FIELDS), JSON.parse(JSON.stringify(s)))), { numRuns });
});

test("share link: any fragment is no run, a run, or a LinkError", async () => {
  const part = fc.oneof(fc.string({ maxLength: 40 }), fc.stringMatching(/^[A-Za-z0-9_-]{0,60}$/));
  const hash = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.tuple(part, part, part).map(([v, t, s]) => `#v=${v}&t=${t}&s=${s}`),
  );
  await fc.assert(
    fc.asyncProperty(hash, async (h) => {
      try {
        const run = await decodeRun(h);
        if (run) assert.equal(typeof run.scenario, "string");
      } catch (e) {
        if (!(e instanceof LinkError)) throw e;
      }
    }),
    { numRuns },
  );
  await fc.assert(
    fc.asyncProperty(fc.string({ maxLength: 500 }), fc.nat(), async (scenario, timeMs) => {
      const run = { scenario: JSON.stringify(scenario), timeMs };
      assert.deepEqual(await decodeRun("#" + (await encodeRun(run))), run);
    }),
    { numRuns: Math.min(numRuns, 300) },
  );
});

function links(xs: Inline[]): string[] {
  return xs.flatMap((x) => (x.kind === "link" ? [x.href, ...links(x.children)] : x.kind === "em" || x.kind === "strong" ? links(x.children) : []));
}

test("lesson Markdown: any text parses, and only web links survive", () => {
  const md = fc.string({ unit: fc.constantFrom("*", "**", "`", "[", "]", "(", ")", "-", "1.", "\n", "```", " ", "a", "javascript:", "https://x", "<b>") as fc.Arbitrary<string>, maxLength: 80 });
  fc.assert(
    fc.property(fc.oneof(md, fc.string({ maxLength: 200 })), (src) => {
      const blocks = parse(src);
      for (const b of blocks) {
        const inl = b.kind === "p" ? b.children : b.kind === "pre" ? [] : b.items.flat();
        for (const href of links(inl)) assert.equal(safeHref(href), href, `unsafe link ${href}`);
      }
      for (const href of links(parseInline(src))) assert.equal(safeHref(href), href);
    }),
    { numRuns },
  );
});
