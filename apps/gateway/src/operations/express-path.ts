/** Where the API router is mounted; every operation's OpenAPI path starts with it. */
export const API_PREFIX = '/api/v1';

const PATH_PARAMETER = /\{(\w+)\}/g;

/** The names of an OpenAPI path template's parameters: /templates/{id}/documents → ['id']. */
export function pathParameterNames(openApiPath: string): string[] {
  return [...openApiPath.matchAll(PATH_PARAMETER)].map(([, name]) => name!);
}

/** An OpenAPI path as the router under API_PREFIX matches it: /api/v1/webhooks/{id} → /webhooks/:id. */
export function expressPath(openApiPath: string): string {
  if (!openApiPath.startsWith(`${API_PREFIX}/`)) throw new Error(`${openApiPath} is not under ${API_PREFIX}`);
  return openApiPath.slice(API_PREFIX.length).replace(PATH_PARAMETER, ':$1');
}
