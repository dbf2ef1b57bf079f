import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertOnce } from '@docgen/converter';
import PizZip from 'pizzip';
import { pngDataUri, solidPng, startCanary, type Canary } from '@docgen/testing';
import { htmlToDocx } from './html-to-docx';
import { rewriteHtml } from './rewrite-html';

/** Every trick we know for making an HTML reader fetch or read something, pointed at the canary or a local file. */
function hostileHtml(canary: string, secretFile: string): string {
  const host = canary.replace(/^http:\/\//, '');
  const file = `file://${secretFile}`;
  return `<!DOCTYPE html SYSTEM "${canary}/doctype.dtd">
<html><head>
<base href="${canary}/base/">
<meta http-equiv="refresh" content="0; url=${canary}/refresh">
<link rel="stylesheet" href="${canary}/link.css"><link rel="import" href="${canary}/import.html"><link rel="icon" href="${file}">
<style>@import url(${canary}/import1.css); @import "${canary}/import2.css";
body { background: url(${canary}/body-bg.png) } @font-face { font-family: x; src: url(${canary}/font.woff) }
p { background-image: u\\72l(${canary}/escaped.png); list-style-image: url(${file}) }
td::before { content: url(${canary}/content.png) }</style>
<style>p{}<\\/style><img src="${canary}/style-escape.png"></style>
<style><img src="${canary}/inside-style.png"></style>
<script src="${canary}/script.js"></script>
</head><body background="${canary}/body.png">
<p>Invoice for {client_name}</p>
<img src="${canary}/plain.png"><img src="//${host}/network-path.png"><img src="${file}"><img src="secret.png">
<img src="&#104;ttp://${host}/entity.png"><img src=" ${canary}/leading-space.png">
<img src="${pngDataUri(20, 20)}" srcset="${canary}/srcset.png 2x" lowsrc="${canary}/lowsrc.png" dynsrc="${canary}/dynsrc.avi">
<img src="data:image/svg+xml;base64,${Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"><image href="${canary}/in-svg-uri.png"/></svg>`).toString('base64')}">
<picture><source srcset="${canary}/picture.png"><img src="${canary}/picture-fallback.png"></picture>
<svg><image href="${canary}/svg.png"/><image xlink:href="${canary}/svg-xlink.png"/><foreignObject><img src="${canary}/foreign.png"></foreignObject></svg>
<math><mglyph src="${canary}/mglyph.png"/></math>
<object data="${canary}/object"></object><embed src="${canary}/embed"><iframe src="${canary}/iframe"></iframe><iframe srcdoc="<img src='${canary}/srcdoc.png'>"></iframe>
<frameset><frame src="${canary}/frame"></frameset><applet code="x" codebase="${canary}/applet"></applet>
<video poster="${canary}/poster.png" src="${canary}/video.mp4"></video><audio src="${canary}/audio.mp3"></audio><bgsound src="${canary}/bgsound.wav">
<input type="image" src="${canary}/input.png"><form action="${canary}/form"><button formaction="${canary}/button">b</button></form>
<table background="${canary}/table.png"><tr><td background="${canary}/td.png" style="background-image: url(${canary}/td-style.png)">{#items}{name}{/items}</td></tr></table>
<p style="background: url('${canary}/p-style.png') no-repeat; color: #c00">coloured</p>
<div style="behavior: url(${canary}/htc); width: expression(alert(1)); -moz-binding: url(${canary}/xbl)">div</div>
<custom-element style="background:url(${canary}/custom.png)">custom</custom-element>
<noscript><img src="${canary}/noscript.png"></noscript><template><img src="${canary}/template.png"></template>
<xmp><b>shown as text</b></xmp><textarea><img src="${canary}/textarea.png"></textarea>
<!--[if IE]><img src="${canary}/conditional.png"><![endif]--><!-- <img src="${canary}/comment.png"> -->
<a href="${file}">local file</a> <a href="javascript:fetch('${canary}/js')">script</a> <a href="\\\\${host}\\share">unc</a>
<a href="https://example.com/terms">terms</a>
</body></html>`;
}

describe('HTML import: a template never makes anything fetch or read on its behalf', () => {
  let canary: Canary;
  let work: string;
  let secretFile: string;

  beforeAll(async () => {
    [canary, work] = await Promise.all([startCanary(), mkdtemp(path.join(tmpdir(), 'docgen-html-security-'))]);
    secretFile = path.join(work, 'secret.png');
    await writeFile(secretFile, solidPng(50, 50, [0, 200, 0]));
  });
  afterAll(async () => {
    await Promise.all([canary.close(), rm(work, { recursive: true, force: true })]);
  });

  it('leaves nothing in the rewritten HTML that names the canary, a local file or a script', () => {
    const { html } = rewriteHtml(hostileHtml(canary.url, secretFile));
    expect(html).not.toMatch(
      /127\.0\.0\.1|file:|javascript:|secret\.png|\\\\|<(?:link|base|meta http|script|svg|math|object|embed|iframe|frame|applet|video|audio|input|picture|noscript|template)\b/i,
    );
    expect(html).not.toMatch(/srcset|lowsrc|dynsrc|poster|background=|url\(|@import|behavior|expression|binding/i);
    expect(html).toMatch(/^<!DOCTYPE html><html>/);
    // What a template is made of stays: text, tags, the data: image, colours, the https link.
    expect(html).toContain('Invoice for {client_name}');
    expect(html).toContain('{#items}{name}{/items}');
    expect(html).toMatch(/<img src="data:image\/png;base64,[^"]+" width="20" height="20">/);
    expect(html).toContain('color: #c00');
    expect(html).toContain('<pre>&lt;b&gt;shown as text&lt;/b&gt;</pre>');
    expect(html).toContain('<a href="https://example.com/terms">terms</a>');
  });

  it('imports with a real LibreOffice and converts the result to PDF without a request to the canary or the local file', async () => {
    const docx = await htmlToDocx(Buffer.from(hostileHtml(canary.url, secretFile), 'utf8'));
    const zip = new PizZip(docx);
    const text = Object.keys(zip.files)
      .filter((name) => /\.(xml|rels)$/.test(name))
      .map((name) => zip.file(name)!.asText())
      .join('\n');
    expect(text).not.toMatch(/127\.0\.0\.1|file:|secret\.png/);
    expect(text).toContain('Invoice for {client_name}');
    const pdfFile = path.join(work, 'out.pdf');
    await writeFile(pdfFile, await convertOnce(docx, { from: 'docx', to: 'pdf' }));
    const images = execFileSync('pdfimages', ['-list', pdfFile]).toString().trim().split('\n').slice(2);
    // Only the 20x20 data: image: not the 50x50 local file.
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/^\s*1\s+0\s+image\s+20\s+20\b/);
    expect(canary.requests).toEqual([]);
    expect(canary.connections()).toBe(0);
  }, 120_000);
});
