// warp-planner: the WaRP request planner — the `warp:planner` WebAssembly
// component, transpiled by jco into ./component/ when the package is packed
// (scripts/build.mjs) — behind a thin JavaScript API. Byte offsets, lengths and
// sizes are `bigint`; a plain number is taken where it is exact
// (Number.isSafeInteger). Every refusal, the component's or this wrapper's, is
// a `PlanError` naming the field, with one line of message. Types: index.d.ts.
import * as component from './component/planner.js';

/** The WIT package this package was built for (its version is the package's). */
export const WIT_PACKAGE = 'warp:planner@0.1.0';

const WIT_VERSION = WIT_PACKAGE.slice(WIT_PACKAGE.indexOf('@') + 1);
const wit = component[`warp:planner/planner@${WIT_VERSION}`];
const witReorder = component[`warp:planner/reorder@${WIT_VERSION}`];
if (!wit || !witReorder) {
  const found = Object.keys(component).filter((k) => k.startsWith('warp:planner/')).join(', ') || 'no warp:planner interface';
  throw new Error(`warp-planner: the bundled component exports ${found}, but this package is built for ${WIT_PACKAGE}; rebuild the package from a ${WIT_PACKAGE} component`);
}

/** A refused request: `field` names the offending input, `message` is one line starting with it. */
export class PlanError extends Error {
  /**
   * @param {string} field
   * @param {string} message
   * @param {string} [kind]
   * @param {unknown} [detail]
   */
  constructor(field, message, kind = 'argument', detail = undefined) {
    super(message);
    this.name = 'PlanError';
    this.field = field;
    this.kind = kind;
    this.detail = detail;
  }
}

/** `t(L) = 25 ms + 5 ms/MiB`: the paper's S3 request-time figures (planner_core::Surrogate::S3). */
export const S3_SURROGATE = Object.freeze({ affine: Object.freeze({ fixedMs: 25, perMibMs: 5 }) });

const U64_MAX = (1n << 64n) - 1n;
const U32_MAX = 2 ** 32 - 1;

const show = (v) => {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `an array of ${v.length}`;
  return `a ${typeof v === 'object' ? (v.constructor?.name ?? 'object') : typeof v}`;
};

const refuse = (field, what) => new PlanError(field, `${field}: ${what}`);

/** An unsigned 64-bit integer from a bigint or an exact number. */
function u64(v, field) {
  if (typeof v === 'bigint') {
    if (v < 0n || v > U64_MAX) throw refuse(field, `${v}n is outside the unsigned 64-bit range 0..2^64-1`);
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) throw refuse(field, `expected an unsigned 64-bit integer, got ${v}`);
    if (!Number.isSafeInteger(v)) {
      throw refuse(field, `${v} is beyond Number.MAX_SAFE_INTEGER, so it may not be exact: pass a bigint`);
    }
    if (v < 0) throw refuse(field, `expected an unsigned 64-bit integer, got ${v}`);
    return BigInt(v);
  }
  throw refuse(field, `expected a bigint or an exact integer number, got ${show(v)}`);
}

/** An unsigned 32-bit integer (an index or a count) as a number. */
function u32(v, field) {
  if (typeof v === 'bigint' && v >= 0n && v <= BigInt(U32_MAX)) return Number(v);
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= U32_MAX) return v;
  throw refuse(field, `expected an integer in 0..${U32_MAX}, got ${show(v)}`);
}

/** A float; NaN and infinities pass, for the component to judge. */
function f64(v, field) {
  if (typeof v !== 'number') throw refuse(field, `expected a number, got ${show(v)}`);
  return v;
}

const isRecord = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `v` as an object with the `required` keys and any of `optional`; the top-level `options` and `input` name their keys bare. */
function record(v, field, required, optional = []) {
  if (!isRecord(v)) throw refuse(field, `expected an object, got ${show(v)}`);
  const prefix = field === 'options' || field === 'input' ? '' : `${field}.`;
  for (const k of Object.keys(v)) {
    if (!required.includes(k) && !optional.includes(k)) {
      throw refuse(`${prefix}${k}`, `unknown field (expected one of ${[...required, ...optional].join(', ')})`);
    }
  }
  for (const k of required) if (v[k] === undefined) throw refuse(`${prefix}${k}`, 'missing');
  return v;
}

/** `[a, b]` or `{[ka]: a, [kb]: b}` as the pair `[a, b]`. */
function pair(v, field, ka, kb) {
  if (Array.isArray(v)) {
    if (v.length === 2) return v;
  } else if (isRecord(v)) {
    record(v, field, [ka, kb]);
    return [v[ka], v[kb]];
  }
  throw refuse(field, `expected [${ka}, ${kb}] or {${ka}, ${kb}}, got ${show(v)}`);
}

/** `v` if it is a bigint in the u64 range (the fast path: no field string is built), else `u64(v, field())`. */
const u64Fast = (v, field) => (typeof v === 'bigint' && v >= 0n && v <= U64_MAX ? v : u64(v, field()));

function intervalsOf(intervals) {
  if (!Array.isArray(intervals)) throw refuse('intervals', `expected an array of [offset, len] or {offset, len}, got ${show(intervals)}`);
  const out = new Array(intervals.length);
  for (let i = 0; i < intervals.length; i++) {
    const iv = intervals[i];
    let offset, len;
    if (Array.isArray(iv) && iv.length === 2) {
      offset = iv[0];
      len = iv[1];
    } else {
      [offset, len] = pair(iv, `intervals[${i}]`, 'offset', 'len');
    }
    out[i] = { offset: u64Fast(offset, () => `intervals[${i}].offset`), len: u64Fast(len, () => `intervals[${i}].len`) };
  }
  return out;
}

function surrogateOf(s) {
  if (!isRecord(s) || Object.keys(s).length !== 1 || !('affine' in s || 'piecewise' in s)) {
    throw refuse('surrogate', `expected {affine: {fixedMs, perMibMs}} or {piecewise: [[bytes, ms], ...]}, got ${show(s)}`);
  }
  if ('affine' in s) {
    const a = record(s.affine, 'surrogate.affine', ['fixedMs', 'perMibMs']);
    return { tag: 'affine', val: { fixedMs: f64(a.fixedMs, 'surrogate.affine.fixedMs'), perMibMs: f64(a.perMibMs, 'surrogate.affine.perMibMs') } };
  }
  if (!Array.isArray(s.piecewise)) throw refuse('surrogate.piecewise', `expected an array of [bytes, ms] or {bytes, ms}, got ${show(s.piecewise)}`);
  return {
    tag: 'piecewise',
    val: s.piecewise.map((p, i) => {
      const [bytes, ms] = pair(p, `surrogate.piecewise[${i}]`, 'bytes', 'ms');
      return { bytes: u64(bytes, `surrogate.piecewise[${i}].bytes`), ms: f64(ms, `surrogate.piecewise[${i}].ms`) };
    }),
  };
}

/** Method names: the WIT spelling (`min-w`) and the ARCHITECTURE §5 JSON one (`min_w`). */
const METHODS = new Map();
for (const tag of ['warp', 'exact', 'frontier', 'lagrangian', 'min-w', 'min-b', 'separate', 'lance-rule', 'object-store-rule']) {
  METHODS.set(tag, { tag });
  METHODS.set(tag.replaceAll('-', '_'), { tag });
}

function methodOf(m) {
  if (typeof m === 'string') {
    const method = METHODS.get(m);
    if (method) return method;
    throw refuse('method', `${JSON.stringify(m)} is not a method (accepted: ${[...METHODS.keys()].filter((k) => !k.includes('_')).join(', ')}, or {coalesce: {maxGap, maxSpan}})`);
  }
  if (isRecord(m) && Object.keys(m).length === 1 && 'coalesce' in m) {
    const c = record(m.coalesce, 'method.coalesce', ['maxGap'], ['maxSpan']);
    const maxSpan = c.maxSpan === undefined || c.maxSpan === null ? undefined : u64(c.maxSpan, 'method.coalesce.maxSpan');
    return { tag: 'coalesce', val: { maxGap: u64(c.maxGap, 'method.coalesce.maxGap'), maxSpan } };
  }
  throw refuse('method', `expected a method name or {coalesce: {maxGap, maxSpan}}, got ${show(m)}`);
}

/**
 * The WIT instance of `intervals` and `options`; `optional` lists the options
 * besides `kMax`, `parallelism` and `surrogate` the caller takes, and
 * `defaultKMax` (for `evaluate`, which does not use it) makes `kMax` optional.
 */
function instanceOf(intervals, options, optional, defaultKMax = undefined) {
  const required = defaultKMax === undefined ? ['kMax', 'parallelism', 'surrogate'] : ['parallelism', 'surrogate'];
  const o = record(options, 'options', required, defaultKMax === undefined ? optional : ['kMax', ...optional]);
  const kMax = o.kMax === undefined ? defaultKMax : u64(o.kMax, 'kMax');
  let parallelism;
  if (o.parallelism !== null) parallelism = f64(o.parallelism, 'parallelism');
  const instance = {
    intervals: intervalsOf(intervals),
    kMax,
    parallelism,
    surrogate: surrogateOf(o.surrogate),
    epsilon: 0.01,
    method: METHODS.get('warp'),
  };
  if ('epsilon' in o && o.epsilon !== undefined) instance.epsilon = f64(o.epsilon, 'epsilon');
  if ('method' in o && o.method !== undefined) instance.method = methodOf(o.method);
  return instance;
}

/**
 * The field of a `memory-limit` refusal, as the Python package and the native
 * line name it (the line starts `plan memory:`, which is no input): `k_max`
 * when the DP table, sized by it, is in the workspace (the line says to lower
 * k_max), else `intervals` (it says to plan fewer per call).
 */
const memoryLimitField = (m) => (m.table > 0n ? 'k_max' : 'intervals');

/** Calls a planner export; the component's refusal becomes a PlanError with its one-line message. */
function call(fn) {
  try {
    return fn();
  } catch (e) {
    const payload = e?.payload;
    if (payload && typeof payload === 'object' && typeof payload.tag === 'string') {
      const message = wit.errorMessage(payload);
      const field = payload.tag === 'invalid-groups' || payload.tag === 'json'
        ? payload.val.field
        : payload.tag === 'memory-limit'
          ? memoryLimitField(payload.val)
          : message.slice(0, message.indexOf(': '));
      throw new PlanError(field, message, payload.tag, payload.val);
    }
    throw e;
  }
}

function callReorder(fn) {
  try {
    return fn();
  } catch (e) {
    const payload = e?.payload;
    if (payload && typeof payload === 'object' && typeof payload.field === 'string') {
      throw new PlanError(payload.field, payload.message, 'reorder');
    }
    throw e;
  }
}

const summaryOf = (s) => ({
  requestCount: Number(s.requests),
  bytes: s.bytes,
  overfetchBytes: s.overfetchBytes,
  wMs: s.wMs,
  bMs: s.bMs,
  tMs: s.tMs,
  lowerBoundMs: s.lowerBoundMs ?? null,
});

const PLAN_OPTIONS = ['epsilon', 'method'];

/**
 * Merges sorted, non-overlapping byte intervals into at most `kMax` Range-GETs
 * minimizing `T_P = W/P + (1 - 1/P)·B`.
 */
export function plan(intervals, options) {
  const instance = instanceOf(intervals, options, PLAN_OPTIONS);
  const p = call(() => wit.plan(instance));
  const s = p.summary;
  return {
    requests: p.requests,
    bytes: s.bytes,
    overfetchBytes: s.overfetchBytes,
    wMs: s.wMs,
    bMs: s.bMs,
    tMs: s.tMs,
    lowerBoundMs: s.lowerBoundMs ?? null,
  };
}

/** The default vertex budget of `frontier`. */
export const DEFAULT_FRONTIER_POINTS = 1024;

/** The `(B, W)` Pareto frontier of plans with at most `kMax` requests, `B` ascending. */
export function frontier(intervals, options) {
  const instance = instanceOf(intervals, options, ['exact', 'maxPoints']);
  let exact = false;
  if (options.exact !== undefined) {
    if (typeof options.exact !== 'boolean') throw refuse('exact', `expected a boolean, got ${show(options.exact)}`);
    exact = options.exact;
  }
  const maxPoints = options.maxPoints === undefined ? DEFAULT_FRONTIER_POINTS : u32(options.maxPoints, 'maxPoints');
  return call(() => wit.frontier(instance, exact, maxPoints)).map((p) => ({
    cap: p.cap,
    bMs: p.bMs,
    wMs: p.wMs,
    requestCount: Number(p.requests),
    bytes: p.bytes,
    exact: p.exact,
  }));
}

/**
 * The figures of a caller's plan: `groups` (`[first, last]`, `{first, last}`, or
 * a plan's `requests`) must partition the intervals into contiguous runs in order.
 */
export function evaluate(intervals, groups, options) {
  const instance = instanceOf(intervals, options, [], BigInt(Math.max(1, Array.isArray(intervals) ? intervals.length : 1)));
  if (!Array.isArray(groups)) throw refuse('groups', `expected an array of [first, last] or {first, last}, got ${show(groups)}`);
  const g = groups.map((grp, i) => {
    let first, last;
    if (isRecord(grp) && 'first' in grp && 'last' in grp) {
      first = grp.first;
      last = grp.last;
    } else {
      [first, last] = pair(grp, `groups[${i}]`, 'first', 'last');
    }
    return { first: u32(first, `groups[${i}].first`), last: u32(last, `groups[${i}].last`) };
  });
  return summaryOf(call(() => wit.evaluate(instance, g)));
}

/**
 * The largest workspace limit, bytes (2016 MiB): what the component's 4 GiB
 * memory can hold, `planner_core::Planner::MAX_GUEST_MEMORY_LIMIT` (checked
 * equal by tests/tests/component.rs). `setMemoryLimit` refuses a larger one, as
 * the native host refuses a larger `plan_memory_bytes`; the component would lower it.
 */
export const MAX_MEMORY_LIMIT = 2_113_929_216n;

/**
 * Sets the planner's workspace limit, bytes (default 1 GiB, 1 to
 * MAX_MEMORY_LIMIT): a method whose workspace would exceed it is refused with
 * a `memory-limit` PlanError.
 */
export function setMemoryLimit(bytes) {
  const limit = u64(bytes, 'bytes');
  if (limit < 1n) {
    // As the native host refuses plan_memory_bytes = 0: no method could plan.
    throw refuse('bytes', `must be >= 1, got ${show(bytes)}`);
  }
  if (limit > MAX_MEMORY_LIMIT) {
    throw refuse('bytes', `must be at most ${MAX_MEMORY_LIMIT} bytes (2016 MiB: the component's 4 GiB memory holds no larger workspace), got ${show(bytes)}`);
  }
  wit.setMemoryLimit(limit);
}

// --- reordering -----------------------------------------------------------

/** Layout names: the WIT spelling (`pca-z-order`) and the CLI/JSON one (`pca_zorder`). */
const LAYOUTS = new Map([
  ['identity', { tag: 'identity' }],
  ['random', { tag: 'random', seed: true }],
  ['pca1d', { tag: 'pca1d' }],
  ['pca_1d', { tag: 'pca1d' }],
  ['pca-z-order', { tag: 'pca-z-order', dims: true }],
  ['pca_zorder', { tag: 'pca-z-order', dims: true }],
  ['pca-hilbert', { tag: 'pca-hilbert', dims: true }],
  ['pca_hilbert', { tag: 'pca-hilbert', dims: true }],
  ['spectral', { tag: 'spectral', seed: true }],
  ['greedy-tour', { tag: 'greedy-tour' }],
  ['greedy_tour', { tag: 'greedy-tour' }],
]);

/** PCA dimensions of the `pca-z-order` and `pca-hilbert` layouts when not given. */
export const DEFAULT_LAYOUT_DIMS = 5;

function layoutOf(layout) {
  const l = typeof layout === 'string' ? { method: layout } : record(layout, 'layout', ['method'], ['dims', 'seed']);
  const spec = typeof l.method === 'string' ? LAYOUTS.get(l.method) : undefined;
  if (!spec) {
    throw refuse('layout.method', `expected one of ${[...LAYOUTS.keys()].join(', ')}, got ${show(l.method)}`);
  }
  for (const p of ['dims', 'seed']) {
    if (l[p] !== undefined && l[p] !== null && !spec[p]) throw refuse(`layout.${p}`, `the ${l.method} layout takes no ${p}`);
  }
  if (spec.dims) return { tag: spec.tag, val: l.dims === undefined || l.dims === null ? DEFAULT_LAYOUT_DIMS : u32(l.dims, 'layout.dims') };
  if (spec.seed) return { tag: spec.tag, val: l.seed === undefined || l.seed === null ? 0n : u64(l.seed, 'layout.seed') };
  return { tag: spec.tag };
}

// An array or a typed array: a DataView is a view too, but has no length
// or elements, and was read as empty.
function isList(v) {
  return Array.isArray(v) || (ArrayBuffer.isView(v) && !(v instanceof DataView));
}

function f32sOf(v, field) {
  if (v instanceof Float32Array) return v;
  if (!isList(v)) throw refuse(field, `expected a Float32Array or an array of numbers, got ${show(v)}`);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'number') throw refuse(`${field}[${i}]`, `expected a number, got ${show(v[i])}`);
    out[i] = v[i];
  }
  return out;
}

function u32sOf(v, field) {
  if (v instanceof Uint32Array) return v;
  if (!isList(v)) throw refuse(field, `expected a Uint32Array or an array of integers, got ${show(v)}`);
  const out = new Uint32Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    out[i] = typeof x === 'number' && x >= 0 && x <= U32_MAX && Number.isInteger(x) ? x : u32(x, `${field}[${i}]`);
  }
  return out;
}

function u64sOf(v, field) {
  if (v instanceof BigUint64Array) return v;
  if (!isList(v)) throw refuse(field, `expected a BigUint64Array or an array of integers, got ${show(v)}`);
  const out = new BigUint64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = u64Fast(v[i], () => `${field}[${i}]`);
  return out;
}

/** The CSR query log of `queries`: `{probes, probeOffsets}` or one array of cluster ids per query. */
function queryLogOf(queries) {
  if (queries === undefined || queries === null) return { probes: new Uint32Array(0), probeOffsets: Uint32Array.of(0) };
  if (Array.isArray(queries)) {
    const probeOffsets = new Uint32Array(queries.length + 1);
    let total = 0;
    for (let q = 0; q < queries.length; q++) {
      const ids = queries[q];
      if (!isList(ids)) throw refuse(`queries[${q}]`, `expected an array of cluster ids, got ${show(ids)}`);
      total += ids.length;
      probeOffsets[q + 1] = total;
    }
    const probes = new Uint32Array(total);
    let at = 0;
    for (let q = 0; q < queries.length; q++) {
      const ids = queries[q];
      for (let j = 0; j < ids.length; j++) probes[at++] = u32(ids[j], `queries[${q}][${j}]`);
    }
    return { probes, probeOffsets };
  }
  const log = record(queries, 'queries', ['probes', 'probeOffsets']);
  return { probes: u32sOf(log.probes, 'queries.probes'), probeOffsets: u32sOf(log.probeOffsets, 'queries.probeOffsets') };
}

/**
 * Orders cluster payloads so that co-probed clusters sit together;
 * `order[position] = cluster id`.
 */
export function reorder(input, layout = 'pca-z-order') {
  const i = record(input, 'input', ['centroids', 'dim', 'sizes'], ['queries']);
  const log = queryLogOf(i.queries);
  const witInput = {
    centroids: f32sOf(i.centroids, 'centroids'),
    dim: u32(i.dim, 'dim'),
    sizes: u64sOf(i.sizes, 'sizes'),
    probes: log.probes,
    probeOffsets: log.probeOffsets,
  };
  const l = layoutOf(layout);
  return callReorder(() => witReorder.reorder(witInput, l));
}

/** The weighted co-access gap `Σ_{a<b} count(a,b) · bytes_between(a,b)` of a layout, bytes. */
export function coaccessGap(order, sizes, queries) {
  const o = u32sOf(order, 'order');
  const s = u64sOf(sizes, 'sizes');
  const log = queryLogOf(queries);
  return callReorder(() => witReorder.coaccessGap(o, s, log.probes, log.probeOffsets));
}

/** The refusal of a call to a closed PlannerWorker. */
const closed = (fn) => new PlanError(fn, `${fn}: the PlannerWorker was closed`, 'closed');

/** The longest a call may run, ms: the native host's cap (`planner_core::PlanLimits::max_deadline_ms`). */
export const MAX_DEADLINE_MS = 60_000;

/**
 * The planner on a Node worker thread, with a time limit on every call: each
 * method returns a promise of what the function of the same name returns, and
 * rejects with a `PlanError` of kind `'interrupted'` once a call has run
 * `deadlineMs` (field `plan` and the component's own line for it, as the
 * native host and the Python package say it). A call past its deadline cannot be stopped inside the
 * thread that runs it (WebAssembly has no interrupt in JavaScript), so the
 * worker is terminated and the next call starts a fresh one; the calls queued
 * behind the stopped one run there. One call runs at a time, in order. The
 * thread (and its instance of the component: 40–170 ms to start on a 2-vCPU VM, `npm run bench`) is started by
 * the first call; `close()` ends it. Node only.
 */
export class PlannerWorker {
  #deadlineMs;
  #worker = null;
  #queue = [];
  #running = null;
  #ids = 0;
  #closed = false;

  /** @param {{deadlineMs?: number}} [options] `deadlineMs`: 1..=MAX_DEADLINE_MS, default MAX_DEADLINE_MS. */
  constructor(options = {}) {
    const o = record(options, 'options', [], ['deadlineMs']);
    const ms = o.deadlineMs === undefined ? MAX_DEADLINE_MS : o.deadlineMs;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > MAX_DEADLINE_MS) {
      throw refuse('deadlineMs', `must be an integer in 1..=${MAX_DEADLINE_MS}, got ${show(ms)}`);
    }
    this.#deadlineMs = ms;
  }

  /** The per-call time limit, ms. */
  get deadlineMs() {
    return this.#deadlineMs;
  }

  plan(intervals, options) {
    return this.#call('plan', [intervals, options]);
  }

  frontier(intervals, options) {
    return this.#call('frontier', [intervals, options]);
  }

  evaluate(intervals, groups, options) {
    return this.#call('evaluate', [intervals, groups, options]);
  }

  reorder(input, layout) {
    return this.#call('reorder', layout === undefined ? [input] : [input, layout]);
  }

  coaccessGap(order, sizes, queries) {
    return this.#call('coaccessGap', [order, sizes, queries]);
  }

  /** Ends the thread; calls queued or running reject with kind `'closed'`. */
  async close() {
    this.#closed = true;
    const pending = [...(this.#running ? [this.#running] : []), ...this.#queue];
    this.#queue = [];
    this.#running = null;
    for (const c of pending) {
      clearTimeout(c.timer);
      c.reject(closed(c.fn));
    }
    const w = this.#worker;
    this.#worker = null;
    if (w) await w.terminate();
  }

  #call(fn, args) {
    if (this.#closed) return Promise.reject(closed(fn));
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#ids++, fn, args, resolve, reject, timer: null });
      // #next settles the call it starts, failures included.
      this.#next();
    });
  }

  async #next() {
    if (this.#running || this.#queue.length === 0 || this.#closed) return;
    const c = this.#queue.shift();
    this.#running = c;
    try {
      const w = await this.#thread();
      if (this.#running !== c) return;
      c.timer = setTimeout(() => this.#expire(c), this.#deadlineMs);
      w.postMessage({ id: c.id, fn: c.fn, args: c.args });
    } catch (e) {
      this.#finish(c);
      c.reject(e instanceof PlanError ? e : new PlanError(c.fn, `${c.fn}: ${e?.message ?? e}`, 'worker'));
    }
  }

  async #thread() {
    if (this.#worker) return this.#worker;
    const { Worker } = await import('node:worker_threads');
    // The process's Node flags, less `--input-type` (valid only for `-e` and
    // stdin input, which a worker started from a file refuses).
    const execArgv = [];
    for (let i = 0; i < process.execArgv.length; i++) {
      const a = process.execArgv[i];
      if (a === '--input-type') i++;
      else if (!a.startsWith('--input-type=')) execArgv.push(a);
    }
    const w = new Worker(new URL('./worker.js', import.meta.url), { execArgv });
    w.unref();
    // Started once it has loaded the component: a deadline counts the call,
    // not the thread's start.
    let started;
    const ready = new Promise((resolve, reject) => {
      started = { resolve, reject };
    });
    w.on('message', (m) => (m?.ready ? started.resolve() : this.#answer(m)));
    w.on('error', (e) => {
      started.reject(e);
      this.#fail(w, e);
    });
    w.on('exit', () => {
      const e = new Error('the worker thread exited');
      started.reject(e);
      this.#fail(w, e);
    });
    await ready;
    if (this.#closed) {
      await w.terminate();
      throw closed('worker');
    }
    this.#worker = w;
    return w;
  }

  #answer({ id, value, error }) {
    const c = this.#running;
    if (!c || c.id !== id) return;
    this.#finish(c);
    if (error) c.reject(new PlanError(error.field, error.message, error.kind, error.detail));
    else c.resolve(value);
    this.#next();
  }

  #expire(c) {
    if (this.#running !== c) return;
    const w = this.#worker;
    this.#worker = null;
    this.#finish(c);
    if (w) w.terminate();
    c.reject(new PlanError('plan', `${wit.errorMessage({ tag: 'interrupted' })} (deadlineMs = ${this.#deadlineMs})`, 'interrupted'));
    this.#next();
  }

  #fail(w, e) {
    if (this.#worker !== w) return;
    this.#worker = null;
    const c = this.#running;
    if (!c) return;
    this.#finish(c);
    c.reject(new PlanError(c.fn, `${c.fn}: the worker thread failed: ${e?.message ?? e}`, 'worker'));
    this.#next();
  }

  #finish(c) {
    clearTimeout(c.timer);
    if (this.#running === c) this.#running = null;
  }
}
