import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Canary {
  /** http://127.0.0.1:<port> */
  url: string;
  /** "METHOD /path" of every request received. */
  requests: string[];
  /** Every TCP connection opened to it, HTTP or not. */
  connections: () => number;
  close: () => Promise<void>;
}

/**
 * A loopback HTTP server that only counts: point a hostile template's links at it, and any
 * request (or bare connection) it sees left on the template's behalf.
 */
export async function startCanary(): Promise<Canary> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.end();
  });
  server.on('connection', (socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
