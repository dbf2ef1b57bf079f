import { ACTIVE_COUNT_FRESH_MS, ActiveDocumentCounts } from './active-document-counts';

describe('ActiveDocumentCounts (one gateway replica’s view of MAX_ACTIVE_PER_ORG)', () => {
  let clock = 0;
  const counts = () => new ActiveDocumentCounts(() => clock);
  beforeEach(() => (clock = 1_000_000));

  it('asks for a count until it has one, then reserves places up to the cap while the count is fresh', () => {
    const view = counts();
    expect(view.tryReserve('org', 3)).toBe(false);
    view.record('org', 1);
    expect(view.tryReserve('org', 3)).toBe(true);
    expect(view.tryReserve('org', 3)).toBe(true);
    // 1 counted + 2 reserved: at the cap, so the next insert counts in PostgreSQL again.
    expect(view.tryReserve('org', 3)).toBe(false);
  });

  it('gives back a place not used, and counts again once the count is older than ACTIVE_COUNT_FRESH_MS', () => {
    const view = counts();
    view.record('org', 2);
    expect(view.tryReserve('org', 3)).toBe(true);
    view.release('org');
    expect(view.tryReserve('org', 3)).toBe(true);
    view.release('org');
    clock += ACTIVE_COUNT_FRESH_MS + 1;
    expect(view.tryReserve('org', 3)).toBe(false);
  });

  it('keeps organisations apart, and forgets one whose documents were added another way', () => {
    const view = counts();
    view.record('a', 0);
    view.record('b', 5);
    expect(view.tryReserve('b', 5)).toBe(false);
    expect(view.tryReserve('a', 5)).toBe(true);
    view.forget('a');
    expect(view.tryReserve('a', 5)).toBe(false);
  });

  it('holds at most 10,000 organisations, dropping the one counted longest ago', () => {
    const view = counts();
    for (let i = 0; i <= 10_000; i += 1) view.record(`org-${i}`, 0);
    expect(view.tryReserve('org-0', 1)).toBe(false);
    expect(view.tryReserve('org-1', 1)).toBe(true);
    expect(view.tryReserve('org-10000', 1)).toBe(true);
  });
});
