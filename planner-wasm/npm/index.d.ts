// Types of warp-planner (index.js): the WaRP request planner, the
// `warp:planner@0.1.0` WebAssembly component behind a thin JavaScript API.

/** The WIT package this package was built for; its version is the package's. */
export declare const WIT_PACKAGE: 'warp:planner@0.1.0';

/**
 * An unsigned 64-bit integer (a byte offset, length or size): a `bigint`, or a
 * number where it is exact (`Number.isSafeInteger`); anything else is refused
 * with a {@link PlanError}.
 */
export type U64 = bigint | number;

/** A required byte range `[offset, offset + len)`. */
export type Interval = readonly [offset: U64, len: U64] | { readonly offset: U64; readonly len: U64 };

/** A point `(bytes, ms)` of a piecewise-linear surrogate. */
export type Breakpoint = readonly [bytes: U64, ms: number] | { readonly bytes: U64; readonly ms: number };

/** The nondecreasing request-time surrogate `t(L)`, milliseconds. */
export type Surrogate =
  /** `t(L) = fixedMs + perMibMs · L / 2^20`. */
  | { readonly affine: { readonly fixedMs: number; readonly perMibMs: number } }
  /** Linear between breakpoints (strictly increasing bytes), extrapolated with the last slope. */
  | { readonly piecewise: readonly Breakpoint[] };

/** `t(L) = 25 ms + 5 ms/MiB`, the paper's S3 figures. */
export declare const S3_SURROGATE: { readonly affine: { readonly fixedMs: 25; readonly perMibMs: 5 } };

/** Planning methods, in the WIT spelling or the ARCHITECTURE §5 JSON one; `warp` is the one to call. */
export type MethodName =
  | 'warp' | 'exact' | 'frontier' | 'lagrangian' | 'separate'
  | 'min-w' | 'min_w' | 'min-b' | 'min_b'
  | 'lance-rule' | 'lance_rule' | 'object-store-rule' | 'object_store_rule';

export type Method =
  | MethodName
  /** Merge gaps up to `maxGap` bytes into spans of at most `maxSpan` bytes (none: no cap). */
  | { readonly coalesce: { readonly maxGap: U64; readonly maxSpan?: U64 | null } };

/** What every planning call needs besides the intervals. */
export interface InstanceOptions {
  /** Request budget, at least 1. */
  kMax: U64;
  /** Expected request parallelism `P >= 1`; `null` for unbounded. */
  parallelism: number | null;
  surrogate: Surrogate;
}

export interface PlanOptions extends InstanceOptions {
  /** Relative tolerance of the ε-methods, at least 0; default 0.01. */
  epsilon?: number;
  /** Default `'warp'`. */
  method?: Method;
}

export interface FrontierOptions extends InstanceOptions {
  /** Every vertex from the exact thresholded DP (slower); default false: the Lagrangian evaluation. */
  exact?: boolean;
  /** At most this many vertices (then the ones of largest B); default {@link DEFAULT_FRONTIER_POINTS}. */
  maxPoints?: number;
}

export interface EvaluateOptions extends Omit<InstanceOptions, 'kMax'> {
  /** Checked (at least 1) but not used by the figures; default the interval count. */
  kMax?: U64;
}

/** One merged Range-GET covering intervals `first..=last`. */
export interface Request {
  first: number;
  last: number;
  offset: bigint;
  len: bigint;
}

/** The figures of a plan. */
export interface Figures {
  /** Bytes fetched. */
  bytes: bigint;
  /** Bytes fetched that no interval asked for. */
  overfetchBytes: bigint;
  /** `W = Σ t(L_g)`, ms. */
  wMs: number;
  /** `B = max t(L_g)`, ms. */
  bMs: number;
  /** `T_P = W/P + (1 - 1/P)·B`, ms. */
  tMs: number;
  /** Certified lower bound on the optimal `T_P`, ms, where the method has one; else null. */
  lowerBoundMs: number | null;
}

/** A plan: its requests in byte order and its figures. */
export interface Plan extends Figures {
  requests: Request[];
}

/** The figures of a caller's plan ({@link evaluate}). */
export interface Summary extends Figures {
  requestCount: number;
}

/** One vertex of the `(B, W)` Pareto frontier. */
export interface FrontierPoint {
  /** Longest span of the plan, bytes (the cap it is optimal for). */
  cap: bigint;
  bMs: number;
  wMs: number;
  requestCount: number;
  bytes: bigint;
  /** Whether the plan is proven W-optimal for its cap. */
  exact: boolean;
}

/** A group of a caller's plan: intervals `first..=last` (a plan's requests are groups too). */
export type Group = readonly [first: number, last: number] | { readonly first: number; readonly last: number };

/**
 * A refused request. `field` names the offending input (the component's own
 * paths, e.g. `k_max`, `intervals[3]`, `surrogate.piecewise[0].ms`, for its
 * refusals; the option's name as passed, e.g. `kMax`, `intervals[3].offset`,
 * for arguments refused before the call); `message` is one line starting with
 * the field, exactly as the native planner and `warp plan` print the
 * component's refusals. A `memory-limit` refusal's line starts `plan memory:`;
 * its field is `k_max` when the DP table is in the workspace, else
 * `intervals` (as the Python package names it).
 */
export declare class PlanError extends Error {
  constructor(field: string, message: string, kind?: string, detail?: unknown);
  readonly name: 'PlanError';
  readonly field: string;
  /**
   * The component's `plan-error` case (`'overlapping'`, `'zero-k-max'`, …),
   * `'reorder'` for a reordering refusal, `'argument'` for an argument refused
   * before the call.
   */
  readonly kind: string;
  /** The component's error value (the case's payload), if any. */
  readonly detail: unknown;
}

/**
 * Merges sorted, non-overlapping (touching allowed), non-empty byte intervals
 * into at most `kMax` Range-GETs minimizing `T_P = W/P + (1 - 1/P)·B`.
 * @throws {PlanError}
 */
export declare function plan(intervals: readonly Interval[], options: PlanOptions): Plan;

/** The default `maxPoints` of {@link frontier}. */
export declare const DEFAULT_FRONTIER_POINTS: 1024;

/**
 * The `(B, W)` Pareto frontier of plans with at most `kMax` requests, `B` ascending.
 * @throws {PlanError}
 */
export declare function frontier(intervals: readonly Interval[], options: FrontierOptions): FrontierPoint[];

/**
 * The figures of a caller's plan: `groups` must partition the intervals into
 * contiguous runs in order.
 * @throws {PlanError}
 */
export declare function evaluate(intervals: readonly Interval[], groups: readonly Group[], options: EvaluateOptions): Summary;

/**
 * The largest workspace limit, bytes (2016 MiB): what the component's 4 GiB
 * memory can hold (`planner_core::Planner::MAX_GUEST_MEMORY_LIMIT`).
 */
export declare const MAX_MEMORY_LIMIT: 2113929216n;

/**
 * Sets the planner's workspace limit, bytes (default 1 GiB, from 1 to
 * {@link MAX_MEMORY_LIMIT}): a method whose workspace for an instance would
 * exceed it is refused (`kind` `'memory-limit'`).
 * @throws {PlanError} for a limit of 0 or above {@link MAX_MEMORY_LIMIT}.
 */
export declare function setMemoryLimit(bytes: U64): void;

/** Reordering layouts, in the WIT spelling or the CLI/JSON one. */
export type LayoutName =
  | 'identity' | 'random' | 'pca1d' | 'pca_1d' | 'pca-z-order' | 'pca_zorder'
  | 'pca-hilbert' | 'pca_hilbert' | 'spectral' | 'greedy-tour' | 'greedy_tour';

export type Layout =
  | LayoutName
  | {
      readonly method: LayoutName;
      /** PCA dimensions (1..=16) of the Z-order and Hilbert layouts; default {@link DEFAULT_LAYOUT_DIMS}. */
      readonly dims?: number | null;
      /** Seed of the random and spectral layouts; default 0. */
      readonly seed?: U64 | null;
    };

/** PCA dimensions of `pca-z-order` and `pca-hilbert` when not given. */
export declare const DEFAULT_LAYOUT_DIMS: 5;

/**
 * A query log: the clusters each query probed, one array per query, or the
 * CSR form where query `q` probes `probes[probeOffsets[q]..probeOffsets[q+1]]`.
 */
export type QueryLog =
  | readonly (readonly number[] | Uint32Array)[]
  | { readonly probes: Uint32Array | readonly number[]; readonly probeOffsets: Uint32Array | readonly number[] };

export interface ReorderInput {
  /** `C × dim` centroids, row-major. */
  centroids: Float32Array | readonly number[];
  dim: number;
  /** Payload bytes per cluster (`C` entries). */
  sizes: BigUint64Array | readonly U64[];
  /** Needed by the spectral layout; optional otherwise. */
  queries?: QueryLog | null;
}

/**
 * A permutation of the clusters placing co-probed ones together:
 * `order[position] = cluster id`. Default layout `'pca-z-order'`.
 * @throws {PlanError}
 */
export declare function reorder(input: ReorderInput, layout?: Layout): Uint32Array;

/**
 * The weighted co-access gap `Σ_{a<b} count(a,b) · bytes_between(a,b)` of a
 * layout, bytes (0 without a query log).
 * @throws {PlanError}
 */
export declare function coaccessGap(order: Uint32Array | readonly number[], sizes: BigUint64Array | readonly U64[], queries?: QueryLog | null): number;

/** The longest a call may run, ms: the native host's cap. */
export declare const MAX_DEADLINE_MS: 60000;

export interface PlannerWorkerOptions {
  /** The time limit of each call, ms: an integer in 1..=MAX_DEADLINE_MS. Default MAX_DEADLINE_MS. */
  deadlineMs?: number;
}

/**
 * The planner on a Node worker thread, with a time limit on every call. Each
 * method resolves to what the function of the same name returns and rejects
 * with the same {@link PlanError}s; a call that runs `deadlineMs` rejects with
 * kind `'interrupted'` and field `plan`, the component's own line (the worker
 * is terminated and the next call starts a fresh one). Calls run one at a time, in order. Node only.
 */
export declare class PlannerWorker {
  /** @throws {PlanError} for a bad `deadlineMs` (field `deadlineMs`). */
  constructor(options?: PlannerWorkerOptions);
  readonly deadlineMs: number;
  plan(intervals: readonly Interval[], options: PlanOptions): Promise<Plan>;
  frontier(intervals: readonly Interval[], options: FrontierOptions): Promise<FrontierPoint[]>;
  evaluate(intervals: readonly Interval[], groups: readonly Group[], options: EvaluateOptions): Promise<Summary>;
  reorder(input: ReorderInput, layout?: Layout): Promise<Uint32Array>;
  coaccessGap(order: Uint32Array | readonly number[], sizes: BigUint64Array | readonly U64[], queries?: QueryLog | null): Promise<number>;
  /** Ends the thread; calls queued or running reject with kind `'closed'`. */
  close(): Promise<void>;
}
