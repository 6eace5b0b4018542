// Where the markers are drawn (issue 28: WCAG 2.5.8, Lighthouse's target-size audit). Every
// marker is a square target of at least 24 px; a target partly under another target is too
// small to touch, whatever its size (axe-core's rule: the part left uncovered must still
// hold 24 × 24 px). The rule here: no two markers' boxes overlap (they keep a gap of GAP
// px), and every box lies inside the map (a box cut by the map's edge is half a target,
// and at the edge of the bar above the map it would touch the bar's buttons).
//
// The biggest markers are placed first, at their place; a marker that would overlap one
// already placed, or cross the map's edge, is drawn at the nearest free spot instead (a few
// pixels away, at most MAX_SHIFT_SIZES times its size) and tied to its true place by a thin
// line ending in a dot (markers.js). Nothing is hidden or merged: every marker keeps its
// count, its place in the Tab order and what it does when activated. Pure function of
// pixel positions: the clusters layer runs it again after each move of the map.

export const GAP = 2;
const STEP = 3; // px between two rings of candidate spots
const MAX_SHIFT_SIZES = 3;

/**
 * `items`: [{x, y, size}] — the centre of each marker in the map's pixels and the side of
 * its square target. `width`, `height`: the map's size. Returns, in the items' order,
 * [{dx, dy}] — how far each marker is drawn from its place (0, 0 for most) — and how many
 * found no free spot (drawn at their place).
 */
export function placeTargets(items, width, height, gap = GAP) {
  const out = items.map(() => ({ dx: 0, dy: 0 }));
  const cell = 64;
  const grid = new Map(); // "i,j" → placed boxes {x, y, h} (h: half side)
  const key = (i, j) => `${i},${j}`;
  const collides = (x, y, h) => {
    const reach = h + gap + 32; // 32: half of the largest marker (64 px)
    for (let i = Math.floor((x - reach) / cell); i <= Math.floor((x + reach) / cell); i++) {
      for (let j = Math.floor((y - reach) / cell); j <= Math.floor((y + reach) / cell); j++) {
        for (const b of grid.get(key(i, j)) ?? []) {
          const d = h + b.h + gap;
          if (Math.abs(x - b.x) < d && Math.abs(y - b.y) < d) return b;
        }
      }
    }
    return null;
  };
  const inside = (x, y, h) => width < 2 * h + 2 || height < 2 * h + 2
    || (x - h >= 1 && x + h <= width - 1 && y - h >= 1 && y + h <= height - 1);
  const put = (x, y, h) => {
    const k = key(Math.floor(x / cell), Math.floor(y / cell));
    if (!grid.has(k)) grid.set(k, []);
    grid.get(k).push({ x, y, h });
  };
  let unplaced = 0;
  const order = items.map((_, i) => i).sort((a, b) => items[b].size - items[a].size || a - b);
  for (const i of order) {
    const { x, y, size } = items[i];
    const h = size / 2;
    let spot = null;
    const blocker = collides(x, y, h);
    if (!blocker && inside(x, y, h)) spot = [x, y];
    // Candidates on rings around the place, nearest first; the first direction tried is
    // away from what is in the way (or towards the map's middle at its edge).
    const away = blocker ? Math.atan2(y - blocker.y, x - blocker.x) : Math.atan2(height / 2 - y, width / 2 - x);
    for (let r = STEP; !spot && r <= MAX_SHIFT_SIZES * size; r += STEP) {
      const n = Math.max(8, Math.ceil((2 * Math.PI * r) / STEP));
      for (let k = 0; k < n && !spot; k++) {
        // 0, +1, -1, +2, -2 … steps around the circle from `away`
        const turn = (k % 2 ? 1 : -1) * Math.ceil(k / 2);
        const a = away + (turn * 2 * Math.PI) / n;
        const cx = x + Math.round(r * Math.cos(a));
        const cy = y + Math.round(r * Math.sin(a));
        if (inside(cx, cy, h) && !collides(cx, cy, h)) spot = [cx, cy];
      }
    }
    if (!spot) {
      unplaced += 1;
      spot = [x, y];
    }
    put(spot[0], spot[1], h);
    out[i] = { dx: spot[0] - x, dy: spot[1] - y };
  }
  return { shifts: out, unplaced };
}
