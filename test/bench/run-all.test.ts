import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { areaScripts } from '../../bench/run-all.js';

const BENCH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');

/** The arguments a script's header says it must be given: what its `node bench/x.js ...` usage line names outside [brackets]. */
function requiredArguments(script: string): string[] {
  const text = readFileSync(path.join(BENCH, script), 'utf8');
  const usage = new RegExp(`^//\\s+node bench/${script.replace('.', '\\.')}(.*)$`, 'm').exec(text)?.[1] ?? '';
  return usage
    .replace(/#.*$/, '')
    .replace(/\[[^\]]*\]/g, '')
    .split(/\s+/)
    .filter((word) => word !== '');
}

describe('npm run bench:areas (bench/run-all.js)', () => {
  const { run, skipped } = areaScripts(readdirSync(BENCH));

  it('runs only scripts that need no argument', () => {
    expect(run.length).toBeGreaterThan(10);
    expect(run.map((script) => ({ script, required: requiredArguments(script) })).filter(({ required }) => required.length > 0)).toEqual([]);
  });

  it('names the benchmarks it skips, with what they need', () => {
    expect(skipped.map((s) => s.name)).toContain('compare-plans.js');
    for (const s of skipped) expect(s.reason).toMatch(/node bench\//);
    for (const s of skipped.filter((s) => requiredArguments(s.name).length > 0)) expect(s.reason).toContain(requiredArguments(s.name)[0]);
  });

  it('the helpers other scripts start with their arguments are not run, nor skipped as benchmarks', () => {
    for (const helper of ['floor-reader.js', 'xml-floor.js', 'baseline.js', 'rate-analysis.js']) {
      expect(run).not.toContain(helper);
      expect(skipped.map((s) => s.name)).not.toContain(helper);
    }
  });
});
