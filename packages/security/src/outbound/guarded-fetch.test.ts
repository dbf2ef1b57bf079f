import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockedAddressReason } from './blocked-address';
import { createGuardedAgent } from './guarded-agent';
import { assertPublicHost, guardedFetch } from './guarded-fetch';
import { OutboundBlockedError, OutboundRequestError } from './outbound-errors';

describe('blockedAddressReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00:ec2::254', 'uniqueLocal'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
    ['168.63.129.16', 'cloudHostEndpoint'],
    ['::ffff:168.63.129.16', 'cloudHostEndpoint'],
  ])('refuses %s (%s)', (address, range) => {
    expect(blockedAddressReason(address)).toBe(range);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111'])('allows public %s', (address) => {
    expect(blockedAddressReason(address)).toBeUndefined();
  });
});

describe('guardedFetch against a real server on loopback', () => {
  let server: Server;
  let base: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url === '/big') return res.end(Buffer.alloc(64 * 1024));
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2_000);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/ok' });
        return res.end();
      }
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server.close());

  const strict = { agent: createGuardedAgent({ allowPrivate: false }), allowPrivate: false, timeoutMs: 1_000, maxBytes: 1024, maxRedirects: 2 };
  const local = { ...strict, agent: createGuardedAgent({ allowPrivate: true }), allowPrivate: true };

  it('refuses an IP literal and a host name that resolve to loopback, without connecting', async () => {
    const before = hits.length;
    await expect(guardedFetch(`${base}/ok`, strict)).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(guardedFetch(base.replace('127.0.0.1', 'localhost') + '/ok', strict)).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(guardedFetch('http://[::ffff:127.0.0.1]/', strict)).rejects.toBeInstanceOf(OutboundBlockedError);
    expect(hits.length).toBe(before);
    await expect(assertPublicHost('localhost', false)).rejects.toBeInstanceOf(OutboundBlockedError);
    await expect(assertPublicHost('169.254.169.254', false)).rejects.toBeInstanceOf(OutboundBlockedError);
  });

  it('refuses schemes other than http(s)', async () => {
    await expect(guardedFetch('file:///etc/passwd', local)).rejects.toThrow('file: URLs are not fetched');
  });

  it('with private addresses allowed: fetches, follows a redirect, caps size and time', async () => {
    expect((await guardedFetch(`${base}/ok`, local)).body.toString()).toBe('ok');
    const redirected = await guardedFetch(`${base}/redirect`, local);
    expect(redirected.body.toString()).toBe('ok');
    expect(redirected.url).toBe(`${base}/ok`);
    expect((await guardedFetch(`${base}/redirect`, { ...local, maxRedirects: 0 })).status).toBe(302);
    await expect(guardedFetch(`${base}/big`, local)).rejects.toThrow(new OutboundRequestError('the response is larger than 1 KiB'));
    await expect(guardedFetch(`${base}/slow`, local)).rejects.toThrow('no answer within 1 s');
  });
});
