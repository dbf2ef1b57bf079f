import { existsSync } from 'node:fs';

/**
 * A memory file system for LibreOffice's scratch files, as the Kubernetes and Compose files
 * give the render worker (an in-memory /tmp); undefined where the machine has none.
 */
export const MEMORY_SCRATCH_DIR: string | undefined = existsSync('/dev/shm') ? '/dev/shm' : undefined;
