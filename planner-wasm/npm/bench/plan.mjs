#!/usr/bin/env node
// Planning cost per call under Node: warp-planner's `plan` (the wrapper:
// argument checks, BigInt conversion, the jco-lowered call, the plan object)
// and, for comparison, the transpiled component's own `plan` export called with
// a ready WIT instance. The instances are those of the native-vs-component
// benchmark (host/benches/component.rs, BENCHMARKS.md "Component vs native"):
// n probed clusters out of 16·n, payloads of 64–448 KiB back to back, SplitMix64
// seeded 0x5EEDBE7C ^ n; warp, K_max = n/2, P = 8, ε = 0.01, t(L) = 25 ms + 5 ms/MiB.
//
//   npm run bench [-- --rounds R --round-ms MS]     (after npm run build)
//
// Timing: process.hrtime.bigint() around a round of calls (sized to about
// --round-ms, default 200 ms, after a 1 s warm-up); the figure is the median
// per-call wall time over --rounds (default 15) rounds, with the fastest and
// slowest round, and the median per-call CPU time (process.cpuUsage(), user +
// system of the whole process, so V8's GC threads count; on a busy box it
// leaves out the time spent waiting for a core). Then PlannerWorker: the time
// its first call takes, thread start and component load included, and the
// median round trip of a one-interval plan on the running thread (5 workers,
// 200 calls each). Prints the load average and whether rustc was running,
// before and after.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import * as component from '../component/planner.js';
import { plan, PlannerWorker, S3_SURROGATE, WIT_PACKAGE } from '../index.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '15' }, 'round-ms': { type: 'string', default: '200' } } });
const rounds = Number(values.rounds), roundMs = Number(values['round-ms']);

const M64 = (1n << 64n) - 1n;
/** planner_core::reorder::SplitMix64. */
function splitmix(seed) {
  let s = seed & M64;
  return () => {
    s = (s + 0x9E3779B97F4A7C15n) & M64;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & M64;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & M64;
    return z ^ (z >> 31n);
  };
}

/** host/benches/component.rs `ivf_intervals`. */
function ivfIntervals(n) {
  const next = splitmix(0x5EEDBE7Cn ^ BigInt(n));
  const nlist = 16 * n;
  let offset = 0n;
  const layout = [];
  for (let c = 0; c < nlist; c++) {
    const len = (64n << 10n) + (next() % (384n << 10n));
    layout.push([offset, len]);
    offset += len;
  }
  const probed = [];
  while (probed.length < n) {
    const c = Number(next() % BigInt(nlist));
    if (!probed.includes(c)) probed.push(c);
  }
  probed.sort((a, b) => a - b);
  return probed.map((c) => layout[c]);
}

/** Median, min and max per-call µs of `f` over `rounds` rounds. */
function time(f) {
  const warmEnd = process.hrtime.bigint() + 1_000_000_000n;
  let calls = 0;
  while (process.hrtime.bigint() < warmEnd) {
    f();
    calls++;
  }
  const perRound = Math.max(1, Math.round((calls * roundMs) / 1000));
  const us = [], cpu = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < perRound; i++) f();
    us.push(Number(process.hrtime.bigint() - t0) / 1000 / perRound);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / perRound);
  }
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const cpuMedian = median(cpu);
  return { median: median(us), min: us[0], max: us.at(-1), cpu: cpuMedian, perRound };
}

const busy = () => {
  try {
    return `rustc running (pids ${execFileSync('pgrep', ['-x', 'rustc'], { encoding: 'utf8' }).trim().split('\n').join(' ')})`;
  } catch {
    return 'no rustc';
  }
};
const state = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}, ${busy()}`;

const raw = component['warp:planner/planner@0.1.0'];
console.log(`warp-planner (${WIT_PACKAGE}) under Node ${process.version}; ${rounds} rounds of ~${roundMs} ms each; before: ${state()}`);
console.log('| n, K_max | plan() wrapper: wall (range), CPU | component export: wall (range), CPU | requests | T_P ms |');
console.log('|---|---|---|---|---|');
const fmt = (t) => `${t.median.toFixed(2)} µs (${t.min.toFixed(2)}–${t.max.toFixed(2)}), ${t.cpu.toFixed(2)} µs`;
for (const n of [16, 256, 1024]) {
  const intervals = ivfIntervals(n);
  const options = { kMax: n / 2, parallelism: 8, surrogate: S3_SURROGATE, epsilon: 0.01, method: 'warp' };
  const instance = {
    intervals: intervals.map(([offset, len]) => ({ offset, len })),
    kMax: BigInt(n / 2), parallelism: 8, surrogate: { tag: 'affine', val: { fixedMs: 25, perMibMs: 5 } }, epsilon: 0.01, method: { tag: 'warp' },
  };
  const p = plan(intervals, options);
  const r = raw.plan(instance);
  if (r.requests.length !== p.requests.length || r.summary.tMs !== p.tMs) throw new Error(`n=${n}: the wrapper and the export disagree`);
  const wrapped = time(() => plan(intervals, options));
  const direct = time(() => raw.plan(instance));
  console.log(`| ${n}, ${n / 2} | ${fmt(wrapped)} | ${fmt(direct)} | ${p.requests.length} | ${p.tMs.toFixed(3)} |`);
}
const one = [[0n, 4096n]];
const tiny = { kMax: 1, parallelism: 8, surrogate: S3_SURROGATE };
const starts = [], trips = [];
for (let i = 0; i < 5; i++) {
  const w = new PlannerWorker();
  let t = performance.now();
  await w.plan(one, tiny);
  starts.push(performance.now() - t);
  for (let j = 0; j < 200; j++) {
    t = performance.now();
    await w.plan(one, tiny);
    trips.push(performance.now() - t);
  }
  await w.close();
}
const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`PlannerWorker: first call (thread start and component load) ${Math.min(...starts).toFixed(1)}–${Math.max(...starts).toFixed(1)} ms over 5 workers; one-interval plan round trip median ${(mid(trips) * 1000).toFixed(0)} µs (sync plan(): ${time(() => plan(one, tiny)).median.toFixed(1)} µs)`);
console.log(`after: ${state()}`);
