import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A test's HTTP server (a proxy in front of the emulator, say) listening on a free loopback port: its URL, and a close that ends open connections too. */
export async function listenOnLoopback(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
