export { prepareDocxTemplate, DOCXTEMPLATER_OPTIONS, type PreparedTemplate } from './prepare-docx-template';
export { TemplateError, type TemplateIssue, type TemplateErrorKind } from './template-error';
export {
  type TemplateVariable,
  type VariableType,
  type NumberFormat,
  type VariableFormat,
  type InspectedPart,
  switchableTypes,
  directFields,
  detectVariables,
} from './variables';
// For fillers other than docxtemplater's (HTML): the same expressions, on the input as sent.
export { expressionParser, DEFAULT_EXPRESSION_TIMEOUT_MS } from './expressions/docx-parser';
export { checkTagExpressions } from './expressions/check-tags';
export { rawValues } from './expressions/raw-values';
export { type CorrectedToken, correctedName } from './correct-token-names';
export { DEFAULT_PACKAGE_LIMITS, DEFAULT_MAX_PART_BYTES, storedDocxPackage, zipExpandsWithin, type PackageLimits } from './docx-package';
export { DEFAULT_IMAGE_BOUNDS, imageBoundsProblem, isBitmapImage, gifFrameCount, type ImageBounds } from './image-bounds';
export { ImageModule, IMAGE_MODULE_NAME, type ImageData } from './image-module';
export { renderDocx } from './render/render-docx';
export { batchDocx } from './render/batch-docx';
export { withoutCommentMarks } from './comment-marks';
export { RenderInputError } from './render/render-error';
export { OutputTooLargeError } from './render/estimate-output';
export { prepareRenderData, DEFAULT_LOCALE } from './render/validate-input';
export { checkInput, inputJsonSchema } from './render/input-schema';
export { imageSources, type ImageSource } from './render/image-sources';
export { removeExternalReferences } from './external-references';
export { templateFormatOf, type TemplateFormat } from './prepare-upload';
export { htmlToDocx, HTML_IMPORT_FILTER, type HtmlConversion } from './html/html-to-docx';
export { decodeHtml } from './html/decode-html';
export { prepareHtmlTemplate, fillHtml, printableTemplate, type PreparedHtmlTemplate } from './html/html-template';
export { type PrintableHtml } from './html/print-layout';
export { type TagParser, escapeHtml } from './html/html-templater';
export { missingGlyphWarnings, coverageFromCharsets, type CoversCodePoint } from './html/glyph-coverage';
