export { runService, type ServiceContext } from './run-service';
export { serveOps } from './serve-ops';
export { connectDataStores, dataStoreChecks } from './data-stores';
export { superviseWorker } from './supervise-worker';
export { startSweep, type Sweep } from './sweep';
export { withDeadline } from './with-deadline';
export { Turns, TurnsByKey } from './turns';
