import PizZip from 'pizzip';
import { TemplateError } from './template-error';
import { removeExternalReferences } from './external-references';

const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function docx(body: string, relationships: string): Buffer {
  const zip = new PizZip();
  zip.file('word/document.xml', `<w:document xmlns:w="w" xmlns:r="${REL}"><w:body>${body}</w:body></w:document>`);
  zip.file('word/_rels/document.xml.rels', `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships}</Relationships>`);
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

  it('refuses INCLUDEPICTURE and INCLUDETEXT fields', () => {
    for (const body of ['<w:instrText xml:space="preserve"> INCLUDEPICTURE "http://x/a.png" \\d </w:instrText>', '<w:fldSimple w:instr=" INCLUDETEXT c:\\\\a.docx "/>']) {
      expect(() => removeExternalReferences(docx(body, ''))).toThrow(TemplateError);
    }
  });
});
