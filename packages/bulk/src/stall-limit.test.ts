import { BulkInputError } from './bulk-input-error';
import { withStallLimit } from './stall-limit';

describe('withStallLimit', () => {
  it('closes its source when the reader stops early', async () => {
    let closed = false;
    async function* source() {
      try {
        yield 1;
        yield 2;
      } finally {
        closed = true;
      }
    }
    for await (const value of withStallLimit(source(), 1_000)) {
      expect(value).toBe(1);
      break;
    }
    expect(closed).toBe(true);
  });

  it('fails when the next value does not come in time', async () => {
    async function* stalls() {
      yield 1;
      await new Promise(() => {});
    }
    const seen: number[] = [];
    const reading = (async () => {
      for await (const value of withStallLimit(stalls(), 50)) seen.push(value);
    })();
    await expect(reading).rejects.toBeInstanceOf(BulkInputError);
    expect(seen).toEqual([1]);
  });
});
