import { printableHtml } from './print-layout';

describe('printableHtml', () => {
  it('sanitises every filled document it is given, one after another, each on its own', () => {
    const hostile = (n: number) =>
      `<!DOCTYPE html><html><head><style>@import url(https://x.test/${n}.css); p { color: red }</style></head>` +
      `<body><header data-page>Head ${n} <span data-page-number></span></header>` +
      `<p>Doc ${n}</p><script>fetch('https://x.test/${n}')</script><img src="https://x.test/${n}.png"><iframe src="https://x.test/"></iframe></body></html>`;
    for (const n of [1, 2]) {
      const printable = printableHtml(hostile(n));
      expect(printable.html).toContain(`<p>Doc ${n}</p>`);
      expect(printable.html).not.toMatch(/script|x\.test|iframe|@import/);
      expect(printable.html).not.toContain('Head');
      expect(printable.headerTemplate).toContain(`Head ${n} <span data-page-number="" class="pageNumber"></span>`);
      expect(printable.headerTemplate).not.toContain(`Head ${3 - n}`);
    }
    const plain = printableHtml('<p>Plain</p>');
    expect(plain.html).toMatch(/^<!DOCTYPE html><html><head><meta charset="utf-8"><style>@page/);
    expect(plain.html).toContain('<body><p>Plain</p></body></html>');
    expect(plain.html).not.toMatch(/Doc|Head/);
    expect(plain.headerTemplate).toBeUndefined();
  });
});
