export { loadConfig, ConfigError } from './load-config';
export { envVar, commonEnv, expressionEnv, secretsEnv } from './env-vars';
