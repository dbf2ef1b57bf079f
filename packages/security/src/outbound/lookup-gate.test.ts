import type { LookupAddress } from 'node:dns';
import { LookupGate } from './lookup-gate';

type Answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** A name server that answers only when the test says so, as a stranger's slow one would. */
function heldResolver() {
  const asked: { hostname: string; answer: Answer }[] = [];
  const lookup = (hostname: string, _options: unknown, answer: Answer) => void asked.push({ hostname, answer });
  return { asked, lookup };
}

const resolveWith = (gate: LookupGate, hostname: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => gate.resolve(hostname, (error, addresses) => (error ? reject(error) : resolve(addresses))));

describe('LookupGate', () => {
  it('runs at most two lookups at once; the next starts when one is answered', async () => {
    const resolver = heldResolver();
    const gate = new LookupGate(resolver.lookup, 2, 60_000);
    const answers = ['a.example', 'b.example', 'c.example'].map((host) => resolveWith(gate, host));
    expect(resolver.asked.map((ask) => ask.hostname)).toEqual(['a.example', 'b.example']);
    resolver.asked[1]!.answer(null, [{ address: '192.0.2.2', family: 4 }]);
    expect(await answers[1]).toEqual([{ address: '192.0.2.2', family: 4 }]);
    expect(resolver.asked.map((ask) => ask.hostname)).toEqual(['a.example', 'b.example', 'c.example']);
    resolver.asked[0]!.answer(null, [{ address: '192.0.2.1', family: 4 }]);
    resolver.asked[2]!.answer(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    expect(await answers[0]).toEqual([{ address: '192.0.2.1', family: 4 }]);
    await expect(answers[2]).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('fails a lookup past its time limit, waiting included; a slow lookup keeps its thread until answered, one that timed out waiting never starts', async () => {
    const resolver = heldResolver();
    const gate = new LookupGate(resolver.lookup, 1, 200);
    const slow = resolveWith(gate, 'slow.example');
    const queued = resolveWith(gate, 'queued.example');
    await expect(slow).rejects.toThrow('looking up slow.example took longer than 0.2 s');
    await expect(queued).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(resolver.asked.map((ask) => ask.hostname)).toEqual(['slow.example']);
    // The late answer frees the thread for the next lookup; nobody hears it.
    const next = resolveWith(gate, 'next.example');
    expect(resolver.asked).toHaveLength(1);
    resolver.asked[0]!.answer(null, [{ address: '192.0.2.9', family: 4 }]);
    expect(resolver.asked.map((ask) => ask.hostname)).toEqual(['slow.example', 'next.example']);
    resolver.asked[1]!.answer(null, [{ address: '192.0.2.10', family: 4 }]);
    expect(await next).toEqual([{ address: '192.0.2.10', family: 4 }]);
  });

  it("uses the system's resolver by default", async () => {
    expect((await resolveWith(new LookupGate(), 'localhost')).map((address) => address.address)).toContain('127.0.0.1');
  });
});
