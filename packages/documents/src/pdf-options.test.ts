import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
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

  it('takes half of a smaller pool: one hash at a time on two threads', () => {
    // libuv reads the pool's size once per process: a process of its own, on the built package. One password a request, so
    // a read queued behind a hash on each thread ends after the first of them.
    const script = `
      const { readFile } = require('node:fs/promises');
      const { hashablePdfOptions, HASHES_AT_ONCE } = require('./dist/pdf-options.js');
      let hashed = 0;
      const hashes = Array.from({ length: 8 }, (_, i) => hashablePdfOptions({ password: 'p' + i }, 'org:key' + i).then(() => (hashed += 1)));
      readFile('package.json').then(async () => {
        const beforeRead = hashed;
        await Promise.all(hashes);
        console.log(JSON.stringify({ beforeRead, hashed, atOnce: HASHES_AT_ONCE }));
      });`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: path.join(__dirname, '..'), env: { ...process.env, UV_THREADPOOL_SIZE: '2' } });
    expect(JSON.parse(out.toString())).toEqual({ beforeRead: 0, hashed: 8, atOnce: 1 });
  });
});
