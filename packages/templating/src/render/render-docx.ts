import Docxtemplater from 'docxtemplater';
import PizZip from 'pizzip';
import { fetchingFieldsAfterFill } from '../external-references';
import { makePackageSelfContained } from '../package-links';
import { TemplateError } from '../template-error';
import { ImageModule, type ImageData } from '../image-module';
import { expressionParser } from '../expressions/docx-parser';
import { DOCXTEMPLATER_OPTIONS } from '../prepare-docx-template';
import type { TemplateVariable } from '../variables';
import { checkOutputSize, type FillParser } from './estimate-output';
import { fitImagesToCells } from './fit-images-to-cells';
import { missingValueRecorder } from './missing-values';
import { NATIVE_DEFLATE, storeCompressedPictures } from './native-deflate';
import { RenderInputError } from './render-error';
import { dropTrailingPageBreak } from './trailing-page-break';
import { zipInput, zipOutput } from '../zip-entry';
import { DEFAULT_LOCALE, prepareRenderData } from './validate-input';

/**
 * Fills a stored template with a document's input. Every missing value fails the render
 * with a message naming it — top-level tokens by name, tokens inside loops with the loop
 * and the item — instead of printing "undefined" or nothing. The result never references
 * anything outside the package, so converting it cannot make LibreOffice fetch.
 * `compress: false` writes the parts stored, for a DOCX that is only converted; `locale`
 * (BCP 47) is the template's, for numbers and month and day names.
 * `maxOutputBytes` refuses, before filling, a fill whose XML would pass it (estimate-output.ts).
 */
export function renderDocx(
  template: Buffer,
  variables: TemplateVariable[],
  input: Record<string, unknown>,
  images: Map<string, ImageData> = new Map(),
  options: { compress?: boolean; locale?: string; maxOutputBytes?: number; expressionTimeoutMs?: number } = {},
): Buffer {
  const data = prepareRenderData(variables, input, options.locale);
  const { missing, nullGetter } = missingValueRecorder();
  const imageModule = new ImageModule(images);
  const expressions = expressionParser({ locale: options.locale ?? DEFAULT_LOCALE, timeoutMs: options.expressionTimeoutMs });
  const doc = new Docxtemplater(new PizZip(zipInput(template)), { ...DOCXTEMPLATER_OPTIONS, parser: expressions.parser, modules: [imageModule], nullGetter });
  try {
    if (options.maxOutputBytes !== undefined) {
      const compiled = (doc as unknown as { compiled: Record<string, { postparsed: Parameters<typeof checkOutputSize>[0][number] }> }).compiled;
      checkOutputSize(
        Object.values(compiled).map((file) => file.postparsed),
        data,
        images,
        options.maxOutputBytes,
        expressions.parser as FillParser,
        imageModule.barcodes,
      );
      expressions.restartBudget();
    }
    doc.render(data);
  } catch (error) {
    if (error instanceof RenderInputError) throw error;
    if (expressions.state.failure) throw expressions.state.failure;
    const inner = (error as { properties?: { errors?: { properties?: { explanation?: string } }[] } }).properties?.errors?.[0];
    throw new RenderInputError(inner?.properties?.explanation ?? `The template could not be filled: ${(error as Error).message}`);
  }
  if (missing.length > 0) throw new RenderInputError(missing[0]!);
  const filledParts = Object.keys((doc as unknown as { compiled: Record<string, unknown> }).compiled);
  const fetching = fetchingFieldsAfterFill(doc.getZip(), filledParts);
  if (fetching.length > 0) {
    throw new RenderInputError(
      `A value completes a field that would fetch content from elsewhere (${fetching.join(', ')}); template tags must not sit inside field codes`,
    );
  }
  const zip = doc.getZip();
  for (const part of imageModule.partsWithImages) {
    zip.file(part, fitImagesToCells(zip.file(part)!.asText(), imageModule.textWidthEmu!));
  }
  const body = zip.file('word/document.xml')?.asText();
  const trimmed = body === undefined ? body : dropTrailingPageBreak(body);
  if (trimmed !== body) zip.file('word/document.xml', trimmed!);
  imageModule.declareContentTypes(zip);
  // Again on the filled package, whatever the upload checked: a template stored before a check
  // existed, or written to storage by other means, must not reach LibreOffice with a way out.
  try {
    makePackageSelfContained(zip);
  } catch (error) {
    if (error instanceof TemplateError) throw new RenderInputError(`The template cannot be converted: ${error.message}`);
    throw error;
  }
  // An intermediate only LibreOffice reads need not be compressed (deflate was ~15% of a render's CPU).
  if (options.compress === false) return zipOutput(zip, 'STORE');
  storeCompressedPictures(zip);
  return zipOutput(zip, NATIVE_DEFLATE);
}
