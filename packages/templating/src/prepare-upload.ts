import path from 'node:path';
import { TemplateError } from './template-error';

export type TemplateFormat = 'docx' | 'html';

/** The template format from the uploaded file's name; anything else is refused (415). */
export function templateFormatOf(filename: string): TemplateFormat {
  const extension = path.extname(filename).toLowerCase();
  if (extension === '.docx') return 'docx';
  if (extension === '.html' || extension === '.htm') return 'html';
  if (extension === '.doc') {
    throw new TemplateError('unsupported', 'Legacy .doc files are not supported; open the file in Word and save it as .docx');
  }
  throw new TemplateError('unsupported', `Unsupported file type${extension ? ` "${extension}"` : ''}; upload a .docx or .html template`);
}
