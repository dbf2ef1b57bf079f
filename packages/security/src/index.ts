export { generateApiKey, hashApiKey, looksLikeApiKey, API_KEY_PREFIX, type NewApiKey } from './api-keys';
