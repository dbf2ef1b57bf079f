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

  it('names a variable that may hold a secret without echoing its value', () => {
    const withKeys = z.object({
      ...commonEnv,
      AWS_SECRET_ACCESS_KEY: z.string().min(40, { error: 'must be 40 characters' }),
      PORT: envVar.integer(8080, 0, 65535),
    });
    const env = {
      DATABASE_URL: 'mysql://admin:hunter2-db@db.internal:3306/docgen',
      REDIS_URL: 'http://:hunter2-redis@cache:6379',
      AWS_SECRET_ACCESS_KEY: 'hunter2-aws',
      PORT: 'http://user:hunter2-port@x',
    };
    let message = '';
    try {
      loadConfig(withKeys, env);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('DATABASE_URL: must be a URL starting with postgresql:// or postgres:// (value not shown)');
    expect(message).toContain('REDIS_URL: must be a URL starting with redis:// or rediss:// (value not shown)');
    expect(message).toContain('AWS_SECRET_ACCESS_KEY: must be 40 characters (value not shown)');
    expect(message).toContain('PORT: must be an integer (value not shown)');
    expect(message).not.toMatch(/hunter2/);
  });
});
