import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { startService, type RunningService } from '@docgen/testing';
import { startGatewayHarness, type GatewayHarness } from './harness';

/** The head of the next response on `socket`; rejects if the socket closes first. */
function nextResponseHead(socket: Socket): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      stop();
      resolve(received.slice(0, end));
    };
    const onClose = () => {
      stop();
      reject(new Error(`the connection closed before a response (got ${JSON.stringify(received)})`));
    };
    const stop = () => {
      socket.off('data', onData);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
}

function getHealth(socket: Socket): Promise<string> {
  const head = nextResponseHead(socket);
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
  const start = async (env: Record<string, string> = {}) => {
    const gateway = await startService('gateway', { ...harness.env, ...env });
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    harness = await startGatewayHarness();
  });
  afterAll(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await harness.close();
  });

  it('stay open 65 s by default, longer than a load balancer keeps an idle connection (60 s)', async () => {
    const socket = await openSocket(await start());
    try {
      const head = await getHealth(socket);
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      expect(head).toMatch(/^Keep-Alive: timeout=65$/im);
    } finally {
      socket.destroy();
    }
  });

  it('are closed by the gateway once idle for HTTP_KEEP_ALIVE_TIMEOUT_MS, not before', async () => {
    const socket = await openSocket(await start({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500' }));
    const closed = once(socket, 'close');
    expect(await getHealth(socket)).toMatch(/^Keep-Alive: timeout=1$/im);
    // Still open and usable a third of the way in; the second answer restarts the idle clock.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await getHealth(socket)).toMatch(/^HTTP\/1\.1 200/);
    const answeredAt = Date.now();
    await closed;
    // Closed by the setting (Node adds a second to it), well before Node's default would (5 s + 1).
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(1_400);
    expect(Date.now() - answeredAt).toBeLessThan(5_000);
  });

  it('do not hold a shutdown: a connection is closed as soon as its answer is sent', async () => {
    const gateway = await start({ SHUTDOWN_TIMEOUT_MS: '4000' });
    const socket = await openSocket(gateway);
    const closed = once(socket, 'close');
    // A request in flight when the shutdown begins: the sign-in waits for its body.
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'wrong' });
    socket.write(`POST /api/v1/session HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    const exited = gateway.stop('SIGTERM');
    await gateway.waitForLog((line) => line.msg === 'shutting down');
    const head = nextResponseHead(socket);
    socket.write(body);
    expect(await head).toMatch(/^HTTP\/1\.1 4\d\d/);
    await closed;
    // Kept alive for 65 s, the connection would have held the server open past the 4 s deadline (exit 1).
    expect(await exited).toBe(0);
  });
});
