// The metadata log strip's geometry and wording (web/ts/logstrip.ts, strings.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { beyondMarkers, groupByPosition, markerBox, placeLabels, recordFamily, stripLayout } from "../logstrip";
import { textOn } from "../render";
import type { LogNode, LogStrip } from "../protocol";
import { S } from "../strings";

function node(id: number, controller: boolean, endOffset: number, applied: number, snapshot = -1, running = true): LogNode {
  return { id, controller, running, endOffset, highWatermark: endOffset, applied, snapshot };
}

function strip(start: number, n: number, hw: number, nodes: LogNode[] = []): LogStrip {
  return { start, records: Array.from({ length: n }, (_, i) => (i % 2 ? "NoOpRecord" : "PartitionChangeRecord")), highWatermark: hw, leader: 3000, nodes };
}

test("the strip shows the newest offsets that fit, right-aligned, at least 34 units each", () => {
  const log = strip(100, 48, 148);
  const wide = stripLayout(log, 48 * 34 + 16);
  assert.equal(wide.cells, 48);
  assert.equal(wide.first, 100);
  const narrow = stripLayout(log, 700);
  assert.equal(narrow.cells, Math.floor((700 - 16) / 34));
  assert.equal(narrow.first + narrow.cells, 148, "the newest offset is always the last cell");
  assert.ok(narrow.cellW >= 34);
  assert.equal(narrow.xOf(148), 700 - 8, "the log end is the right edge");
  assert.equal(narrow.xOf(narrow.first), narrow.x0);
  assert.equal(narrow.xOf(0), narrow.x0, "a position behind the strip sits at its left edge");
  assert.equal(narrow.xOf(10_000), narrow.xOf(148), "and one past it at the right");
});

test("a short log keeps the cell width of a full strip, right-aligned", () => {
  const log = strip(0, 3, 3);
  const L = stripLayout(log, 700);
  assert.equal(L.cells, 3);
  assert.equal(L.first, 0);
  assert.equal(L.cellW, (700 - 16) / Math.floor((700 - 16) / 34));
  assert.equal(L.xOf(3), 700 - 8);
});

test("records fall in families by what they change", () => {
  assert.equal(recordFamily("PartitionChangeRecord"), "partition");
  assert.equal(recordFamily("PartitionRecord"), "partition");
  assert.equal(recordFamily("RegisterBrokerRecord"), "broker");
  assert.equal(recordFamily("BrokerRegistrationChangeRecord"), "broker");
  assert.equal(recordFamily("TopicRecord"), "topic");
  assert.equal(recordFamily("LeaderChangeMessage"), "leader");
  assert.equal(recordFamily("NoOpRecord"), "noop");
  assert.equal(recordFamily("FeatureLevelRecord"), "config");
  assert.equal(S.recordShort("PartitionChangeRecord"), "PChg");
  assert.equal(S.recordShort("SomeFutureRecord"), "SomeFuture", "an unknown type still gets a name");
});

test("nodes at the same offset share one marker, in the order given", () => {
  const nodes = [node(1, false, 50, 48), node(2, false, 50, 50), node(3, false, 50, 48)];
  const g = groupByPosition(nodes, (n) => n.applied);
  assert.deepEqual([...g.keys()], [48, 50]);
  assert.deepEqual(g.get(48)!.map((n) => n.id), [1, 3]);
});

test("the text alternative says what is committed and where each node is", () => {
  const log = strip(100, 48, 146, [node(3000, true, 148, 146, 120), node(3001, true, 146, 146, -1, false), node(1, false, 146, 140)]);
  const text = S.logStripSummary(log);
  assert.match(text, /^Metadata log offsets 100 to 147, newest NoOpRecord, PartitionChangeRecord, NoOpRecord\./);
  assert.match(text, /High watermark 146: 2 uncommitted\./);
  assert.match(text, /Controller 3000 leads the quorum\./);
  assert.match(text, /Controller 3000 log ends at 148, snapshot at 120\./);
  assert.match(text, /Controller 3001 \(down\) log ends at 146\./);
  assert.match(text, /Broker 1 has applied up to 140\./);
  assert.match(S.logStripSummary(strip(0, 4, 4)), /everything committed/);
});

test("labels of nearby markers do not overlap, nor cover another marker; one with no room on the left goes right", () => {
  const items = [
    { x: 500, w: 40, behind: false },
    { x: 490, w: 40, behind: false },
    { x: 30, w: 60, behind: false },
    { x: 8, w: 30, behind: true },
    { x: 8, w: 30, behind: true },
  ];
  const left = placeLabels(items, 8);
  assert.equal(left[1], 490 - 8 - 40, "a label with room next to its marker sits there");
  assert.ok(left[0] + 40 <= left[1], "one without (the next marker is too close) goes left of it");
  assert.ok(left[2] > 30, "no room on the left: right of the marker");
  assert.ok(left[3] >= 8 + 8, "behind the strip: right of the edge marker");
  assert.ok(left[4] >= left[3] + 30, "and the next behind label after it");
  assertApart(items, left);
});

test("three controllers a cell apart: each label clear of the other markers (a wide strip's cells are 34–36 units)", () => {
  for (const cellW of [34, 35, 36, 40]) {
    const end = 800;
    const items = [
      { x: end, w: 24.5, behind: false },
      { x: end - cellW, w: 24.5, behind: false },
      { x: end - 2 * cellW, w: 24.5, behind: false },
    ];
    assertApart(items, placeLabels(items, 8));
    const two = [
      { x: end, w: 24.5, behind: false },
      { x: end - cellW, w: 52, behind: false },
    ];
    assertApart(two, placeLabels(two, 8));
  }
});

test("a label that had to go past another node's marker is told apart from its neighbour's", () => {
  const items = [
    { x: 800, w: 24.5, behind: false },
    { x: 800 - 34.5, w: 52, behind: false },
    { x: 8, w: 30, behind: true },
  ];
  const left = placeLabels(items, 8);
  assert.deepEqual(beyondMarkers(items, left), [true, false, false], "the log end's label is left of the marker a cell before it");
  const roomy = [
    { x: 800, w: 24.5, behind: false },
    { x: 700, w: 52, behind: false },
  ];
  assert.deepEqual(beyondMarkers(roomy, placeLabels(roomy, 8)), [false, false], "with room, each label is next to its marker");
});

/** No label over another label or over a marker (its own included). */
function assertApart(items: { x: number; w: number; behind: boolean }[], left: number[]): void {
  const boxes = items.map((it) => markerBox(it.x, 0, it.behind));
  items.forEach((it, i) => {
    const [a, b] = [left[i], left[i] + it.w];
    boxes.forEach((m, j) => assert.ok(b <= m.x || a >= m.x + m.w, `label ${i} [${a}, ${b}] over marker ${j} [${m.x}, ${m.x + m.w}]`));
    items.forEach((o, j) => {
      if (j !== i) assert.ok(b <= left[j] || a >= left[j] + o.w, `label ${i} [${a}, ${b}] over label ${j}`);
    });
  });
}

test("cell text is black on light fills and white on dark ones", () => {
  assert.equal(textOn("#56b4e9"), "#000000", "sky blue (partition records)");
  assert.equal(textOn("#c4c7cc"), "#000000", "the light theme's no-op grey");
  assert.equal(textOn("#3d4249"), "#ffffff", "the dark theme's no-op grey");
  assert.equal(textOn("#0072b2"), "#ffffff", "dark blue");
  assert.equal(textOn("rgb(1, 2, 3)"), "#000000", "not a hex colour: black");
});
