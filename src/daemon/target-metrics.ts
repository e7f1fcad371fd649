import { Gauge, type Registry } from 'prom-client';
import type { DaemonStatus } from './daemon-status.js';

/**
 * Which targets this replica reconciles and how many run now, read from the status when scraped:
 * `termsync_shard_info{index,count}`, `termsync_target_owned{target}` (1 for each target of this
 * replica), `termsync_targets_owned`, `termsync_targets_declared`, `termsync_targets_running`.
 */
export function createTargetMetrics(registry: Registry, status: DaemonStatus): void {
  const registers = [registry];
  new Gauge({
    name: 'termsync_shard_info',
    help: 'This replica among the replicas that share out the targets (index from 0, count); 0/1 without --shard',
    labelNames: ['index', 'count'],
    registers,
    collect() {
      this.reset();
      const shard = status.targets.shard;
      this.set({ index: String(shard?.index ?? 0), count: String(shard?.count ?? 1) }, 1);
    },
  });
  new Gauge({
    name: 'termsync_target_owned',
    help: 'Targets this replica reconciles (1 each), by target name',
    labelNames: ['target'],
    registers,
    collect() {
      this.reset();
      for (const target of status.targets.owned) this.set({ target }, 1);
    },
  });
  new Gauge({
    name: 'termsync_targets_owned',
    help: 'How many targets of the config this replica reconciles',
    registers,
    collect() {
      this.set(status.targets.owned.length);
    },
  });
  new Gauge({
    name: 'termsync_targets_declared',
    help: 'How many targets the config declares (all replicas together)',
    registers,
    collect() {
      this.set(status.targets.declared ?? 0);
    },
  });
  new Gauge({
    name: 'termsync_targets_running',
    help: 'Target runs in progress (at most parallel_targets)',
    registers,
    collect() {
      this.set(status.targets.runningCount);
    },
  });
}
