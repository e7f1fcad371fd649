import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createClient, type ClientOptions, type ServiceClient } from '../../src/api/index.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { REDACT_PATHS, type Logger } from '../../src/lib/logger.js';
import { createVirtualClock, type VirtualClock } from '../../src/lib/virtual-clock.js';

export interface Harness {
  readonly clock: VirtualClock;
  readonly emulator: RunningEmulator;
  readonly client: ServiceClient;
  /** Every log line the client wrote (trace level). */
  readonly logLines: string[];
  /** 429/529/456 answers as the client saw them: when, and the wait it applied. */
  readonly throttles: { kind: string; at: number; waitMs: number }[];
  newClient(overrides?: Partial<ClientOptions>): ServiceClient;
  close(): Promise<void>;
}

/** A trace-level logger with the project's redaction, writing into an array. */
export function captureLogger(lines: string[]): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return pino({ level: 'trace', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
}

/** One fake clock shared by the emulator and the client: waits cost no real time. */
export async function startHarness(
  emulatorOptions: Omit<EmulatorOptions, 'clock' | 'port'> = {},
  clientOptions: Partial<ClientOptions> = {},
): Promise<Harness> {
  const clock = createVirtualClock();
  const emulator = await startEmulator({ ...emulatorOptions, port: 0, clock, seed: emulatorOptions.seed ?? 7 });
  const logLines: string[] = [];
  const throttles: Harness['throttles'] = [];
  const clients: ServiceClient[] = [];
  const newClient = (overrides: Partial<ClientOptions> = {}): ServiceClient => {
    const client = createClient({
      baseUrl: emulator.url,
      apiKey: 'test-key',
      clock,
      logger: captureLogger(logLines),
      requestsPerSecond: 10,
      concurrency: 4,
      random: () => 0.5,
      metrics: { onThrottle: (kind, waitMs) => throttles.push({ kind, at: clock.now(), waitMs }) },
      ...clientOptions,
      ...overrides,
    });
    clients.push(client);
    return client;
  };
  const client = newClient();
  return {
    clock,
    emulator,
    client,
    logLines,
    throttles,
    newClient,
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
    },
  };
}

export const dict = (sourceLang: string, targetLang: string, entries: [string, string][]) => ({ sourceLang, targetLang, entries });
