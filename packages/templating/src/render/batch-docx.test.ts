import PizZip from 'pizzip';
import { buildDocx, paragraph, withParts } from '@docgen/testing';
import { batchDocx } from './batch-docx';

const body = (docx: Buffer) => new PizZip(docx).file('word/document.xml')!.asText();
const letter = (text: string, footer?: string) => buildDocx({ body: paragraph(text), footer });

describe('batchDocx', () => {
  it('puts each document in a section of its own, numbered from 1, with its mark inside its first paragraph', () => {
    const xml = body(batchDocx([letter('Alpha'), letter('Beta')], ['markA', 'markB'])!);
    expect(xml.match(/<w:sectPr>/g)).toHaveLength(2);
    expect(xml.match(/<w:pgNumType w:start="1"\/>/g)).toHaveLength(2);
    expect(xml).toContain('<w:type w:val="nextPage"/><w:pgSz');
    expect(xml).toMatch(/<w:p>(<w:pPr>.*?<\/w:pPr>)?<w:bookmarkStart w:id="\d+" w:name="markA"\/><w:bookmarkEnd w:id="\d+"\/>.*Alpha.*markB.*Beta/s);
  });

  it('takes words that only look like fields', () => {
    expect(batchDocx([letter('SECTION 3 REF SEQ NUMPAGES'), letter('B')], ['a', 'b'])).toBeDefined();
    // Text naming text boxes is not a text box (and a long value repeating such words is read once, not once per word).
    expect(batchDocx([letter(`a txbx with id=1, a textbox with &#1; ${'txbx textbox '.repeat(10_000)}`), letter('B')], ['a', 'b'])).toBeDefined();
  });

  it('refuses documents that cannot share a conversion', () => {
    expect(batchDocx([letter('A', 'same'), letter('B', 'different')], ['a', 'b'])).toBeUndefined(); // another part differs (an image, a link)
    const bookmarked = buildDocx({ body: '<w:p><w:bookmarkStart w:id="1" w:name="own"/><w:r><w:t>A</w:t></w:r><w:bookmarkEnd w:id="1"/></w:p>' });
    expect(batchDocx([bookmarked, bookmarked], ['a', 'b'])).toBeUndefined();
    const field = (...pieces: string[]) =>
      `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>${pieces.map((piece) => `<w:r><w:instrText xml:space="preserve">${piece}</w:instrText></w:r>`).join('')}<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>2</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
    for (const total of [field(' numpages '), field(' NumPages \\* Arabic '), field(' NUM', 'PAGES '), '<w:p><w:fldSimple w:instr=" SEQ Figure "/></w:p>']) {
      expect(batchDocx([letter('A', total), letter('B', total)], ['a', 'b'])).toBeUndefined(); // whatever its case, in one run or several
    }
    const pageNumber = field(' page ');
    expect(batchDocx([letter('A', pageNumber), letter('B', pageNumber)], ['a', 'b'])).toBeDefined();
    const opensWithTable = buildDocx({ body: `<w:tbl><w:tr><w:tc><w:p><w:r><w:t>A</w:t></w:r></w:p></w:tc></w:tr></w:tbl>${paragraph('B')}` });
    expect(batchDocx([opensWithTable, opensWithTable], ['a', 'b'])).toBeUndefined(); // its mark could land on another page
    const hidden = buildDocx({ body: `<w:p><w:pPr><w:rPr><w:vanish/></w:rPr></w:pPr><w:r><w:t>A</w:t></w:r></w:p>` });
    expect(batchDocx([hidden, hidden], ['a', 'b'])).toBeUndefined();
    const headed = buildDocx({ body: '<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Heading</w:t></w:r></w:p>' });
    expect(batchDocx([headed, headed], ['a', 'b'])).toBeUndefined(); // its outline entry would not reach its PDF
    const long = letter('x'.repeat(300 * 1024));
    expect(batchDocx([long, letter('B')], ['a', 'b'])).toBeUndefined();
    const withMedia = (bytes: number[]) => {
      const zip = new PizZip(letter('A'));
      zip.file('word/media/image1.png', Buffer.from(bytes));
      return zip.generate({ type: 'nodebuffer' });
    };
    expect(batchDocx([withMedia([0x80]), withMedia([0x81])], ['a', 'b'])).toBeUndefined(); // the same as text, not as bytes
    const listed = buildDocx({ body: '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>A</w:t></w:r></w:p>' });
    expect(batchDocx([listed, listed], ['a', 'b'])).toBeUndefined(); // its numbers would go on from the document before
    const noted = buildDocx({ body: '<w:p><w:r><w:t>A</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>' });
    expect(batchDocx([noted, noted], ['a', 'b'])).toBeUndefined();
    // Linked text boxes: the first box's overflow would run on into the next document's box.
    for (const box of [
      '<wps:txbx id="1"><w:txbxContent><w:p/></w:txbxContent></wps:txbx>',
      '<wps:linkedTxbx id="1" seq="1"/>',
      '<v:textbox style="mso-next-textbox:#b2"/>',
      '<v:textbox style="mso-next&#45;textbox:#b2"/>',
    ]) {
      const linked = buildDocx({ body: `${paragraph('A')}<w:p><w:r><w:t>x</w:t></w:r>${box}</w:p>` });
      expect(batchDocx([linked, linked], ['a', 'b'])).toBeUndefined();
    }
    const opened = `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>DATE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r></w:p>`;
    for (const unclosed of [opened, opened.replace('"begin"', '"&#98;egin"')]) {
      const document = buildDocx({ body: `${paragraph('A')}${unclosed}` });
      expect(batchDocx([document, document], ['a', 'b'])).toBeUndefined(); // it would swallow the documents after it
    }
    const onPage = buildDocx({
      body: `${paragraph('A')}<w:p><w:r><w:drawing><wp:anchor><wp:positionV relativeFrom="page"><wp:posOffset>9000000</wp:posOffset></wp:positionV></wp:anchor></w:drawing></w:r></w:p>`,
    });
    expect(batchDocx([onPage, onPage], ['a', 'b'])).toBeUndefined(); // it could make a page of its own below the last text
    const sections = buildDocx({ body: `${paragraph('A')}<w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:pPr></w:p>${paragraph('B')}` });
    expect(batchDocx([sections, sections], ['a', 'b'])).toBeUndefined();
    // Each document must be exactly one section: an imported chunk or subdocument can bring sections of its own.
    for (const imported of ['<w:altChunk r:id="rIdChunk"/>', '<w:p><w:subDoc r:id="rIdSub"/></w:p>']) {
      const document = buildDocx({ body: `${paragraph('A')}${imported}` });
      expect(batchDocx([document, document], ['a', 'b'])).toBeUndefined();
    }
  });

  it('refuses what it could not read by its w: spelling: another prefix, a character reference, single quotes, a style based on a heading', () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const numbered = (prefix: string) =>
      `<${prefix}:pPr><${prefix}:numPr><${prefix}:ilvl ${prefix}:val="0"/><${prefix}:numId ${prefix}:val="1"/></${prefix}:numPr></${prefix}:pPr>`;
    for (const spelt of [
      `<w:p xmlns:x="${W}">${numbered('x')}<w:r><w:t>B</w:t></w:r></w:p>`,
      `<w:p xmlns:x="http://purl.oclc.org/ooxml/wordprocessingml/main">${numbered('x')}<w:r><w:t>B</w:t></w:r></w:p>`,
      `<w:p><pPr xmlns="${W}"><numPr><ilvl val="0"/><numId val="1"/></numPr></pPr><w:r><w:t>B</w:t></w:r></w:p>`,
      `<w:p xmlns:x="&#104;ttp://schemas.openxmlformats.org/wordprocessingml/2006/main">${numbered('x')}</w:p>`,
      `<w:p><w:r xmlns:w="urn:other"><w:t>B</w:t></w:r></w:p>`,
    ]) {
      const document = buildDocx({ body: `${paragraph('A')}${spelt}` });
      expect(batchDocx([document, document], ['a', 'b'])).toBeUndefined();
    }
    const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId='Heading1'><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style><w:style w:type="paragraph" w:styleId="Title2"><w:basedOn w:val="Heading1"/></w:style><w:style w:type="paragraph" w:styleId="Plain"/></w:styles>`;
    const styled = (style: string) =>
      withParts(buildDocx({ body: `<w:p><w:pPr><w:pStyle ${style}/></w:pPr><w:r><w:t>A</w:t></w:r></w:p>` }), { 'word/styles.xml': styles });
    for (const heading of [`w:val='Heading1'`, 'w:val="Title2"', 'w:val="&#72;eading1"']) {
      expect(batchDocx([styled(heading), styled(heading)], ['a', 'b'])).toBeUndefined(); // its outline entry would not reach its PDF
    }
    expect(batchDocx([styled('w:val="Plain"'), styled('w:val="Plain"')], ['a', 'b'])).toBeDefined();
    // A first paragraph hidden by its style (or one its style is based on) would not hold the mark where the pages begin.
    const hiddenStyles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="Hidden"><w:rPr><w:vanish/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Note"><w:basedOn w:val="Hidden"/></w:style></w:styles>`;
    const opensHidden = withParts(buildDocx({ body: `<w:p><w:pPr><w:pStyle w:val="Note"/></w:pPr><w:r><w:t>A</w:t></w:r></w:p>${paragraph('B')}` }), {
      'word/styles.xml': hiddenStyles,
    });
    expect(batchDocx([opensHidden, opensHidden], ['a', 'b'])).toBeUndefined();
  });
});
