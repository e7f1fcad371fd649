import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { createWorld, type World } from '../e2e/harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('apply messages a CI log can trust', () => {
  it('a read-only key (403): no "run apply again" hint, the reason and what to do instead', async () => {
    world = await createWorld('basic', { keys: ['e2e-key', 'RO=read'] });
    const run = await world.cli(['apply'], { TERMSYNC_API_KEY: 'RO' });
    expect(run.code).toBe(7);
    expect(run.stdout).toMatch(/^Apply incomplete: 0 applied, 1 failed, \d+ skipped\.$/m);
    expect(run.stdout).not.toMatch(/apply again/i);
    expect(run.stderr).toContain('Use a key with write access.');
  });

  it('a write failing with a 5xx: the "run apply again" hint (it may pass)', async () => {
    world = await createWorld('basic');
    world.emulator.injectOnce({ kind: 503, method: 'POST', pathPrefix: '/v3/style_rules' });
    // Every attempt of the style rule create is answered 503, so it fails with a retryable error.
    const flaky = await world.cli(['apply'], { TERMSYNC_MAX_ATTEMPTS: '1' });
    expect(flaky.code).toBe(6);
    expect(flaky.stdout).toMatch(/Run apply again to retry\.\n$/);
  });

  it('interrupted: what had not started is listed as skipped, one line says the run was interrupted', async () => {
    world = await createWorld('basic', { emulator: { faults: 'latency=50-60' } });
    const controller = new AbortController();
    let stdout = '';
    let stderr = '';
    const w = world;
    const code = await runCli(['apply', '--dir', w.dir], {
      stdout: (t) => {
        stdout += t;
        // Interrupt as soon as the plan is shown, before the writes have gone out.
        if (t.includes('Plan:')) setTimeout(() => controller.abort(), 20);
      },
      stderr: (t) => {
        stderr += t;
      },
      env: { TERMSYNC_BASE_URL: w.emulator.url, TERMSYNC_API_KEY: w.key },
      cwd: w.dir,
      signal: controller.signal,
    });
    expect(code).toBe(130);
    expect(stdout).toMatch(/skipped \(not started\)/);
    expect(stdout).toMatch(/^Apply interrupted: \d+ applied, \d+ failed, \d+ skipped \(\d+ not started\)\. Run apply again to finish\.$/m);
    expect(`${stdout}${stderr}`.match(/interrupted/g)).toHaveLength(1);
  });
});
