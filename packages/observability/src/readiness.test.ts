import { checkReadiness } from './readiness';

describe('checkReadiness', () => {
  it('is ready when every check answers', async () => {
    const report = await checkReadiness([{ name: 'redis', check: async () => 'PONG' }]);
    expect(report).toEqual({ ready: true, checks: { redis: 'ok' } });
  });

  it('names each dependency that is down', async () => {
    const report = await checkReadiness([
      {
        name: 'postgresql',
        check: async () => {
          throw new Error('ECONNREFUSED');
        },
      },
      { name: 'redis', check: async () => 'PONG' },
    ]);
    expect(report.ready).toBe(false);
    expect(report.checks).toEqual({ postgresql: 'down', redis: 'ok' });
    expect(report.detail).toBe('Service unavailable: postgresql is unreachable');
  });
});
