import { fileNamer, fileNameProblem } from './file-names';

describe('bulk ZIP file names from a pattern', () => {
  it('fills the pattern with each row, sanitises it, and numbers repeats', () => {
    const name = fileNamer('{invoice_number}-{client_name}');
    expect(name({ invoice_number: 'INV-42', client_name: 'ACME Corp' }, 'row-0002', 'pdf')).toBe('INV-42-ACME Corp.pdf');
    expect(name({ invoice_number: 'INV-42', client_name: 'acme corp' }, 'row-0003', 'pdf')).toBe('INV-42-acme corp-2.pdf');
    expect(name({ invoice_number: 'INV-42', client_name: 'ACME Corp' }, 'row-0004', 'pdf')).toBe('INV-42-ACME Corp-3.pdf');
    // The same stem in another format is another file.
    expect(name({ invoice_number: 'INV-42', client_name: 'ACME Corp' }, 'row-0002', 'docx')).toBe('INV-42-ACME Corp.docx');
  });

  it('never lets a value leave the ZIP folder or name a hidden or empty file', () => {
    const name = fileNamer('{a}');
    expect(name({ a: '../../etc/passwd' }, 'row-0002', 'pdf')).toBe('_.._etc_passwd.pdf'); // no separator is left, so no path;
    expect(name({ a: 'C:\\Windows\\evil' }, 'row-0003', 'pdf')).toBe('C_Windows_evil.pdf');
    expect(name({ a: '..' }, 'row-0004', 'pdf')).toBe('row-0004.pdf');
    expect(name({ a: '.hidden' }, 'row-0005', 'pdf')).toBe('hidden.pdf');
    expect(name({ a: 'tab\there\u0000nul' }, 'row-0006', 'pdf')).toBe('tab_here_nul.pdf');
    expect(name({}, 'row-0007', 'pdf')).toBe('row-0007.pdf');
    expect(name({ a: { nested: true } }, 'row-0008', 'pdf')).toBe('row-0008.pdf');
    expect(name({ a: 'x'.repeat(500) }, 'row-0009', 'pdf')).toBe(`${'x'.repeat(100)}.pdf`);
  });

  it('never names a file as a Windows device, and never cuts a character in half', () => {
    const name = fileNamer('{a}');
    const names = ['CON', 'con.pdf', 'Nul .txt', 'aux', 'PRN', 'com1', 'LPT9', 'COM¹'].map((a, i) => name({ a }, `row-${i}`, 'pdf'));
    expect(names).toEqual(['CON_.pdf', 'con_.pdf.pdf', 'Nul_ .txt.pdf', 'aux_.pdf', 'PRN_.pdf', 'com1_.pdf', 'LPT9_.pdf', 'COM¹_.pdf']);
    // Only whole names: these are ordinary files.
    expect(['console', 'com10', 'nullable', 'my con'].map((a, i) => name({ a }, `row-${i}`, 'pdf'))).toEqual([
      'console.pdf',
      'com10.pdf',
      'nullable.pdf',
      'my con.pdf',
    ]);
    // The 100th character is an emoji (two UTF-16 units): kept whole, not half a surrogate pair.
    expect(name({ a: `${'x'.repeat(99)}😀tail` }, 'row-0002', 'pdf')).toBe(`${'x'.repeat(99)}😀.pdf`);
  });

  it('names a file from a long run of dots and spaces in time linear in the value (a row may hold a megabyte)', () => {
    const name = fileNamer('{a}');
    const started = process.hrtime.bigint();
    // /[\s.]+$/ tried from each position of the run: about 10^10 steps for this value; a loop: 10^5.
    expect(name({ a: `a${'. '.repeat(100_000)}b` }, 'row-0002', 'pdf')).toBe(`a${'. '.repeat(49)}..pdf`);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
  });

  it('keeps a name within what file systems take in bytes (255), cutting between whole characters', () => {
    const name = fileNamer('{a}');
    // 100 CJK characters are 300 bytes of UTF-8: cut to 66 (198 bytes), and a repeat's suffix still fits.
    const cjk = '請求書'.repeat(40);
    expect(name({ a: cjk }, 'row-0002', 'docx')).toBe(`${cjk.slice(0, 66)}.docx`);
    const repeat = name({ a: cjk }, 'row-0003', 'docx');
    expect(repeat).toBe(`${cjk.slice(0, 66)}-2.docx`);
    expect(Buffer.byteLength(repeat)).toBeLessThanOrEqual(255);
    // A letter with an accent that has no precomposed form (x + U+0301: 2 code points, 3 bytes) is kept whole or left out.
    expect(name({ a: `${'ж'.repeat(98)}x\u0301tail` }, 'row-0004', 'pdf')).toBe(`${'ж'.repeat(98)}x\u0301.pdf`);
    expect(name({ a: `${'ж'.repeat(99)}x\u0301` }, 'row-0005', 'pdf')).toBe(`${'ж'.repeat(99)}.pdf`);
  });

  it('refuses a pattern that names no token, an unknown one, or a stray brace', () => {
    const tokens = ['invoice_number', 'client_name'];
    expect(fileNameProblem('{invoice_number}', tokens)).toBeUndefined();
    expect(fileNameProblem('invoice', tokens)).toBe('must name at least one token, like {invoice_number}');
    expect(fileNameProblem('{total}', tokens)).toBe('names {total}, not a token of this template; the tokens are invoice_number, client_name');
    expect(fileNameProblem('{invoice_number', tokens)).toBe('has a "{" or "}" that opens or closes no tag');
    expect(fileNameProblem(`{invoice_number}${'x'.repeat(200)}`, tokens)).toBe('must be at most 200 characters');
  });
});
