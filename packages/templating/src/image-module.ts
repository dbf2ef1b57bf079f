export const IMAGE_MODULE_NAME = 'docgen/image';

/**
 * Makes `{%name}` an image tag for docxtemplater. Inspection needs only the matcher; the
 * render worker adds the drawing markup when it fills the template.
 */
export class ImageTagModule {
  readonly name = 'DocgenImageModule';

  matchers(): [string, string, Record<string, unknown>][] {
    return [['%', IMAGE_MODULE_NAME, {}]];
  }
}
