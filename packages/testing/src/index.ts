export { createTestDatabase, type TestDatabase } from './test-database';
export { seedOrganization, type SeededOrganization } from './seed';
export { startRedisServer, type RedisServer } from './redis-server';
export { startService, type RunningService, type ServiceName } from './service-process';
export { uniqueId, repoRoot } from './paths';
export { buildDocx, paragraph, run, table, textBox } from './docx-builder';
export { startStack, apiClient, type Stack, type ApiClient, type ApiResponse } from './stack';
export { solidPng, pngDataUri } from './png';
export { makeTestCertificates, startHttpsReceiver, type HttpsReceiver, type ReceivedWebhook, type TestCertificates, type Reply } from './https-receiver';
