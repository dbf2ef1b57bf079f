// The entry point of each worker thread (piscina calls the default export with a task).
import { runTask } from './tasks';

export default runTask;
