// The rehearsal's texts as the worker receives them (web/ts/lab/rehearse.ts): UTF-8, one
// after the other, with each one's byte length.

import assert from "node:assert/strict";
import { test } from "node:test";
import { encodeTexts } from "../lab/rehearse";

function decoded(texts: string[]): string[] {
  const { attached, bytes } = encodeTexts(texts);
  assert.equal(attached.length, texts.length);
  assert.equal(bytes.byteLength, attached.reduce((a, b) => a + b, 0), "the bytes are the texts, nothing more");
  const dec = new TextDecoder();
  let at = 0;
  return attached.map((n) => dec.decode(bytes.subarray(at, (at += n))));
}

test("ASCII texts, empty ones among them, come through as they are", () => {
  const texts = ["Topic: orders.v2\tPartitionCount: 3\n", "", "", "orders.v2,1000\n"];
  assert.deepEqual(decoded(texts), texts);
  assert.deepEqual(encodeTexts(texts).attached, [texts[0].length, 0, 0, texts[3].length]);
});

test("text with other characters is encoded whole, however many bytes a character takes", () => {
  const texts = ["Topic: zahlungen-ü\n", "größe 1 €\n", "🦀 crab\n", "é"];
  assert.deepEqual(decoded(texts), texts);
  assert.deepEqual(encodeTexts(texts).attached, texts.map((t) => new TextEncoder().encode(t).byteLength));
});
