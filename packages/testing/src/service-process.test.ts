import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { startService } from './service-process';

/** Pids of the processes whose environment holds `marker`. */
function processesWithMarker(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker);
      } catch {
        return false; // gone, or not ours to read
      }
    })
    .map(Number);
}

describe('startService', () => {
  it('kills a service that never says it listens, instead of leaving it running', async () => {
    const marker = `DOCGEN_TEST_MARKER=${randomUUID()}`;
    const [key, value] = marker.split('=') as [string, string];
    // At warn level the gateway never logs "listening", so the harness gives up on it.
    const start = startService('gateway', { LOG_LEVEL: 'warn', [key]: value }, { startTimeoutMs: 3_000 });
    await expect(start).rejects.toThrow(/gateway did not start within 3000 ms/);
    expect(processesWithMarker(marker)).toEqual([]);
  }, 30_000);
});
