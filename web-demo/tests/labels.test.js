// Unit tests of the chart's label placement (www/labels.js), under Node: no
// label overlaps another or a marker, every label stays in the plot, and the
// preferred spot (right of the point) is kept when it is free.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intersects, LABEL_SPACING, placeLabels } from '../www/labels.js';

const BOUNDS = { x0: 66, y0: 18, x1: 742, y1: 384 };

/** mulberry32, as in app.js: a small seeded PRNG in [0, 1). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function marker(p) {
  return { x0: p.x - 5, y0: p.y - 5, x1: p.x + 5, y1: p.y + 5 };
}

function assertClean(items, boxes, obstacles, what) {
  assert.equal(boxes.length, items.length, what);
  boxes.forEach((b, i) => {
    assert.ok(b.x0 >= BOUNDS.x0 && b.x1 <= BOUNDS.x1 && b.y0 >= BOUNDS.y0 && b.y1 <= BOUNDS.y1,
      `${what}: label ${i} ${JSON.stringify(b)} leaves the plot`);
    assert.ok(Math.abs(b.x1 - b.x0 - items[i].width) < 1e-9 && Math.abs(b.y1 - b.y0 - items[i].height) < 1e-9,
      `${what}: label ${i} resized`);
    for (const o of obstacles) assert.ok(!intersects(b, o), `${what}: label ${i} covers a marker`);
    for (let j = 0; j < i; j++) {
      assert.ok(!intersects(b, boxes[j], LABEL_SPACING), `${what}: labels ${j} and ${i} overlap`);
    }
  });
}

test('a free point keeps its label on its right, vertically centred', () => {
  const items = [{ x: 200, y: 200, width: 50, height: 14 }];
  const [box] = placeLabels(items, [marker(items[0])], BOUNDS);
  assert.deepEqual(box, { x0: 206, y0: 193, x1: 256, y1: 207, leader: false });
});

test('labels of one spot (the tiny instance: every baseline at one point) never overlap', () => {
  // Four labels at the same point, and at each corner of the plot.
  for (const [x, y] of [[300, 200], [BOUNDS.x0, BOUNDS.y0], [BOUNDS.x1, BOUNDS.y1], [BOUNDS.x0, BOUNDS.y1], [BOUNDS.x1, BOUNDS.y0]]) {
    const items = ['separate', 'lance_rule', 'object_store_rule', 'coalesce (outside)']
      .map((t) => ({ x, y, width: 6.5 * t.length, height: 14 }));
    const obstacles = [marker({ x, y })];
    const boxes = placeLabels(items, obstacles, BOUNDS);
    assertClean(items, boxes, obstacles, `at (${x}, ${y})`);
  }
});

test('random crowded clusters of labelled points: no overlap, all in the plot', () => {
  const r = rng(7);
  for (let round = 0; round < 200; round++) {
    const cx = BOUNDS.x0 + r() * (BOUNDS.x1 - BOUNDS.x0);
    const cy = BOUNDS.y0 + r() * (BOUNDS.y1 - BOUNDS.y0);
    const spread = [0, 3, 20, 200][round % 4];
    const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));
    const items = Array.from({ length: 1 + Math.floor(r() * 6) }, () => ({
      x: clamp(cx + (r() - 0.5) * spread, BOUNDS.x0, BOUNDS.x1),
      y: clamp(cy + (r() - 0.5) * spread, BOUNDS.y0, BOUNDS.y1),
      width: 30 + Math.floor(r() * 150),
      height: 14,
    }));
    const obstacles = items.map(marker);
    obstacles.push(marker({ x: cx, y: cy })); // the plan's ring
    const boxes = placeLabels(items, obstacles, BOUNDS);
    assertClean(items, boxes, obstacles, `round ${round}`);
  }
});

test('labels pushed away from their point get a leader line; near ones do not', () => {
  const items = Array.from({ length: 6 }, () => ({ x: 400, y: 200, width: 120, height: 14 }));
  const boxes = placeLabels(items, [marker(items[0])], BOUNDS);
  assert.equal(boxes.filter((b) => !b.leader).length, 4, JSON.stringify(boxes));
  assert.equal(boxes.filter((b) => b.leader).length, 2);
});
