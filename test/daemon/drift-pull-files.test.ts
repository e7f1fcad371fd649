// The daemon's `--on-drift pull` writes the service's edits into a TBX file with the same code as
// `pull`: a term changed in the web editor lands in the file, only that term's line changes, and
// the edit is not overwritten on the service.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/start-daemon.js';
import { startEmulator } from '../../src/emulator/index.js';
import { FIXTURES, heldByService, type Emulator, type World } from '../e2e/harness.js';
import { nextRun, startTestDaemon } from './daemon-harness.js';

const KEY = 'daemon-pull-files-key-7d1e';
const CONFIG = 'version: 1\nresources: [glossaries]\nrate_limit:\n  requests_per_second: 1000\n  concurrency: 4\ntargets:\n  - name: default\n    base_url_env: TERMSYNC_BASE_URL\n    api_key_env: TERMSYNC_API_KEY\n';
let dir: string;
let emulator: Emulator;
let daemon: Daemon | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'termsync-daemon-pf-'));
  await mkdir(join(dir, 'config'));
  await mkdir(join(dir, 'glossaries'));
  await writeFile(join(dir, 'config', 'termsync.yaml'), CONFIG);
  await writeFile(join(dir, 'glossaries', 'outdoor.yaml'), 'kind: glossary\nname: Outdoor\nentries_file: outdoor.tbx\nlanguages: [en, de]\n');
  await writeFile(join(dir, 'glossaries', 'outdoor.tbx'), await readFile(join(FIXTURES, '..', '..', 'fixtures', 'real-files', 'tbx', 'translate-toolkit.tbx')));
  emulator = await startEmulator({ port: 0, keys: [KEY] });
});

afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

it('watch --on-drift pull writes a term changed on the service into the TBX file, and leaves the service as it is', async () => {
  const t = await startTestDaemon({ dir, env: { TERMSYNC_BASE_URL: emulator.url, TERMSYNC_API_KEY: KEY }, listen: { host: '127.0.0.1', port: 0 }, onDrift: 'pull', schedule: '* * * * * *', verify: false });
  daemon = t.daemon;
  await nextRun(t.daemon, 0);
  const id = t.daemon.status.ids.get('default')?.glossaries['Outdoor'] ?? '';
  expect(id).not.toBe('');
  const before = await readFile(join(dir, 'glossaries', 'outdoor.tbx'), 'utf8');
  const res = await fetch(`${emulator.url}/v3/glossaries/${id}/dictionaries`, {
    method: 'PUT',
    headers: { authorization: `Service-Auth-Key ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ source_lang: 'en', target_lang: 'de', entries: 'sleeping bag\tSchlafsack\ntent pole\tZeltstab\nground sheet\tZeltunterlage', entries_format: 'tsv' }),
  });
  expect(res.status).toBeLessThan(300);
  t.tick();
  await t.daemon.idle();
  expect(t.daemon.status.drift).toMatchObject({ target: 'default', result: 'written', files: ['glossaries/outdoor.tbx'] });
  expect(await readFile(join(dir, 'glossaries', 'outdoor.tbx'), 'utf8')).toBe(before.replace('<term>Zeltstange</term>', '<term>Zeltstab</term>'));
  const world = { emulator, key: KEY } as unknown as World;
  expect(await heldByService(world)).toEqual({ Outdoor: { 'en-de': { 'sleeping bag': 'Schlafsack', 'tent pole': 'Zeltstab', 'ground sheet': 'Zeltunterlage' } } });
});
