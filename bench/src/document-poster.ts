import { Agent, request } from 'node:http';

/**
 * POST /documents for the clients: node:http over kept-alive connections, a lighter load
 * generator than fetch (it shares the cores with what it measures, as autocannon does in
 * bench:gateway).
 */
export function documentPoster(gatewayUrl: string, apiKey: string) {
  // A free socket is closed by the client after 4 s idle, as a proxy in front should: the
  // side that closes an idle connection must be the side that reuses it, or a request sent
  // as the other side closes it fails (ECONNRESET; the gateway waits 65 s, keep-alive.ts).
  const agent = new Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });
  return (body: unknown) =>
    new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
      const payload = JSON.stringify(body);
      const req = request(`${gatewayUrl}/api/v1/documents`, {
        method: 'POST',
        agent,
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown> }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(payload);
    });
}
