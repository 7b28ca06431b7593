// A component of another WIT package version is refused, in one line, both
// when the package is built (scripts/build.mjs) and when an installed package
// holds one (index.js at import). The other version is the real component with
// its interface names rewritten to warp:planner/…@0.2.0 (same length, so it
// stays a valid component: jco reads its WIT and transpiles it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WIT_PACKAGE } from 'warp-planner';
import { componentPath, installedDir, jcoOf, source } from './helpers.mjs';

/** The component with every `warp:planner/<interface>@0.1.0` name at `version` (5 characters). */
function componentAt(version) {
  assert.equal(version.length, 5);
  const text = readFileSync(componentPath()).toString('latin1');
  const names = ['planner', 'reorder'].map((i) => `warp:planner/${i}@0.1.0`);
  assert.ok(names.every((n) => text.includes(n)), 'the component does not name warp:planner/{planner,reorder}@0.1.0');
  let out = text;
  for (const n of names) out = out.replaceAll(n, n.replace('@0.1.0', `@${version}`));
  return Buffer.from(out, 'latin1');
}

const tmp = mkdtempSync(join(tmpdir(), 'warp-npm-version-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

test('the package is built for the WIT version of wit/planner.wit, and only that', () => {
  assert.equal(WIT_PACKAGE, 'warp:planner@0.1.0');
  const other = join(tmp, 'planner-0.2.0.wasm');
  writeFileSync(other, componentAt('0.2.0'));
  // a valid component, just of another version
  const wit = execFileSync(jcoOf(source()), ['wit', other], { encoding: 'utf8' });
  assert.match(wit, /export warp:planner\/planner@0\.2\.0;/);
  const info = join(source(), 'component/build-info.json');
  const before = readFileSync(info, 'utf8');
  const mtime = statSync(info).mtimeMs;
  const r = spawnSync(process.execPath, [join(source(), 'scripts/build.mjs'), other], { encoding: 'utf8' });
  assert.equal(r.status, 1, r.stdout + r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `error: ${other} is warp:planner@0.2.0, but this package (warp-planner 0.1.0) is built for warp:planner@0.1.0: refused\n`);
  // component/ was left alone
  assert.equal(readFileSync(info, 'utf8'), before);
  assert.equal(statSync(info).mtimeMs, mtime);
});

/** An installed copy of the package whose component/ is `wasm` transpiled; what importing it prints. */
function importWith(name, wasm) {
  const project = join(tmp, name);
  const dir = join(project, 'node_modules/warp-planner');
  mkdirSync(dir, { recursive: true });
  cpSync(installedDir(), dir, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{"private": true, "type": "module"}\n');
  const file = join(tmp, `${name}.wasm`);
  writeFileSync(file, wasm);
  rmSync(join(dir, 'component'), { recursive: true });
  execFileSync(jcoOf(source()), ['transpile', file, '-o', join(dir, 'component'), '--name', 'planner', '--quiet']);
  const script = "import('warp-planner').then((m) => console.log('loaded', m.WIT_PACKAGE, m.plan([[0n, 1n]], { kMax: 1, parallelism: 1, surrogate: m.S3_SURROGATE }).bytes), (e) => { console.error(e.message); process.exit(3); })";
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' });
}

test('an installed package holding a component of another WIT version refuses to load, in one line', () => {
  // control: the same harness with the real component loads and plans
  const same = importWith('same', readFileSync(componentPath()));
  assert.equal(same.status, 0, same.stderr);
  assert.equal(same.stdout, 'loaded warp:planner@0.1.0 1n\n');
  const other = importWith('other', componentAt('0.2.0'));
  assert.equal(other.status, 3, other.stdout + other.stderr);
  assert.equal(other.stdout, '');
  assert.equal(other.stderr, 'warp-planner: the bundled component exports warp:planner/planner@0.2.0, warp:planner/reorder@0.2.0, but this package is built for warp:planner@0.1.0; rebuild the package from a warp:planner@0.1.0 component\n');
});
