import { createServer, request as httpRequest, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorld, type World } from './harness.js';
import { listenOnLoopback } from './loopback.js';

/**
 * The plan's "bytes of entries to upload" is what the client sends: a proxy in front of the emulator
 * adds up the UTF-8 bytes of every `entries` text the emulator received.
 */
interface Recorder {
  readonly url: string;
  /** Bytes of `entries` texts received since the last `take()`. */
  take(): number;
  close(): Promise<void>;
}

function entriesBytes(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, v) => sum + entriesBytes(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  let sum = 0;
  for (const [key, v] of Object.entries(value)) sum += key === 'entries' && typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : entriesBytes(v);
  return sum;
}

async function recordingProxy(target: string): Promise<Recorder> {
  let bytes = 0;
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0 && (req.headers['content-type'] ?? '').includes('json')) bytes += entriesBytes(JSON.parse(body.toString('utf8')));
      const forward = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forward.end(body);
    });
  });
  return {
    ...(await listenOnLoopback(server)),
    take: () => {
      const taken = bytes;
      bytes = 0;
      return taken;
    },
  };
}

function planBytes(stdout: string): number {
  const match = /; (\d+) bytes? of entries to upload\./.exec(stdout);
  if (match?.[1] === undefined) throw new Error(`no upload figure in:\n${stdout}`);
  return Number(match[1]);
}

let world: World;
let proxy: Recorder;
beforeEach(async () => {
  world = await createWorld('basic');
  proxy = await recordingProxy(world.emulator.url);
});
afterEach(async () => {
  await proxy.close();
  await world.close();
});

describe('bytes of entries to upload', () => {
  it('the plan figure equals the bytes the emulator receives: creates (v3 with two dictionaries, v2), then a dictionary replaced', async () => {
    const env = { TERMSYNC_BASE_URL: proxy.url };
    const created = await world.cli(['apply'], env);
    expect(created.code).toBe(0);
    const createdBytes = proxy.take();
    expect(createdBytes).toBeGreaterThan(0);
    expect(planBytes(created.stdout)).toBe(createdBytes);

    // A removed term and an added one, non-ASCII: the dictionary is replaced (PUT).
    const tsv = await world.read('glossaries/product.en-de.tsv');
    const lines = tsv.trimEnd().split('\n');
    await world.write('glossaries/product.en-de.tsv', `${lines.slice(1).join('\n')}\nGrößenübersicht\tGrößentabelle\n`);
    const plan = await world.cli(['plan'], env);
    proxy.take();
    const changed = await world.cli(['apply'], env);
    expect(changed.code).toBe(0);
    const changedBytes = proxy.take();
    expect(changedBytes).toBeGreaterThan(0);
    expect(planBytes(plan.stdout)).toBe(changedBytes);
    expect(planBytes(changed.stdout)).toBe(changedBytes);
  });
});
