import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';
import { OrangeError } from '../errors/index.js';

export interface LockOptions {
  /** Give up after this long waiting for another holder (default 30 s; 0: one try). */
  readonly waitMs?: number;
}

/**
 * The one lock helper: an exclusive lock on `path` (a directory `<path>.lock` beside it),
 * held while `fn` runs. A holder killed with SIGKILL leaves a stale lock that is taken over
 * after a few seconds (proper-lockfile refreshes the lock's mtime while it is held).
 */
export async function withLock<T>(path: string, what: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  // 30 s: under steady contention (three writers and an editor on one task, the machine busy) a
  // waiter can lose the race for longer than 15 s; the lock has no queue.
  const waitMs = options.waitMs ?? 30_000;
  await mkdir(dirname(path), { recursive: true });
  // Retried against a deadline, not a count: a count of backed-off retries waited for as long as
  // its randomized pauses added up to (31 s measured where 15 s was meant).
  const deadline = Date.now() + waitMs;
  let pause = 5;
  let release: () => Promise<void>;
  for (;;) {
    try {
      release = await lockfile.lock(path, {
        realpath: false,
        lockfilePath: `${path}.lock`,
        stale: 5_000,
        update: 1_000,
        retries: 0,
        // A compromised lock (mtime refresh failed) must not crash the process with an unhandled throw.
        onCompromised: () => undefined,
      });
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELOCKED') throw error;
      const left = deadline - Date.now();
      if (left <= 0) throw new OrangeError('E_LOCKED', `${what} is busy (locked by another orange process); try again`);
      // Randomized, so that two waiters do not retry in step.
      await sleep(Math.min(left, pause * (1 + Math.random())));
      pause = Math.min(50, pause * 1.3);
    }
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
