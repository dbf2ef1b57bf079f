import path from 'node:path';
import { packagesLoadedAfter } from '@docgen/testing';

/** cheerio and css-tree, those loaded in a fresh Node process after `script` has run on the built package (as the services load it). */
const htmlLibrariesLoadedAfter = (script: string): string[] =>
  packagesLoadedAfter(path.join(__dirname, '..', '..', 'dist', 'index.js'), script, ['cheerio', 'css-tree']);

describe('the HTML libraries are loaded on first use', () => {
  it('not by loading the package, as every gateway and render worker does at start', () => {
    expect(htmlLibrariesLoadedAfter('')).toEqual([]);
  });

  it('by the first HTML template read', () => {
    const html = '<html><head><style>p { color: red }</style></head><body><p style="margin: 0">{name}</p></body></html>';
    const script = `const prepared = lib.prepareHtmlTemplate(Buffer.from(${JSON.stringify(html)}));
      if (!prepared.html.includes('{name}')) throw new Error('not prepared');`;
    expect(htmlLibrariesLoadedAfter(script)).toEqual(['cheerio', 'css-tree']);
  });
});
