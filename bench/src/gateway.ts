import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { apiClient, repoRoot, startStack } from '@docgen/testing';
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
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
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
    const bareAfter = await load(bare.url, headers, body, seconds);
    const baseline = bareBefore.accepted >= bareAfter.accepted ? bareBefore : bareAfter;
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
      target('gateway ≥ 35% of bare Express (issue 35)', `${fixed(100 * share)}%`, share >= 0.35),
      // A refusal (a 429 at a cap, a 5xx) is cheaper or dearer than accepting: the share above is only a measure when there are none.
      target('every gateway answer 202', `${gateway.other} were not`, gateway.other === 0),
    ].join('\n');
    publish(options, 'gateway', 'Gateway: accepted POST /documents per second', bodyText);
    return { baseline, gateway };
  } finally {
    bare.stop();
    await stack.close();
  }
}

runWhenMain(module, runGatewayBench);
