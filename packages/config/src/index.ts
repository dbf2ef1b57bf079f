export { loadConfig, ConfigError } from './load-config';
export { envVar, commonEnv } from './env-vars';
