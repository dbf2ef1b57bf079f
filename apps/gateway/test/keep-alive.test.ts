import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { loadConfig } from '@docgen/config';
import { startService, type RunningService } from '@docgen/testing';
import { gatewayEnv } from '../src/config';
import { keepConnectionsAlive } from '../src/keep-alive';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** Sends one keep-alive GET /healthz on `socket` and resolves with the response head. */
async function getHealth(socket: Socket): Promise<string> {
  let received = '';
  const head = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end >= 0) {
        socket.off('data', onData);
        resolve(received.slice(0, end));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  socket.write('GET /healthz HTTP/1.1\r\nHost: gateway\r\nConnection: keep-alive\r\n\r\n');
  return head;
}

async function openSocket(gateway: RunningService): Promise<Socket> {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

describe('kept-alive connections', () => {
  let harness: GatewayHarness;
  const gateways: RunningService[] = [];

  beforeAll(async () => {
    harness = await startGatewayHarness();
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await harness.close();
  });

  it('stay open 65 s by default, longer than a load balancer keeps an idle connection (60 s)', async () => {
    const gateway = await startService('gateway', harness.env);
    gateways.push(gateway);
    const socket = await openSocket(gateway);
    try {
      const head = await getHealth(socket);
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      expect(head).toMatch(/^Keep-Alive: timeout=65$/im);
    } finally {
      socket.destroy();
    }
  });

  it('are closed by the gateway once idle for HTTP_KEEP_ALIVE_TIMEOUT_MS, not before', async () => {
    const gateway = await startService('gateway', { ...harness.env, HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500' });
    gateways.push(gateway);
    const socket = await openSocket(gateway);
    const closed = once(socket, 'close');
    expect(await getHealth(socket)).toMatch(/^Keep-Alive: timeout=1$/im);
    const idleSince = Date.now();
    // Still open and usable at half the timeout: the second answer resets the idle clock.
    await new Promise((resolve) => setTimeout(resolve, 750));
    expect(await getHealth(socket)).toMatch(/^HTTP\/1\.1 200/);
    const reusedAt = Date.now();
    await closed;
    // Closed by the gateway's setting, well before Node's default of 5 s would have.
    expect(Date.now() - reusedAt).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - idleSince).toBeLessThan(5_000);
  });
});

describe('the keep-alive setting', () => {
  it('keeps the headers timeout above the idle time and within Node’s limit for a whole request', () => {
    const server = createServer();
    keepConnectionsAlive(server, 65_000);
    expect([server.keepAliveTimeout, server.headersTimeout]).toEqual([65_000, 66_000]);
    keepConnectionsAlive(server, 299_000);
    expect(server.headersTimeout).toBe(server.requestTimeout);
  });

  it('refuses an idle time Node’s 300 s request limit would cut short', () => {
    expect(() => loadConfig(gatewayEnv, { HTTP_KEEP_ALIVE_TIMEOUT_MS: '300000' })).toThrow('HTTP_KEEP_ALIVE_TIMEOUT_MS: must be at most 299000');
  });
});
