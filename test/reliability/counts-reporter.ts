// Ends the run with the suite's counts, summed over the checks that ran, then removes the output
// folder (kept when RELIABILITY_KEEP=1, so a failure can be looked into).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter } from 'vitest/node';

const ORDER = ['faults injected', 'kill points', 'bad inputs', 'hostile behaviours', 'places searched for the key', 'key found'] as const;

export default class CountsReporter implements Reporter {
  onTestRunEnd(): void {
    const out = process.env.RELIABILITY_OUT;
    if (out === undefined) return;
    const totals = new Map<string, number>(ORDER.map((name) => [name, 0]));
    let files: string[] = [];
    try {
      files = readdirSync(join(out, 'counts'));
    } catch {
      // no check counted anything
    }
    for (const file of files) {
      const counts = JSON.parse(readFileSync(join(out, 'counts', file), 'utf8')) as Record<string, number>;
      for (const [name, n] of Object.entries(counts)) totals.set(name, (totals.get(name) ?? 0) + n);
    }
    const line = ORDER.map((name) => `${totals.get(name) ?? 0} ${name === 'key found' ? 'times the key was found' : name}`).join(', ');
    if (process.env.RELIABILITY_KEEP === '1') console.log(`Reliability outputs kept in ${out}`);
    else rmSync(out, { recursive: true, force: true });
    console.log(`\nReliability: ${line}.`);
  }
}
