import { load } from 'cheerio';
import { TEXT_WIDTH_PX } from './page-layout';
import { pngDataUri } from '@docgen/testing';
import { rewriteHtml } from './rewrite-html';

const rewrite = (body: string, head = '') => {
  const { html, removed } = rewriteHtml(`<!doctype html><!-- top --><html><head>${head}</head><body>${body}</body></html>`);
  return { $: load(html), html, removed };
};

describe('rewriteHtml', () => {
  it('removes everything that would be fetched and lists what it removed', () => {
    const { $, html, removed } = rewrite(
      `<script src="http://x/a.js"></script><iframe src="http://x/f"></iframe><object data="http://x/o"></object>
       <embed src="http://x/e"><img src="http://x/i.png"><img src="//x/j.png"><img src="data:image/svg+xml;base64,PHN2Zz4=">
       <noscript><img src="http://x/n.png"></noscript><!-- <img src="http://x/c.png"> -->
       <table background="http://x/t.png"><tr><td>{name}</td></tr></table>
       <p style="background: url('http://x/bg.png') no-repeat; color: red">text</p><a href="https://example.com/">link</a>`,
      `<link rel="stylesheet" href="http://x/s.css"><link rel="icon" href="http://x/i.ico"><base href="http://x/">
       <meta http-equiv="refresh" content="0; url=http://x/"><style>@import "http://x/i.css"; body { background: url(http://x/b.png) }</style>`,
    );
    expect(html).not.toMatch(/http:\/\/x|\/\/x\/|<!--/);
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect($('script, iframe, object, embed, link, base, noscript, meta[http-equiv], img').length).toBe(0);
    expect($('p').attr('style')).toContain('color: red');
    expect($('a').attr('href')).toBe('https://example.com/');
    expect($('td').text()).toBe('{name}');
    expect(removed).toEqual(expect.arrayContaining(['<script>', '<link>', '<img src="http://x/i.png">', 'background attribute']));
  });

  it('injects UTF-8 and the 20 mm page margin ahead of the author’s own rules', () => {
    const { $ } = rewrite('<p>Ελληνικά</p>', '<meta charset="windows-1252"><style>@page { margin: 10mm }</style>');
    expect(
      $('meta[charset]')
        .map((_, m) => $(m).attr('charset'))
        .get(),
    ).toEqual(['utf-8']);
    expect(
      $('style')
        .map((_, s) => $(s).text())
        .get(),
    ).toEqual(['@page { margin: 20mm }', '@page { margin: 10mm }']);
  });

  it('turns a border attribute into single CSS borders on the table’s own cells', () => {
    const { $ } = rewrite(
      '<table border="1"><tr><th>a</th><td style="color: red">b<table><tr><td>inner</td></tr></table></td></tr></table><table border="0"><tr><td>c</td></tr></table>',
    );
    const [outer, inner, noBorder] = $('table')
      .toArray()
      .map((t) => $(t));
    expect(outer!.attr('border')).toBeUndefined();
    expect(outer!.attr('style')).toBe('border-collapse: collapse');
    expect(outer!.find('th').attr('style')).toBe('border: 0.75pt solid #000000');
    expect(outer!.find('td').first().attr('style')).toBe('border: 0.75pt solid #000000; color: red');
    expect(inner!.find('td').attr('style')).toBeUndefined();
    expect(noBorder!.attr('border')).toBeUndefined();
    expect(noBorder!.find('td').attr('style')).toBeUndefined();
  });

  it('caps images at the text width, keeping the aspect ratio, and leaves small images alone', () => {
    const { $ } = rewrite(
      `<img id="big" src="${pngDataUri(1600, 400)}" style="max-width: 100%; border: 0"><img id="small" src="${pngDataUri(100, 50)}">` +
        `<img id="percent" src="${pngDataUri(100, 50)}" width="100%"><img id="given" src="${pngDataUri(100, 50)}" width="40">`,
    );
    const size = (id: string) => [$(`#${id}`).attr('width'), $(`#${id}`).attr('height')];
    expect(TEXT_WIDTH_PX).toBe(642);
    expect(size('big')).toEqual(['642', '161']);
    expect($('#big').attr('style')).toBe('border: 0');
    expect(size('small')).toEqual(['100', '50']);
    expect(size('percent')).toEqual(['100', '50']);
    expect(size('given')).toEqual(['40', '20']);
  });
});
