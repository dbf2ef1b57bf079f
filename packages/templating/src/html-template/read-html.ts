import { TemplateError } from '../template-error';

/** The upload as HTML text, or a TemplateError saying why it is not HTML. */
export function readHtml(file: Buffer): string {
  if (file.length === 0) throw new TemplateError('invalid', 'The uploaded file is empty');
  if (file.includes(0)) throw new TemplateError('invalid', 'The .html file is binary, not HTML text');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    throw new TemplateError('invalid', 'The .html file is not UTF-8 text; save it with UTF-8 encoding');
  }
  if (!/<\s*[a-z!]/i.test(text)) throw new TemplateError('invalid', 'The .html file contains no HTML markup');
  return text;
}
