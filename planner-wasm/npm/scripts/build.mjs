#!/usr/bin/env node
// Builds ./component/ of the package from the planner component: checks with
// `jco wit` that it is the `warp:planner` world this package is built for
// (exports planner and reorder at the package's WIT version, imports nothing),
// then `jco transpile`s it (ES module + core wasm + .d.ts) into a fresh
// directory that replaces ./component/ only once complete. `npm pack` runs it
// (prepack), so the tarball holds the transpiled component and installing it
// needs no jco.
//
//   node scripts/build.mjs [COMPONENT.wasm]
//
// COMPONENT defaults to $WARP_COMPONENT, else target/planner-component/planner.wasm
// of the repository (as scripts/build-component writes it). A component of
// another WIT version is refused with one line on stderr, exit 1, and
// ./component/ is left as it was.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const witPackage = `warp:planner@${pkg.version}`;
const jco = join(pkgDir, 'node_modules/.bin/jco');

function fail(line) {
  process.stderr.write(`error: ${line}\n`);
  process.exit(1);
}

if (pkg.witPackage !== witPackage) {
  fail(`package.json: witPackage is ${JSON.stringify(pkg.witPackage)}, but version ${pkg.version} means ${witPackage}`);
}
const indexSource = readFileSync(join(pkgDir, 'index.js'), 'utf8');
if (!indexSource.includes(`export const WIT_PACKAGE = '${witPackage}';`)) {
  fail(`index.js: WIT_PACKAGE is not '${witPackage}' (package.json version ${pkg.version})`);
}
const args = process.argv.slice(2);
if (args.length > 1 || args[0]?.startsWith('-')) fail('usage: node scripts/build.mjs [COMPONENT.wasm]');
const component = resolve(args[0] ?? process.env.WARP_COMPONENT ?? join(pkgDir, '../../target/planner-component/planner.wasm'));
if (!existsSync(component)) fail(`${component}: no such component (build it with scripts/build-component, or set WARP_COMPONENT)`);
if (!existsSync(jco)) fail(`${jco} missing: run npm ci in ${pkgDir}`);

const run = (argv) => execFileSync(jco, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
let wit;
try {
  wit = run(['wit', component]);
} catch (e) {
  fail(`${component}: not a WebAssembly component jco can read (${String(e.stderr || e.message).trim().split('\n')[0]})`);
}
const world = wit.slice(wit.lastIndexOf('\nworld '));
const imports = [...world.matchAll(/^\s*import\s+([^;]+);/gm)].map((m) => m[1]);
const exported = [...world.matchAll(/^\s*export\s+([^;]+);/gm)].map((m) => m[1]);
const versions = [...new Set(exported.map((e) => /^warp:planner\/[a-z-]+@(.+)$/.exec(e)?.[1]).filter(Boolean))];
const want = [`warp:planner/planner@${pkg.version}`, `warp:planner/reorder@${pkg.version}`];
if (versions.length > 0 && !versions.includes(pkg.version)) {
  fail(`${component} is warp:planner@${versions.join(', @')}, but this package (${pkg.name} ${pkg.version}) is built for ${witPackage}: refused`);
}
if (imports.length > 0 || exported.length !== 2 || !want.every((w) => exported.includes(w))) {
  fail(`${component}: expected a world exporting ${want.join(' and ')} and importing nothing, got exports [${exported.join(', ')}] imports [${imports.join(', ')}]`);
}

const out = mkdtempSync(join(pkgDir, '.component-'));
try {
  run(['transpile', component, '-o', out, '--name', 'planner', '--quiet']);
  const bytes = readFileSync(component);
  writeFileSync(join(out, 'build-info.json'), `${JSON.stringify({
    witPackage,
    component: { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') },
    jco: run(['--version']).trim(),
  }, null, 2)}\n`);
  rmSync(join(pkgDir, 'component'), { recursive: true, force: true });
  renameSync(out, join(pkgDir, 'component'));
} catch (e) {
  rmSync(out, { recursive: true, force: true });
  fail(`jco transpile ${component}: ${String(e.stderr || e.message).trim().split('\n')[0]}`);
}
console.log(`${pkg.name} ${pkg.version}: component/ transpiled from ${component} (${witPackage})`);
