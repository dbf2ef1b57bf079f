import PizZip from 'pizzip';
import { animatedGif, buildDocx, paragraph, picture, solidPng, withParts } from '@docgen/testing';
import { openDocxPackage } from './docx-package';
import { prepareDocxTemplate } from './prepare-docx-template';
import { renderDocx } from './render/render-docx';
import { RenderInputError } from './render/render-error';
import { rewriteHtml } from './html/rewrite-html';
import { TemplateError } from './template-error';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const HEADER_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof TemplateError || error instanceof RenderInputError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

/** A DOCX whose body references a header part by relationship, stored under `name` with `content`. */
function withHeaderPart(name: string, content: string | Buffer, contentType = HEADER_TYPE): Buffer {
  const docx = buildDocx({
    body: `${paragraph('Dear {name}')}<w:sectPr><w:headerReference w:type="default" r:id="rIdH"/></w:sectPr>`,
    relationships: [`<Relationship Id="rIdH" Type="${R}/header" Target="${name.replace(/^word\//, '')}"/>`],
  });
  return withParts(docx, { [name]: content }, [`<Override PartName="/${name}" ContentType="${contentType}"/>`]);
}

describe('what a template part may be, whatever it is called (issue 28, items 3-5)', () => {
  describe('XML only in the encodings our checks read', () => {
    // "+ADw-" is "<" in UTF-7: a UTF-8 reader sees text, LibreOffice a relationship.
    const utf7Rels =
      '<?xml version="1.0" encoding="UTF-7"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">+ADw-Relationship Id="rIdX" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="http://127.0.0.1:9/x.png" TargetMode="External"/+AD4-</Relationships>';

    it.each([
      ['UTF-7', 'word/_rels/document.xml.rels', utf7Rels, 'declares the encoding "UTF-7"'],
      ['ISO-2022-JP', 'word/header1.xml', `<?xml version="1.0" encoding="ISO-2022-JP"?><w:hdr xmlns:w="${W}"/>`, 'declares the encoding "ISO-2022-JP"'],
      [
        'Latin-1 under another name',
        'word/header1.bin',
        `<?xml version='1.0' encoding='iso-8859-1'?><w:hdr xmlns:w="${W}"/>`,
        'declares the encoding "iso-8859-1"',
      ],
      [
        'UTF-16 declared in a UTF-8 part',
        'word/header1.xml',
        `<?xml version="1.0" encoding="UTF-16"?><w:hdr xmlns:w="${W}"/>`,
        'declares the encoding "UTF-16"',
      ],
    ])('refuses a part declaring %s, naming the part', (_name, part, content, what) => {
      const file = part.endsWith('.rels') ? withParts(buildDocx({ body: paragraph('Dear {name}') }), { [part]: content }) : withHeaderPart(part, content);
      const error = refusal(() => prepareDocxTemplate(file));
      expect(error).toMatchObject({ kind: 'invalid' });
      expect(error.message).toBe(`The DOCX part ${part} ${what}; only UTF-8 and UTF-16 are accepted: open the file in Word, save it again and upload it`);
    });

    it('refuses a part in EBCDIC or UCS-4, which an XML reader detects from its first bytes', () => {
      const ebcdic = Buffer.from([0x4c, 0x6f, 0xa7, 0x94, 0x93, 0x40, 0xa5, 0x85]);
      const ucs4 = Buffer.from('<w:hdr/>', 'utf16le').reduce(
        (out, byte, i) => (i % 2 === 0 ? Buffer.concat([out, Buffer.from([byte, 0, 0, 0])]) : out),
        Buffer.alloc(0),
      );
      for (const content of [ebcdic, ucs4]) {
        expect(refusal(() => prepareDocxTemplate(withHeaderPart('word/header1.bin', content))).message).toMatch(
          /^The DOCX part word\/header1\.bin is written in UCS-4 or EBCDIC/,
        );
      }
    });

    it('reads the whole declaration, however much whitespace pads it (a cut-off one is refused)', () => {
      const padded = (spaces: number) => `<?xml version="1.0"${' '.repeat(spaces)} encoding="UTF-7"?><w:hdr xmlns:w="${W}"/>`;
      expect(refusal(() => prepareDocxTemplate(withHeaderPart('word/header1.xml', padded(600)))).message).toMatch(/declares the encoding "UTF-7"/);
      expect(refusal(() => prepareDocxTemplate(withHeaderPart('word/header1.xml', padded(5_000)))).message).toMatch(/has an XML declaration longer than 1 KB/);
    });

    it('accepts UTF-8 and UTF-16 declarations in any spelling', () => {
      for (const declaration of ['UTF-8', 'utf8', 'Utf-8']) {
        const file = withHeaderPart(
          'word/header1.xml',
          `<?xml version="1.0" encoding="${declaration}"?><w:hdr xmlns:w="${W}"><w:p><w:r><w:t>{name}</w:t></w:r></w:p></w:hdr>`,
        );
        expect(prepareDocxTemplate(file).variables.map((v) => v.name)).toEqual(['name']);
      }
    });
  });

  describe('parts checked by their content type, not their name', () => {
    // LibreOffice reads a <w:t> between a field's begin and separate as instruction text.
    const field = (instruction: string) =>
      `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:t xml:space="preserve">${instruction}</w:t></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>x</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
    const header = (body: string) => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:hdr xmlns:w="${W}">${body}</w:hdr>`;

    it('reports tags and loop problems of a header stored as word/header1.bin, as docxtemplater fills it', () => {
      const file = withHeaderPart('word/header1.bin', header(`<w:p><w:r><w:t>{@raw}</w:t></w:r></w:p>`));
      const error = refusal(() => prepareDocxTemplate(file));
      expect(error).toMatchObject({ kind: 'syntax' });
      expect((error as TemplateError).issues).toContainEqual({
        tag: '{@raw}',
        part: 'header',
        message: 'Raw XML tags ({@name}) are not supported; use {name}',
      });
    });

    it('reads [Content_Types].xml as docxtemplater does too: a Default matching a name by its ending, a PartName without its slash', () => {
      const raw = header(`<w:p><w:r><w:t>{@raw}</w:t></w:r></w:p>`);
      const docx = buildDocx({
        body: `${paragraph('Dear {name}')}<w:sectPr><w:headerReference w:type="default" r:id="rIdH"/></w:sectPr>`,
        relationships: [`<Relationship Id="rIdH" Type="${R}/header" Target="header1.bin"/>`],
      });
      for (const declaration of [
        `<Default Extension="1.bin" ContentType="${HEADER_TYPE}"/>`,
        `<Override PartName="xword/header1.bin" ContentType="${HEADER_TYPE}"/>`,
      ]) {
        const error = refusal(() => prepareDocxTemplate(withParts(docx, { 'word/header1.bin': raw }, [declaration])));
        expect((error as TemplateError).issues).toContainEqual({
          tag: '{@raw}',
          part: 'header',
          message: 'Raw XML tags ({@name}) are not supported; use {name}',
        });
      }
    });

    it('refuses at render a fetching field completed by a value in a header named word/header1.bin', () => {
      // INCLUDEPICTURE spelled by the value: the template itself holds no fetching field.
      const file = withHeaderPart('word/header1.bin', header(field('{kind} "http://127.0.0.1:9/x.png"')));
      const prepared = prepareDocxTemplate(file);
      expect(prepared.variables.map((v) => v.name).sort()).toEqual(['kind', 'name']);
      const error = refusal(() => renderDocx(prepared.file, prepared.variables, { name: 'Ada', kind: 'INCLUDEPICTURE' }));
      expect(error).toBeInstanceOf(RenderInputError);
      expect(error.message).toMatch(/^A value completes a field that would fetch content from elsewhere \(INCLUDEPICTURE\)/);
    });
  });

  describe('parts bounded in size, pictures in pixels and frames', () => {
    it('refuses an XML part over MAX_TEMPLATE_PART_BYTES with 413, naming it, before parsing it', () => {
      const big = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:hdr xmlns:w="${W}"><w:p><w:r><w:t>${'x'.repeat(2 * 1024 * 1024)}</w:t></w:r></w:p></w:hdr>`;
      const error = refusal(() =>
        openDocxPackage(withHeaderPart('word/header1.xml', big), { maxExpandedBytes: 100 * 1024 * 1024, maxEntries: 100, maxPartBytes: 1024 * 1024 }),
      );
      expect(error).toMatchObject({ kind: 'too_large' });
      expect(error.message).toBe('The DOCX part word/header1.xml is 2.0 MiB; parts of at most 1.0 MiB are accepted (MAX_TEMPLATE_PART_BYTES)');
    });

    const withPicture = (image: Buffer, name = 'word/media/image1.png') =>
      withParts(
        buildDocx({
          body: paragraph('Dear {name}') + picture('r:embed="rIdImg"'),
          relationships: [`<Relationship Id="rIdImg" Type="${R}/image" Target="${name.replace(/^word\//, '')}"/>`],
        }),
        { [name]: image },
        ['<Default Extension="png" ContentType="image/png"/>', '<Default Extension="gif" ContentType="image/gif"/>'],
      );
    const claiming = (width: number, height: number) => {
      const png = solidPng(2, 2);
      png.writeUInt32BE(width, 16);
      png.writeUInt32BE(height, 20);
      return png;
    };

    it('refuses a picture whose header claims 50000 x 50000, whatever its name, before LibreOffice decodes it', () => {
      for (const name of ['word/media/image1.png', 'word/media/image1.dat']) {
        const error = refusal(() => prepareDocxTemplate(withPicture(claiming(50_000, 50_000), name)));
        expect(error).toMatchObject({ kind: 'invalid' });
        expect(error.message).toBe(
          `The picture ${name} is 50000 x 50000 pixels, more than the limit of 40,000,000 pixels (MAX_IMAGE_PIXELS); make it smaller and upload the template again`,
        );
      }
    });

    it('refuses a picture in a format whose size cannot be read (PCX, PSD), by content type or by an image relationship, whatever its name', () => {
      // A PCX header claiming 10000 x 10000: LibreOffice sniffs and decodes it, unmeasured.
      const pcx = Buffer.alloc(128);
      pcx.set([0x0a, 0x05, 0x01, 0x08]);
      pcx.writeUInt16LE(9999, 8);
      pcx.writeUInt16LE(9999, 10);
      for (const name of ['word/media/image1.png', 'word/media/image1.dat']) {
        expect(refusal(() => prepareDocxTemplate(withPicture(pcx, name))).message).toBe(
          `The picture ${name} is in a format docgen cannot check; use PNG, JPEG, GIF, BMP, TIFF, WebP, EMF, WMF or SVG and upload the template again`,
        );
      }
      const psd = Buffer.concat([Buffer.from('8BPS'), Buffer.alloc(60)]);
      expect(refusal(() => prepareDocxTemplate(withPicture(psd, 'word/media/image1.psd'))).message).toMatch(
        /^The picture word\/media\/image1\.psd is in a format docgen cannot check/,
      );
    });

    it('refuses an animated GIF of more frames than MAX_IMAGE_FRAMES, and keeps pictures within the bounds', () => {
      expect(refusal(() => prepareDocxTemplate(withPicture(animatedGif(101), 'word/media/image1.gif'))).message).toBe(
        'The picture word/media/image1.gif has more than 100 frames (MAX_IMAGE_FRAMES); make it smaller and upload the template again',
      );
      const ok = prepareDocxTemplate(withPicture(solidPng(200, 100)));
      expect(new PizZip(ok.file).file('word/media/image1.png')).not.toBeNull();
      expect(prepareDocxTemplate(withPicture(animatedGif(100), 'word/media/image1.gif')).variables).toHaveLength(1);
    });
  });
});

describe('data: images in HTML templates are bounded before anything decodes them', () => {
  const html = (image: Buffer, type = 'png') => `<html><body><p>Dear {name}</p><img src="data:image/${type};base64,${image.toString('base64')}"></body></html>`;

  it('refuses a PNG claiming 50000 x 50000 and a GIF of 101 frames, and keeps a small image', () => {
    const claiming = solidPng(2, 2);
    claiming.writeUInt32BE(50_000, 16);
    claiming.writeUInt32BE(50_000, 20);
    expect(refusal(() => rewriteHtml(html(claiming))).message).toBe(
      'An <img> data: image is 50000 x 50000 pixels, more than the limit of 40,000,000 pixels (MAX_IMAGE_PIXELS); make it smaller and upload the template again',
    );
    expect(refusal(() => rewriteHtml(html(animatedGif(101), 'gif'))).message).toBe(
      'An <img> data: image has more than 100 frames (MAX_IMAGE_FRAMES); make it smaller and upload the template again',
    );
    expect(rewriteHtml(html(solidPng(20, 10))).html).toContain('data:image/png;base64,');
  });
});
