import { startService, startStack, type RunningService, type TestCertificates } from '@docgen/testing';
import { MEMORY_SCRATCH_DIR } from '../scratch';

/**
 * The soak's services: a stack that starts no render worker itself, and `startWorker`, which
 * starts one (and again, up to three tries). `close` stops every worker started and the stack.
 */
export async function startSoakServices(lockMs: number, certificates: TestCertificates, log: (line: string) => void) {
  const stack = await startStack({
    workers: 0,
    keepLogs: false,
    env: {
      // Two workers of one LibreOffice instance and one Chromium page each: two of each on two cores, as bench:e2e's one worker has.
      CONVERTER_POOL_SIZE: '1',
      HTML_PRINTER_PAGES: '1',
      OUTBOUND_ALLOW_PRIVATE: 'true',
      NODE_EXTRA_CA_CERTS: certificates.caPath,
      RENDER_LOCK_MS: String(lockMs),
      ...(MEMORY_SCRATCH_DIR ? { TMPDIR: MEMORY_SCRATCH_DIR } : {}),
    },
  });
  /** Every worker started, to stop them all at the end (stack.close stops only what stack.start started). */
  const started: RunningService[] = [];
  const startWorker = async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const worker = await startService('render-worker', stack.env, { keepLogs: false, startTimeoutMs: 90_000 });
        started.push(worker);
        return worker;
      } catch (error) {
        if (attempt === 3) throw error;
        log(`render worker did not start (${(error as Error).message.slice(0, 200)}); again`);
      }
    }
  };
  const close = async () => {
    await Promise.allSettled(started.map((worker) => worker.stop('SIGKILL')));
    await stack.close();
  };
  return { stack, startWorker, close };
}
