import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { Resolver, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { guardedLookup } from './guarded-agent';
import { OutboundBlockedError } from './outbound-errors';
import { resolvePublicName } from './public-names';

/** A name server on loopback: an A record for each name in `a`, an AAAA for each in `aaaa`, and silence for `silent`. */
async function startNameServer(a: Record<string, string>, silent: string, aaaa: Record<string, string> = {}) {
  const socket: Socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (query, peer) => {
    const labels: string[] = [];
    let at = 12;
    while (query[at]! > 0) {
      labels.push(query.subarray(at + 1, at + 1 + query[at]!).toString());
      at += query[at]! + 1;
    }
    const name = labels.join('.');
    const type = query.readUInt16BE(at + 1);
    questions.push(`${name} ${type === 1 ? 'A' : 'AAAA'}`);
    if (name === silent) return;
    const question = query.subarray(12, at + 5);
    const address = type === 1 ? a[name] : aaaa[name];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(name in a || name in aaaa ? 0x8180 : 0x8183, 2); // NOERROR, or NXDOMAIN for an unknown name
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(address ? 1 : 0, 6);
    const data = address ? Buffer.from(ipaddr.parse(address).toByteArray()) : Buffer.alloc(0);
    const answer = address ? Buffer.concat([Buffer.from([0xc0, 0x0c, 0, type, 0, 1, 0, 0, 0, 60, 0, data.length]), data]) : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, answer]), peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const resolver = new Resolver({ timeout: 300, tries: 1 });
  resolver.setServers([`127.0.0.1:${socket.address().port}`]);
  return { resolver, questions, close: () => socket.close() };
}

const resolved = (hostname: string, resolver: Resolver) =>
  new Promise<LookupAddress[]>((resolve, reject) => resolvePublicName(hostname, (error, addresses) => (error ? reject(error) : resolve(addresses)), resolver));

describe('resolvePublicName (c-ares, off the thread pool)', () => {
  let server: Awaited<ReturnType<typeof startNameServer>>;
  beforeAll(async () => {
    server = await startNameServer({ 'public.example': '93.184.215.14', 'internal.example': '10.0.0.7', 'both.example': '93.184.215.15' }, 'silent.example', {
      'both.example': '2606:4700:4700::1111',
    });
  });
  afterAll(() => server.close());

  it('asks the name servers for A and AAAA, and the guard refuses a name that answers with a private address', async () => {
    expect(await resolved('public.example', server.resolver)).toEqual([{ address: '93.184.215.14', family: 4 }]);
    expect(server.questions).toEqual(expect.arrayContaining(['public.example A', 'public.example AAAA']));
    const lookup = guardedLookup(false, (hostname, callback) => resolvePublicName(hostname, callback, server.resolver));
    const refused = await new Promise<unknown>((resolve) => lookup('internal.example', { all: true }, (error) => resolve(error)));
    expect(refused).toBeInstanceOf(OutboundBlockedError);
    expect((refused as OutboundBlockedError).range).toBe('private');
    await expect(resolved('unknown.example', server.resolver)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('leaves the thread pool to the files while name servers stay silent', async () => {
    const silent = Array.from({ length: 8 }, () =>
      resolved('silent.example', server.resolver).then(
        () => 'answered',
        (error: NodeJS.ErrnoException) => error.code,
      ),
    );
    let lookupsOver = false;
    void Promise.all(silent).then(() => (lookupsOver = true));
    // Eight getaddrinfo calls would hold all four of libuv's threads: this read would wait for them.
    await readFile(__filename);
    expect(lookupsOver).toBe(false);
    expect(new Set(await Promise.all(silent))).toEqual(new Set(['ETIMEOUT']));
    expect(server.questions).toContain('silent.example A');
  });

  it('hands the connection every address it checked, IPv4 and IPv6 (an IPv6-only pod still reaches a dual-stack host)', async () => {
    const lookup = guardedLookup(false, (hostname, callback) => resolvePublicName(hostname, callback, server.resolver));
    const addresses = await new Promise<unknown>((resolve, reject) =>
      lookup('both.example', { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
    );
    expect(addresses).toEqual([
      { address: '93.184.215.15', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('ends a lookup within its time limit, whatever the resolver would still try', async () => {
    const patient = new Resolver({ timeout: 5_000, tries: 4 });
    patient.setServers(server.resolver.getServers());
    await expect(
      new Promise((resolve, reject) => resolvePublicName('silent.example', (error, found) => (error ? reject(error) : resolve(found)), patient, 200)),
    ).rejects.toMatchObject({ code: 'ETIMEOUT', message: 'looking up silent.example took longer than 0.2 s' });
    patient.cancel();
  });

  it('takes localhost for this machine without asking anyone', async () => {
    const before = server.questions.length;
    expect(await resolved('localhost', server.resolver)).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolved('app.localhost', server.resolver)).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(server.questions.length).toBe(before);
  });
});
