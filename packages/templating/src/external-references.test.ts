import PizZip from 'pizzip';
import { buildDocx, paragraph, run } from '@docgen/testing';
import { TemplateError } from './template-error';
import { removeExternalReferences } from './external-references';
import { prepareDocxTemplate } from './prepare-docx-template';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function docx(body: string, relationships: string): Buffer {
  const zip = new PizZip();
  zip.file('word/document.xml', `<w:document xmlns:w="w" xmlns:a="a" xmlns:r="${REL}"><w:body>${body}</w:body></w:document>`);
  zip.file(
    'word/_rels/document.xml.rels',
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships}</Relationships>`,
  );
  return zip.generate({ type: 'nodebuffer' });
}

describe('removeExternalReferences', () => {
  it('drops external relationships other than hyperlinks, and the attributes that use them', () => {
    const input = docx(
      '<a:blip r:embed="rId1" r:link="rId2"/><w:hyperlink r:id="rId3"/>',
      `<Relationship Id="rId1" Type="${REL}/image" Target="media/image1.png"/>` +
        `<Relationship Id="rId2" Type="${REL}/image" Target="http://127.0.0.1/x.png" TargetMode="External"/>` +
        `<Relationship Id="rId3" Type="${REL}/hyperlink" Target="https://example.com/" TargetMode="External"/>`,
    );
    const zip = new PizZip(removeExternalReferences(input));
    const rels = zip.file('word/_rels/document.xml.rels')!.asText();
    expect(rels).toContain('Id="rId1"');
    expect(rels).not.toContain('Id="rId2"');
    expect(rels).toContain('Id="rId3"');
    expect(zip.file('word/document.xml')!.asText()).toContain('<a:blip r:embed="rId1"/><w:hyperlink r:id="rId3"/>');
  });

  it('returns a package without external content unchanged', () => {
    const input = docx('<w:p/>', `<Relationship Id="rId1" Type="${REL}/image" Target="media/image1.png"/>`);
    expect(removeExternalReferences(input)).toBe(input);
  });

  it('judges a relationships part by where it is as well as by its text, every time (the judgement is remembered)', () => {
    // "../media/logo.png" from word/ stays inside the package; from the package root it climbs out of it.
    const relationships = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdLogo" Type="${REL}/image" Target="../media/logo.png"/></Relationships>`;
    const withRelationshipsAt = (name: string) => {
      const zip = new PizZip(docx('<w:p/>', ''));
      zip.file(name, relationships);
      return zip.generate({ type: 'nodebuffer' });
    };
    for (let round = 0; round < 2; round++) {
      const inWord = new PizZip(removeExternalReferences(withRelationshipsAt('word/_rels/header1.xml.rels')));
      expect(inWord.file('word/_rels/header1.xml.rels')!.asText()).toContain('Id="rIdLogo"');
      const atRoot = new PizZip(removeExternalReferences(withRelationshipsAt('_rels/.rels')));
      expect(atRoot.file('_rels/.rels')!.asText()).not.toContain('Id="rIdLogo"');
    }
  });

  it('reads relationships parts whose names differ only in case as one part (OPC names ignore case)', () => {
    const hyperlink = `<Relationship Id="rIdH" Type="${REL}/hyperlink" Target="http://169.254.169.254/latest" TargetMode="External"/>`;
    const empty = '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>';
    const withParts = (parts: Record<string, string>) => {
      const zip = new PizZip(docx('<a:blip r:embed="rIdH"/><w:hyperlink r:id="rIdH"/>', hyperlink));
      for (const [name, text] of Object.entries(parts)) zip.file(name, text);
      return zip.generate({ type: 'nodebuffer' });
    };
    const relationships = new PizZip(docx('', hyperlink)).file('word/_rels/document.xml.rels')!.asText();
    const cases = [
      withParts({ 'word/_rels/document.xml.RELS': empty }), // a decoy after the real part
      withParts({ 'word/_RELS/document.xml.rels': empty }),
      withParts({ 'word/_rels/document.xml.rels': empty, 'word/_rels/DOCUMENT.XML.rels': relationships }), // the real part under another case
    ];
    for (const input of cases) {
      // The external hyperlink stays for the clickable element only: the picture may not use it.
      expect(new PizZip(removeExternalReferences(input)).file('word/document.xml')!.asText()).toContain('<a:blip/><w:hyperlink r:id="rIdH"/>');
    }
  });

  it('refuses INCLUDEPICTURE and INCLUDETEXT fields', () => {
    for (const body of [
      '<w:instrText xml:space="preserve"> INCLUDEPICTURE "http://x/a.png" \\d </w:instrText>',
      '<w:fldSimple w:instr=" INCLUDETEXT c:\\\\a.docx "/>',
    ]) {
      expect(() => removeExternalReferences(docx(body, ''))).toThrow(TemplateError);
    }
  });

  describe('fields that fetch or link, read whole however Word split them', () => {
    const fldChar = (type: string) => `<w:r><w:fldChar w:fldCharType="${type}"/></w:r>`;
    const instr = (text: string) => `<w:r><w:instrText xml:space="preserve">${text}</w:instrText></w:r>`;
    /** A complex field: begin, the instruction in as many runs as given, separate, a result, end. */
    const field = (...pieces: string[]) => `${fldChar('begin')}${pieces.map(instr).join('')}${fldChar('separate')}${run('result')}${fldChar('end')}`;
    const refusal = (file: Buffer) => {
      try {
        removeExternalReferences(file);
      } catch (error) {
        expect(error).toBeInstanceOf(TemplateError);
        expect((error as TemplateError).kind).toBe('invalid');
        return (error as Error).message;
      }
      throw new Error('expected the package to be refused');
    };

    it('refuses at upload an INCLUDEPICTURE "http://…" that Word split across three runs', () => {
      const upload = buildDocx({ body: paragraph(run('Logo: '), field(' INCLUDEP', 'ICTURE "http://127.0.0.1:9/lo', 'go.png" \\d ')) });
      let error: unknown;
      try {
        prepareDocxTemplate(upload);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TemplateError);
      expect(error).toMatchObject({
        kind: 'invalid',
        message: 'The template includes content from another file, address or program (an INCLUDEPICTURE field); remove it and upload again',
      });
    });

    it('refuses a DDEAUTO field, and LINK, DDE and INCLUDETEXT fields, complex or simple', () => {
      expect(refusal(buildDocx({ body: paragraph(field(' DDEAUTO c:\\\\windows\\\\system32\\\\cmd.exe "/k calc.exe" ')) }))).toContain('DDEAUTO');
      expect(refusal(buildDocx({ body: paragraph(field(' DD', 'E excel "sheet1" "R1C1" ')) }))).toContain('(a DDE field)');
      expect(refusal(buildDocx({ body: paragraph(field(' LINK Excel.Sheet.12 "C:\\\\data\\\\q.xlsx" "Sheet1!R1C1" \\a \\p ')) }))).toContain('(a LINK field)');
      expect(
        refusal(
          buildDocx({ body: '<w:p><w:fldSimple w:instr=" INCLUDETEXT &quot;http://127.0.0.1:9/a.docx&quot; "><w:r><w:t>x</w:t></w:r></w:fldSimple></w:p>' }),
        ),
      ).toContain('(an INCLUDETEXT field)');
      expect(refusal(buildDocx({ body: '<w:p><w:fldSimple w:instr="DDEAUTO cmd &quot;/c calc&quot;"/></w:p>' + paragraph(field(' LINK x ')) }))).toContain(
        '(DDEAUTO, LINK fields)',
      );
    });

    it('sees through character references, another namespace prefix, <w:t> inside the instruction and a type built by a nested field', () => {
      const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
      const variants = [
        paragraph(field(' &#73;NCLUDEPICTURE "http://x/a.png" ')),
        `<x:p xmlns:x="${W}"><x:r><x:fldChar x:fldCharType="begin"/></x:r><x:r><x:instrText> DDEAUTO cmd "/c calc"</x:instrText></x:r><x:r><x:fldChar x:fldCharType="end"/></x:r></x:p>`,
        // LibreOffice reads text between "begin" and "separate" as instruction text.
        paragraph(fldChar('begin'), run(' LI'), instr('NK Word.Document.12 "c:\\\\a.docx" '), fldChar('end')),
        // { { QUOTE "LINK" } Word.Document.12 "c:\a.docx" }: the outer field's type is the inner one's result.
        paragraph(
          fldChar('begin'),
          fldChar('begin'),
          instr(' QUOTE "LINK" '),
          fldChar('separate'),
          run('LINK'),
          fldChar('end'),
          instr(' Word.Document.12 "c:\\\\a.docx" '),
          fldChar('end'),
        ),
        // A field left open at the end of the part.
        paragraph(fldChar('begin'), instr(' INCLUDETEXT "c:\\\\a.docx"')),
      ];
      for (const body of variants) expect(refusal(buildDocx({ body }))).toMatch(/\((an? )?(INCLUDEPICTURE|INCLUDETEXT|DDEAUTO|LINK) field\)/);
    });

    it('checks an XML part stored under another name or in UTF-16', () => {
      const zip = new PizZip(buildDocx({ body: paragraph('x') }));
      zip.file('word/main.dat', `<w:document xmlns:w="w"><w:body>${paragraph(field(' INCLUDEPICTURE "http://x/a.png" '))}</w:body></w:document>`);
      expect(refusal(zip.generate({ type: 'nodebuffer' }))).toContain('INCLUDEPICTURE');
      const utf16 = new PizZip(buildDocx({ body: paragraph('x') }));
      const xml = utf16
        .file('word/document.xml')!
        .asText()
        .replace('<w:body>', `<w:body>${paragraph(field(' DDEAUTO cmd '))}`);
      utf16.file('word/document.xml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]));
      expect(refusal(utf16.generate({ type: 'nodebuffer' }))).toContain('DDEAUTO');
    });

    it('keeps fields that fetch nothing, and the words LINK and DDE in text and arguments', () => {
      const body =
        paragraph(field(' HYPERLINK \\l "link" ')) +
        paragraph(field(' MERGEFIELD Link ')) +
        paragraph(field(' PAGE ')) +
        paragraph(field(' REF DDE \\h ')) +
        '<w:p><w:fldSimple w:instr=" NUMPAGES "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p>' +
        paragraph('LINK DDE and a {link} tag');
      const upload = buildDocx({ body });
      expect(removeExternalReferences(upload)).toBe(upload);
    });
  });
});
