// The worker side of PlannerWorker (index.js): a Node worker thread that runs
// one planner call per message on its own instance of the component, so the
// thread that asked can stop a call past its deadline by terminating this one.
import { parentPort } from 'node:worker_threads';
import { coaccessGap, evaluate, frontier, plan, PlanError, reorder } from './index.js';

const CALLS = { plan, frontier, evaluate, reorder, coaccessGap };

// The component is loaded (the imports above): deadlines may start counting.
parentPort.postMessage({ ready: true });

parentPort.on('message', ({ id, fn, args }) => {
  let reply;
  try {
    reply = { id, value: CALLS[fn](...args) };
  } catch (e) {
    reply = e instanceof PlanError
      ? { id, error: { field: e.field, message: e.message, kind: e.kind, detail: e.detail } }
      : { id, error: { field: fn, message: `${fn}: ${e?.message ?? e}`, kind: 'worker' } };
  }
  try {
    parentPort.postMessage(reply);
  } catch (e) {
    parentPort.postMessage({ id, error: { field: fn, message: `${fn}: the answer cannot be sent back: ${e?.message ?? e}`, kind: 'worker' } });
  }
});
