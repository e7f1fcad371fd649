import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

let world: World;
beforeEach(async () => {
  world = await createWorld('basic', { keys: ['e2e-key', 'eu-key'] });
});
afterEach(async () => {
  await world.close();
});

describe('repository problems and targets', () => {
  it('an invalid repository: plan and apply print located problems, exit 3, and send nothing', async () => {
    await world.write('glossaries/product.yaml', 'kind: glossary\nname: Product terms\ndictionaries:\n  - source_lang: en\n    target_lang: xx\n    entries: { a: b }\n');
    for (const command of ['plan', 'apply', 'import']) {
      const run = await world.cli([command]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/glossaries\/product\.yaml:\d+:\d+: error: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(world.emulator.requests()).toEqual([]);
  });

  it('several targets: each is planned; --target picks one; the exit code is the most severe', async () => {
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', `${config}  - name: eu\n    base_url_env: TERMSYNC_EU_URL\n    api_key_env: TERMSYNC_EU_KEY\n`);
    // No key for "eu": that target fails with exit 7, "default" is still planned.
    const both = await world.cli(['plan', '--detailed-exitcode'], { TERMSYNC_EU_URL: world.emulator.url });
    expect(both.code).toBe(7);
    expect(both.stdout).toContain('Target "default":');
    expect(both.stdout).toContain('3 to add');
    expect(both.stderr).toContain('target "eu": no API key for target "eu": set TERMSYNC_EU_KEY');

    const one = await world.cli(['plan', '--detailed-exitcode', '--target', 'default']);
    expect(one.code).toBe(2);
    expect(one.stdout).not.toContain('Target "');

    const eu = { TERMSYNC_EU_URL: world.emulator.url, TERMSYNC_EU_KEY: 'eu-key' };
    const apply = await world.cli(['apply'], eu);
    expect(apply.code).toBe(0);
    // Each key is its own account on the emulator: both targets got the three resources.
    expect(world.writesSince(0)).toHaveLength(6);
    expect((await world.cli(['plan', '--detailed-exitcode'], eu)).code).toBe(0);
    // As JSON, several targets are one document: an array with a result per target.
    const json = await world.cli(['apply', '--format', 'json'], eu);
    expect(json.code).toBe(0);
    const results = JSON.parse(json.stdout) as unknown[];
    expect(results).toHaveLength(2);

    const unknown = await world.cli(['plan', '--target', 'us']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('expected --target to be one of "default", "eu", got "us"');
    const out = await world.cli(['plan', '--out', 'plan.json'], eu);
    expect(out.code).toBe(3);
  });

  it('a saved plan that cannot be read, or names another target, is refused with exit 3 before any request', async () => {
    await world.write('not-a-plan.json', '{"format_version": "9.9"}');
    const bad = await world.cli(['apply', 'not-a-plan.json']);
    expect(bad.code).toBe(3);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect((await world.cli(['apply', 'missing.json'])).code).toBe(3);

    expect((await world.cli(['plan', '--out', 'plan.json'])).code).toBe(0);
    const other = await world.cli(['apply', 'plan.json', '--target', 'eu']);
    expect(other.code).toBe(3);
    expect(other.stderr).toContain('the saved plan is for target "default"');
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('name: default', 'name: prod'));
    const gone = await world.cli(['apply', 'plan.json']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toContain('which the project config does not declare');
    expect(world.writesSince(0)).toEqual([]);
  });

  it('prune: owned deletes only undeclared resources whose names it owns; max_deletes blocks with exit 4', async () => {
    expect((await world.cli(['apply', '--ids-out', 'ids.json'])).code).toBe(0);
    const ids = JSON.parse(await world.read('ids.json')) as { glossaries: Record<string, string> };
    await rm(join(world.dir, 'glossaries', 'legacy.yaml'));
    await rm(join(world.dir, 'glossaries', 'marketing-style.yaml'));
    const config = await world.read('config/termsync.yaml');
    await world.write('config/termsync.yaml', config.replace('prune: "off"', 'prune: owned\nowned_names: "Legacy*"').replace('max_deletes: 10', 'max_deletes: 0'));
    const blocked = await world.cli(['apply']);
    expect(blocked.code).toBe(4);
    expect(world.writesSince(0).filter((w) => w.startsWith('DELETE'))).toEqual([]);

    await world.write('config/termsync.yaml', config.replace('prune: "off"', 'prune: owned\nowned_names: "Legacy*"'));
    const plan = await world.cli(['plan']);
    // The style rule list is not owned: listed, never deleted.
    expect(plan.stdout).toContain('Marketing (German)');
    const mark = world.mark();
    expect((await world.cli(['apply'])).code).toBe(0);
    expect(world.writesSince(mark)).toEqual([expect.stringMatching(new RegExp(`^DELETE /v[23]/glossaries/${ids.glossaries['Legacy terms'] ?? '-'}$`))]);
    expect((await world.cli(['plan', '--detailed-exitcode'])).code).toBe(0);
  });
});

describe('an unreachable service', () => {
  it('fails plan with the destination exit code (7) and a message naming the failure', async () => {
    // Port 1 on loopback: nothing listens there, the connection is refused.
    // No TERMSYNC_MAX_ATTEMPTS: nobody listening on the first request costs a few quick attempts, not ten.
    const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: 'http://127.0.0.1:1' });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('cannot reach http://127.0.0.1:1 (ECONNREFUSED), retrying 2 more times…');
    expect(run.stderr).toMatch(/Error: GET \/v\S+: cannot reach http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\) after 3 attempts: check TERMSYNC_BASE_URL and that the service is running\n/);
    expect(world.mark()).toBe(0);
  });
});
