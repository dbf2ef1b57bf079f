import PizZip from 'pizzip';
import { buildDocx, paragraph } from '@docgen/testing';
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

  it('refuses documents that cannot share a conversion', () => {
    const pageCount = paragraph('Page 1 of ') + '<w:p><w:r><w:instrText> NUMPAGES </w:instrText></w:r></w:p>';
    expect(batchDocx([letter('A', 'same'), letter('B', 'different')], ['a', 'b'])).toBeUndefined(); // another part differs (an image, a link)
    expect(batchDocx([letter('A', pageCount), letter('B', pageCount)], ['a', 'b'])).toBeUndefined(); // counts the batch's pages
    const bookmarked = buildDocx({ body: '<w:p><w:bookmarkStart w:id="1" w:name="own"/><w:r><w:t>A</w:t></w:r><w:bookmarkEnd w:id="1"/></w:p>' });
    expect(batchDocx([bookmarked, bookmarked], ['a', 'b'])).toBeUndefined();
    const listed = buildDocx({ body: '<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>A</w:t></w:r></w:p>' });
    expect(batchDocx([listed, listed], ['a', 'b'])).toBeUndefined(); // its numbers would go on from the document before
    const noted = buildDocx({ body: '<w:p><w:r><w:t>A</w:t></w:r><w:r><w:footnoteReference w:id="1"/></w:r></w:p>' });
    expect(batchDocx([noted, noted], ['a', 'b'])).toBeUndefined();
    const sections = buildDocx({ body: `${paragraph('A')}<w:p><w:pPr><w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:pPr></w:p>${paragraph('B')}` });
    expect(batchDocx([sections, sections], ['a', 'b'])).toBeUndefined();
  });
});
