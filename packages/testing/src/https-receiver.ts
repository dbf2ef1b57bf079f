import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  /** Pass as NODE_EXTRA_CA_CERTS to the processes that must trust the receiver. */
  caPath: string;
  key: Buffer;
  cert: Buffer;
}

/** A throwaway CA and a server certificate for 127.0.0.1 and localhost, made with openssl. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'docgen-tls-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=docgen test CA', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  writeFileSync(file('san.cnf'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', file('server.key'), '-out', file('server.csr'));
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('san.cnf'),
    '-out',
    file('server.pem'),
  );
  return { caPath: file('ca.pem'), key: readFileSync(file('server.key')), cert: readFileSync(file('server.pem')) };
}

export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What the receiver answers: a status code, or "hang" to never answer. */
export type Reply = number | 'hang';

export interface HttpsReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves when `count` requests have arrived on `path`. */
  waitFor: (path: string, count: number, timeoutMs?: number) => Promise<ReceivedWebhook[]>;
  openRequests: () => number;
  close: () => Promise<void>;
}

/** A real HTTPS server on loopback that records every request and answers by path. */
export async function startHttpsReceiver(certificates: TestCertificates, reply: (path: string, nth: number) => Reply): Promise<HttpsReceiver> {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const entry = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString() };
      received.push(entry);
      const answer = reply(entry.path, received.filter((r) => r.path === entry.path).length);
      for (const wake of waiters.splice(0)) wake();
      if (answer === 'hang') {
        open.add(res);
        return;
      }
      res.statusCode = answer;
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    openRequests: () => open.size,
    waitFor: async (path, count, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter((r) => r.path === path);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) throw new Error(`only ${matching.length} of ${count} requests arrived on ${path}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}
