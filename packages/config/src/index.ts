export { loadConfig, ConfigError } from './load-config';
export { envVar, commonEnv, expressionEnv } from './env-vars';
