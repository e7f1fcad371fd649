import { afterEach } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** Parsed JSON body (undefined when the body is empty or not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON off the wire, asserted by each test
  readonly json: any;
}

export interface CallOptions {
  key?: string | null;
  json?: unknown;
  form?: string;
  body?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

export const KEY = 'test-key';

/** A fake clock that tests move by hand. */
export class FakeClock {
  constructor(public time = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
});

/** Starts an emulator on a free port; closed after the test. */
export async function start(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({ port: 0, seed: 42, ...options });
  running.push(emulator);
  return emulator;
}

export async function call(emulator: RunningEmulator, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers['Authorization'] = `Service-Auth-Key ${key}`;
  let body: string | Uint8Array | undefined = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['Content-Type'] = 'application/json';
  }
  if (options.form !== undefined) {
    body = options.form;
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  if (options.contentType !== undefined) headers['Content-Type'] = options.contentType;
  const response = await fetch(emulator.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Asserts the spec's error body shape and returns it. */
export function errorBody(answer: Answer): { message: string; code?: string; detail?: string } {
  const body = answer.json as Record<string, unknown>;
  if (typeof body !== 'object' || body === null || typeof body['message'] !== 'string' || body['message'] === '') {
    throw new Error(`expected an error body {message, code?, detail?}, got ${answer.text.slice(0, 200)}`);
  }
  for (const k of Object.keys(body)) if (!['message', 'code', 'detail'].includes(k)) throw new Error(`unexpected error body field ${k}`);
  return body as { message: string; code?: string; detail?: string };
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export async function createV3(
  emulator: RunningEmulator,
  name: string,
  dictionaries: Array<{ source_lang: string; target_lang: string; entries: string; entries_format?: string }>,
  key?: string,
): Promise<Answer> {
  return call(emulator, 'POST', '/v3/glossaries', { json: { name, dictionaries }, ...(key === undefined ? {} : { key }) });
}
