import { generatePassword, hashPassword, verifyPassword } from './passwords';
import { csrfTokenFor, csrfTokenMatches, generateSessionToken, hashSessionToken, looksLikeSessionToken } from './session-tokens';

describe('passwords', () => {
  it('hashes with argon2id and verifies only the right password', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(stored, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse batterY')).toBe(false);
    expect(await verifyPassword('not a hash', 'anything')).toBe(false);
  });

  it('generates distinct 20-character passwords', () => {
    const a = generatePassword();
    expect(a).toHaveLength(20);
    expect(a).not.toBe(generatePassword());
  });
});

describe('session tokens', () => {
  it('stores only a hash and binds the CSRF token to the session', () => {
    const { token, hash } = generateSessionToken();
    expect(looksLikeSessionToken(token)).toBe(true);
    expect(hash).toBe(hashSessionToken(token));
    expect(hash).not.toContain(token);
    expect(csrfTokenMatches(token, csrfTokenFor(token))).toBe(true);
    expect(csrfTokenMatches(generateSessionToken().token, csrfTokenFor(token))).toBe(false);
    expect(csrfTokenMatches(token, undefined)).toBe(false);
    expect(csrfTokenMatches(token, 'short')).toBe(false);
  });
});
