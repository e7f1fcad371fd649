// A pass-through HTTP proxy between termsync and the emulator that SIGKILLs the termsync process at
// a chosen write request: `before` (the request never reaches the service) or `after` (the service
// did it, termsync never hears the answer). Once it has killed, it forwards nothing more. It can
// also hold requests until released, to keep a run busy for as long as a check needs.
import type { ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface KillPoint {
  /** The write (any method but GET) at which to kill, counted from 1 in this run. */
  readonly write: number;
  readonly phase: 'before' | 'after';
}

export interface KillProxy {
  readonly url: string;
  /** Kill `child` at `point` of the writes from now on; writes are counted from zero again. */
  arm(point: KillPoint, child: ChildProcess): void;
  /** Forward everything, count writes from zero. */
  disarm(): void;
  /** Writes forwarded since the last arm/disarm. */
  writes(): number;
  /** The request at which the process was killed, if it was. */
  killedAt(): string | undefined;
  /** Holds every request that arrives from now on until `release()` (a run that stays busy). */
  hold(): void;
  release(): void;
  /** Requests waiting in a hold. */
  held(): number;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

export async function startKillProxy(target: string): Promise<KillProxy> {
  const upstream = new URL(target);
  let armed: { point: KillPoint; child: ChildProcess } | undefined;
  let writes = 0;
  let killed: string | undefined;
  let holding = false;
  let waiting: (() => void)[] = [];

  const kill = (what: string): void => {
    killed = what;
    armed?.child.kill('SIGKILL');
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (holding) waiting.push(() => handle());
      else handle();
    });
    const handle = (): void => {
      if (killed !== undefined) {
        req.socket.destroy();
        return;
      }
      const what = `${req.method ?? '?'} ${req.url ?? ''}`;
      const isWrite = req.method !== 'GET' && req.method !== 'HEAD';
      const index = isWrite ? ++writes : 0;
      const hit = armed !== undefined && isWrite && index === armed.point.write;
      if (hit && armed?.point.phase === 'before') {
        kill(`${what} (before it reached the service)`);
        req.socket.destroy();
        return;
      }
      const body = Buffer.concat(chunks);
      const out = httpRequest(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...forwardHeaders(req.headers), 'content-length': String(body.length) } },
        (answer) => {
          const answerChunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => answerChunks.push(c));
          answer.on('end', () => {
            if (hit) {
              kill(`${what} (after the service did it)`);
              req.socket.destroy();
              return;
            }
            if (killed !== undefined) {
              req.socket.destroy();
              return;
            }
            const answerBody = Buffer.concat(answerChunks);
            res.writeHead(answer.statusCode ?? 502, { ...forwardHeaders(answer.headers), 'content-length': String(answerBody.length) });
            res.end(answerBody);
          });
        },
      );
      out.on('error', () => req.socket.destroy());
      out.end(body);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arm(point, child) {
      armed = { point, child };
      writes = 0;
      killed = undefined;
    },
    disarm() {
      armed = undefined;
      writes = 0;
      killed = undefined;
    },
    writes: () => writes,
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      const go = waiting;
      waiting = [];
      for (const f of go) f();
    },
    held: () => waiting.length,
    killedAt: () => killed,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
