import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';

let world: World;
beforeEach(async () => {
  world = await createWorld('basic');
});
afterEach(async () => {
  await world.close();
});

const OTHER_SECRET = 'ghp_Xy9Wv8Ut7Sr6Qp5On4Ml3Kj2Ih1Gf0Ed9Cb8';

async function setTarget(baseUrlEnv: string, apiKeyEnv: string): Promise<void> {
  const config = await world.read('config/termsync.yaml');
  await world.write('config/termsync.yaml', config.replace('base_url_env: TERMSYNC_BASE_URL', `base_url_env: ${baseUrlEnv}`).replace('api_key_env: TERMSYNC_API_KEY', `api_key_env: ${apiKeyEnv}`));
}

describe('the repository does not choose which secret goes where', () => {
  it('a target naming a variable without the TERMSYNC_ prefix is a located error (exit 3); nothing is read or sent', async () => {
    await setTarget('TERMSYNC_BASE_URL', 'GITHUB_TOKEN');
    for (const command of ['validate', 'plan', 'apply']) {
      const run = await world.cli([command], { GITHUB_TOKEN: OTHER_SECRET });
      expect(run.code, command).toBe(3);
      expect(run.stdout + run.stderr).toMatch(/config\/termsync\.yaml:15:18: error: \[config\/env-name-not-allowed\] `api_key_env` names GITHUB_TOKEN: the variables a repository names for keys and URLs must start with TERMSYNC_/);
      expect(run.stdout + run.stderr).not.toContain(OTHER_SECRET);
    }
    await setTarget('ATTACKER_URL', 'TERMSYNC_API_KEY');
    const run = await world.cli(['plan'], { ATTACKER_URL: 'https://attacker.example' });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/config\/termsync\.yaml:14:19: error: \[config\/env-name-not-allowed\] `base_url_env` names ATTACKER_URL/);
    expect(world.emulator.requests()).toEqual([]);
  });

  it('with TERMSYNC_ALLOWED_HOSTS set, the key goes only to a listed host (exit 7 otherwise, no request)', async () => {
    const refused = await world.cli(['plan'], { TERMSYNC_ALLOWED_HOSTS: 'api.example.com' });
    expect(refused.code).toBe(7);
    expect(refused.stderr).toContain('host not allowed: the service URL of target "default" (from TERMSYNC_BASE_URL) goes to 127.0.0.1:');
    expect(refused.stderr).toContain('which TERMSYNC_ALLOWED_HOSTS does not list (api.example.com); the API key is not sent');
    const notAHost = await world.cli(['plan'], { TERMSYNC_ALLOWED_HOSTS: 'https://api.example.com/' });
    expect(notAHost.code).toBe(7);
    expect(notAHost.stderr).toContain('TERMSYNC_ALLOWED_HOSTS: "https://api.example.com/" is not a host name');
    const otherPort = await world.cli(['plan'], { TERMSYNC_ALLOWED_HOSTS: '127.0.0.1:1' });
    expect(otherPort.code).toBe(7);
    const none = await world.cli(['plan'], { TERMSYNC_ALLOWED_HOSTS: ' , ' });
    expect(none.code).toBe(7);
    expect(none.stderr).toContain('TERMSYNC_ALLOWED_HOSTS lists no host name');
    expect(world.emulator.requests()).toEqual([]);

    const port = new URL(world.emulator.url).port;
    for (const allowed of ['api.example.com, 127.0.0.1', `127.0.0.1:${port}`, '', 'LOCALHOST,127.0.0.1.']) {
      const run = await world.cli(['plan', '--detailed-exitcode'], { TERMSYNC_ALLOWED_HOSTS: allowed });
      expect(run.code, allowed).toBe(2);
    }
    expect(world.emulator.requests().length).toBeGreaterThan(0);
  });

  it('a URL variable that holds something other than an http(s) URL is refused without echoing it', async () => {
    // A key of the service's shape parses as a URL of an unknown scheme: `abcdef12-…:fx`.
    const key = 'abcdef12-5b0e-4d8a-9c1f-7e2b6a4d0c95:fx';
    const run = await world.cli(['plan'], { TERMSYNC_BASE_URL: key });
    expect(run.code).toBe(7);
    expect(run.stderr).toContain('URL not allowed: the service URL must start with https://');
    expect(run.stdout + run.stderr).not.toContain('abcdef12');
  });

  it('a credential in an entries file: exit 3 at its cell, never echoed, never uploaded', async () => {
    const tsv = await world.read('glossaries/product.en-de.tsv');
    await world.write('glossaries/product.en-de.tsv', `${tsv}deploy key\t${OTHER_SECRET}\n`);
    for (const command of ['plan', 'apply']) {
      const run = await world.cli([command]);
      expect(run.code, command).toBe(3);
      expect(run.stderr).toMatch(/glossaries\/product\.en-de\.tsv:\d+:12: error: \[config\/api-key-in-repo\] a cell looks like a GitHub token/);
      expect(run.stdout + run.stderr).not.toContain(OTHER_SECRET.slice(0, 12));
    }
    expect(world.emulator.requests()).toEqual([]);
  });
});
