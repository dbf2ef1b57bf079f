import { z } from 'zod';
import { commonEnv, envVar, loadConfig, ConfigError } from './index';

const schema = z.object({ ...commonEnv, PORT: envVar.integer(8080, 0, 65535), FLAG: envVar.boolean(false) });

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig(schema, {});
    expect(config).toMatchObject({
      PORT: 8080,
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/docgen',
      REDIS_URL: 'redis://127.0.0.1:6379',
      FLAG: false,
    });
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig(schema, { PORT: '' }).PORT).toBe(8080);
  });

  it('names every bad variable on one line', () => {
    const attempt = () => loadConfig(schema, { PORT: 'eighty', REDIS_URL: 'http://x', FLAG: 'yes' });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toContain('PORT: must be an integer (got "eighty")');
      expect(message).toContain('REDIS_URL: must be a URL starting with redis:// or rediss://');
      expect(message).toContain('FLAG: must be true or false');
    }
  });

  it('rejects out-of-range integers', () => {
    expect(() => loadConfig(schema, { PORT: '70000' })).toThrow('PORT: must be at most 65535');
  });
});
