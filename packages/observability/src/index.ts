export { createLogger, type Logger } from './logger';
export { createMetricsRegistry, type Registry } from './metrics';
export { checkReadiness, type ReadinessCheck, type ReadinessReport } from './readiness';
export { startOpsServer, type OpsServer } from './ops-server';
export { ShutdownManager } from './shutdown-manager';
