import { ACTIVE_COUNT_FRESH_MS, ActiveDocumentCounts } from './active-document-counts';

describe('ActiveDocumentCounts (one gateway replica’s view of MAX_ACTIVE_PER_ORG)', () => {
  let clock = 0;
  const counts = () => new ActiveDocumentCounts(() => clock);
  beforeEach(() => (clock = 1_000_000));
  /** A count of `active` recorded for `org`, as a counting insert records it. */
  const counted = (view: ActiveDocumentCounts, org: string, active: number) => view.record(view.countSent(org), active);

  it('asks for a count until it has one, then reserves places up to the cap while the count is fresh', () => {
    const view = counts();
    expect(view.tryReserve('org', 3)).toBe(false);
    counted(view, 'org', 1);
    expect(view.tryReserve('org', 3)).toBe(true);
    expect(view.tryReserve('org', 3)).toBe(true);
    // 1 counted + 2 reserved: at the cap, so the next insert counts in PostgreSQL again.
    expect(view.tryReserve('org', 3)).toBe(false);
  });

  it('gives back a place whose insert inserted nothing, and counts again once the count is older than ACTIVE_COUNT_FRESH_MS', () => {
    const view = counts();
    counted(view, 'org', 2);
    expect(view.tryReserve('org', 3)).toBe(true);
    view.finishReserved('org', false);
    expect(view.tryReserve('org', 3)).toBe(true);
    view.finishReserved('org', true);
    expect(view.tryReserve('org', 3)).toBe(false);
    clock += ACTIVE_COUNT_FRESH_MS + 1;
    counted(view, 'org', 0);
    expect(view.tryReserve('org', 3)).toBe(true);
    clock += ACTIVE_COUNT_FRESH_MS + 1;
    expect(view.tryReserve('org', 3)).toBe(false);
  });

  it('keeps inserts still on their way when a count comes back: they may not be in it', () => {
    const view = counts();
    counted(view, 'org', 0);
    expect(view.tryReserve('org', 3)).toBe(true); // on its way
    expect(view.tryReserve('org', 3)).toBe(true);
    view.finishReserved('org', true); // one finished before the next count was sent: that count holds it
    const ticket = view.countSent('org');
    view.finishReserved('org', true); // the other finished after: maybe not in the count
    view.record(ticket, 1);
    // 1 counted + 1 not known to be in it = 2: room for one more under 3, not two.
    expect(view.tryReserve('org', 3)).toBe(true);
    expect(view.tryReserve('org', 3)).toBe(false);
  });

  it('ignores a count sent before a newer one or before forget(), and dates a count from when it was sent', () => {
    const view = counts();
    const older = view.countSent('org');
    const newer = view.countSent('org');
    view.record(newer, 5);
    view.record(older, 0);
    expect(view.tryReserve('org', 5)).toBe(false); // still 5, the older 0 was ignored

    const beforeBulk = view.countSent('org');
    view.forget('org'); // a bulk job added its rows after that count was sent
    view.record(beforeBulk, 0);
    expect(view.tryReserve('org', 5)).toBe(false);

    const slow = view.countSent('org');
    clock += ACTIVE_COUNT_FRESH_MS + 1; // its answer took longer than the count stays fresh
    view.record(slow, 0);
    expect(view.tryReserve('org', 5)).toBe(false);
  });

  it('keeps organisations apart, and holds at most 10,000, dropping the one used longest ago', () => {
    const view = counts();
    counted(view, 'a', 0);
    counted(view, 'b', 5);
    expect(view.tryReserve('b', 5)).toBe(false);
    expect(view.tryReserve('a', 5)).toBe(true);
    for (let i = 0; i < 10_000; i += 1) counted(view, `org-${i}`, 0);
    expect(view.tryReserve('a', 5)).toBe(false);
    expect(view.tryReserve('org-0', 1)).toBe(true);
  });
});
