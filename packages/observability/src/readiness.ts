export interface ReadinessCheck {
  /** The dependency's name as an operator knows it: "postgresql", "redis". */
  name: string;
  check: () => Promise<unknown>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, 'ok' | 'down'>;
  detail?: string;
}

const CHECK_TIMEOUT_MS = 2_000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check in parallel; the report names each dependency that is down. */
export async function checkReadiness(checks: ReadinessCheck[]): Promise<ReadinessReport> {
  const results = await Promise.all(
    checks.map(async ({ name, check }) => {
      try {
        await withTimeout(check(), CHECK_TIMEOUT_MS);
        return [name, 'ok'] as const;
      } catch {
        return [name, 'down'] as const;
      }
    }),
  );
  const down = results.filter(([, state]) => state === 'down').map(([name]) => name);
  const report: ReadinessReport = { ready: down.length === 0, checks: Object.fromEntries(results) };
  if (down.length > 0) report.detail = `Service unavailable: ${down.join(' and ')} ${down.length > 1 ? 'are' : 'is'} unreachable`;
  return report;
}
