import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bigApplyMet, bigPlanMet, idleShare, MANY_RATIO, manyPlanGoal, manyPlanMet, validateWallBudget } from '../../bench/targets.js';

const BENCH = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench');

/** A row's statistics: CPU seconds (median, min, max) and peak RSS in MB (max). */
const row = (cpu: number, rssMb: number, spread = 0) => ({ cpu: { median: cpu, min: cpu - spread, max: cpu + spread }, rssMb: { median: rssMb, min: rssMb, max: rssMb } });

describe('bench: the performance targets, judged in one place', () => {
  it('the many-glossaries plan: ≤ 1.5 × the script’s CPU and < 300 MB, no change', () => {
    expect(MANY_RATIO).toBe(1.5);
    expect(manyPlanGoal).toBe("≤ 1.5 × the replace-all script's CPU, < 300 MB");
    const script = row(4, 120);
    expect(manyPlanMet(row(4.8, 150), script)).toBe(true); // 1.2 × the script
    expect(manyPlanMet(row(6, 150), script)).toBe(true); // 1.5 × exactly
    expect(manyPlanMet(row(6.04, 150), script)).toBe(false);
    expect(manyPlanMet(row(4.8, 300), script)).toBe(false);
  });

  it('the 10 MiB dictionary: first apply < 2 s CPU (median) and < 200 MB (max); its plans < 1.5 s CPU (median) each', () => {
    expect(bigApplyMet(row(1.9, 199, 0.5))).toBe(true);
    expect(bigApplyMet(row(2, 150))).toBe(false);
    expect(bigApplyMet({ cpu: { median: 1.2, min: 1.1, max: 1.3 }, rssMb: { median: 190, min: 180, max: 201 } })).toBe(false);
    // One slow run among three does not decide; the median does.
    expect(bigPlanMet([{ ...row(1.25, 150), cpu: { median: 1.25, min: 1.2, max: 1.59 } }])).toBe(true);
    expect(bigPlanMet([row(1.2, 150), row(1.5, 150)])).toBe(false);
    expect(bigPlanMet([])).toBe(false);
  });

  it('the idle daemon: CPU summed over every window, with the resolution one tick gives', () => {
    // Two ticks in each of two windows of 15 s: 0.133 % in those windows, 0.089 % over the 45 s.
    const two = idleShare([0.02, 0.02, 0], 15);
    expect(two.ticks).toBe(4);
    expect(two.seconds).toBe(45);
    expect(two.percent).toBeCloseTo(0.0889, 3);
    expect(two.resolution).toBeCloseTo(0.0222, 3);
    expect(two.met).toBe(true);
    // A burst in one window counts in full (a median of the windows would have said 0 %).
    const burst = idleShare([0, 0, 0.08], 20);
    expect(burst.percent).toBeCloseTo(0.133, 3);
    expect(burst.resolution).toBeCloseTo(0.0167, 3);
    expect(burst.met).toBe(false);
    expect(idleShare([0.01, 0.01, 0.03], 20).met).toBe(true); // 5 ticks in 60 s: 0.083 %
    expect(idleShare([0.02, 0.02, 0.02], 20).met).toBe(false); // 6 ticks in 60 s: 0.1 %
  });

  it('wall budgets of a smaller many-glossaries repository scale above the start-up', () => {
    expect(validateWallBudget(1000)).toBe(3);
    expect(validateWallBudget(50)).toBeCloseTo(0.72);
  });

  it('bench/cpu-rows.js states no target of its own: its goals come from bench/targets.js, as bench/run.js’s do', () => {
    for (const script of ['cpu-rows.js', 'run.js']) expect(readFileSync(path.join(BENCH, script), 'utf8')).toMatch(/from '\.\/targets\.js'/);
    const code = readFileSync(path.join(BENCH, 'cpu-rows.js'), 'utf8')
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('//'));
    // A goal written out: "< 1.5 s", "≤ 2 ×", "< 300 MB", a comparison with a number ("median < 2").
    expect(code.filter((line) => /[<≤]=?\s*\d/.test(line))).toEqual([]);
  });
});
