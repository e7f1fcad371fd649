// Hostile server: termsync `plan` (a real process) against servers that misbehave. Each run must
// end within its deadline with exit 7, a message that names the problem and no stack trace, and
// its peak memory bounded.
import { afterAll, describe, expect, it } from 'vitest';
import { createArea, inParallel, looksLikeStackTrace, serviceEnv, writeRepo } from './harness.js';
import { BEHAVIOURS, type Hostile } from './hostile-servers.js';
import { termRepository } from './term-repository.js';

const area = createArea('hostile-server');

describe('hostile server: each behaviour ends within its deadline, exit 7, bounded memory', () => {
  const servers: Hostile[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it(`${BEHAVIOURS.length} behaviours`, async () => {
    const dir = await area.folder('repo');
    await writeRepo(dir, termRepository(41, 0, { v3: 2, v2: 1, styleLists: 1, entries: 5 }));
    const problems: string[] = [];
    await inParallel(
      2,
      BEHAVIOURS.map((b) => async () => {
        const server = await b.start();
        servers.push(server);
        const run = await area.run(['plan', '--dir', '.'], {
          cwd: dir,
          env: serviceEnv(server.url, { TERMSYNC_MAX_ATTEMPTS: '2', ...b.env }),
          timeoutMs: b.deadlineMs + 30_000,
          watchMemory: true,
        });
        await server.close();
        const peakMiB = run.peakRssKiB / 1024;
        const message = run.stderr.split('\n').filter((l) => l.startsWith('Error') || l.includes('error')).slice(0, 2).join(' | ');
        area.count('hostile behaviours', 1);
        area.tried(
          `${b.name}: exit ${run.code ?? run.signal} after ${(run.ms / 1000).toFixed(1)} s (deadline ${b.deadlineMs / 1000} s), ` +
            `peak memory ${peakMiB.toFixed(0)} MiB (limit ${b.maxRssMiB}), ${server.requests.length} requests, ${(server.written() / 1024 / 1024).toFixed(1)} MiB sent to it; said: ${message.slice(0, 220)}`,
        );
        if (run.code !== 7) problems.push(`${b.name}: exit ${run.code ?? run.signal} (expected 7): ${run.stderr.slice(-300)}`);
        if (run.ms > b.deadlineMs) problems.push(`${b.name}: took ${Math.round(run.ms)} ms, over its deadline of ${b.deadlineMs} ms`);
        if (peakMiB > b.maxRssMiB) problems.push(`${b.name}: peak memory ${peakMiB.toFixed(0)} MiB, over ${b.maxRssMiB} MiB`);
        if (run.peakRssKiB === 0) problems.push(`${b.name}: its memory could not be read`);
        if (!b.says.test(run.stderr)) problems.push(`${b.name}: the message does not match ${String(b.says)}: ${run.stderr.slice(-300)}`);
        if (looksLikeStackTrace(run.stdout + run.stderr)) problems.push(`${b.name}: a stack trace in the output`);
        if (server.requests.length === 0) problems.push(`${b.name}: the server was never asked`);
      }),
    );
    expect(problems).toEqual([]);
  });

  it('the key appears in none of the outputs of this check', async () => {
    const { places, hits } = await area.searchForKey();
    area.tried(`searched ${places} files for the key: ${hits.length} found`);
    expect(places).toBeGreaterThan(10);
    expect(hits).toEqual([]);
  });
});
