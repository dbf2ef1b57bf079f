import fc from 'fast-check';
import PizZip from 'pizzip';
import { withHiddenEntry } from '@docgen/testing';

// Text an attacker (or a broken editor) puts into XML parts, HTML, CSV cells and JSON strings.
export const NASTY = [
  '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>',
  '&e;',
  '&#0;',
  '&amp',
  ']]>',
  '<![CDATA[',
  '<?xml version="1.0" encoding="UTF-7"?>',
  '<?xml version="1.0" encoding="ISO-8859-1"?>',
  '</w:t>',
  '<w:t>',
  'TargetMode="external"',
  "TargetMode='External'",
  'r:link="rId1"',
  'Target="file:///etc/passwd"',
  '{',
  '}',
  '{#',
  '{/',
  '{%',
  '{@raw}',
  '{{',
  '}}',
  '{#a}{#b}{/a}{/b}',
  '\u0000',
  '\uFFFF',
  '\uD800',
  '\u202E',
  '+ADw-Relationship TargetMode="External" Target="http://127.0.0.1:9/"/+AD4-',
  'x'.repeat(5_000),
  '<'.repeat(200),
  '<div>'.repeat(600),
  '<w:p>'.repeat(3_000),
  `<w:p w:rsidR="${'A'.repeat(200_000)}">`,
  '<svg><image href="http://127.0.0.1:9/"/>',
  '<style>@import url(http://127.0.0.1:9/)</style>',
  '<img src="file:///etc/passwd">',
  '<img srcset="http://127.0.0.1:9/a.png 2x">',
  '<link rel="stylesheet" href="http://127.0.0.1:9/x.css">',
  '<meta http-equiv="refresh" content="0;url=http://127.0.0.1:9/">',
  '<base href="http://127.0.0.1:9/">',
  '<iframe src="http://127.0.0.1:9/"></iframe>',
  '<p style="background:image-set(url(http://127.0.0.1:9/a.png) 1x)">',
  ' INCLUDEPICTURE "http://127.0.0.1:9/x" ',
  '<w:fldSimple w:instr="DDEAUTO x"/>',
  "=cmd|' /C calc'!A0",
];

const edit = (content: string, at: number, text: string, how: 'insert' | 'replace') => {
  const position = at % (content.length + 1);
  return content.slice(0, position) + text + content.slice(how === 'replace' ? position + text.length : position);
};

/**
 * Mutations of a zip package (DOCX, XLSX): bit flips and truncation of its bytes; parts
 * edited with hostile text, deleted, renamed, re-encoded (UTF-16, or declared in another
 * encoding); entries reordered; an entry hidden in front of the central directory's.
 */
export function zipMutation(bases: Buffer[]): fc.Arbitrary<Buffer> {
  const base = fc.constantFrom(...bases);
  const flips = fc.tuple(base, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 })).map(([file, edits]) => {
    const copy = Buffer.from(file);
    for (const [at, value] of edits) copy[at % copy.length] = value;
    return copy;
  });
  const truncated = fc.tuple(base, fc.double({ min: 0, max: 1, noNaN: true })).map(([file, keep]) => file.subarray(0, Math.floor(file.length * keep)));
  const partEdit = fc
    .tuple(
      base,
      fc.nat(),
      fc.nat(),
      fc.constantFrom(...NASTY),
      fc.constantFrom('insert', 'replace', 'delete', 'rename', 'utf16', 'latin1') as fc.Arbitrary<string>,
    )
    .map(([file, which, at, text, how]) => {
      const zip = new PizZip(file);
      const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
      const name = names[which % names.length]!;
      const content = zip.file(name)!.asText();
      if (how === 'delete') zip.remove(name);
      else if (how === 'rename') {
        zip.remove(name);
        zip.file(`${name}.moved`, content);
      } else if (how === 'utf16') zip.file(name, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(edit(content, at, text, 'insert'), 'utf16le')]));
      else if (how === 'latin1') zip.file(name, Buffer.from(content.replace(/^<\?xml[^>]*\?>/, '<?xml version="1.0" encoding="ISO-8859-1"?>'), 'latin1'));
      else zip.file(name, edit(content, at, text, how as 'insert' | 'replace'));
      return zip.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
    });
  const reordered = fc.tuple(base, fc.nat()).map(([file, seed]) => {
    const zip = new PizZip(file);
    const entries = Object.keys(zip.files)
      .filter((name) => !zip.files[name]!.dir)
      .map((name) => [name, zip.file(name)!.asUint8Array()] as const);
    const shuffled = new PizZip();
    let state = seed || 1;
    const order = entries.map((entry) => ({ entry, key: (state = (state * 1103515245 + 12345) % 2 ** 31) }));
    for (const { entry } of order.sort((a, b) => a.key - b.key)) shuffled.file(entry[0], entry[1]);
    return shuffled.generate({ type: 'nodebuffer', compression: 'DEFLATE' });
  });
  const hidden = fc.tuple(base, fc.nat(), fc.constantFrom(...NASTY)).map(([file, which, text]) => {
    const zip = new PizZip(file);
    const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
    const name = names[which % names.length]!;
    return withHiddenEntry(file, name, edit(zip.file(name)!.asText(), which, text, 'insert'));
  });
  return fc.oneof(flips, truncated, partEdit, partEdit, reordered, hidden);
}

const HTML_BASE =
  '<!doctype html><html><head><style>p { color: red }</style></head><body><p>Dear {name}</p><table border="1"><tr><td>{#items}{x}{/items}</td></tr></table></body></html>';

/** Mutations of an HTML template: hostile pieces inserted as text, junk bytes, another declared charset, deep nesting. */
export function htmlMutation(): fc.Arbitrary<Buffer> {
  const text = fc
    .tuple(fc.nat(), fc.array(fc.constantFrom(...NASTY), { minLength: 1, maxLength: 4 }))
    .map(([at, pieces]) => Buffer.from(edit(HTML_BASE, at, pieces.join(''), 'insert'), 'utf8'));
  const bytes = fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 8 })).map(([at, junk]) => {
    const file = Buffer.from(HTML_BASE, 'utf8');
    const position = at % file.length;
    return Buffer.concat([file.subarray(0, position), Buffer.from(junk), file.subarray(position)]);
  });
  const charset = fc
    .constantFrom('utf-7', 'utf-16', 'iso-2022-jp', 'x-user-defined')
    .map((name) => Buffer.from(HTML_BASE.replace('<head>', `<head><meta charset="${name}">`)));
  const nested = fc.integer({ min: 100, max: 5_000 }).map((depth) => Buffer.from(HTML_BASE.replace('<p>Dear', `${'<div>'.repeat(depth)}<p>Dear`)));
  return fc.oneof(text, text, bytes, charset, nested);
}

/** Mutations of a CSV for bulk jobs: hostile cells, broken quoting, NULs, very long lines. */
export function csvMutation(): fc.Arbitrary<Buffer> {
  const cell = fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 40 }), fc.constantFrom('"', '""', '\r', '\n', ',', '[{"description":"x"}]', '[{'));
  const rows = fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 0, maxLength: 30 });
  return fc
    .tuple(fc.constantFrom('name', 'name', 'name', 'name,items', 'nom', '', 'name,name'), rows)
    .map(([header, body]) => Buffer.from([header, ...body.map((cells) => cells.join(','))].join('\r\n'), 'utf8'));
}

/**
 * Mutations of a POST /documents body: values of every JSON kind where strings, lists and
 * images are expected, deep nesting, huge strings, extra fields; and bodies that are not JSON.
 */
export function documentBodyMutation(templateId: string): fc.Arbitrary<{ raw?: string; body?: unknown }> {
  const deep = fc.integer({ min: 10, max: 2_000 }).map((depth) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`) as unknown);
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.constantFrom(...NASTY),
    deep,
    fc.constantFrom('x'.repeat(200_000), 'data:image/png;base64,iVBORw0KGgo=', 'http://127.0.0.1:9/x.png', 'file:///etc/passwd', '__proto__', 'constructor'),
    fc.array(fc.record({ x: fc.jsonValue({ maxDepth: 2 }), y: fc.constantFrom(...NASTY) }), { maxLength: 50 }),
  );
  const input = fc.record({ name: value, items: value, logo: value, total: value, paid: value }, { requiredKeys: [] });
  const body = fc.record(
    {
      template_id: fc.oneof({ weight: 8, arbitrary: fc.constant(templateId) }, fc.uuid(), fc.string({ maxLength: 50 })),
      input_json: fc.oneof({ weight: 6, arbitrary: input }, fc.jsonValue({ maxDepth: 3 })),
      output_format: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('pdf', 'docx', 'both') }, fc.constantFrom('PDF', '', 'exe')),
      pdf_standard: fc.constantFrom('PDF/A-2b', 'PDF/A-3b', 'PDF/X', undefined, undefined, undefined),
    },
    { requiredKeys: ['template_id', 'input_json'] },
  );
  const raw = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.constantFrom('{', '{"template_id":', '[]', 'null', '{"__proto__":{"x":1}}', '{"input_json":{"constructor":{"prototype":{}}}}'),
  );
  return fc.oneof({ weight: 4, arbitrary: body.map((b) => ({ body: b })) }, { weight: 1, arbitrary: raw.map((r) => ({ raw: r })) });
}
