// Type-checked (never run) by scripts/test-installed with tsc against the
// INSTALLED package's index.d.ts: the uses that must compile, and misuses that
// must not, each under an expect-error directive (tsc fails if one compiles).
import {
  coaccessGap, evaluate, frontier, MAX_DEADLINE_MS, MAX_MEMORY_LIMIT, plan, PlanError, PlannerWorker, reorder, S3_SURROGATE, setMemoryLimit, WIT_PACKAGE,
  type FrontierPoint, type Interval, type Plan, type Request, type Summary,
} from 'warp-planner';

const version: 'warp:planner@0.1.0' = WIT_PACKAGE;
const intervals: Interval[] = [[0n, 4096n], [8192, 4096], { offset: 1n << 40n, len: 100 }];
const p: Plan = plan(intervals, { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE });
const first: Request = p.requests[0];
const offset: bigint = first.offset;
const index: number = first.last;
const t: number = p.tMs + p.wMs + p.bMs;
const lb: number | null = p.lowerBoundMs;
const bytes: bigint = p.bytes + p.overfetchBytes;
plan(intervals, { kMax: 8n, parallelism: null, surrogate: { piecewise: [[0, 20], { bytes: 1n << 20n, ms: 25 }] }, epsilon: 0, method: 'min_w' });
plan(intervals, { kMax: 8, parallelism: 4, surrogate: S3_SURROGATE, method: { coalesce: { maxGap: 1 << 20, maxSpan: null } } });
const s: Summary = evaluate(intervals, p.requests, { parallelism: 8, surrogate: S3_SURROGATE });
const count: number = s.requestCount;
const f: FrontierPoint[] = frontier(intervals, { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE, exact: true, maxPoints: 16 });
const cap: bigint = f[0].cap;
setMemoryLimit(1n << 30n);
const maxLimit: bigint = MAX_MEMORY_LIMIT;
setMemoryLimit(maxLimit);
const order: Uint32Array = reorder({ centroids: new Float32Array(8), dim: 2, sizes: [1, 2, 3, 4], queries: [[0, 1], [2]] }, { method: 'pca_zorder', dims: 2 });
const gap: number = coaccessGap(order, [1n, 2n, 3n, 4n], { probes: [0, 1, 2], probeOffsets: [0, 2, 3] });
try {
  plan([], { kMax: 0, parallelism: 1, surrogate: S3_SURROGATE });
} catch (e) {
  if (e instanceof PlanError) {
    const field: string = e.field;
    const kind: string = e.kind;
    console.log(field, kind, e.message);
  }
}

// @ts-expect-error offsets are bigint or number, not strings
plan([['0', 10]], { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE });
// @ts-expect-error kMax is required
plan(intervals, { parallelism: 8, surrogate: S3_SURROGATE });
// @ts-expect-error parallelism is required (null for unbounded)
plan(intervals, { kMax: 8, surrogate: S3_SURROGATE });
// @ts-expect-error no such method
plan(intervals, { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE, method: 'greedy' });
// @ts-expect-error surrogate fields are camelCase
plan(intervals, { kMax: 8, parallelism: 8, surrogate: { affine: { fixed_ms: 25, per_mib_ms: 5 } } });
// @ts-expect-error offsets come back as bigint
const wrong: number = p.requests[0].offset;
// @ts-expect-error no such layout
reorder({ centroids: [0, 0], dim: 2, sizes: [1] }, 'hilbert');
// @ts-expect-error evaluate takes no method
evaluate(intervals, p.requests, { parallelism: 8, surrogate: S3_SURROGATE, method: 'warp' });

const worker = new PlannerWorker({ deadlineMs: 250 });
const later: Promise<Plan> = worker.plan(intervals, { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE });
const limit: number = worker.deadlineMs + MAX_DEADLINE_MS;
void worker.close();
// @ts-expect-error a worker's calls are promises
const now: Plan = worker.plan(intervals, { kMax: 8, parallelism: 8, surrogate: S3_SURROGATE });

export { version, offset, index, t, lb, bytes, count, cap, gap, wrong, later, limit, now };
