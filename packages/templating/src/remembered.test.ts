import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { rememberedByText } from './remembered';

// An entry of a 4-character text counts 2 × 4 + 64 = 72 characters against the bound.
const ENTRY = 72;

describe('rememberedByText', () => {
  it('computes a text once, and again only once the bound has pushed it out', () => {
    const seen: string[] = [];
    const upper = rememberedByText((text) => {
      seen.push(text);
      return { text: text.toUpperCase() };
    }, 2 * ENTRY);
    expect(upper('abcd')).toEqual({ text: 'ABCD' });
    expect(upper('abcd')).toBe(upper('abcd'));
    expect(upper('efgh')).toEqual({ text: 'EFGH' });
    expect(seen).toEqual(['abcd', 'efgh']);
    upper('ijkl'); // a third entry: the least recently used (abcd) goes
    upper('efgh');
    upper('abcd');
    expect(seen).toEqual(['abcd', 'efgh', 'ijkl', 'abcd']);
  });

  it('computes a text past the bound every time instead of keeping it', () => {
    let calls = 0;
    const length = rememberedByText((text) => ({ length: (calls++, text.length) }), ENTRY - 1);
    length('abcd');
    length('abcd');
    expect(calls).toBe(2);
  });
});

describe('what the HTML memos keep', () => {
  /**
   * Bytes of heap a fresh process keeps, after a full collection, for three stored templates
   * prepared and filled once each on the built package (as a worker or an upload check does),
   * per character of those templates.
   */
  function heapKeptPerTemplateChar(): number {
    const program = `
      const lib = require(${JSON.stringify(path.join(__dirname, '..', 'dist', 'index.js'))});
      const template = (t, rows) => Buffer.from('<!doctype html><html><head><style>p { color: red }</style></head><body>' +
        Array.from({ length: rows }, (_, i) => '<p class="c' + i + '">Row ' + i + ' of ' + t + ': {name}</p>').join('') + '</body></html>');
      lib.fillHtml(lib.prepareHtmlTemplate(template('warm', 10)).html, [], {});
      global.gc();
      const before = process.memoryUsage().heapUsed;
      let chars = 0;
      for (let t = 0; t < 3; t++) {
        const prepared = lib.prepareHtmlTemplate(template(t, 5000));
        chars += prepared.html.length;
        lib.fillHtml(prepared.html, prepared.variables, { name: 'Ada' });
      }
      global.gc();
      process.stdout.write(String((process.memoryUsage().heapUsed - before) / chars));`;
    return Number(execFileSync(process.execPath, ['--expose-gc', '-e', program], { encoding: 'utf8' }));
  }

  it('keeps the texts and their results, not the parsed templates (about 7 bytes a character; a parse kept alive makes it 19)', () => {
    expect(heapKeptPerTemplateChar()).toBeLessThan(12);
  });
});
