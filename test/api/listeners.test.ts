import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { captureLogger, dict } from './emulator-harness.js';

describe('a fault storm', () => {
  it('adds no listener per waiting call to the run signal: Node never warns of a listener leak on stderr', async () => {
    const clock = createVirtualClock();
    const lines: string[] = [];
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    // The run's signal, as the CLI passes it (SIGINT/SIGTERM), with Node's default limit of 10 listeners.
    const run = new AbortController();
    const emulator = await startEmulator({ port: 0, clock, seed: 11, faults: '429=0.3,456=0.05,529=0.1,503=0.1,reset=0.02', logger: captureLogger(lines) });
    const client = createClient({ baseUrl: emulator.url, apiKey: 'k', clock, signal: run.signal, logger: captureLogger(lines), requestsPerSecond: 50, concurrency: 4, retry: { maxAttempts: 30 } });
    try {
      // 60 operations at once: many of them wait out the same pauses and back-offs together.
      const created = await Promise.all(Array.from({ length: 60 }, (_, i) => client.createGlossary(`storm ${i}`, [dict('en', 'de', [[`a${i}`, 'b']])])));
      expect(created).toHaveLength(60);
      // The storm really happened: the service answered with throttling and overload.
      const statuses = new Set(emulator.requests().map((r) => r.status));
      expect(statuses).toContain(429);
      // Let any warning emitted during the run reach the listener.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
      await client.close();
      await emulator.close();
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
  });
});
