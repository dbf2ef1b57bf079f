import { VariablesPatch, isDateFormat } from './index';

describe('date formats', () => {
  it.each(['YYYY-MM-DD', 'DD/MM/YYYY', 'D MMMM YYYY', 'dddd, D. MMMM YYYY', '[Week of] D MMM', 'MMMMM'])('accepts %s', (format) => {
    expect(isDateFormat(format)).toBe(true);
  });

  it.each(['', 'YYY', 'Q', 'DD/MM/YYYY hh:mm', '[unclosed'])('refuses %j', (format) => {
    expect(isDateFormat(format)).toBe(false);
  });

  // The old single regex backtracked exponentially here (27 letters took ~10 s): a jest
  // timeout, not a clock, is what catches a regression.
  it('reads a long run of overlapping tokens in linear time', () => {
    const hostile = `${'M'.repeat(99)}a`;
    expect(isDateFormat(hostile)).toBe(false);
    const patch = VariablesPatch.safeParse({ variables: [{ name: 'due', type: 'date', format: hostile }] });
    expect(patch.success).toBe(false);
  });
});
