// History: the charts' bounded ring of points (web/ts/history.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { History, median } from "../history";

function filled(capacity: number, n: number): History {
  const h = new History(capacity, ["last", "max"]);
  for (let i = 0; i < n; i++) h.push(i * 1000, [i, i % 3 === 0 ? 100 + i : i]);
  return h;
}

test("points are kept in time order, one per push, while there is room", () => {
  const h = filled(8, 8);
  assert.equal(h.length, 8);
  assert.deepEqual(Array.from(h.view()[0]), [0, 1000, 2000, 3000, 4000, 5000, 6000, 7000]);
  assert.deepEqual(Array.from(h.view()[1]), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.equal(h.lastTime, 7000);
});

test("a point earlier than the latest is refused; resetTo must come first", () => {
  const h = filled(8, 3);
  assert.equal(h.push(500, [9, 9]), false);
  assert.equal(h.length, 3);
  assert.equal(h.lastTime, 2000);
});

test("a full ring halves: pairs become one, the later time, last or max by series", () => {
  const h = filled(8, 8);
  assert.equal(h.step, 0);
  assert.equal(h.push(8000, [8, 8]), true);
  assert.equal(h.length, 5);
  const [t, last, max] = h.view();
  assert.deepEqual(Array.from(t), [1000, 3000, 5000, 7000, 8000]);
  assert.deepEqual(Array.from(last), [1, 3, 5, 7, 8]);
  // Points 0, 3 and 6 were spikes (100 + i): max keeps each of them in its pair.
  assert.deepEqual(Array.from(max), [100, 103, 5, 106, 8]);
  assert.equal(h.step, 2000, "spacing becomes the mean gap of the halved points");
});

test("after halving, points closer than the spacing merge into the latest", () => {
  const h = filled(8, 9); // halved once: spacing 2,000 ms
  assert.equal(h.push(8500, [20, 1]), false, "8,500 is within 2,000 ms of 7,000");
  assert.equal(h.length, 5);
  const [t, last, max] = h.view();
  assert.equal(t[4], 8500, "the latest point moves to the latest time");
  assert.equal(last[4], 20, "last takes the new value");
  assert.equal(max[4], 8, "max keeps the larger");
  assert.equal(h.push(9000, [21, 2]), true, "9,000 is 2,000 ms after 7,000: a new point");
  assert.equal(h.length, 6);
});

test("a long run stays within capacity and still spans all of it", () => {
  const h = new History(256, ["max"]);
  let spike = 0;
  for (let i = 0; i <= 100_000; i++) {
    const v = i === 54_321 ? 999 : 1;
    if (h.push(i * 10, [v])) spike++;
  }
  assert.ok(h.length <= 256 && h.length >= 128, `length ${h.length}`);
  const [t, v] = h.view();
  assert.ok(t[0] <= 100_000 * 10 * 0.01, `first point at ${t[0]} ms`);
  assert.equal(t[t.length - 1], 1_000_000);
  assert.equal(Math.max(...Array.from(v)), 999, "a one-point spike survives every halving");
  for (let i = 1; i < t.length; i++) assert.ok(t[i] > t[i - 1], "times stay ascending");
  assert.ok(spike > 256, "points kept being stored as the spacing grew");
});

test("resetTo drops the points after t and recording goes on from there", () => {
  const h = filled(16, 10);
  h.resetTo(4500);
  assert.equal(h.length, 5);
  assert.equal(h.lastTime, 4000);
  h.resetTo(4000);
  assert.equal(h.length, 5, "a point at exactly t stays");
  assert.equal(h.push(4200, [42, 42]), true);
  assert.deepEqual(Array.from(h.view()[1]), [0, 1, 2, 3, 4, 42]);
  h.resetTo(-1);
  assert.equal(h.length, 0);
  assert.equal(h.push(0, [1, 1]), true);
});

test("clear forgets points and the spacing", () => {
  const h = filled(8, 20);
  assert.ok(h.step > 0);
  h.clear();
  assert.equal(h.length, 0);
  assert.equal(h.step, 0);
  assert.equal(h.lastTime, -Infinity);
});

test("firstValue skips the NaN of a series with no value yet; view starts there", () => {
  const h = new History(8, ["last", "last"]);
  h.push(0, [1, NaN]);
  h.push(10, [2, NaN]);
  h.push(20, [3, 7]);
  assert.equal(h.firstValue(0), 0);
  assert.equal(h.firstValue(1), 2);
  const [t, b] = h.view(h.firstValue(1), [1]);
  assert.deepEqual(Array.from(t), [20]);
  assert.deepEqual(Array.from(b), [7]);
});

test("bad shapes are refused", () => {
  assert.throws(() => new History(7, ["last"]), /capacity 7/);
  assert.throws(() => new History(8, ["last"]).push(0, [1, 2]), /2 values for 1 series/);
});

test("median of the finite values", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.equal(median([NaN, 5, Infinity]), 5);
  assert.ok(Number.isNaN(median([])));
});
