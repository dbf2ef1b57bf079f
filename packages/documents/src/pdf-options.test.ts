import { readFile } from 'node:fs/promises';
import { hashablePdfOptions } from './pdf-options';

describe('hashablePdfOptions', () => {
  it('hashes each password slowly and salted: another password, organisation or key is another hash', async () => {
    const a = await hashablePdfOptions({ password: 'open', owner_password: 'own' }, 'org:key');
    expect(a).toEqual({ password: expect.stringMatching(/^[0-9a-f]{64}$/), owner_password: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await hashablePdfOptions({ password: 'open', owner_password: 'own' }, 'org:key')).toEqual(a);
    expect((await hashablePdfOptions({ password: 'open' }, 'org:other-key'))!.password).not.toBe(a!.password);
    expect((await hashablePdfOptions({ password: 'opem' }, 'org:key'))!.password).not.toBe(a!.password);
  });

  it("leaves libuv's thread pool room for file reads however many requests with passwords arrive at once", async () => {
    let hashed = 0;
    const hashes = Array.from({ length: 8 }, (_, i) =>
      hashablePdfOptions({ password: `p${i}`, owner_password: `o${i}` }, `org:key${i}`).then(() => (hashed += 1)),
    );
    // Queued behind sixteen scrypt runs on four threads, the read would end after most of them.
    await readFile(__filename);
    expect(hashed).toBe(0);
    await Promise.all(hashes);
    expect(hashed).toBe(8);
  });
});
