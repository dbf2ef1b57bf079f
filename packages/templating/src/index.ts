export { prepareDocxTemplate, DOCXTEMPLATER_OPTIONS, type PreparedTemplate } from './prepare-docx-template';
export { TemplateError, type TemplateIssue, type TemplateErrorKind } from './template-error';
export { type TemplateVariable, type VariableType } from './variables';
export { type CorrectedToken, correctedName } from './correct-token-names';
export { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from './docx-package';
export { ImageTagModule, IMAGE_MODULE_NAME } from './image-module';
export { prepareUpload, templateFormatOf, type TemplateFormat } from './prepare-upload';
