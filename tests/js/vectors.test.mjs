// The planner component under Node: `jco transpile` turns it into an ES module
// (it imports nothing, so no WASI shim), and every golden vector of
// tests/vectors/ is decoded here (integers as BigInt, so u64 offsets stay
// exact), planned through the typed `plan` export, turned back into the
// ARCHITECTURE §5 plan document and compared with the vector: integers exactly,
// floats by bits; refusals as the plan-error variant rendered by the
// component's `errorMessage`. The `error_json_*` vectors exercise a JSON
// decoder, the embedder's part (the host's is `planner_core::json`): this
// decoder must refuse them too.
//
// Component: $WARP_COMPONENT, else target/planner-component/planner.wasm as
// written by scripts/build-component. Run: npm ci && npm test (in tests/js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const component = process.env.WARP_COMPONENT ?? join(root, 'target/planner-component/planner.wasm');
const vectorsDir = join(root, 'tests/vectors');

/** Parses JSON keeping every number exact: integers as BigInt, others as Number. */
export function parseExact(text) {
  let i = 0;
  const ws = () => { while (' \t\n\r'.includes(text[i]) && i < text.length) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const obj = {}; ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws(); const key = value(); ws(); i++; // ':'
        obj[key] = value(); ws();
        if (text[i++] === '}') return obj;
      }
    }
    if (c === '[') {
      i++; const arr = []; ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value()); ws();
        if (text[i++] === ']') return arr;
      }
    }
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)); i = j + 1; return s;
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) throw new Error(`bad JSON at ${i}`);
    i += m[0].length;
    return m[1] === undefined && m[2] === undefined ? BigInt(m[0]) : { float: Number(m[0]) };
  };
  const v = value(); ws();
  if (i !== text.length) throw new Error('trailing text');
  return v;
}

/** Exact comparison; returns the path of the first difference or null. */
export function differs(a, b, path = '$') {
  if (typeof a === 'bigint' || typeof b === 'bigint') return a === b ? null : path;
  if (a && typeof a === 'object' && 'float' in a && Object.keys(a).length === 1) {
    return b && typeof b === 'object' && 'float' in b && Object.is(a.float, b.float) ? null : path;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return path;
    for (let k = 0; k < a.length; k++) {
      const d = differs(a[k], b[k], `${path}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) return path;
    for (const k of ka) {
      const d = differs(a[k], b[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return a === b ? null : path;
}

async function load() {
  assert.ok(existsSync(component), `${component} missing: run scripts/build-component`);
  const out = join(here, 'out');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  execFileSync(join(here, 'node_modules/.bin/jco'),
    ['transpile', component, '-o', out, '--name', 'planner', '--quiet'], { stdio: 'inherit' });
  return import(pathToFileURL(join(out, 'planner.js')).href);
}

const U64_MAX = (1n << 64n) - 1n;
const METHODS = ['warp', 'exact', 'frontier', 'lagrangian', 'min_w', 'min_b', 'separate', 'lance_rule', 'object_store_rule'];

class DecodeError extends Error {}

const u64 = (v, what) => {
  if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) throw new DecodeError(`${what}: expected an unsigned 64-bit integer`);
  return v;
};
const number = (v, what) => {
  if (typeof v === 'bigint') return Number(v);
  if (v && typeof v === 'object' && 'float' in v && Object.keys(v).length === 1) return v.float;
  throw new DecodeError(`${what}: expected a number`);
};
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !('float' in v && Object.keys(v).length === 1);
const pairs = (v, what) => {
  if (!Array.isArray(v) || v.some((p) => !Array.isArray(p) || p.length !== 2)) throw new DecodeError(`${what}: expected an array of pairs`);
  return v;
};
/** `obj` with exactly the `required` keys plus any of `optional`. */
const only = (obj, required, optional, what) => {
  if (!isObject(obj)) throw new DecodeError(`${what}: expected an object`);
  for (const k of Object.keys(obj)) if (!required.includes(k) && !optional.includes(k)) throw new DecodeError(`${what}.${k}: unknown field`);
  for (const k of required) if (!(k in obj)) throw new DecodeError(`${what}.${k}: missing`);
  return obj;
};

/** The WIT `instance` (jco's shape: camelCase fields, `{tag, val}` variants) of a ARCHITECTURE §5 instance. */
export function decode(doc) {
  only(doc, ['intervals', 'k_max', 'parallelism', 'surrogate'], ['epsilon', 'method'], '$');
  const s = doc.surrogate;
  let surrogate;
  if (isObject(s) && Object.keys(s).length === 1 && 'affine' in s) {
    const a = only(s.affine, ['fixed_ms', 'per_mib_ms'], [], 'surrogate.affine');
    surrogate = { tag: 'affine', val: { fixedMs: number(a.fixed_ms, 'fixed_ms'), perMibMs: number(a.per_mib_ms, 'per_mib_ms') } };
  } else if (isObject(s) && Object.keys(s).length === 1 && 'piecewise' in s) {
    surrogate = { tag: 'piecewise', val: pairs(s.piecewise, 'surrogate.piecewise').map(([b, ms]) => ({ bytes: u64(b, 'bytes'), ms: number(ms, 'ms') })) };
  } else {
    throw new DecodeError('surrogate: expected one of affine, piecewise');
  }
  const m = doc.method ?? 'warp';
  let method;
  if (typeof m === 'string' && METHODS.includes(m)) {
    method = { tag: m.replaceAll('_', '-') };
  } else if (isObject(m) && Object.keys(m).length === 1 && 'coalesce' in m) {
    const c = only(m.coalesce, ['max_gap', 'max_span'], [], 'method.coalesce');
    method = { tag: 'coalesce', val: { maxGap: u64(c.max_gap, 'max_gap'), maxSpan: c.max_span === null ? undefined : u64(c.max_span, 'max_span') } };
  } else {
    throw new DecodeError('method: unknown');
  }
  return {
    intervals: pairs(doc.intervals, 'intervals').map(([o, n]) => ({ offset: u64(o, 'offset'), len: u64(n, 'len') })),
    kMax: u64(doc.k_max, 'k_max'),
    parallelism: doc.parallelism === null ? undefined : number(doc.parallelism, 'parallelism'),
    surrogate,
    epsilon: 'epsilon' in doc ? number(doc.epsilon, 'epsilon') : 0.01,
    method,
  };
}

/** The ARCHITECTURE §5 plan document (in `parseExact`'s representation) of a WIT `request-plan`. */
function planDocument(plan) {
  const s = plan.summary;
  const f = (x) => (x === undefined ? null : { float: x });
  return {
    groups: plan.requests.map((r) => [BigInt(r.first), BigInt(r.last)]),
    ranges: plan.requests.map((r) => [r.offset, r.len]),
    requests: s.requests,
    bytes: s.bytes,
    overfetch_bytes: s.overfetchBytes,
    w_ms: f(s.wMs),
    b_ms: f(s.bMs),
    t_ms: f(s.tMs),
    lower_bound_ms: f(s.lowerBoundMs),
  };
}

test('every golden vector through the typed plan export, bit for bit', async () => {
  const m = await load();
  const planner = m.planner ?? m['warp:planner/planner@0.1.0'];
  const names = readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(names.length >= 50, `${names.length} vectors`);
  const failures = [];
  let planned = 0;
  for (const name of names) {
    const vector = parseExact(readFileSync(join(vectorsDir, name), 'utf8'));
    assert.equal(vector.name + '.json', name);
    const jsonError = name.startsWith('error_json_');
    let instance;
    try {
      instance = decode(vector.instance);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      if (!jsonError) failures.push(`${name}: not decoded: ${e.message}`);
      continue;
    }
    if (jsonError) {
      failures.push(`${name}: the decoder accepted it`);
      continue;
    }
    planned++;
    let actual;
    try {
      actual = planDocument(planner.plan(instance));
    } catch (e) {
      assert.ok(e.payload, `${name}: ${e}`);
      actual = { error: planner.errorMessage(e.payload) };
    }
    const d = differs(vector.expected, actual);
    if (d) failures.push(`${name}: differs at ${d}`);
  }
  assert.deepEqual(failures, []);
  assert.ok(planned >= 50, `${planned} planned`);
  console.log(`all ${names.length} golden vectors passed under Node ${process.version}: ${planned} planned through the component with plans and errors identical bit for bit to expected, ${names.length - planned} malformed-JSON vectors (error_json_*) refused by the decoder as expected`);
});

test('typed errors name the field', async () => {
  const m = await load();
  const planner = m.planner ?? m['warp:planner/planner@0.1.0'];
  const instance = {
    intervals: [{ offset: 0n, len: 10n }, { offset: 5n, len: 10n }],
    kMax: 4n, parallelism: 8.0, surrogate: { tag: 'affine', val: { fixedMs: 25, perMibMs: 5 } },
    epsilon: 0.01, method: { tag: 'warp' },
  };
  assert.throws(() => planner.plan(instance), (e) => {
    assert.equal(e.payload.tag, 'overlapping');
    assert.equal(e.payload.val.index, 1);
    assert.match(planner.errorMessage(e.payload), /^intervals\[1\]: offset 5 is before the end 10/);
    return true;
  });
  const ok = planner.plan({ ...instance, intervals: [{ offset: 0n, len: 10n }, { offset: 18446744073709551000n, len: 10n }] });
  assert.equal(ok.requests.at(-1).offset, 18446744073709551000n);
});

// The reorder vectors (tests/vectors-reorder/): the same permutation and
// co-access gap, bit for bit, or the same refusal (field and line).
const LAYOUT_TAGS = {
  identity: 'identity', random: 'random', pca_1d: 'pca1d',
  pca_zorder: 'pca-z-order', pca_hilbert: 'pca-hilbert', spectral: 'spectral',
  greedy_tour: 'greedy-tour',
};

function layoutOf(l) {
  const tag = LAYOUT_TAGS[l.method];
  assert.ok(tag, `unknown layout ${l.method}`);
  if (l.dims !== null) return { tag, val: Number(l.dims) };
  if (l.seed !== null) return { tag, val: l.seed };
  return { tag };
}

const f32s = (xs) => Float32Array.from(xs, (x) => (typeof x === 'bigint' ? Number(x) : x.float));
const u32s = (xs) => Uint32Array.from(xs, (x) => Number(x));

test('every reorder vector through the reorder exports, bit for bit', async () => {
  const m = await load();
  const reorder = m.reorder ?? m['warp:planner/reorder@0.1.0'];
  const dir = join(root, 'tests/vectors-reorder');
  const names = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(names.length >= 10, `${names.length} reorder vectors`);
  const failures = [];
  for (const name of names) {
    const v = parseExact(readFileSync(join(dir, name), 'utf8'));
    assert.equal(v.name + '.json', name);
    const inp = v.input;
    const input = {
      centroids: f32s(inp.centroids),
      dim: Number(inp.dim),
      sizes: inp.sizes,
      probes: u32s(inp.probes),
      probeOffsets: u32s(inp.probe_offsets),
    };
    let actual;
    try {
      const order = reorder.reorder(input, layoutOf(inp.layout));
      const gap = reorder.coaccessGap(order, inp.sizes, input.probes, input.probeOffsets);
      actual = { order: Array.from(order, (x) => BigInt(x)), gap: { float: gap } };
    } catch (e) {
      if (!e.payload) throw e;
      actual = { error: { field: e.payload.field, message: e.payload.message } };
    }
    const d = differs(v.expected, actual);
    if (d) failures.push(`${name}: differs at ${d}`);
  }
  assert.deepEqual(failures, []);
  console.log(`${names.length} reorder vectors identical under Node ${process.version}`);
});
