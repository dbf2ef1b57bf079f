import PizZip from 'pizzip';
import { buildDocx, paragraph, withParts } from '@docgen/testing';
import { withoutCommentMarks } from './comment-marks';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const COMMENTS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Legal"><w:p><w:r><w:t>A remark</w:t></w:r></w:p></w:comment></w:comments>`;
const part = (docx: Buffer, name: string) => new PizZip(docx).file(name)!.asText();

describe('withoutCommentMarks', () => {
  it('gives back the same DOCX when nothing places a comment, even where the words appear as text', () => {
    const docx = buildDocx({ body: paragraph('commentReference and commentRangeStart are only words here') });
    expect(withoutCommentMarks(docx)).toBe(docx);
  });

  it('removes the marks however they are spelt, in the body, headers and footers, and keeps the text and the comments', () => {
    const marks = (prefix: string) =>
      `<${prefix}:commentRangeStart ${prefix}:id="0"/><w:r><w:t>Kept text</w:t></w:r><${prefix}:commentRangeEnd ${prefix}:id="0"/><w:r><${prefix}:commentReference ${prefix}:id="0"/></w:r>`;
    const docx = withParts(
      buildDocx({
        body: `<w:p>${marks('w')}</w:p><w:p xmlns:x="${W}">${marks('x')}</w:p><w:p><commentReference xmlns="${W}"/></w:p>`,
        header: `<w:p>${marks('w')}</w:p>`,
        footer: '<w:p><w:r><w:t>Footer</w:t></w:r></w:p>',
      }),
      { 'word/comments.xml': COMMENTS },
    );
    const cleaned = withoutCommentMarks(docx);
    for (const name of ['word/document.xml', 'word/header1.xml']) {
      expect(part(cleaned, name)).not.toMatch(/commentRange|commentReference/);
      expect(part(cleaned, name)).toContain('Kept text');
    }
    expect(part(cleaned, 'word/footer1.xml')).toBe(part(docx, 'word/footer1.xml'));
    expect(part(cleaned, 'word/comments.xml')).toBe(COMMENTS);
  });
});
