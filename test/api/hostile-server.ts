import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';

/**
 * Small hostile servers for tests and the bench: each misbehaves in one way a broken proxy or a
 * malicious endpoint could. All listen on loopback, port 0; `close()` ends every connection.
 */
export interface HostileServer {
  readonly url: string;
  /** Requests received (method and path). */
  readonly requests: string[];
  /** Bytes of answer body written so far (for the endless and trickling bodies). */
  written(): number;
  /**
   * Resolves once a connection has been accepted and every accepted connection has closed (the
   * client dropped it, or the server ended it): an event to wait on, not a guess of how long it takes.
   */
  allClosed(): Promise<void>;
  close(): Promise<void>;
}

async function listen(server: Server, sockets: Set<Socket>, requests: string[], written: () => number): Promise<HostileServer> {
  let accepted = 0;
  let waiting: (() => void)[] = [];
  const settle = (): void => {
    if (accepted === 0 || sockets.size > 0) return;
    for (const resolve of waiting) resolve();
    waiting = [];
  };
  server.on('connection', (socket: Socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      settle();
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    written,
    allClosed: () =>
      new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A node:http server whose every request is answered by `handle`; `count` adds to `written()`. */
export async function startHttpServer(handle: (req: IncomingMessage, res: ServerResponse, count: (bytes: number) => void) => void): Promise<HostileServer> {
  const requests: string[] = [];
  let bytes = 0;
  const server = createHttpServer((req, res) => {
    requests.push(`${req.method ?? '?'} ${req.url ?? '?'}`);
    req.resume();
    res.on('error', () => undefined);
    handle(req, res, (n) => {
      bytes += n;
    });
  });
  return listen(server, new Set(), requests, () => bytes);
}

/** A raw TCP server: once the request head has arrived, `answer` writes whatever bytes it likes. */
export async function startRawServer(answer: (socket: Socket) => void): Promise<HostileServer> {
  const requests: string[] = [];
  const server = createNetServer((socket) => {
    let head = '';
    const onData = (data: Buffer): void => {
      head += data.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      requests.push(head.split('\r\n')[0] ?? '');
      answer(socket);
    };
    socket.on('data', onData);
  });
  return listen(server, new Set(), requests, () => 0);
}

/** A 200 whose chunked body never ends: 64 KiB chunks as fast as the client takes them. */
export function endlessBody(): Promise<HostileServer> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return startHttpServer((_req, res, count) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"glossaries": [');
    let open = true;
    res.on('close', () => {
      open = false;
    });
    const pump = (): void => {
      while (open) {
        count(chunk.length);
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
}

/** A 200 that sends one byte of a valid answer every `everyMs`: never idle long enough for an idle timeout. */
export function trickle(everyMs: number, body = '{"glossaries": []}'): Promise<HostileServer> {
  return startHttpServer((_req, res, count) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    let i = 0;
    const timer = setInterval(() => {
      if (i >= body.length) {
        clearInterval(timer);
        res.end();
        return;
      }
      count(1);
      res.write(body[i] ?? '');
      i += 1;
    }, everyMs);
    res.on('close', () => clearInterval(timer));
  });
}

/** A raw answer with a `Content-Length` that lies: `declared` bytes announced, `body` sent, then `after`. */
export function lyingLength(declared: number, body: string, after: 'close' | 'hold'): Promise<HostileServer> {
  return startRawServer((socket) => {
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n${body}`);
    if (after === 'close') socket.end();
  });
}
