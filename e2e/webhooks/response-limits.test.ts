import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, makeTestCertificates, startStack, type ApiClient, type Stack } from '@docgen/testing';
import { settledDeliveryLog } from './helpers';

const MIB = 1024 * 1024;

/**
 * A 2xx is only a success if the whole exchange fits the limits the dispatcher gives
 * guardedFetch: the body within 1 MiB and everything within WEBHOOK_TIMEOUT_MS. The
 * receiver here answers 200 at once and then misbehaves in the body.
 */
describe('a 2xx whose body breaks the limits is a failed attempt (dispatcher with WEBHOOK_TIMEOUT_MS=1000)', () => {
  let stack: Stack;
  let server: Server;
  let url: string;
  let api: ApiClient;
  const hits: string[] = [];
  const open = new Set<ServerResponse>();

  beforeAll(async () => {
    const certificates = makeTestCertificates();
    server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
      req.resume();
      req.on('end', () => {
        hits.push(req.url ?? '');
        res.writeHead(200, { 'content-type': 'application/json', ...(req.url === '/big-declared' ? { 'content-length': String(2 * MIB) } : {}) });
        if (req.url === '/big-declared' || req.url === '/big-streamed') {
          // Streamed in 64 KiB pieces; /big-streamed has no Content-Length, so only counting the bytes catches it.
          const piece = Buffer.alloc(64 * 1024, 0x20);
          let sent = 0;
          const more = () => {
            while (sent < 2 * MIB && !res.destroyed) {
              sent += piece.length;
              if (!res.write(piece)) return void res.once('drain', more);
            }
            res.end();
          };
          return more();
        }
        if (req.url === '/late-body') {
          res.write('{'); // headers and a first byte now, the rest never
          open.add(res);
          return;
        }
        res.end('{}');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack({
      workers: 0,
      env: { OUTBOUND_ALLOW_PRIVATE: 'true', NODE_EXTRA_CA_CERTS: certificates.caPath, WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '20' },
    });
    await stack.start('webhook-dispatcher');
    api = apiClient(stack.gateways[0]!.url, (await stack.organization()).apiKey);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    for (const res of open) res.destroy();
    server.closeAllConnections();
    server.close();
  });

  const attemptsAt = async (path: string) => {
    const endpoint = (await api.call('POST', '/api/v1/webhooks', { url: `${url}${path}` })).body as { id: string };
    expect((await api.call('POST', `/api/v1/webhooks/${endpoint.id}/test`)).status).toBe(202);
    return endpoint.id;
  };

  it('a plain 200 with a small body succeeds (the receiver works)', async () => {
    const log = await settledDeliveryLog(api, await attemptsAt('/ok'), 1);
    expect(log.map((entry) => [entry.attempt, entry.status, entry.response_status, entry.error])).toEqual([[1, 'succeeded', 200, null]]);
  });

  it.each([
    ['/big-declared', '2 MiB with a Content-Length', 'the response is larger than 1 MiB'],
    ['/big-streamed', '2 MiB without a Content-Length', 'the response is larger than 1 MiB'],
    ['/late-body', 'a body still unfinished at the timeout', 'no answer within 1 s'],
  ])(
    '200 with %s (%s): all 4 attempts failed with "%s"',
    async (path, _what, error) => {
      const log = await settledDeliveryLog(api, await attemptsAt(path), 4, 20_000);
      expect(log.map((entry) => [entry.attempt, entry.status, entry.response_status, entry.error])).toEqual(
        [4, 3, 2, 1].map((n) => [n, 'failed', null, error]),
      );
      expect(hits.filter((hit) => hit === path)).toHaveLength(4);
    },
    30_000,
  );
});
