import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** cheerio's and css-tree's files loaded in a fresh Node process after `script` has run on the built package (as the services load it). */
function htmlLibrariesLoadedAfter(script: string): string[] {
  const program = `
    const templating = require(${JSON.stringify(path.join(__dirname, '..', '..', 'dist', 'index.js'))});
    ${script}
    const loaded = new Set(Object.keys(require.cache).map((file) => /\\/(cheerio|css-tree)\\//.exec(file)?.[1]).filter(Boolean));
    process.stdout.write(JSON.stringify([...loaded].sort()));`;
  return JSON.parse(execFileSync(process.execPath, ['-e', program], { encoding: 'utf8' })) as string[];
}

describe('the HTML libraries are loaded on first use', () => {
  it('not by loading the package, as every gateway and render worker does at start', () => {
    expect(htmlLibrariesLoadedAfter('')).toEqual([]);
  });

  it('by the first HTML template read', () => {
    const html = '<html><head><style>p { color: red }</style></head><body><p style="margin: 0">{name}</p></body></html>';
    const script = `const prepared = templating.prepareHtmlTemplate(Buffer.from(${JSON.stringify(html)}));
      if (!prepared.html.includes('{name}')) throw new Error('not prepared');`;
    expect(htmlLibrariesLoadedAfter(script)).toEqual(['cheerio', 'css-tree']);
  });
});
