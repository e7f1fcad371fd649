import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { analyseRequests, sendsDuringPauses } from '../../bench/rate-analysis.js';
import { createClient } from '../../src/api/index.js';
import { createVirtualClock } from '../../src/lib/virtual-clock.js';
import { captureLogger } from '../api/emulator-harness.js';

/** Requests arriving at these times (ms); `R` after a time marks a refusal (429). */
const log = (...times: string[]): { time: number; status: number }[] =>
  times.map((t) => ({ time: Number.parseInt(t, 10), status: t.endsWith('R') ? 429 : 200 }));

describe('bench: reading a run from the request log', () => {
  it('relates the request phase to calls ÷ rate, refusals not counted as calls', () => {
    // 20 calls at 20 a second, evenly: one second from first to last arrival.
    const even = log(...Array.from({ length: 21 }, (_, i) => String(i * 50)));
    expect(analyseRequests(even, 20)).toMatchObject({ calls: 21, refused: 0, rounds: 0, unasked: 0, span: 1 });
    expect(analyseRequests(even, 20).ratio).toBeCloseTo(1 / (21 / 20));
    const paused = analyseRequests(log('0', '50R', '60R', '1090', '1140', '1700R', '2730'), 10);
    expect(paused).toMatchObject({ calls: 4, refused: 3, rounds: 2, unasked: 0, span: 2.73 });
    expect(paused.ratio).toBeCloseTo(2.73 / 0.4);
    // Without the first two pauses (1 s each): what is left once a limit has been found.
    expect(paused.learned).toBeCloseTo(0.73 / 0.4);
  });

  it('counts a pause no refusal asked for', () => {
    expect(analyseRequests(log('0', '50', '1300', '1350'), 20).unasked).toBe(1);
    expect(analyseRequests(log('0', '50R', '1100', '1150'), 20).unasked).toBe(0);
    expect(analyseRequests(log('0', '50R', '70R', '1400', '1450'), 20).unasked).toBe(0); // answered late on a busy machine
    // A refusal explains the second it asked for, not a longer gap, nor a later one.
    expect(analyseRequests(log('0', '50R', '2100', '2150'), 20).unasked).toBe(1);
    expect(analyseRequests(log('0R', '1030', '1080', '3000', '3050'), 20).unasked).toBe(1);
  });

  it('counts requests the client sent during a pause, by its own trace log', () => {
    const line = (msg: string, fields: object): string => JSON.stringify({ level: 10, time: 0, component: 'api', ...fields, msg });
    const stderr = [
      line('sending', { at: 0 }),
      line('sending', { at: 5 }),
      line('throttled: pausing the queue', { until: 1030 }),
      line('throttled: pausing the queue', { until: 1010 }), // an earlier end does not shorten the pause
      'a line that is not JSON',
      line('sending', { at: 1029 }),
      line('sending', { at: 1030 }),
      line('sending', { at: 1031 }),
    ].join('\n');
    expect(sendsDuringPauses(stderr)).toEqual({ sends: 5, throttles: 2, early: 1 });
    expect(sendsDuringPauses(line('sending', { at: 3 }))).toEqual({ sends: 1, throttles: 0, early: 0 });
  });

  it("reads the client's own trace log: when each request left, until when each pause lasts", async () => {
    const clock = createVirtualClock();
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get('https://api.example.test');
    const lines: string[] = [];
    const client = createClient({ baseUrl: 'https://api.example.test', apiKey: 'k', dispatcher: agent, clock, logger: captureLogger(lines), requestsPerSecond: 100, concurrency: 2, random: () => 0.5 });
    try {
      const start = clock.now();
      pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(429, { message: 'slow down' }, { headers: { 'retry-after': '2' } });
      pool.intercept({ path: '/v3/glossaries', method: 'GET' }).reply(200, { glossaries: [] });
      await client.listGlossaries();
      const entries = lines.map((l) => JSON.parse(l) as { msg: string; at?: number; until?: number });
      expect(entries.filter((e) => e.msg === 'sending').map((e) => e.at)).toEqual([start, start + 2000]);
      expect(entries.filter((e) => e.msg === 'throttled: pausing the queue').map((e) => e.until)).toEqual([start + 2000]);
      expect(sendsDuringPauses(lines.join(''))).toEqual({ sends: 2, throttles: 1, early: 0 });
    } finally {
      await client.close();
      await agent.close();
    }
  });

  it('refuses an empty log', () => {
    expect(() => analyseRequests([], 20)).toThrow(/no requests/);
  });
});
