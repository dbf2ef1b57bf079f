import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileNotFoundError, type FileStorage } from './file-storage';
import { assertSafeKey } from './keys';

/**
 * Where writes in progress live: inside the root (same filesystem, so the final rename is
 * atomic) but apart from every key (keys never start with a dot), so a writer killed
 * mid-write leaves nothing beside the stored files.
 */
const PARTIAL_DIR = '.partial';
const STALE_PARTIAL_MS = 60 * 60 * 1000;

/** Folders this process made durable, remembered so each costs one flush; cleared when this many. */
const REMEMBERED_FOLDERS = 10_000;

export class LocalFileStorage implements FileStorage {
  private readonly root: string;
  private partialDir: Promise<string> | undefined;
  private readonly durableFolders = new Map<string, Promise<void>>();

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  /** A fresh temporary path. The first call also clears what killed writers left (older than an hour). */
  private async temporaryPath(): Promise<string> {
    this.partialDir ??= (async () => {
      const dir = path.join(this.root, PARTIAL_DIR);
      await mkdir(dir, { recursive: true });
      void removeOlderThan(dir, STALE_PARTIAL_MS);
      return dir;
    })().catch((error: unknown) => {
      this.partialDir = undefined; // the next write tries again
      throw error;
    });
    return path.join(await this.partialDir, `${randomUUID()}.tmp`);
  }

  private resolve(key: string): string {
    assertSafeKey(key);
    return path.join(this.root, key);
  }

  /**
   * Creates `folder` under the root if need be and makes its name durable: its parent is
   * flushed, after the parent's own name, up to the root (the operator's). Done once per
   * folder per process, whoever created it: a folder another process made, or one left by
   * a writer that died before its flush, is flushed here too.
   */
  private makeDurable(folder: string): Promise<void> {
    if (folder === this.root) return Promise.resolve();
    let durable = this.durableFolders.get(folder);
    if (!durable) {
      if (this.durableFolders.size >= REMEMBERED_FOLDERS) this.durableFolders.clear();
      durable = (async () => {
        await mkdir(folder, { recursive: true });
        const parent = path.dirname(folder);
        await this.makeDurable(parent);
        await syncFolder(parent);
      })();
      durable.catch(() => this.durableFolders.delete(folder)); // the next write tries again
      this.durableFolders.set(folder, durable);
    }
    return durable;
  }

  /**
   * Write to a temporary name, flush, rename, then flush the folder: a crash never leaves a
   * partial file under the key, and once put resolves the file survives a power loss too
   * (the caller may then record it as stored, e.g. mark its document ready).
   */
  async put(key: string, data: Buffer): Promise<void> {
    await this.storeAs(this.resolve(key), async (temporary) => {
      const handle = await open(temporary, 'w', 0o640);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }

  async putStream(key: string, data: Readable): Promise<number> {
    let bytesWritten = 0;
    await this.storeAs(this.resolve(key), async (temporary) => {
      const out = createWriteStream(temporary, { mode: 0o640 });
      await pipeline(data, out);
      bytesWritten = out.bytesWritten;
      const handle = await open(temporary, 'r');
      await handle.sync().finally(() => handle.close());
    });
    return bytesWritten;
  }

  /**
   * `write` fills and flushes a temporary file, which is then renamed to `target` and its
   * folder flushed. The folder's own name is made durable at the same time as the write (a
   * new document's folder costs no wait of its own); the rename waits for both.
   */
  private async storeAs(target: string, write: (temporary: string) => Promise<void>): Promise<void> {
    const folder = path.dirname(target);
    const temporary = await this.temporaryPath();
    const [written, durable] = await Promise.allSettled([write(temporary), this.makeDurable(folder)]);
    try {
      if (written.status === 'rejected') throw written.reason;
      if (durable.status === 'rejected') throw durable.reason;
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    await syncFolder(folder);
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.resolve(key));
    } catch (error) {
      throw notFoundOr(error, key);
    }
  }

  async open(key: string) {
    const file = this.resolve(key);
    try {
      const { size } = await stat(file);
      return { stream: createReadStream(file), size };
    } catch (error) {
      throw notFoundOr(error, key);
    }
  }

  /** Once it resolves the file stays deleted after a power loss too (retention counts on it). */
  async delete(key: string): Promise<void> {
    const file = this.resolve(key);
    await rm(file, { force: true });
    await syncFolder(path.dirname(file)).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'ENOENT') throw error; // no folder, nothing was there
    });
  }

  async list(prefix: string): Promise<string[]> {
    // A prefix is not always a folder ("templates/<org>/<id>." names one template's files): read its folder and keep what starts with it.
    const folder = prefix.slice(0, Math.max(0, prefix.lastIndexOf('/')));
    const names = await readdir(folder ? this.resolve(folder) : this.root, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
      if ((error as { code?: string }).code === 'ENOENT') return [];
      throw error;
    });
    return names
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(this.root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
      .filter((key) => key.startsWith(prefix))
      .sort();
  }
}

/** Best effort: another process may be clearing the same folder. */
async function removeOlderThan(dir: string, ageMs: number): Promise<void> {
  const cutoff = Date.now() - ageMs;
  for (const name of await readdir(dir).catch(() => [])) {
    const file = path.join(dir, name);
    const info = await stat(file).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await rm(file, { force: true }).catch(() => undefined);
  }
}

function notFoundOr(error: unknown, key: string): unknown {
  return (error as { code?: string }).code === 'ENOENT' ? new FileNotFoundError(key) : error;
}

/**
 * A file's name lives in its folder, and a folder's in its parent: flushing a file's data
 * does not make a rename into a folder, or a new folder, survive a power loss; flushing
 * the folder does (fsync on a directory, as databases do after a rename). A filesystem
 * that cannot flush a directory says so with EINVAL or the like; as PostgreSQL does, that
 * is not an error: there is nothing more to be done there.
 */
async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } catch (error) {
    if (!CANNOT_SYNC_FOLDERS.has((error as { code?: string }).code ?? '')) throw error;
  } finally {
    await handle.close();
  }
}

const CANNOT_SYNC_FOLDERS = new Set(['EINVAL', 'EBADF', 'ENOTSUP', 'EOPNOTSUPP']);
