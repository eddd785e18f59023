import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { OrangeError } from '../errors/index.js';

export interface LockOptions {
  /** Give up after about this long waiting for another holder. */
  readonly waitMs?: number;
}

/**
 * The one lock helper: an exclusive lock on `path` (a directory `<path>.lock` beside it),
 * held while `fn` runs. A holder killed with SIGKILL leaves a stale lock that is taken over
 * after a few seconds (proper-lockfile refreshes the lock's mtime while it is held).
 */
export async function withLock<T>(path: string, what: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const waitMs = options.waitMs ?? 15_000;
  await mkdir(dirname(path), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(path, {
      realpath: false,
      lockfilePath: `${path}.lock`,
      stale: 5_000,
      update: 1_000,
      retries: { retries: Math.ceil(waitMs / 25), minTimeout: 5, maxTimeout: 50, factor: 1.3, randomize: true },
      // A compromised lock (mtime refresh failed) must not crash the process with an unhandled throw.
      onCompromised: () => undefined,
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'ELOCKED') {
      throw new OrangeError('E_LOCKED', `${what} is busy (locked by another orange process); try again`);
    }
    throw error;
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
