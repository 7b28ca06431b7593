// Every golden vector of tests/vectors/ and tests/vectors-reorder/ through the
// INSTALLED warp-planner package (scripts/test-installed): the ARCHITECTURE §5
// instance is handed to `plan` as JavaScript values (integers as BigInt,
// snake_case keys in the wrapper's camelCase) with no validation of its own, so
// the wrapper does all of it. Plans must equal the vector bit for bit (integers
// exactly, floats by bits), refusals must carry the vector's one-line message;
// the error_json_* vectors (malformed instances) must be refused by the
// wrapper itself, as a PlanError naming the vector's field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { coaccessGap, plan, PlanError, reorder } from 'warp-planner';
import { differs, installedDir, isFloat, parseExact, repo } from './helpers.mjs';

installedDir();

const FLOAT_KEYS = new Set(['parallelism', 'epsilon', 'fixed_ms', 'per_mib_ms']);
const camel = (k) => k.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
/** A JSON number where the instance wants a float: a number. */
const num = (v) => (typeof v === 'bigint' ? Number(v) : isFloat(v) ? v.float : v);

/** The wrapper's JavaScript value of a parsed instance document. */
function convert(v, key) {
  if (FLOAT_KEYS.has(key)) return num(v);
  if (key === 'piecewise' && Array.isArray(v)) {
    return v.map((p) => (Array.isArray(p) ? p.map((x, j) => (j === 1 ? num(x) : convert(x))) : convert(p)));
  }
  if (isFloat(v)) return v.float; // in an integer position: the wrapper must refuse it unless exact
  if (Array.isArray(v)) return v.map((x) => convert(x));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), convert(x, k)]));
  return v;
}

/** The arguments of `plan` for a document. */
function args(doc) {
  const o = convert(doc);
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return [undefined, o];
  const { intervals, ...options } = o;
  return [intervals, options];
}

/** Every safe BigInt as a number (the "numbers are accepted where exact" path). */
const asNumbers = (v) => {
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) return v.map(asNumbers);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asNumbers(x)]));
  return v;
};

/** Intervals and breakpoints as objects instead of pairs. */
function asObjects([intervals, options]) {
  const s = options.surrogate;
  return [
    intervals.map(([offset, len]) => ({ offset, len })),
    'piecewise' in s ? { ...options, surrogate: { piecewise: s.piecewise.map(([bytes, ms]) => ({ bytes, ms })) } } : options,
  ];
}

const f = (x) => (x === null ? null : { float: x });

/** The ARCHITECTURE §5 plan document (parseExact's representation) of a wrapper plan. */
const planDocument = (p) => ({
  groups: p.requests.map((r) => [BigInt(r.first), BigInt(r.last)]),
  ranges: p.requests.map((r) => [r.offset, r.len]),
  requests: BigInt(p.requests.length),
  bytes: p.bytes,
  overfetch_bytes: p.overfetchBytes,
  w_ms: f(p.wMs),
  b_ms: f(p.bMs),
  t_ms: f(p.tMs),
  lower_bound_ms: f(p.lowerBoundMs),
});

/** The plan document, or `{error}` with the component's line (asserting it is a component refusal). */
function outcome(name, [intervals, options]) {
  try {
    return planDocument(plan(intervals, options));
  } catch (e) {
    assert.ok(e instanceof PlanError, `${name}: ${e?.stack ?? e}`);
    assert.notEqual(e.kind, 'argument', `${name}: refused by the wrapper: ${e.message}`);
    // A memory-limit line starts `plan memory:`; its field is k_max or intervals.
    const prefix = e.kind === 'memory-limit' ? 'plan memory' : e.field;
    assert.ok(e.message.startsWith(`${prefix}: `) && !e.message.includes('\n'), `${name}: ${e.field} / ${e.message}`);
    if (e.kind === 'memory-limit') assert.equal(e.field, e.detail.table > 0n ? 'k_max' : 'intervals', name);
    return { error: e.message };
  }
}

/** The wrapper's name of a vector's field path (`$` is the options object). */
const wrapperField = (path) => (path === '$' ? 'options' : path.split('.').map(camel).join('.'));

test('every golden vector through the installed package, bit for bit', () => {
  const dir = join(repo(), 'tests/vectors');
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  assert.ok(names.length >= 100, `${names.length} vectors`);
  const failures = [];
  let planned = 0, refused = 0, malformed = 0;
  for (const name of names) {
    const vector = parseExact(readFileSync(join(dir, name), 'utf8'));
    assert.equal(`${vector.name}.json`, name);
    const a = args(vector.instance);
    if (name.startsWith('error_json_')) {
      malformed++;
      const line = vector.expected.error;
      const want = wrapperField(line.slice(0, line.indexOf(': ')));
      try {
        plan(...a);
        failures.push(`${name}: accepted`);
      } catch (e) {
        if (!(e instanceof PlanError)) failures.push(`${name}: ${e?.constructor?.name} ${e?.message}`);
        else if (e.kind !== 'argument' || e.field !== want || !e.message.startsWith(`${want}: `) || e.message.includes('\n')) {
          failures.push(`${name}: PlanError(${e.kind}, ${e.field}) "${e.message}", want the field ${want} (vector: "${line}")`);
        }
      }
      continue;
    }
    const actual = outcome(name, a);
    if ('error' in actual) refused++;
    else planned++;
    const d = differs(vector.expected, actual);
    if (d) failures.push(`${name}: differs at ${d}`);
    // The same instance with exact numbers instead of BigInts, and with objects instead of pairs.
    const n = differs(actual, outcome(name, asNumbers(a)));
    if (n) failures.push(`${name}: numbers instead of BigInts differ at ${n}`);
    const o = differs(actual, outcome(name, asObjects(a)));
    if (o) failures.push(`${name}: {offset, len} objects differ at ${o}`);
  }
  assert.deepEqual(failures, []);
  assert.ok(planned >= 50 && refused >= 10 && malformed >= 20, `${planned} planned, ${refused} refused, ${malformed} malformed`);
  console.log(`${names.length} golden vectors through the installed warp-planner under Node ${process.version}: ${planned} plans and ${refused} refusals identical to the vectors (also with numbers and objects), ${malformed} malformed instances refused by the wrapper naming the field`);
});

const u32s = (xs) => Uint32Array.from(xs, Number);

test('every reorder vector through the installed package, bit for bit', () => {
  const dir = join(repo(), 'tests/vectors-reorder');
  const names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
  assert.ok(names.length >= 15, `${names.length} reorder vectors`);
  const failures = [];
  for (const name of names) {
    const v = parseExact(readFileSync(join(dir, name), 'utf8'));
    assert.equal(`${v.name}.json`, name);
    const inp = v.input;
    const probes = u32s(inp.probes), probeOffsets = u32s(inp.probe_offsets);
    // The log as one array per query, too: the wrapper builds the same CSR.
    const perQuery = Array.from({ length: probeOffsets.length - 1 }, (_, q) => Array.from(probes.subarray(probeOffsets[q], probeOffsets[q + 1])));
    const input = {
      centroids: inp.centroids.map(num),
      dim: Number(inp.dim),
      sizes: inp.sizes,
      queries: { probes, probeOffsets },
    };
    const { method, dims, seed } = inp.layout;
    const run = (queries) => {
      try {
        const order = reorder({ ...input, queries }, { method, dims, seed });
        assert.ok(order instanceof Uint32Array);
        return { order: Array.from(order, BigInt), gap: { float: coaccessGap(order, inp.sizes, queries) } };
      } catch (e) {
        assert.ok(e instanceof PlanError && e.kind === 'reorder', `${name}: ${e?.stack ?? e}`);
        return { error: { field: e.field, message: e.message } };
      }
    };
    const actual = run(input.queries);
    const d = differs(v.expected, actual);
    if (d) failures.push(`${name}: differs at ${d}`);
    const q = differs(actual, run(perQuery));
    if (q) failures.push(`${name}: the per-query log differs at ${q}`);
  }
  assert.deepEqual(failures, []);
  console.log(`${names.length} reorder vectors identical through the installed warp-planner under Node ${process.version}`);
});
