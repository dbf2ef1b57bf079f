import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { apiClient, repoRoot, startStack } from '@docgen/testing';
import { documentPoster } from './document-poster';
import { LETTER_TEMPLATE, letterInput } from './documents';
import { cpuMsPer, cpuSnapshot } from './process-cpu';
import { runWhenMain, publish, type BenchOptions } from './report';
import { fixed, markdownTable, target } from './stats';

const CONNECTIONS = 32;

async function startBareExpress() {
  // The built file, also when this module runs from its sources (the smoke test under jest).
  const child = spawn(process.execPath, [path.join(repoRoot, 'bench', 'dist', 'bare-express.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the bare Express server exited with ${String(code)} before listening`);
  });
  exited.catch(() => undefined); // read only by the race below; its later exit is expected
  const [line] = (await Promise.race([once(createInterface({ input: child.stdout! }), 'line'), exited])) as [string];
  const { port } = JSON.parse(line) as { port: number };
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** Requests per second of the steady-rate runs: what one gateway replica of bench:e2e sees (about 50–130), and more. */
const STEADY_RATES = [50, 100, 400];

/**
 * CPU ms per request of the server process `pid` when requests come at a steady `rate` (sent
 * on a clock, whether or not earlier ones were answered: an open loop, as clients arrive in
 * production), over `seconds`; with the count of answers other than 202.
 */
async function cpuAtRate(url: string, apiKey: string, body: unknown, pid: number, rate: number, seconds: number) {
  const post = documentPoster(url, apiKey);
  const count = Math.max(1, Math.round(rate * seconds));
  const before = cpuSnapshot({ services: { server: pid } });
  const started = performance.now();
  const answers: Promise<{ status: number }>[] = [];
  for (let sent = 0; sent < count; sent++) {
    const wait = started + (sent * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    answers.push(post(body));
  }
  const statuses = await Promise.all(answers);
  const cpu = cpuMsPer(before, cpuSnapshot({ services: { server: pid } }), count);
  return { ms: cpu.server!, other: statuses.filter((answer) => answer.status !== 202).length };
}

/** Accepted (202) POST /documents per second, 32 connections, for `seconds`. */
async function load(url: string, headers: Record<string, string>, body: string, seconds: number) {
  const result = await autocannon({
    url: `${url}/api/v1/documents`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    connections: CONNECTIONS,
    duration: seconds,
  });
  const accepted = result['2xx'];
  return { accepted: accepted / seconds, p50: result.latency.p50, p99: result.latency.p99, other: result.non2xx + result.errors };
}

/**
 * The gateway's POST /documents (API key, rate limit, validation, template lookup,
 * document insert, queueing) against a bare Express handler on the same machine, same
 * load generator, same body. No render worker runs: the jobs just queue.
 */
export async function runGatewayBench(options: BenchOptions) {
  const seconds = options.smoke ? 1 : 15;
  // No worker runs, so the backlog grows by every accepted POST: a cap above what the run can
  // reach keeps this a measure of accepting documents, not of refusing them (429) once
  // MAX_ACTIVE_PER_ORG (10,000) is reached, which took about 15 s at 600/s.
  const stack = await startStack({ workers: 0, keepLogs: false, env: { MAX_ACTIVE_PER_ORG: '100000000', ...options.serviceEnv } });
  const bare = await startBareExpress();
  try {
    const org = await stack.organization(1_000_000_000);
    const api = apiClient(stack.gateways[0]!.url, org.apiKey);
    const templateId = (await api.uploadTemplate(LETTER_TEMPLATE, 'invoice.docx')).id;
    const body = JSON.stringify({ template_id: templateId, input_json: letterInput(1), output_format: 'pdf' });
    const headers = { 'x-api-key': org.apiKey };
    await load(bare.url, headers, body, 1); // warm-up both
    await load(stack.gateways[0]!.url, headers, body, 1);
    const bareBefore = await load(bare.url, headers, body, seconds);
    const cpuGroups = { services: { gateway: stack.gateways[0]!.process.pid! }, byCommand: { PostgreSQL: 'postgres', Redis: 'redis-server' } };
    const cpuBefore = cpuSnapshot(cpuGroups);
    const gateway = await load(stack.gateways[0]!.url, headers, body, seconds);
    const cpu = cpuMsPer(cpuBefore, cpuSnapshot(cpuGroups), gateway.accepted * seconds);
    // Bare Express is measured before and after the gateway; the share is of the better run.
    const bareCpuBefore = cpuSnapshot({ services: { bare: bare.pid } });
    const bareAfter = await load(bare.url, headers, body, seconds);
    const bareCpu = cpuMsPer(bareCpuBefore, cpuSnapshot({ services: { bare: bare.pid } }), bareAfter.accepted * seconds).bare!;
    const baseline = bareBefore.accepted >= bareAfter.accepted ? bareBefore : bareAfter;
    // Both servers warm from the runs above; each rate runs on one, then the other.
    const steady: [number, Awaited<ReturnType<typeof cpuAtRate>>, Awaited<ReturnType<typeof cpuAtRate>>][] = [];
    const rateSeconds = options.smoke ? 1 : 8;
    const input = JSON.parse(body) as unknown;
    for (const rate of options.smoke ? [50] : STEADY_RATES) {
      const onBare = await cpuAtRate(bare.url, org.apiKey, input, bare.pid, rate, rateSeconds);
      const onGateway = await cpuAtRate(stack.gateways[0]!.url, org.apiKey, input, stack.gateways[0]!.process.pid!, rate, rateSeconds);
      steady.push([rate, onBare, onGateway]);
    }
    options.log(`bare ${fixed(baseline.accepted)}/s, gateway ${fixed(gateway.accepted)}/s`);
    const share = gateway.accepted / baseline.accepted;
    const bodyText = [
      `autocannon, ${CONNECTIONS} connections, ${seconds} s each, the same JSON body (the one-page invoice, ${Math.round(body.length / 1024)} KiB).`,
      'The bare handler parses the JSON and answers 202; the gateway authenticates the key,',
      'applies the rate limit (raised out of the way), validates, finds the template, inserts',
      'the document and queues its job. Both on this machine, one process each; the bare',
      'handler runs before and after the gateway, and the share is of the better of its two runs.',
      '',
      markdownTable(
        ['server', 'accepted/s', 'p50 ms', 'p99 ms', 'non-202 or errors', 'vs bare'],
        [
          [
            'bare Express 5, before',
            fixed(bareBefore.accepted),
            bareBefore.p50,
            bareBefore.p99,
            bareBefore.other,
            `${fixed((100 * bareBefore.accepted) / baseline.accepted)}%`,
          ],
          [
            'bare Express 5, after',
            fixed(bareAfter.accepted),
            bareAfter.p50,
            bareAfter.p99,
            bareAfter.other,
            `${fixed((100 * bareAfter.accepted) / baseline.accepted)}%`,
          ],
          ['docgen gateway', fixed(gateway.accepted), gateway.p50, gateway.p99, gateway.other, `${fixed(100 * share)}%`],
        ],
      ),
      '',
      'Where the CPU goes: CPU milliseconds per accepted request, by process (the bench client is autocannon).',
      '',
      markdownTable(Object.keys(cpu), [Object.values(cpu).map((ms) => fixed(ms, 2))]),
      '',
      'The same request at a steady rate (sent on a clock for 8 s, not as fast as answered), CPU',
      "milliseconds of the server's process per request, each server warm from the runs above. At",
      'the rates one replica sees in bench:e2e a request costs both servers several times what it',
      'costs them saturated: the cost per request of a process at low load is not its cost at full load.',
      '',
      markdownTable(
        ['requests/s', 'bare Express 5', 'docgen gateway', 'gateway ÷ bare', 'non-202 (bare / gateway)'],
        [
          ['saturated (autocannon, above)', fixed(bareCpu, 2), fixed(cpu.gateway!, 2), fixed(cpu.gateway! / bareCpu, 1), '—'],
          ...steady.map(([rate, onBare, onGateway]) => [
            rate,
            fixed(onBare.ms, 2),
            fixed(onGateway.ms, 2),
            fixed(onGateway.ms / onBare.ms, 1),
            `${onBare.other} / ${onGateway.other}`,
          ]),
        ],
      ),
      '',
      target('gateway ≥ 35% of bare Express (issue 35)', `${fixed(100 * share)}%`, share >= 0.35),
      // A refusal (a 429 at a cap, a 5xx) is cheaper or dearer than accepting: the share above is only a measure when there are none.
      target('every gateway answer 202', `${gateway.other} were not`, gateway.other === 0),
    ].join('\n');
    publish(options, 'gateway', 'Gateway: accepted POST /documents per second', bodyText);
    return { baseline, gateway, steady };
  } finally {
    bare.stop();
    await stack.close();
  }
}

runWhenMain(module, runGatewayBench);
