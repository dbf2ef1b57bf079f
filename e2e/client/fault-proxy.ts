import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a gateway. Armed with `loseNextResponseTo`, it lets
 * the next request whose first line starts with that prefix reach the gateway, then cuts
 * the caller's connection the moment the answer starts to come back (and calls `onLost`):
 * the request was carried out, but the caller sees a network error.
 */
export async function startFaultProxy(target: { port: number }) {
  let armed: { prefix: string; onLost: () => void } | undefined;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(target.port, '127.0.0.1');
    sockets.add(upstream);
    let victim = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && chunk.toString('latin1').startsWith(armed.prefix)) victim = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (victim && armed) {
        const { onLost } = armed;
        armed = undefined;
        client.destroy();
        upstream.destroy();
        onLost();
        return;
      }
      client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', close).on('error', close);
    upstream.on('close', close).on('error', close);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    loseNextResponseTo: (prefix: string, onLost: () => void = () => {}) => (armed = { prefix, onLost }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A port nothing listens on right now, for a process that must come back on the same one. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}
