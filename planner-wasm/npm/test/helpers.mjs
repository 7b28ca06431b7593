// Shared by the tests of the installed package (scripts/test-installed copies
// test/ into a fresh project that has warp-planner installed from its tarball):
// where the repository and the component are, an exact JSON reader for the
// golden vectors, and their exact comparison.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An environment variable the runner (scripts/test-installed) sets. */
export function env(name) {
  const v = process.env[name];
  assert.ok(v && existsSync(v), `${name} must name an existing path (run the tests with scripts/test-installed), got ${v}`);
  return v;
}

/** The repository (golden vectors, wit/), the package source (its jco) and the component. */
export const repo = () => env('WARP_REPO');
export const source = () => env('WARP_NPM_SRC');
export const componentPath = () => env('WARP_COMPONENT');
export const jcoOf = (src) => join(src, 'node_modules/.bin/jco');

/** The directory of the installed package, asserting it is an installed copy, not the source. */
export function installedDir() {
  const entry = fileURLToPath(import.meta.resolve('warp-planner'));
  assert.match(entry, /[\\/]node_modules[\\/]warp-planner[\\/]index\.js$/, `warp-planner resolves to ${entry}, not an installed copy`);
  return join(entry, '..');
}

/** Parses JSON keeping every number exact: integers as BigInt, others as `{float}`. */
export function parseExact(text) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const obj = {}; ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws(); const key = value(); ws();
        if (text[i++] !== ':') throw new Error(`expected ':' at ${i - 1}`);
        obj[key] = value(); ws();
        const end = text[i++];
        if (end === '}') return obj;
        if (end !== ',') throw new Error(`expected ',' or '}' at ${i - 1}`);
      }
    }
    if (c === '[') {
      i++; const arr = []; ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value()); ws();
        const end = text[i++];
        if (end === ']') return arr;
        if (end !== ',') throw new Error(`expected ',' or ']' at ${i - 1}`);
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

export const isFloat = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && 'float' in v;

/** Exact comparison (BigInt exactly, `{float}` by `Object.is`); the path of the first difference or null. */
export function differs(a, b, path = '$') {
  if (typeof a === 'bigint' || typeof b === 'bigint') return a === b ? null : path;
  if (isFloat(a) || isFloat(b)) return isFloat(a) && isFloat(b) && Object.is(a.float, b.float) ? null : path;
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

/** Float bits, for comparing plans of two calls exactly. */
export const bits = (x) => {
  const f = new Float64Array([x]);
  return new BigUint64Array(f.buffer)[0];
};
