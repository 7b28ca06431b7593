// The API of the installed warp-planner beyond the golden vectors: what was
// installed, exact offsets, PlanError, frontier/evaluate consistency with
// plan, the memory limit, the reorder input forms, and bad input of every
// kind refused as a PlanError naming the field (never another exception).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as warp from 'warp-planner';
import { coaccessGap, evaluate, frontier, MAX_MEMORY_LIMIT, plan, PlanError, reorder, S3_SURROGATE, setMemoryLimit, WIT_PACKAGE } from 'warp-planner';
import { bits, componentPath, installedDir, repo } from './helpers.mjs';

const base = { kMax: 12, parallelism: 8, surrogate: S3_SURROGATE };

/** 40 intervals, some far apart (IVF-like: clumps 20 MiB apart). */
const IV = (() => {
  const out = [];
  let off = 0n;
  for (let i = 0; i < 40; i++) {
    off += BigInt(((i * 7919) % 300000) + (i % 5 === 0 ? 20 << 20 : 1000));
    const len = BigInt(4096 + ((i * 104729) % 200000));
    out.push([off, len]);
    off += len;
  }
  return out;
})();

/** Asserts `f` throws a PlanError with `field` (and `kind`, if given); returns it. */
function refused(f, field, kind) {
  let err;
  assert.throws(f, (e) => {
    err = e;
    return true;
  });
  assert.ok(err instanceof PlanError, `expected a PlanError, got ${err?.stack ?? err}`);
  assert.ok(err instanceof Error);
  assert.equal(err.name, 'PlanError');
  assert.equal(err.field, field, err.message);
  if (kind) assert.equal(err.kind, kind, err.message);
  // A memory-limit line is the native one, `plan memory: …`, whatever its field.
  assert.ok(err.message.startsWith(`${kind === 'memory-limit' ? 'plan memory' : field}: `), err.message);
  assert.ok(!err.message.includes('\n'), err.message);
  return err;
}

const figures = (p) => [p.bytes, p.overfetchBytes, bits(p.wMs), bits(p.bMs), bits(p.tMs)];

test('the installed copy: version, contents, no dependencies or install scripts, the component it was built from', () => {
  const dir = installedDir();
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  assert.equal(pkg.name, 'warp-planner');
  assert.equal(WIT_PACKAGE, 'warp:planner@0.1.0');
  assert.equal(WIT_PACKAGE, `warp:planner@${pkg.version}`);
  assert.equal(pkg.witPackage, WIT_PACKAGE);
  const wit = readFileSync(join(repo(), 'wit/planner.wit'), 'utf8');
  assert.equal(/^package ([^;]+);$/m.exec(wit)?.[1], WIT_PACKAGE, 'wit/planner.wit declares another package version');
  assert.deepEqual(pkg.dependencies ?? {}, {});
  assert.deepEqual(pkg.peerDependencies ?? {}, {});
  for (const s of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(pkg.scripts?.[s], undefined, s);
  for (const f of ['index.js', 'index.d.ts', 'worker.js', 'component/planner.js', 'component/planner.core.wasm']) assert.ok(existsSync(join(dir, f)), f);
  assert.ok(!existsSync(join(dir, 'node_modules')) && !existsSync(join(dir, 'test')) && !existsSync(join(dir, 'scripts')));
  const info = JSON.parse(readFileSync(join(dir, 'component/build-info.json'), 'utf8'));
  const bytes = readFileSync(componentPath());
  assert.equal(info.witPackage, WIT_PACKAGE);
  assert.deepEqual(info.component, { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  assert.deepEqual(Object.keys(warp).sort(), ['DEFAULT_FRONTIER_POINTS', 'DEFAULT_LAYOUT_DIMS', 'MAX_DEADLINE_MS', 'MAX_MEMORY_LIMIT', 'PlanError', 'PlannerWorker',
    'S3_SURROGATE', 'WIT_PACKAGE', 'coaccessGap', 'evaluate', 'frontier', 'plan', 'reorder', 'setMemoryLimit']);
});

test('offsets: bigint is exact to 2^64 - 1, numbers are taken where safe, refused otherwise', () => {
  const top = (1n << 64n) - 1n;
  const p = plan([[0n, 10n], [top - 1000n, 1000n]], base);
  assert.equal(p.requests.at(-1).offset, top - 1000n);
  assert.equal(typeof p.requests[0].offset, 'bigint');
  assert.equal(typeof p.requests[0].first, 'number');
  assert.equal(p.bytes, 1010n);
  // the same plan from numbers (safe) and from BigInts
  const asNum = IV.map(([o, l]) => [Number(o), Number(l)]);
  assert.deepEqual(plan(asNum, base), plan(IV, base));
  assert.deepEqual(plan(IV, { ...base, kMax: 12n }), plan(IV, base));
  // 2^53 + 1 is not a safe integer: refused naming the interval, pointing to bigint
  const e = refused(() => plan([[0, 10], [2 ** 53 + 2, 10]], base), 'intervals[1].offset', 'argument');
  assert.match(e.message, /MAX_SAFE_INTEGER.*bigint/);
  refused(() => plan([[0, 10.5]], base), 'intervals[0].len', 'argument');
  refused(() => plan([[-1, 10]], base), 'intervals[0].offset', 'argument');
  refused(() => plan([[0n, 1n << 64n]], base), 'intervals[0].len', 'argument');
  refused(() => plan([[-5n, 1n]], base), 'intervals[0].offset', 'argument');
  refused(() => plan([['0', 10]], base), 'intervals[0].offset', 'argument');
  refused(() => plan([[0, 10, 20]], base), 'intervals[0]', 'argument');
  refused(() => plan([{ offset: 0, length: 10 }], base), 'intervals[0].length', 'argument');
  refused(() => plan(IV, { ...base, kMax: 2 ** 60 }), 'kMax', 'argument');
  // u64 overflow of offset + len is the component's refusal, with its line
  const o = refused(() => plan([[top, 2n]], base), 'intervals[0]', 'offset-overflow');
  assert.equal(o.message, 'intervals[0]: offset + len overflows u64');
});

test('PlanError carries the component\'s field, line, case and value', () => {
  const e = refused(() => plan([[0n, 10n], [5n, 10n]], base), 'intervals[1]', 'overlapping');
  assert.equal(e.message, 'intervals[1]: offset 5 is before the end 10 of intervals[0] (intervals must be sorted and non-overlapping)');
  assert.deepEqual(e.detail, { index: 1, offset: 5n, previousEnd: 10n });
  assert.equal(refused(() => plan(IV, { ...base, kMax: 0 }), 'k_max', 'zero-k-max').message, 'k_max: must be >= 1');
  refused(() => plan(IV, { ...base, parallelism: 0.5 }), 'parallelism', 'invalid-parallelism');
  refused(() => plan(IV, { ...base, parallelism: Number.NaN }), 'parallelism', 'invalid-parallelism');
  refused(() => plan(IV, { ...base, epsilon: -1 }), 'epsilon', 'invalid-epsilon');
  refused(() => plan(IV, { ...base, surrogate: { affine: { fixedMs: -1, perMibMs: 5 } } }), 'surrogate.affine.fixed_ms', 'invalid-surrogate-value');
  refused(() => plan(IV, { ...base, surrogate: { piecewise: [] } }), 'surrogate.piecewise', 'empty-surrogate');
  refused(() => plan(IV, { ...base, surrogate: { piecewise: [[0, 1], [0, 2]] } }), 'surrogate.piecewise[1].bytes', 'unsorted-surrogate');
  refused(() => plan(IV, { ...base, method: { coalesce: { maxGap: 0, maxSpan: 0 } } }), 'method.coalesce.max_span', 'invalid-method-parameter');
  // wrapper refusals name the option as passed
  refused(() => plan(IV, { ...base, k_max: 4 }), 'k_max', 'argument');
  refused(() => plan(IV, { kMax: 4, surrogate: S3_SURROGATE }), 'parallelism', 'argument');
  refused(() => plan(IV, { ...base, epsilon: null }), 'epsilon', 'argument');
  refused(() => plan(IV, { ...base, method: 'greedy' }), 'method', 'argument');
  refused(() => plan(IV, { ...base, surrogate: { affine: { fixedMs: 25 } } }), 'surrogate.affine.perMibMs', 'argument');
  refused(() => plan(IV), 'options', 'argument');
  refused(() => plan('0-10', base), 'intervals', 'argument');
});

test('parallelism null is unbounded (T = B); methods by either spelling; coalesce', () => {
  const p = plan(IV, { ...base, parallelism: null });
  assert.equal(bits(p.tMs), bits(p.bMs));
  assert.deepEqual(plan(IV, { ...base, method: 'min_w' }), plan(IV, { ...base, method: 'min-w' }));
  assert.deepEqual(plan(IV, { ...base, method: 'object_store_rule' }), plan(IV, { ...base, method: 'object-store-rule' }));
  assert.deepEqual(plan(IV, base), plan(IV, { ...base, method: 'warp', epsilon: 0.01 }));
  const sep = plan(IV, { ...base, method: 'separate' });
  assert.equal(sep.requests.length, IV.length);
  assert.equal(sep.overfetchBytes, 0n);
  const c = plan(IV, { ...base, method: { coalesce: { maxGap: 1n << 20n } } });
  for (const r of c.requests) {
    // every gap inside a request is at most 1 MiB, every gap between requests more
    for (let i = r.first + 1; i <= r.last; i++) assert.ok(IV[i][0] - (IV[i - 1][0] + IV[i - 1][1]) <= 1n << 20n);
  }
  for (let k = 1; k < c.requests.length; k++) {
    const prev = IV[c.requests[k - 1].last];
    assert.ok(IV[c.requests[k].first][0] - (prev[0] + prev[1]) > 1n << 20n);
  }
  assert.deepEqual(plan(IV, { ...base, method: { coalesce: { maxGap: 1 << 20, maxSpan: null } } }), c);
});

test('evaluate reproduces each method\'s figures from its requests, bit for bit', () => {
  for (const method of ['warp', 'exact', 'min-w', 'min-b', 'separate', 'lance-rule', { coalesce: { maxGap: 65536 } }]) {
    const p = plan(IV, { ...base, method });
    const s = evaluate(IV, p.requests, { parallelism: 8, surrogate: S3_SURROGATE });
    assert.deepEqual(figures(s), figures(p), JSON.stringify(method));
    assert.equal(s.requestCount, p.requests.length);
    assert.equal(s.lowerBoundMs, null);
    // groups as pairs too
    assert.deepEqual(evaluate(IV, p.requests.map((r) => [r.first, r.last]), { kMax: 40, parallelism: 8, surrogate: S3_SURROGATE }), s);
  }
  const one = evaluate(IV, [[0, IV.length - 1]], { parallelism: 8, surrogate: S3_SURROGATE });
  assert.equal(one.requestCount, 1);
  assert.equal(one.bytes, IV.at(-1)[0] + IV.at(-1)[1] - IV[0][0]);
  const opts = { parallelism: 8, surrogate: S3_SURROGATE };
  assert.match(refused(() => evaluate(IV, [[0, 3], [5, 39]], opts), 'groups[1].first', 'invalid-groups').message, /expected 4/);
  refused(() => evaluate(IV, [[0, 40]], opts), 'groups[0].last', 'invalid-groups');
  refused(() => evaluate(IV, [[0, 3]], opts), 'groups', 'invalid-groups');
  refused(() => evaluate(IV, [[0, -1]], opts), 'groups[0].last', 'argument');
  refused(() => evaluate(IV, 'all', opts), 'groups', 'argument');
  refused(() => evaluate(IV, [[0, 39]], { ...opts, method: 'warp' }), 'method', 'argument');
});

test('frontier: B ascending, W descending, its ends the min-B and min-W plans; maxPoints keeps the largest B', () => {
  for (const exact of [false, true]) {
    const fr = frontier(IV, { ...base, exact });
    assert.ok(fr.length >= 3, `${fr.length} points`);
    for (let i = 1; i < fr.length; i++) {
      assert.ok(fr[i].bMs > fr[i - 1].bMs && fr[i].wMs < fr[i - 1].wMs && fr[i].cap > fr[i - 1].cap, `point ${i}`);
    }
    for (const p of fr) assert.ok(p.requestCount >= 1 && p.requestCount <= 12 && typeof p.cap === 'bigint' && typeof p.exact === 'boolean');
    if (exact) assert.ok(fr.every((p) => p.exact));
    assert.equal(bits(fr[0].bMs), bits(plan(IV, { ...base, method: 'min-b', epsilon: 0 }).bMs));
    assert.equal(bits(fr.at(-1).wMs), bits(plan(IV, { ...base, method: 'min-w', epsilon: 0 }).wMs));
    assert.deepEqual(frontier(IV, { ...base, exact, maxPoints: 2 }), fr.slice(-2));
    assert.deepEqual(frontier(IV, { ...base, exact, maxPoints: 0 }), []);
  }
  refused(() => frontier(IV, { ...base, maxPoints: -1 }), 'maxPoints', 'argument');
  refused(() => frontier(IV, { ...base, exact: 'yes' }), 'exact', 'argument');
  refused(() => frontier(IV, { ...base, epsilon: 0.1 }), 'epsilon', 'argument');
  refused(() => frontier([[0, 0]], base), 'intervals[0]', 'empty-interval');
});

test('setMemoryLimit: a method whose workspace exceeds it is refused, and planning resumes once raised', () => {
  const n64 = Array.from({ length: 64 }, (_, i) => [BigInt(i) * 100000n, 1000n]);
  const opts = { kMax: 64, parallelism: 8, surrogate: S3_SURROGATE, method: 'exact' };
  const ok = plan(n64, opts);
  try {
    setMemoryLimit(4096);
    // Named as the Python package names it: k_max when the DP table (sized
    // by it) is in the workspace, else intervals; the line is the native one.
    const e = refused(() => plan(n64, opts), 'k_max', 'memory-limit');
    assert.equal(e.detail.limit, 4096n);
    assert.ok(e.detail.table > 0n);
    assert.match(e.message, /^plan memory: 64 intervals need \d+ bytes of workspace, over the limit of 4096 bytes; .*lower k_max/);
    const noTable = refused(() => plan(n64, { ...opts, method: 'lance_rule' }), 'intervals', 'memory-limit');
    assert.equal(noTable.detail.table, 0n);
    assert.match(noTable.message, /^plan memory: 64 intervals need \d+ bytes .*plan fewer intervals per call/);
  } finally {
    setMemoryLimit(1n << 30n);
  }
  assert.deepEqual(plan(n64, opts), ok);
  assert.throws(() => setMemoryLimit(-1), PlanError);
});

// Fault probe 2: a limit above what the component can hold
// (planner_core::Planner::MAX_GUEST_MEMORY_LIMIT, 2016 MiB) was taken and
// silently lowered to it by the component; it is refused, as the native host
// refuses such a plan_memory_bytes. The maximum itself is held as given: an
// instance needing more is refused naming it.
test('setMemoryLimit: a limit above the component\'s maximum is refused naming it', () => {
  assert.equal(MAX_MEMORY_LIMIT, 2016n << 20n);
  for (const [bad, shown] of [[MAX_MEMORY_LIMIT + 1n, `${MAX_MEMORY_LIMIT + 1n}n`], [2 ** 32, '4294967296'], [(1n << 64n) - 1n, '18446744073709551615n']]) {
    const e = refused(() => setMemoryLimit(bad), 'bytes');
    assert.equal(e.message, `bytes: must be at most 2113929216 bytes (2016 MiB: the component's 4 GiB memory holds no larger workspace), got ${shown}`);
  }
  // A limit of 0 is refused too, as native refuses plan_memory_bytes = 0.
  for (const [bad, shown] of [[0, '0'], [0n, '0n']]) {
    assert.equal(refused(() => setMemoryLimit(bad), 'bytes').message, `bytes: must be >= 1, got ${shown}`);
  }
  const ivs = Array.from({ length: 24_000 }, (_, i) => [i * 100, 10]);
  try {
    setMemoryLimit(MAX_MEMORY_LIMIT);
    const e = refused(() => plan(ivs, { kMax: 24_000, parallelism: 8, surrogate: S3_SURROGATE, method: 'exact' }), 'k_max', 'memory-limit');
    assert.equal(e.detail.limit, MAX_MEMORY_LIMIT);
    assert.ok(e.message.includes(`over the limit of ${MAX_MEMORY_LIMIT} bytes`), e.message);
  } finally {
    setMemoryLimit(1n << 30n);
  }
});

test('reorder: default layout, spellings, query-log forms and typed arrays agree; refusals name the field', () => {
  // 64 clusters, 8 dimensions, pseudo-random coordinates; a query log of 200 queries
  const C = 64, dim = 8;
  const centroids = Float32Array.from({ length: C * dim }, (_, i) => (Math.abs(Math.sin(i * 12.9898) * 43758.5453) % 1) * 2 - 1);
  const sizes = Array.from({ length: C }, (_, c) => 1000 + c * 17);
  const queries = Array.from({ length: 200 }, (_, q) => [(q * 5) % C, (q * 5 + 37) % C, (q * 5 + 74) % C]);
  const input = { centroids, dim, sizes, queries };
  const order = reorder(input);
  assert.ok(order instanceof Uint32Array && order.length === C);
  assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: C }, (_, i) => i));
  assert.deepEqual(reorder(input, { method: 'pca-z-order', dims: 5 }), order);
  assert.deepEqual(reorder(input, 'pca_zorder'), order);
  assert.notDeepEqual(reorder(input, { method: 'pca_zorder', dims: 2 }), order);
  // a Float64Array and a plain array of centroids mean the same values as the Float32Array
  assert.deepEqual(reorder({ ...input, centroids: Float64Array.from(centroids) }, 'pca_1d'), reorder(input, 'pca1d'));
  assert.deepEqual(reorder({ ...input, centroids: Array.from(centroids), sizes: BigUint64Array.from(sizes, BigInt) }, 'pca_1d'), reorder(input, 'pca1d'));
  const probes = Uint32Array.from(queries.flat());
  const probeOffsets = Uint32Array.from({ length: queries.length + 1 }, (_, q) => q * 3);
  const spectral = reorder(input, { method: 'spectral', seed: 3 });
  assert.deepEqual(reorder({ ...input, queries: { probes, probeOffsets } }, { method: 'spectral', seed: 3n }), spectral);
  assert.deepEqual(reorder(input, { method: 'random', seed: 7 }), reorder(input, { method: 'random', seed: 7n }));
  assert.deepEqual(reorder(input, 'identity'), Uint32Array.from({ length: C }, (_, i) => i));
  const gap = coaccessGap(spectral, sizes, queries);
  assert.equal(gap, coaccessGap(Array.from(spectral), sizes.map(BigInt), { probes, probeOffsets }));
  assert.ok(gap < coaccessGap(reorder(input, 'identity'), sizes, queries), 'spectral does not beat identity on its own log');
  assert.equal(coaccessGap(spectral, sizes), 0);
  // refusals: the component's field and line, or the wrapper's
  assert.equal(refused(() => reorder({ ...input, dim: 3 }), 'centroids', 'reorder').message, `centroids: length ${C * dim} is not a multiple of dim 3`);
  refused(() => reorder({ ...input, queries: null }, 'spectral'), 'probes', 'reorder');
  refused(() => reorder(input, { method: 'pca_zorder', dims: 17 }), 'layout.dims', 'reorder');
  refused(() => coaccessGap([0, 0], [1, 1]), 'order', 'reorder');
  // A DataView is no list of numbers (it was read as empty: a gap of 0).
  refused(() => coaccessGap(new DataView(new ArrayBuffer(8)), [1, 1], []), 'order', 'argument');
  refused(() => reorder({ ...input, centroids: new DataView(new ArrayBuffer(8)) }), 'centroids', 'argument');
  refused(() => reorder(input, 'hilbert'), 'layout.method', 'argument');
  refused(() => reorder(input, { method: 'random', dims: 3 }), 'layout.dims', 'argument');
  refused(() => reorder({ ...input, sizes: [1, -1] }), 'sizes[1]', 'argument');
  refused(() => reorder({ ...input, centroids: ['a'] }), 'centroids[0]', 'argument');
  refused(() => reorder({ ...input, queries: [[0, 1.5]] }), 'queries[0][1]', 'argument');
  refused(() => reorder({ ...input, nprobe: 4 }), 'nprobe', 'argument');
  refused(() => reorder(null), 'input', 'argument');
});

test('bad input of every kind in every position is a PlanError naming the field, never another exception', () => {
  const junk = [undefined, null, true, 'x', '12', -1, 1.5, 2 ** 60, Number.NaN, Infinity, -1n, 1n << 70n, {}, [], [1], () => 1, Symbol('s'), new Date(0), Object.create(null), new DataView(new ArrayBuffer(8))];
  const good = { intervals: [[0n, 10n], [100n, 10n]] };
  const goodOptions = { kMax: 2n, parallelism: 8, surrogate: S3_SURROGATE, epsilon: 0.01, method: 'warp' };
  const calls = [];
  const variants = (path, set) => junk.map((v) => [path, () => set(v)]);
  calls.push(...variants('intervals', (v) => plan(v, base)));
  calls.push(...variants('intervals[1]', (v) => plan([[0n, 10n], v], base)));
  calls.push(...variants('intervals[0].offset', (v) => plan([[v, 10n]], base)));
  calls.push(...variants('intervals[0].len', (v) => plan([{ offset: 0n, len: v }], base)));
  for (const k of ['kMax', 'parallelism', 'surrogate', 'epsilon', 'method']) {
    calls.push(...variants(k, (v) => plan(good.intervals, { ...goodOptions, [k]: v })));
  }
  calls.push(...variants('surrogate.affine.fixedMs', (v) => plan(good.intervals, { ...base, surrogate: { affine: { fixedMs: v, perMibMs: 5 } } })));
  calls.push(...variants('surrogate.piecewise[0].bytes', (v) => plan(good.intervals, { ...base, surrogate: { piecewise: [[v, 1]] } })));
  calls.push(...variants('method.coalesce.maxGap', (v) => plan(good.intervals, { ...base, method: { coalesce: { maxGap: v } } })));
  calls.push(...variants('groups[0]', (v) => evaluate(good.intervals, [v], base)));
  calls.push(...variants('maxPoints', (v) => frontier(good.intervals, { ...base, maxPoints: v })));
  calls.push(...variants('bytes', (v) => setMemoryLimit(v)));
  calls.push(...variants('dim', (v) => reorder({ centroids: [1, 2], dim: v, sizes: [1] })));
  calls.push(...variants('layout', (v) => reorder({ centroids: [1, 2], dim: 2, sizes: [1] }, v)));
  calls.push(...variants('queries', (v) => coaccessGap([0], [1], v)));
  let refusals = 0;
  try {
    for (const [path, call] of calls) {
      try {
        call();
      } catch (e) {
        assert.ok(e instanceof PlanError, `${path}: ${e?.constructor?.name}: ${e?.message}`);
        assert.ok(e.field.startsWith(path.split(/[.[]/)[0]) || e.field === 'options' || e.field === 'k_max' || (e.kind === 'memory-limit' && e.field === 'intervals'), `${path}: field ${e.field}`);
        const prefix = e.kind === 'memory-limit' ? 'plan memory' : e.field;
        assert.ok(e.message.startsWith(`${prefix}: `) && !e.message.includes('\n'), `${path}: ${e.message}`);
        refusals++;
      }
    }
  } finally {
    setMemoryLimit(1n << 30n);
  }
  assert.ok(refusals >= calls.length * 0.7, `${refusals} of ${calls.length} refused`);
  // and the component still plans afterwards
  assert.equal(plan(good.intervals, base).requests.length >= 1, true);
});
