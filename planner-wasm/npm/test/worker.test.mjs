// PlannerWorker: the planner on a worker thread with a per-call time limit.
// The same answers and refusals as the synchronous functions; a call past its
// deadline rejects as `interrupted` and the worker goes on with a fresh thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { frontier, MAX_DEADLINE_MS, plan, PlanError, PlannerWorker, reorder, S3_SURROGATE } from 'warp-planner';

const base = { kMax: 12, parallelism: 8, surrogate: S3_SURROGATE };
const small = [[0n, 4096n], [8192n, 4096n], [1n << 40n, 65536n]];
/** 1024 intervals: `exact` with kMax 64 takes ~22 s on a 2-vCPU VM (`frontier`, once V8
 * has tiered the module up, as little as 7 ms: too close to a 10 ms limit to stop surely). */
const big = Array.from({ length: 1024 }, (_, i) => [BigInt(i) * 100_000n, BigInt(4096 + i)]);
const slowOpts = { kMax: 64, parallelism: 16, surrogate: S3_SURROGATE, method: 'exact' };

async function rejects(promise, field, kind) {
  let err;
  await assert.rejects(promise, (e) => {
    err = e;
    return true;
  });
  assert.ok(err instanceof PlanError, `expected a PlanError, got ${err?.stack ?? err}`);
  assert.equal(err.field, field, err.message);
  assert.equal(err.kind, kind, err.message);
  assert.ok(!err.message.includes('\n'), err.message);
  return err;
}

test('answers and refusals are the synchronous functions\' own', async () => {
  const w = new PlannerWorker();
  try {
    assert.equal(w.deadlineMs, MAX_DEADLINE_MS);
    assert.deepEqual(await w.plan(small, base), plan(small, base));
    const f = { kMax: 2, parallelism: 8, surrogate: S3_SURROGATE };
    assert.deepEqual(await w.frontier(small, f), frontier(small, f));
    const input = { centroids: new Float32Array([0, 0, 1, 1, 5, 5, 0.1, 0.1]), dim: 2, sizes: [1n, 2n, 3n, 4n] };
    assert.deepEqual(await w.reorder(input), reorder(input));
    const overlapping = [[0n, 10n], [5n, 10n]];
    let sync;
    assert.throws(() => plan(overlapping, base), (e) => {
      sync = e;
      return e instanceof PlanError;
    });
    const e = await rejects(w.plan(overlapping, base), sync.field, sync.kind);
    assert.equal(e.message, sync.message);
    await rejects(w.plan(small, { ...base, kMax: -1 }), 'kMax', 'argument');
  } finally {
    await w.close();
  }
});

test('a call past its deadline is stopped, and the next runs on a fresh thread', async () => {
  const w = new PlannerWorker({ deadlineMs: 10 });
  try {
    // Queued behind the slow one: it still runs, on the new thread.
    const slow = w.plan(big, slowOpts);
    const after = w.plan(small, base);
    const e = await rejects(slow, 'plan', 'interrupted');
    assert.match(e.message, /^plan: stopped at the deadline; .* \(deadlineMs = 10\)$/);
    assert.deepEqual(await after, plan(small, base));
    await rejects(w.plan(big, slowOpts), 'plan', 'interrupted');
    assert.deepEqual(await w.plan(small, base), plan(small, base));
  } finally {
    await w.close();
  }
});

test('bad options and a closed worker are refused by name', async () => {
  for (const deadlineMs of [0, 1.5, MAX_DEADLINE_MS + 1, '10']) {
    assert.throws(() => new PlannerWorker({ deadlineMs }), (e) => e instanceof PlanError && e.field === 'deadlineMs');
  }
  assert.throws(() => new PlannerWorker({ timeout: 5 }), (e) => e instanceof PlanError && e.field === 'timeout');
  const w = new PlannerWorker();
  const pending = w.plan(big, slowOpts);
  await w.close();
  await rejects(pending, 'plan', 'closed');
  await rejects(w.plan(small, base), 'plan', 'closed');
});

test('runs from `node --input-type=module -e` too (the flag is not passed to the worker)', () => {
  const code = `import { PlannerWorker, S3_SURROGATE } from 'warp-planner';
const w = new PlannerWorker({ deadlineMs: 5000 });
const p = await w.plan([[0n, 4096n], [8192n, 4096n]], { kMax: 64, parallelism: 8, surrogate: S3_SURROGATE });
console.log(p.requests.length);
await w.close();`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(out.trim(), '1');
});
