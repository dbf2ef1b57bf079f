export { runService, type ServiceContext } from './run-service';
export { serveOps } from './serve-ops';
