export { apiSchemas } from './registry';
export { ErrorBody, ValidationErrorBody, errorResponses, ERROR_DESCRIPTIONS, type ErrorStatus } from './errors';
export { MeResponse } from './me';
export { operations, type Operation } from './operations';
export { buildOpenApiDocument } from './openapi';
