// Collision-free placement of point labels in a rectangle, for the baseline
// labels of the (B, W) chart (app.js). Pure: no DOM, so tests/labels.test.js
// checks it under Node and tests/page.test.js on the drawn page.

/** Gap in px between a point and its label, and between two labels. */
export const LABEL_GAP = 6;
export const LABEL_SPACING = 2;
/** Step in px of the fallback grid search. */
const GRID_STEP = 4;

/** Do boxes `a` and `b` ({x0, y0, x1, y1}) overlap once `a` grows by `pad` on each side? */
export function intersects(a, b, pad = 0) {
  return a.x0 - pad < b.x1 && b.x0 < a.x1 + pad && a.y0 - pad < b.y1 && b.y0 < a.y1 + pad;
}

function inside(box, bounds) {
  return box.x0 >= bounds.x0 && box.x1 <= bounds.x1 && box.y0 >= bounds.y0 && box.y1 <= bounds.y1;
}

/** Squared distance from (x, y) to the nearest point of `box`. */
function distance2(box, x, y) {
  const dx = Math.max(box.x0 - x, 0, x - box.x1);
  const dy = Math.max(box.y0 - y, 0, y - box.y1);
  return dx * dx + dy * dy;
}

/**
 * Places one label per item so that no two labels overlap (they stay
 * `LABEL_SPACING` apart) and no label covers an obstacle (the point markers).
 *
 * Greedy, in item order, deterministic. Each label first tries eight positions
 * around its point: right and left (`LABEL_GAP` away, vertically centred), above
 * and below (centred, one label row up or down), then the four corners; the first whose box lies within `bounds` and is free is taken.
 * When all eight are taken (points crowded together, as on a tiny instance
 * where every plan lands near one spot), the free position of a `GRID_STEP`
 * grid over `bounds` nearest to the point is taken, with `leader: true` (the
 * caller draws a line from the point to the label). Only when no free position
 * exists at all — more label area than the plot — does a label overlap: it
 * then takes the first position in bounds.
 *
 * Complexity: O(L · (G + 8) · (L + O)) for L labels, O obstacles and G grid
 * positions (~15,000 for a 680 × 370 plot): well under a millisecond for the
 * chart's four baselines.
 *
 * @param {{x: number, y: number, width: number, height: number}[]} items
 *   anchor points and label sizes, in px
 * @param {{x0: number, y0: number, x1: number, y1: number}[]} obstacles boxes no label may cover
 * @param {{x0: number, y0: number, x1: number, y1: number}} bounds where labels must lie
 * @returns {{x0: number, y0: number, x1: number, y1: number, leader: boolean}[]}
 *   the label boxes, in item order
 */
export function placeLabels(items, obstacles, bounds) {
  const placed = [];
  const free = (box) => inside(box, bounds)
    && !obstacles.some((o) => intersects(box, o))
    && !placed.some((p) => intersects(box, p, LABEL_SPACING));
  for (const { x, y, width: w, height: h } of items) {
    const g = LABEL_GAP;
    // Rows: centred on the point, and one label height (plus spacing) above and below it.
    const mid = y - h / 2;
    const up = mid - LABEL_SPACING - 1 - h;
    const down = mid + h + LABEL_SPACING + 1;
    const near = [
      [x + g, mid], [x - g - w, mid], [x - w / 2, up], [x - w / 2, down],
      [x + g, up], [x + g, down], [x - g - w, up], [x - g - w, down],
    ].map(([x0, y0]) => ({ x0, y0, x1: x0 + w, y1: y0 + h }));
    let box = near.find(free);
    let leader = false;
    if (!box) {
      let best = Infinity;
      for (let y0 = bounds.y0; y0 + h <= bounds.y1; y0 += GRID_STEP) {
        for (let x0 = bounds.x0; x0 + w <= bounds.x1; x0 += GRID_STEP) {
          const c = { x0, y0, x1: x0 + w, y1: y0 + h };
          const d = distance2(c, x, y);
          if (d < best && free(c)) { best = d; box = c; }
        }
      }
      leader = box !== undefined;
    }
    if (!box) {
      // Nothing free: overlap is unavoidable; stay in bounds next to the point.
      const x0 = Math.max(bounds.x0, Math.min(x + g, bounds.x1 - w));
      const y0 = Math.max(bounds.y0, Math.min(y - h / 2, bounds.y1 - h));
      box = { x0, y0, x1: x0 + w, y1: y0 + h };
    }
    placed.push({ ...box, leader });
  }
  return placed;
}
