import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-keys';

describe('API keys', () => {
  it('generates svc_ keys with 40 base62 characters, a display prefix and a SHA-256 hash', () => {
    const { key, hash, prefix } = generateApiKey();
    expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
    expect(prefix).toBe(key.slice(0, 12));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(hashApiKey(key));
  });

  it('never generates the same key twice', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));
    expect(keys.size).toBe(1000);
  });

  it('recognises the key shape', () => {
    expect(looksLikeApiKey(generateApiKey().key)).toBe(true);
    expect(looksLikeApiKey('sk_live_abcdefghijklmnopqrstuvwxyz')).toBe(false);
    expect(looksLikeApiKey('svc_short')).toBe(false);
    expect(looksLikeApiKey('svc_has spaces and more chars')).toBe(false);
  });
});
