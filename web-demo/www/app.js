// WaRP (B, W) frontier explorer: the page around planner-core's wasm-bindgen build.
//
// Every plan, figure and frontier vertex comes from the `Explorer` exported by
// web-demo (Rust), running in worker.js. This file only reads controls, draws, and times. Byte offsets
// are u64: they stay strings here (never JavaScript numbers), except for the
// drawing coordinates the Rust side hands over as relative doubles.

// The planner runs in a worker (worker.js), so a slow plan never freezes the
// page: requests are answered in order, only the latest control state is
// computed, and a request still running after CANCEL_AFTER_MS when a newer one
// arrives is cancelled by restarting the worker.

import { placeLabels } from './labels.js';

const $ = (id) => document.getElementById(id);

/** The `auto` frontier runs one exact DP per vertex while its cost estimate is
 * at most this, and the Lagrangian evaluation beyond. Convex surrogate: a
 * capped DP is ~n·K, so n·min(K_max, n) <= 65536 (always for n <= 256; the
 * exact walk takes ~20 ms at n = 1024, K = 64 and ~250 ms at K = 256 in
 * Chromium). Non-convex: a capped DP is O(n²K), so n²·min(K_max, n) / 32 <= 65536
 * (~60 ms at n = 128, K = 128; ~640 ms at n = 256, K = 256 is left out). */
const EXACT_FRONTIER_BUDGET = 65536;
/** Request rows written into the table until "show all" is pressed (a long
 * table costs more layout than the rest of the redraw). */
const MAX_ROWS = 256;
let showAllRows = false;
let lastPlan = null;

let loaded = null; // what Explorer.load returned: {n, settings, first_offset, span, required_bytes, strip}
let instanceVersion = 0;
let renderVersion = 0;

// ---------------------------------------------------------------- generators

/** mulberry32: a small seeded PRNG in [0, 1). */
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

const KIB = 1024;
const MIB = 1024 * 1024;

/** Log-uniform integer in [lo, hi]. */
function logUniform(r, lo, hi) {
  return Math.round(lo * Math.pow(hi / lo, r()));
}

/**
 * IVF-like probes: `nlist = 8n` cluster payloads of 64 KiB–1 MiB laid out back
 * to back; a query probes n distinct clusters; with probability `locality` the
 * next probe is one of the 3 clusters after the previous one in the layout (a
 * good reordering), otherwise a uniform random cluster.
 */
function genIvf(n, locality, r) {
  const nlist = Math.max(8 * n, 16);
  const offset = new Array(nlist);
  const size = new Array(nlist);
  let at = 0;
  for (let c = 0; c < nlist; c++) {
    offset[c] = at;
    size[c] = Math.round((logUniform(r, 64 * KIB, MIB)) / 16) * 16;
    at += size[c];
  }
  const chosen = new Set();
  let prev = Math.floor(r() * nlist);
  while (chosen.size < n) {
    let c = r() < locality ? (prev + 1 + Math.floor(r() * 3)) % nlist : Math.floor(r() * nlist);
    let guard = 0;
    while (chosen.has(c) && guard++ < nlist) c = (c + 1) % nlist;
    chosen.add(c);
    prev = c;
  }
  return [...chosen].sort((a, b) => a - b).map((c) => [offset[c], size[c]]);
}

/** Uniform random: lengths 4 KiB–1 MiB, gaps 0–4 MiB, both uniform. */
function genUniform(n, r) {
  const out = [];
  let at = Math.floor(r() * MIB);
  for (let i = 0; i < n; i++) {
    const len = 4 * KIB + Math.floor(r() * (MIB - 4 * KIB));
    out.push([at, len]);
    at += len + Math.floor(r() * 4 * MIB);
  }
  return out;
}

/**
 * Adversarial: lengths log-uniform over 1 B–16 MiB; gaps a mixture of touching
 * (30%), tiny 1–64 B (40%) and log-uniform up to 1 GiB (30%) — scales differ by
 * nine orders of magnitude, so no fixed coalescing gap fits.
 */
function genAdversarial(n, r) {
  const out = [];
  let at = 0;
  for (let i = 0; i < n; i++) {
    const len = logUniform(r, 1, 16 * MIB);
    out.push([at, len]);
    const u = r();
    const gap = u < 0.3 ? 0 : u < 0.7 ? 1 + Math.floor(r() * 64) : logUniform(r, 64 * KIB, 1024 * MIB);
    at += len + gap;
  }
  return out;
}

/** Generates an instance with the chosen generator and loads it. */
function generate() {
  const n = Math.max(1, Math.min(16384, Math.floor(Number($('gen-n').value) || 1)));
  const seed = Math.floor(Number($('gen-seed').value) || 0);
  const r = rng(seed * 2654435761 + 12345);
  const kind = $('gen').value;
  const intervals = kind === 'ivf' ? genIvf(n, Number($('gen-locality').value), r)
    : kind === 'uniform' ? genUniform(n, r) : genAdversarial(n, r);
  const s = settingsText();
  const text = `{"intervals": ${JSON.stringify(intervals)}, ${s.slice(1)}`;
  return loadText(text, false, `${kind}, n = ${n}, seed ${seed}`);
}

// ---------------------------------------------------------------- settings

/** The control's text as a JSON number when it is one, else as a JSON string
 * (which the planner then refuses, naming the field). */
function num(text) {
  const t = String(text).trim();
  return /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(t) ? t : JSON.stringify(t);
}

/** Unsigned integer text kept verbatim (u64 safe), else a JSON string. */
function uint(text) {
  const t = String(text).trim();
  return /^(0|[1-9]\d*)$/.test(t) ? t : JSON.stringify(t);
}

function surrogateText() {
  if ($('sur-affine').checked) {
    return `{"affine": {"fixed_ms": ${num($('fixed-ms').value)}, "per_mib_ms": ${num($('per-mib-ms').value)}}}`;
  }
  const points = $('piecewise').value.split('\n').map((l) => l.trim()).filter((l) => l.length > 0)
    .map((l) => {
      const parts = l.split(/[\s,;]+/);
      return parts.length === 2 ? `[${uint(parts[0])}, ${num(parts[1])}]` : JSON.stringify(l);
    });
  return `{"piecewise": [${points.join(', ')}]}`;
}

function methodText(name) {
  if (name === 'coalesce') {
    const span = $('span').value.trim();
    return `{"coalesce": {"max_gap": ${uint($('gap').value)}, "max_span": ${span === '' ? 'null' : uint(span)}}}`;
  }
  return JSON.stringify(name);
}

function parallelismText() {
  return $('p-inf').checked ? 'null' : num($('p').value);
}

/** The settings JSON text (an instance without intervals) from the controls. */
function settingsText(method = $('method').value) {
  return `{"k_max": ${uint($('k-max').value)}, "parallelism": ${parallelismText()}, ` +
    `"surrogate": ${surrogateText()}, "epsilon": ${num($('epsilon').value)}, "method": ${methodText(method)}}`;
}

/** Sets the controls from Explorer.load's settings (u64s arrive as strings). */
function setControls(s) {
  $('k-max').value = s.k_max;
  if (s.parallelism === null) {
    $('p-inf').checked = true;
  } else {
    $('p-inf').checked = false;
    $('p').value = String(s.parallelism);
    $('p-slider').value = String(Math.log2(s.parallelism));
  }
  $('epsilon').value = String(s.epsilon);
  if (s.surrogate.affine) {
    $('sur-affine').checked = true;
    $('fixed-ms').value = String(s.surrogate.affine.fixed_ms);
    $('per-mib-ms').value = String(s.surrogate.affine.per_mib_ms);
  } else {
    $('sur-piecewise').checked = true;
    $('piecewise').value = s.surrogate.piecewise.map(([b, ms]) => `${b} ${ms}`).join('\n');
  }
  if (typeof s.method === 'string') {
    $('method').value = s.method;
  } else {
    $('method').value = 'coalesce';
    $('gap').value = s.method.coalesce.max_gap;
    $('span').value = s.method.coalesce.max_span ?? '';
  }
}

// ---------------------------------------------------------------- loading

function showError(message) {
  const e = $('error');
  e.textContent = message;
  e.hidden = false;
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

/** Loads instance text into the planner; on success, from a paste, the
 * controls take the instance's settings. Resolves to whether it loaded, after
 * the redraw. */
async function loadText(text, fromPaste, label) {
  if (inFlight && performance.now() - inFlight.startedAt > CANCEL_AFTER_MS) restartWorker();
  let info;
  try {
    info = await call('load', { text });
  } catch (e) {
    if (e.cancelled) return false;
    showError(e.message);
    document.body.dataset.loadError = String(Number(document.body.dataset.loadError || 0) + 1);
    return false;
  }
  lastLoadedText = text;
  clearError();
  loaded = info;
  instanceVersion++;
  if (fromPaste) setControls(info.settings);
  $('instance-info').textContent =
    `${label}${fromPaste ? ` (${info.source})` : ''}: n = ${info.n}, span ${fmtBytes(info.span)}, ` +
    `required ${fmtBytes(info.required_bytes)}`;
  await update();
  return true;
}

// ---------------------------------------------------------------- formatting

function fmtBytes(s) {
  const v = Number(s);
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let u = 0;
  let x = v;
  while (x >= 1024 && u < units.length - 1) { x /= 1024; u++; }
  return u === 0 ? `${s} B` : `${s} B (${x.toFixed(2)} ${units[u]})`;
}

const fmtMs = (v) => (v === null ? '—' : `${v.toFixed(3)} ms`);

function setFigure(id, value, text) {
  const el = $(`fig-${id}`);
  el.dataset.value = value === null ? 'null' : String(value);
  el.textContent = text;
}

// ---------------------------------------------------------------- update

// ---------------------------------------------------------------- the planner worker

/** A request running longer than this is cancelled when a newer one comes. */
const CANCEL_AFTER_MS = 300;

let worker = null;
let workerReady = null;
let lastLoadedText = null;
let requestId = 0;
const waiting = new Map();

/** Starts the worker; resolves when its planner is ready. */
function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  workerReady = new Promise((resolve, reject) => waiting.set(0, { resolve, reject }));
  worker.onmessage = ({ data }) => {
    const w = waiting.get(data.id);
    if (!w) return;
    waiting.delete(data.id);
    if (data.ok) w.resolve(data.result);
    else w.reject(new Error(data.error));
  };
  worker.onerror = (e) => showError(`planner worker failed: ${e.message}`);
  return workerReady;
}

/** Cancels every pending request (they reject with `cancelled`), restarts the
 * worker and reloads the current instance into it. */
function restartWorker() {
  worker.terminate();
  for (const w of waiting.values()) {
    const e = new Error('cancelled');
    e.cancelled = true;
    w.reject(e);
  }
  waiting.clear();
  startWorker().catch((e) => showError(e.message));
  if (lastLoadedText !== null) call('load', { text: lastLoadedText }).catch(() => {});
  document.body.dataset.restarts = String(Number(document.body.dataset.restarts || 0) + 1);
}

/** Sends one request to the worker. */
function call(op, payload) {
  const id = ++requestId;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, ...payload });
  });
}

// ---------------------------------------------------------------- update

/** What the frontier depends on: the intervals, K_max and the surrogate (not
 * P, ε or the method), so it is recomputed only when one of those changes. */
function frontierKey() {
  return JSON.stringify([instanceVersion, $('k-max').value.trim(), surrogateText()]);
}

let inFlight = null;
let staleSince = null;

/** A control changed: update now. Events arriving while the worker computes
 * only mark its result stale (see `update`), so a dragged slider costs one
 * computation per worker round trip, not one per event. */
function scheduleUpdate() {
  update(performance.now());
}

/**
 * Asks the worker for the plan, the frontier (reused when only P, ε or the
 * method changed) and the baselines, and redraws; then, after the next
 * frame, shows how long the change took to reach the screen. While a request
 * runs, newer changes only mark the result stale (the latest state is
 * computed next, the stale result is not drawn); past CANCEL_AFTER_MS the
 * running request is cancelled.
 */
async function update(since = performance.now()) {
  if (!loaded) return;
  if (inFlight) {
    staleSince = staleSince ?? since;
    if (performance.now() - inFlight.startedAt > CANCEL_AFTER_MS) restartWorker();
    return inFlight.done;
  }
  const t0 = performance.now();
  const settings = settingsText();
  const req = {
    settings,
    kMax: Number($('k-max').value) || 1,
    mode: $('frontier-mode').value,
    budget: EXACT_FRONTIER_BUDGET,
    maxPoints: Math.max(1, Math.floor(Number($('max-points').value) || 1)),
    frontierKey: frontierKey(),
    baselines: [
      ['separate', settingsText('separate')],
      ['lance_rule', settingsText('lance_rule')],
      ['object_store_rule', settingsText('object_store_rule')],
      [`coalesce gap=${$('gap').value.trim()}`, settingsText('coalesce')],
    ],
  };
  let finish;
  inFlight = { startedAt: t0, done: new Promise((r) => { finish = r; }) };
  const busy = setTimeout(() => { $('busy').hidden = false; }, 150);
  let res = null;
  let error = null;
  try {
    res = await call('compute', req);
  } catch (e) {
    error = e;
  }
  clearTimeout(busy);
  $('busy').hidden = true;
  const stale = staleSince;
  inFlight = null;
  staleSince = null;
  if (stale !== null) {
    // Controls changed meanwhile: compute the latest state instead.
    await update(stale);
    finish();
    return;
  }
  if (error) {
    if (!error.cancelled) {
      showError(error.message);
      document.body.dataset.planError = String(Number(document.body.dataset.planError || 0) + 1);
    }
    finish();
    return;
  }
  render(res, settings, since, t0);
  finish();
}

/** Draws a computed state and reports the timings. */
function render(res, settings, since, t0) {
  clearError();
  const { plan, frontier, baselines, ms } = res;
  if (document.body.dataset.frontierRuns !== String(frontier.runs)) {
    document.body.dataset.frontierRuns = String(frontier.runs);
  }
  const td = performance.now();
  renderFigures(plan, ms.plan, frontier);
  renderBaselines(baselines);
  renderGroups(plan);
  drawChart(frontier.data, plan, baselines);
  drawStrip(plan);
  renderFrontier(frontier.data, plan);
  $('plan-json').textContent = plan.plan_json;
  const t1 = performance.now();
  const parts = `plan ${ms.plan.toFixed(1)}, frontier ${ms.frontier.toFixed(1)}, ` +
    `baselines ${ms.baselines.toFixed(1)}, messaging ${(td - t0 - ms.plan - ms.frontier - ms.baselines).toFixed(1)}, ` +
    `DOM ${(t1 - td).toFixed(1)}`;
  setFigure('update-time', t1 - since, `${(t1 - since).toFixed(1)} ms (${parts})`);
  const version = String(++renderVersion);
  document.body.dataset.version = version;
  requestAnimationFrame(() => setTimeout(() => {
    if (document.body.dataset.version !== version) return;
    const frame = performance.now() - since;
    setFigure('update-time', frame, `${frame.toFixed(1)} ms from the change to the next frame (${parts})`);
    if (ms.plan < 1) {
      // Re-time a fast plan over repeated runs (the timer ticks in 0.1 ms).
      call('timePlan', { settings }).then(({ ms: mean, runs }) => {
        if (document.body.dataset.version !== version) return;
        setFigure('plan-time', mean, `${mean.toFixed(3)} ms (mean of ${runs} runs, incl. JSON)`);
      }, () => {});
    }
  }, 0));
}

function renderFigures(plan, planMs, f) {
  const m = $('method').value;
  setFigure('method', m, m === 'coalesce' ? methodText(m) : m);
  setFigure('requests', plan.requests, String(plan.requests));
  setFigure('bytes', plan.bytes, fmtBytes(plan.bytes));
  setFigure('overfetch_bytes', plan.overfetch_bytes, fmtBytes(plan.overfetch_bytes));
  setFigure('w_ms', plan.w_ms, fmtMs(plan.w_ms));
  setFigure('b_ms', plan.b_ms, fmtMs(plan.b_ms));
  setFigure('t_ms', plan.t_ms, fmtMs(plan.t_ms));
  const lb = plan.lower_bound_ms;
  setFigure('lower_bound_ms', lb, lb === null ? '— (none for this method)'
    : lb > 0 ? `${fmtMs(lb)} (T_P within ${((plan.t_ms / lb - 1) * 100).toFixed(2)}%)` : fmtMs(lb));
  setFigure('dollars', plan.dollars, `$${plan.dollars.toPrecision(4)}`);
  setFigure('plan-time', planMs, `${planMs.toFixed(2)} ms (incl. JSON)`);
  setFigure('frontier-time', f.ms,
    `${f.ms.toFixed(2)} ms, ${f.data.points.length} vertices (${f.exact ? 'exact DP' : 'Lagrangian'}` +
    `${f.data.complete ? '' : ', truncated'})`);
}

/** T_P of a vertex for the current P, with planner-core's expression
 * (`w / p + (1 − 1/p)·b`, or `b` when P = ∞): the same IEEE operations. */
function tP(w, b) {
  if ($('p-inf').checked) return b;
  const p = Number($('p').value);
  return w / p + (1.0 - 1.0 / p) * b;
}

/** The frontier table (written only while its box is open) and the best
 * vertex for the current P. */
function renderFrontier(frontier, plan) {
  const pts = frontier.points;
  $('frontier-count').textContent = String(pts.length);
  let best = -1;
  for (let i = 0; i < pts.length; i++) {
    if (best < 0 || tP(pts[i].w_ms, pts[i].b_ms) < tP(pts[best].w_ms, pts[best].b_ms)) best = i;
  }
  $('frontier-best').textContent = best < 0 ? '' :
    `Best vertex for this P: #${best}, T_P = ${tP(pts[best].w_ms, pts[best].b_ms).toFixed(3)} ms ` +
    `(the plan: ${plan.t_ms.toFixed(3)} ms)${frontier.complete ? '' : '; the walk stopped at the vertex limit'}.`;
  if (!$('frontier-box').open) {
    $('frontier-rows').innerHTML = '';
    return;
  }
  $('frontier-rows').innerHTML = pts.map((p, i) =>
    `<tr${i === best ? ' class="best"' : ''} data-b="${p.b_ms}" data-w="${p.w_ms}" data-requests="${p.requests}"` +
    ` data-bytes="${p.bytes}" data-cap="${p.cap}"><td>${i}</td><td>${p.b_ms.toFixed(3)}</td>` +
    `<td>${p.w_ms.toFixed(3)}</td><td>${tP(p.w_ms, p.b_ms).toFixed(3)}</td><td>${p.requests}</td>` +
    `<td>${p.bytes}</td><td>${p.cap}</td><td>${p.exact ? 'exact' : 'Lagrangian'}</td></tr>`).join('');
}

/** One row per baseline: its figures, then warp's plan at K_max = the
 * baseline's request count (Explorer.versusWarp) and the ratio of their T_P,
 * so the table answers "at equal GETs, who wins?". */
function renderBaselines(baselines) {
  $('baseline-rows').innerHTML = baselines.map((b) => {
    const ratio = b.warp.t_ms > 0 ? b.t_ms / b.warp.t_ms : 1;
    return `<tr data-method="${b.label}" data-requests="${b.requests}" data-t="${b.t_ms}" ` +
      `data-warp-k-max="${b.warp.k_max}" data-warp-requests="${b.warp.requests}" data-warp-t="${b.warp.t_ms}">` +
      `<td>${b.label}</td><td>${b.requests}</td><td>${b.w_ms.toFixed(2)}</td>` +
      `<td>${b.b_ms.toFixed(2)}</td><td>${b.t_ms.toFixed(2)}</td>` +
      `<td>${b.warp.requests}</td><td>${b.warp.t_ms.toFixed(2)}</td>` +
      `<td class="${ratio > 1 ? 'warp-wins' : 'tie'}">${ratio.toFixed(3)}×</td></tr>`;
  }).join('');
}

function renderGroups(plan) {
  const rows = [];
  lastPlan = plan;
  const shown = showAllRows ? plan.groups.length : Math.min(plan.groups.length, MAX_ROWS);
  for (let i = 0; i < shown; i++) {
    const [first, last] = plan.groups[i];
    const [offset, len] = plan.ranges[i];
    rows.push(`<tr data-first="${first}" data-last="${last}" data-offset="${offset}" data-len="${len}">` +
      `<td>${i}</td><td>${first}..=${last}</td><td>${offset}</td><td>${len}</td></tr>`);
  }
  $('group-rows').innerHTML = rows.join('');
  $('groups-count').textContent = String(plan.groups.length);
  const more = $('groups-more');
  more.hidden = shown === plan.groups.length;
  $('groups-more-count').textContent = String(plan.groups.length - shown);
}

// ---------------------------------------------------------------- drawing

const CHART = { w: 760, h: 430, left: 64, right: 16, top: 16, bottom: 44 };

/** A baseline label's box: 11 px text (style.css .blabel) is 13 px tall with
 * its baseline 10 px below the top; widths are measured with the page's font. */
const LABEL_HEIGHT = 14;
const LABEL_BASELINE = 11;
let measureCtx = null;

/** Width in px of `text` as a baseline label (canvas measureText, same font), plus 2 px. */
function labelWidth(text) {
  if (!measureCtx) {
    measureCtx = document.createElement('canvas').getContext('2d');
    measureCtx.font = `11px ${getComputedStyle(document.body).fontFamily}`;
  }
  return Math.ceil(measureCtx.measureText(text).width) + 2;
}

/** Lower convex hull (Andrew's monotone chain) of points sorted by x. */
function lowerHull(pts) {
  const hull = [];
  for (const p of pts) {
    while (hull.length >= 2) {
      const a = hull[hull.length - 2];
      const b = hull[hull.length - 1];
      if ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) <= 0) hull.pop();
      else break;
    }
    hull.push(p);
  }
  return hull;
}

/** About `count` round tick values covering [lo, hi]. */
function ticks(lo, hi, count) {
  const span = hi - lo || 1;
  const step0 = span / count;
  const mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) out.push(v);
  return out;
}

function drawChart(frontier, plan, baselines) {
  const pts = frontier.points.map((p) => ({ x: p.b_ms, y: p.w_ms, p }));
  const P = $('p-inf').checked ? Infinity : Number($('p').value);
  const marks = [{ x: plan.b_ms, y: plan.w_ms }];
  const fit = $('fit-baselines').checked;
  const inView = [...pts, ...marks, ...(fit ? baselines.map((b) => ({ x: b.b_ms, y: b.w_ms })) : [])];
  let [x0, x1, y0, y1] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const q of inView) {
    x0 = Math.min(x0, q.x); x1 = Math.max(x1, q.x);
    y0 = Math.min(y0, q.y); y1 = Math.max(y1, q.y);
  }
  if (!Number.isFinite(x0)) { x0 = 0; x1 = 1; y0 = 0; y1 = 1; }
  const padX = (x1 - x0) * 0.06 || Math.max(1, x0 * 0.05);
  const padY = (y1 - y0) * 0.06 || Math.max(1, y0 * 0.05);
  x0 -= padX; x1 += padX; y0 -= padY; y1 += padY;
  const { w, h, left, right, top, bottom } = CHART;
  const sx = (x) => left + ((x - x0) / (x1 - x0)) * (w - left - right);
  const sy = (y) => h - bottom - ((y - y0) / (y1 - y0)) * (h - top - bottom);
  const clampX = (x) => Math.max(left, Math.min(w - right, x));
  const clampY = (y) => Math.max(top, Math.min(h - bottom, y));
  const out = [];
  out.push(`<rect class="plot" x="${left}" y="${top}" width="${w - left - right}" height="${h - top - bottom}"/>`);
  for (const t of ticks(x0, x1, 8)) {
    out.push(`<line class="grid" x1="${sx(t)}" x2="${sx(t)}" y1="${top}" y2="${h - bottom}"/>` +
      `<text class="tick" x="${sx(t)}" y="${h - bottom + 16}" text-anchor="middle">${+t.toPrecision(6)}</text>`);
  }
  for (const t of ticks(y0, y1, 7)) {
    out.push(`<line class="grid" x1="${left}" x2="${w - right}" y1="${sy(t)}" y2="${sy(t)}"/>` +
      `<text class="tick" x="${left - 6}" y="${sy(t) + 4}" text-anchor="end">${+t.toPrecision(6)}</text>`);
  }
  out.push(`<text class="axis" x="${(left + w - right) / 2}" y="${h - 6}" text-anchor="middle">B = max t(L) (ms)</text>`);
  out.push(`<text class="axis" transform="translate(14 ${(top + h - bottom) / 2}) rotate(-90)" text-anchor="middle">W = Σ t(L) (ms)</text>`);
  out.push('<svg x="0" y="0" width="760" height="430" overflow="hidden">');
  out.push(`<clipPath id="plot-clip"><rect x="${left}" y="${top}" width="${w - left - right}" height="${h - top - bottom}"/></clipPath>`);
  out.push('<g clip-path="url(#plot-clip)">');
  // Staircase of the Pareto frontier: plans with B up to the next vertex keep W.
  if (pts.length > 0) {
    let d = `M${sx(pts[0].x)},${sy(pts[0].y)}`;
    for (let i = 1; i < pts.length; i++) d += `H${sx(pts[i].x)}V${sy(pts[i].y)}`;
    d += `H${sx(x1)}`;
    out.push(`<path class="stairs" d="${d}"/>`);
    const hull = lowerHull(pts);
    out.push(`<polyline class="hull" points="${hull.map((q) => `${sx(q.x)},${sy(q.y)}`).join(' ')}"/>`);
  }
  // T_P iso-line through the plan: W/P + (1 − 1/P)·B = T*, i.e. W = P·T* − (P − 1)·B.
  const tStar = plan.t_ms;
  if (P === Infinity) {
    out.push(`<line class="iso" x1="${sx(plan.b_ms)}" x2="${sx(plan.b_ms)}" y1="${top}" y2="${h - bottom}"/>`);
  } else {
    const wAt = (b) => P * tStar - (P - 1) * b;
    out.push(`<line class="iso" x1="${sx(x0)}" y1="${sy(wAt(x0))}" x2="${sx(x1)}" y2="${sy(wAt(x1))}"/>`);
  }
  // All vertices as two paths (exact, Lagrangian) rather than one element each:
  // ~1000 vertices at n = 1024 would otherwise dominate the redraw.
  const r = 2.6;
  const dots = (list) => list.map((q) => `M${(sx(q.x) - r).toFixed(1)},${sy(q.y).toFixed(1)}` +
    `a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`).join('');
  const exactPts = pts.filter((q) => q.p.exact);
  const approxPts = pts.filter((q) => !q.p.exact);
  out.push(`<path class="vertex" data-count="${exactPts.length}" d="${dots(exactPts)}"/>`);
  out.push(`<path class="vertex approx" data-count="${approxPts.length}" d="${dots(approxPts)}"/>`);
  out.push('</g></svg>');
  hoverPoints = pts.map((q) => ({ x: sx(q.x), y: sy(q.y), p: q.p }));
  // Baselines: squares, clamped to the border (dashed) when outside the view.
  // Baselines drawn at the same spot share one label ("lance_rule, object_store_rule");
  // labels are placed so that none overlaps another, a square or the plan's
  // ring (labels.js), with a leader line when crowded points push one away.
  const px = sx(plan.b_ms);
  const py = sy(plan.w_ms);
  const spots = [];
  baselines.forEach((b, i) => {
    const cx = clampX(sx(b.b_ms));
    const cy = clampY(sy(b.w_ms));
    const outside = cx !== sx(b.b_ms) || cy !== sy(b.w_ms);
    out.push(`<rect class="baseline b${i}${outside ? ' outside' : ''}" x="${cx - 4}" y="${cy - 4}" width="8" height="8">` +
      `<title>${b.label}: B ${b.b_ms.toFixed(3)} ms, W ${b.w_ms.toFixed(3)} ms</title></rect>`);
    const same = spots.find((q) => Math.abs(q.x - cx) < 1 && Math.abs(q.y - cy) < 1 && q.outside === outside);
    if (same) same.names.push(b.label);
    else spots.push({ x: cx, y: cy, outside, names: [b.label] });
  });
  const texts = spots.map((q) => `${q.names.join(', ')}${q.outside ? ' (outside)' : ''}`);
  const items = spots.map((q, i) => ({ x: q.x, y: q.y, width: labelWidth(texts[i]), height: LABEL_HEIGHT }));
  const obstacles = [
    ...spots.map((q) => ({ x0: q.x - 5, y0: q.y - 5, x1: q.x + 5, y1: q.y + 5 })),
    { x0: px - 8, y0: py - 8, x1: px + 8, y1: py + 8 },
  ];
  const boxes = placeLabels(items, obstacles, { x0: left + 2, y0: top + 2, x1: w - right - 2, y1: h - bottom - 2 });
  boxes.forEach((box, i) => {
    if (box.leader) {
      const lx = Math.max(box.x0, Math.min(spots[i].x, box.x1));
      const ly = Math.max(box.y0, Math.min(spots[i].y, box.y1));
      out.push(`<line class="leader" x1="${spots[i].x}" y1="${spots[i].y}" x2="${lx}" y2="${ly}"/>`);
    }
    out.push(`<text class="blabel" x="${box.x0 + 1}" y="${box.y0 + LABEL_BASELINE}">${texts[i]}</text>`);
  });
  out.push(`<circle class="chosen" cx="${px}" cy="${py}" r="6"><title>plan: B ${plan.b_ms} ms, W ${plan.w_ms} ms</title></circle>`);
  out.push('<g id="hover"></g>');
  $('chart').innerHTML = out.join('');
  const pLabel = P === Infinity ? '∞' : String(P);
  $('chart-caption').textContent =
    `${pts.length} Pareto vertices (dots; hollow = Lagrangian, not proven W-optimal for its cap), ` +
    `their lower convex hull (line), the plan (ring) and its T_P iso-line for P = ${pLabel} ` +
    `(dashed: W/P + (1 − 1/P)·B = ${tStar.toFixed(3)} ms); squares: baselines (they ignore K_max; the table sets each beside warp at its own request count).`;
}

/** Chart coordinates of the drawn vertices, for the hover read-out. */
let hoverPoints = [];

/** Shows the vertex nearest the pointer (within 10 px): B, W, requests, cap. */
function hover(event) {
  const svg = $('chart');
  const g = document.getElementById('hover');
  if (!g) return;
  const m = svg.getScreenCTM();
  if (!m) return;
  const pt = new DOMPoint(event.clientX, event.clientY).matrixTransform(m.inverse());
  let best = null;
  let bestD = 100;
  for (const q of hoverPoints) {
    const d = (q.x - pt.x) ** 2 + (q.y - pt.y) ** 2;
    if (d < bestD) { bestD = d; best = q; }
  }
  if (!best) { g.innerHTML = ''; return; }
  const p = best.p;
  const text = `B ${p.b_ms.toFixed(3)} ms · W ${p.w_ms.toFixed(3)} ms · ${p.requests} requests · ` +
    `longest ${p.cap} B${p.exact ? '' : ' (Lagrangian)'}`;
  const x = Math.min(best.x + 8, CHART.w - CHART.right - 7 * text.length);
  g.innerHTML = `<circle class="hovered" cx="${best.x}" cy="${best.y}" r="5"/>` +
    `<text class="hovertext" x="${Math.max(CHART.left + 4, x)}" y="${Math.max(CHART.top + 12, best.y - 10)}">${text}</text>`;
}

function drawStrip(plan) {
  const canvas = $('strip');
  const ctx = canvas.getContext('2d');
  const { width, height } = canvas;
  ctx.clearRect(0, 0, width, height);
  const span = Number(loaded.span) || 1;
  const x = (v) => (v / span) * (width - 2) + 1;
  const wOf = (a, len) => Math.max(1, x(a + len) - x(a));
  ctx.font = '11px sans-serif';
  ctx.fillStyle = '#555';
  ctx.fillText('intervals', 4, 12);
  ctx.fillText('requests + overfetch', 4, 50);
  ctx.fillStyle = '#2b6cb0';
  for (const [a, len] of loaded.strip) ctx.fillRect(x(a), 16, wOf(a, len), 18);
  // Requests: green bars; their gap bytes (range minus the intervals it covers) red.
  for (let g = 0; g < plan.strip.length; g++) {
    const [a, len] = plan.strip[g];
    ctx.fillStyle = '#2f855a';
    ctx.fillRect(x(a), 56, wOf(a, len), 14);
    // A light edge where a request starts, so touching requests stay apart.
    ctx.fillStyle = '#c6f6d5';
    ctx.fillRect(x(a), 56, 1, 14);
    const [first, last] = plan.groups[g];
    ctx.fillStyle = '#c53030';
    let at = a;
    for (let i = first; i <= last; i++) {
      const [s, l] = loaded.strip[i];
      if (s > at) ctx.fillRect(x(at), 72, wOf(at, Math.min(s, a + len) - at), 8);
      at = Math.max(at, s + l);
    }
    if (a + len > at) ctx.fillRect(x(at), 72, wOf(at, a + len - at), 8);
  }
  $('strip-span').textContent = `0 … ${fmtBytes(loaded.span)}`;
}

// ---------------------------------------------------------------- wiring

async function downloadInstance() {
  let text;
  try {
    text = await call('instanceJson', { settings: settingsText() });
  } catch (e) {
    showError(e.message);
    return;
  }
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = 'instance.json';
  a.click();
  URL.revokeObjectURL(a.href);
}

async function main() {
  await startWorker();
  // For tests and the console.
  window.warpExplorer = {
    update,
    settingsText,
    n: () => (loaded ? loaded.n : 0),
    /** Whether a request to the worker is pending. */
    busy: () => waiting.size > 0 || inFlight !== null,
  };
  $('generate').addEventListener('click', generate);
  for (const id of ['gen', 'gen-n', 'gen-seed', 'gen-locality']) $(id).addEventListener('change', generate);
  $('gen-locality').addEventListener('input', () => {
    $('gen-locality-out').value = Number($('gen-locality').value).toFixed(2);
  });
  $('load').addEventListener('click', () => loadText($('paste').value, true, 'pasted'));
  $('upload').addEventListener('change', async () => {
    const file = $('upload').files[0];
    if (!file) return;
    const text = await file.text();
    $('paste').value = text;
    loadText(text, true, file.name);
  });
  for (const id of ['k-max', 'p', 'p-inf', 'epsilon', 'method', 'gap', 'span', 'sur-affine', 'sur-piecewise',
    'fixed-ms', 'per-mib-ms', 'piecewise', 'frontier-mode', 'max-points', 'fit-baselines']) {
    $(id).addEventListener('input', scheduleUpdate);
  }
  // The log-scale P slider drives the P box (and the reverse); P changes reuse the frontier.
  $('p-slider').addEventListener('input', () => {
    $('p').value = String(+Math.pow(2, Number($('p-slider').value)).toPrecision(4));
    $('p-inf').checked = false;
    scheduleUpdate();
  });
  $('p').addEventListener('input', () => {
    const p = Number($('p').value);
    if (p >= 1) $('p-slider').value = String(Math.log2(p));
  });
  $('download').addEventListener('click', downloadInstance);
  $('frontier-box').addEventListener('toggle', scheduleUpdate);
  $('chart').addEventListener('mousemove', hover);
  $('show-all').addEventListener('click', () => {
    showAllRows = true;
    if (lastPlan) renderGroups(lastPlan);
  });
  await generate();
  document.body.dataset.ready = 'true';
}

main().catch((e) => showError(`failed to start: ${e.message}`));
