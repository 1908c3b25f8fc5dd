// What the pages decode from a URL: the playground's share link and the lab's link. Both come
// from anywhere, so every wrong link must be refused with words that say what is wrong.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LinkError, decodeRun, encodeRun } from "../share";
import { LabLinkError, decodeLabLink, encodeLabLink, type LabState } from "../lab/link";

const b64bytes = (b: Uint8Array) => btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const b64 = (s: string) => b64bytes(new TextEncoder().encode(s));

/** The message of what fn throws (or rejects with), failing unless it is of class cls. */
async function refusal(fn: () => unknown, cls: new (...a: never[]) => Error): Promise<string> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof cls, `threw ${String(e)}`);
    return e.message;
  }
  assert.fail("did not throw");
}

test("share link: a run survives encode and decode", async () => {
  const scenario = '{"seed":1,"duration_ms":1000,"cluster":{"brokers":3}}';
  const frag = await encodeRun({ scenario, timeMs: 4200 });
  assert.deepEqual(await decodeRun("#" + frag), { scenario, timeMs: 4200 });
});

test("share link: each wrong part is named", async () => {
  const cases: [string, RegExp][] = [
    ["#v=0&t=0&s=AA", /format version \(v=\) is 0, but link formats start at 1/],
    ["#v=x&t=0&s=AA", /format version \(v=\) is "x", not a whole number/],
    ["#v=9&t=0&s=AA", /newer KRaft Lab/],
    ["#v=7&t=0&s=AA", /^it was made by a newer KRaft Lab \(link format 7; this page reads format 1 and older\)$/],
    ["#v=1&t=-5&s=AA", /time \(t=\) is "-5"/],
    ["#v=1&t=soon&s=AAAA", /^its time \(t=\) is "soon", not a whole number of milliseconds$/],
    ["#v=1&t=0", /no scenario/],
    ["#v=1&t=0&s=%%%", /not valid base64url/],
    ["#v=1&t=0&s=**not*base64**", /^its scenario \(s=\) is not valid base64url text$/],
    ["#v=1&t=0&s=AAAA", /not deflate-compressed|not JSON/],
  ];
  for (const [hash, want] of cases) {
    assert.match(await refusal(() => decodeRun(hash), LinkError), want, hash);
  }
  assert.equal(await decodeRun("#section-2"), undefined, "an ordinary anchor is not a link");
});

const FIELDS = ["brokers", "seed", "topics", "event.kind", "event.clean"];

test("lab link: a state survives encode and decode", () => {
  const s: LabState = { d: { brokers: "3", "event.clean": true }, preset: "small", p: "a=1", pol: [{ name: "x", overrides: ["a=b"] }], g: ["a=1,2", ""], b: "" };
  assert.deepEqual(decodeLabLink(encodeLabLink(s), FIELDS), s);
});

test("lab link: each wrong field is named", async () => {
  const cases: [string, RegExp][] = [
    [b64('{"preset":"small","d":{},"pol":"abc"}'), /its field "pol" is "abc", not a list of policies/],
    [b64('{"preset":"small","d":[]}'), /its field "d" is \[\], not an object of form fields/],
    [b64('{"preset":3,"d":{}}'), /its field "preset" is 3, not a preset's name/],
    [b64('{"preset":"small","d":{"brokers":3}}'), /its field "d.brokers" is 3, not text/],
    [b64('{"preset":"small","d":{"event.clean":"yes"}}'), /its field "d.event.clean" is "yes", not true or false/],
    [b64('{"preset":"small","d":{"__proto__":"x"}}'), /does not have|not an object/],
    [b64('{"preset":"small","d":{},"pol":[{"name":"x","overrides":[1]}]}'), /pol\[0\]\.overrides/],
    [b64('{"preset":"small","d":{},"g":["a"]}'), /its field "g"/],
    [b64('{"preset":"small","d":{},"r":"sweep"}'), /its field "r"/],
    [b64("[1,2]"), /not an object/],
    [b64('{"preset":'), /^it is not JSON: /],
    ["%%%", /not base64url/],
    ["%%%not-base64", /^it is not base64url text$/],
    [b64bytes(new Uint8Array([0xff, 0xfe])), /not base64url-encoded UTF-8/],
  ];
  for (const [frag, want] of cases) {
    assert.match(await refusal(() => decodeLabLink(frag, FIELDS), LabLinkError), want, frag);
  }
});
