// The planner component under Node: `jco transpile` turns it into an ES module
// (it imports nothing, so no WASI shim), and every golden vector of
// tests/vectors/ is planned through `plan-json` (u64 offsets stay exact) and
// compared with the vector: integers exactly, floats by bits.
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

test('every golden vector through plan-json, bit for bit', async () => {
  const m = await load();
  const planner = m.planner ?? m['warp:planner/planner@0.1.0'];
  const names = readdirSync(vectorsDir).filter((f) => f.endsWith('.json')).sort();
  assert.ok(names.length >= 50, `${names.length} vectors`);
  const failures = [];
  for (const name of names) {
    const text = readFileSync(join(vectorsDir, name), 'utf8');
    const vector = parseExact(text);
    // The instance text exactly as in the file, re-serialized compactly.
    const doc = JSON.parse(text, (k, v) => v);
    const start = text.indexOf('"instance"');
    const instance = instanceText(text, start);
    let actual;
    try {
      actual = parseExact(planner.planJson(instance));
    } catch (e) {
      assert.ok(e.payload, `${name}: ${e}`);
      actual = { error: planner.errorMessage(e.payload) };
    }
    const d = differs(vector.expected, actual);
    if (d) failures.push(`${name}: differs at ${d}`);
    assert.equal(doc.name + '.json', name);
  }
  assert.deepEqual(failures, []);
  console.log(`${names.length} vectors identical under Node ${process.version}`);
});

/** The text of the value after `"instance":` (a balanced JSON value), verbatim. */
function instanceText(text, keyAt) {
  let i = text.indexOf(':', keyAt) + 1;
  while (' \n\t\r'.includes(text[i])) i++;
  const start = i;
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') { i++; while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1; continue; }
    if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') { depth--; if (depth === 0) return text.slice(start, i + 1); }
    else if (depth === 0 && (c === ',' || c === '\n')) return text.slice(start, i).trim();
  }
  return text.slice(start).trim();
}

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
