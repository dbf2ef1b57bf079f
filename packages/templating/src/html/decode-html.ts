import { TemplateError } from '../template-error';

const UTF16_BOMS = [Buffer.from([0xff, 0xfe]), Buffer.from([0xfe, 0xff])];
// Any start or end tag, a doctype or a comment: enough to tell HTML from plain text or JSON.
const LOOKS_LIKE_HTML = /<(?:!doctype\s+html|!--|\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>)/i;

/** The upload as text, or a TemplateError('invalid') saying what to fix. */
export function decodeHtml(file: Buffer): string {
  if (file.length === 0) throw new TemplateError('invalid', 'The uploaded file is empty');
  if (UTF16_BOMS.some((bom) => file.subarray(0, 2).equals(bom))) {
    throw new TemplateError('invalid', 'The HTML file is saved as UTF-16; save it as UTF-8 and upload it again');
  }
  if (file.includes(0)) {
    throw new TemplateError('invalid', 'The file is binary, not HTML text; upload the template saved as an .html file');
  }
  let text: string;
  try {
    // The decoder drops a leading UTF-8 byte order mark.
    text = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    throw new TemplateError('invalid', 'The HTML file is not valid UTF-8 text; save it with UTF-8 encoding and upload it again');
  }
  if (!LOOKS_LIKE_HTML.test(text)) {
    throw new TemplateError('invalid', 'The file does not contain any HTML markup; upload an .html file with tags such as <p> or <table>');
  }
  return text;
}
