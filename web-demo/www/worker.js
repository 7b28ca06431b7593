// The planner thread of the frontier explorer: owns planner-core's Explorer
// (wasm-bindgen) and answers the page's requests, so a slow plan never blocks
// the page; the page terminates and restarts this worker to cancel one.
//
// Messages in: {id, op: 'load', text} | {id, op: 'compute', ...} |
// {id, op: 'timePlan', settings} | {id, op: 'instanceJson', settings}.
// Messages out: {id, ok: true, result} | {id, ok: false, error} where `error`
// is the planner's one-line message.

import init, { Explorer } from '../pkg/web_demo.js';

const ready = init().then(() => new Explorer());

/** The last frontier and what it was computed for (intervals, K_max, surrogate, evaluation). */
let frontier = { key: null, data: null, ms: 0, exact: false, runs: 0 };

/**
 * Plans, computes the frontier unless the cached one fits, and plans the
 * baselines, each beside warp at the baseline's request count. `auto`
 * evaluation: exact DP per vertex while the cost estimate (n·K convex,
 * n²·K/32 non-convex) is at most `budget`, else Lagrangian.
 */
function compute(explorer, req) {
  const t0 = performance.now();
  const plan = JSON.parse(explorer.plan(req.settings));
  const tf = performance.now();
  const n = explorer.n;
  const k = Math.min(req.kMax, n);
  const cost = explorer.isConvex(req.settings) ? n * k : (n * n * k) / 32;
  const exact = req.mode === 'exact' || (req.mode === 'auto' && cost <= req.budget);
  const key = JSON.stringify([req.frontierKey, exact, req.maxPoints]);
  if (frontier.key !== key) {
    const data = JSON.parse(explorer.frontier(req.settings, exact, req.maxPoints));
    frontier = { key, data, ms: performance.now() - tf, exact, runs: frontier.runs + 1 };
  }
  const tb = performance.now();
  // Each baseline with warp's plan at its request count beside it (`warp`).
  const baselines = req.baselines.map(([label, settings]) => ({ label, ...JSON.parse(explorer.versusWarp(settings)) }));
  const td = performance.now();
  return {
    plan,
    frontier: { data: frontier.data, ms: frontier.ms, exact: frontier.exact, runs: frontier.runs },
    baselines,
    ms: { plan: tf - t0, frontier: tb - tf, baselines: td - tb },
  };
}

/** Mean plan time over repeated runs (at least 3 ms or 200 runs): the page's
 * timer ticks in 0.1 ms steps. */
function timePlan(explorer, settings) {
  const t0 = performance.now();
  let runs = 0;
  while (performance.now() - t0 < 3 && runs < 200) {
    explorer.plan(settings);
    runs++;
  }
  return { ms: (performance.now() - t0) / runs, runs };
}

self.onmessage = async ({ data }) => {
  const explorer = await ready;
  const { id, op } = data;
  try {
    let result;
    if (op === 'load') {
      result = JSON.parse(explorer.load(data.text));
      frontier = { ...frontier, key: null };
    } else if (op === 'compute') {
      result = compute(explorer, data);
    } else if (op === 'timePlan') {
      result = timePlan(explorer, data.settings);
    } else if (op === 'instanceJson') {
      result = explorer.instanceJson(data.settings);
    } else {
      throw new Error(`unknown request ${op}`);
    }
    self.postMessage({ id, ok: true, result });
  } catch (e) {
    self.postMessage({ id, ok: false, error: e.message });
  }
};

ready.then(
  () => self.postMessage({ id: 0, ok: true, result: 'ready' }),
  (e) => self.postMessage({ id: 0, ok: false, error: `failed to start the planner: ${e.message}` }),
);
