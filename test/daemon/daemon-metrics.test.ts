import { describe, expect, it } from 'vitest';
import { createDaemonMetrics, driftAfter } from '../../src/daemon/daemon-metrics.js';
import type { OperationOutcome } from '../../src/model/apply-result.js';
import type { ResourceChange } from '../../src/model/plan.js';
import type { TargetOutcome } from '../../src/reconcile/index.js';

/** A change of one resource carried by the operations `keys`. */
function change(kind: 'glossary' | 'style_rules', name: string, keys: string[]): ResourceChange {
  return { address: { kind, name }, action: 'update', reasons: [], dictionaries: [], details: [], operations: keys };
}

function outcome(kind: TargetOutcome['kind'], changes: ResourceChange[], statuses?: Record<string, OperationOutcome['status']>, notRefreshed?: number): TargetOutcome {
  const plan = { changes, ...(notRefreshed === undefined ? {} : { notRefreshed }) };
  const result = statuses === undefined ? undefined : { outcomes: Object.entries(statuses).map(([key, status]) => ({ key, status })) };
  return { kind, target: 'default', plan, ...(result === undefined ? {} : { result }) } as unknown as TargetOutcome;
}

describe('the drift gauge (termsync_drift_resources)', () => {
  const changes = [change('glossary', 'A', ['op-1', 'op-2']), change('glossary', 'B', ['op-3']), change('style_rules', 'S', ['op-4'])];

  it('counts every change of a plan that wrote nothing (suspended, --on-drift report, blocked), by kind', () => {
    expect(driftAfter(outcome('pending', changes))).toEqual({ glossary: 2, style_rules: 1 });
    expect(driftAfter(outcome('blocked', changes))).toEqual({ glossary: 2, style_rules: 1 });
    expect(driftAfter(outcome('converged', []))).toEqual({ glossary: 0, style_rules: 0 });
  });

  it('after an apply, counts the resources with an operation that failed or was skipped', () => {
    expect(driftAfter(outcome('changed', changes, { 'op-1': 'applied', 'op-2': 'applied', 'op-3': 'applied', 'op-4': 'applied' }))).toEqual({ glossary: 0, style_rules: 0 });
    expect(driftAfter(outcome('partial', changes, { 'op-1': 'applied', 'op-2': 'failed', 'op-3': 'applied', 'op-4': 'skipped' }))).toEqual({ glossary: 1, style_rules: 1 });
  });

  it('says nothing of a run that did not compare every resource (changed files only) or reached no plan', () => {
    expect(driftAfter(outcome('pending', changes, undefined, 4))).toBeUndefined();
    expect(driftAfter({ kind: 'unreachable', target: 'default', error: new Error('down') } as unknown as TargetOutcome)).toBeUndefined();
  });
});

describe("the daemon's registry", () => {
  it("serves termsync_build_info, Node's metrics under their standard names (no termsync_ prefix, no gauge named like a counter) and the queue depth it is told", async () => {
    const metrics = createDaemonMetrics({ version: '9.8.7' });
    let depth = 0;
    metrics.followQueue(() => depth);
    depth = 1;
    const text = await metrics.registry.metrics();
    expect(text).toContain(`termsync_build_info{version="9.8.7",node="${process.version}"} 1`);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^process_cpu_seconds_total /m);
    expect(text).toMatch(/^# TYPE nodejs_heap_size_used_bytes gauge/m);
    expect(text).toMatch(/^# TYPE nodejs_active_handles gauge/m);
    expect(text).not.toMatch(/^termsync_process_|^termsync_nodejs_|^nodejs_active_handles_total/m);
    expect(text).toContain('termsync_queue_depth 1\n');
  });

  it('keeps termsync_suspended to the targets last set', async () => {
    const metrics = createDaemonMetrics({ defaultMetrics: false });
    metrics.setSuspended([
      { target: 'a', suspended: true },
      { target: 'b', suspended: false },
    ]);
    metrics.setSuspended([{ target: 'a', suspended: false }]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('termsync_suspended{target="a"} 0');
    expect(text).not.toContain('target="b"');
  });
});
