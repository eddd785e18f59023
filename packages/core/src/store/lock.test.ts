import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withLock } from './lock.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A lock on a fresh path, taken when this returns and held until `letGo` is called; `held` settles once it is released. */
async function holdLock(): Promise<{ path: string; held: Promise<void>; letGo: () => void }> {
  dir = await mkdtemp(join(tmpdir(), 'orange-lock-'));
  const path = join(dir, 'thing');
  let letGo!: () => void;
  let taken!: () => void;
  const lockTaken = new Promise<void>((resolve) => (taken = resolve));
  const held = withLock(path, 'the thing', () => {
    taken();
    return new Promise<void>((resolve) => (letGo = resolve));
  });
  await lockTaken;
  return { path, held, letGo };
}

describe('withLock', () => {
  it('gives up with E_LOCKED once its wait is over, not twice as late (a held lock, waits of 0.3 s and 1 s)', async () => {
    const { path, held, letGo } = await holdLock();
    for (const waitMs of [300, 1000]) {
      const started = Date.now();
      const error = await withLock(path, 'the thing', async () => 'taken', { waitMs }).catch((e: unknown) => e);
      const waited = Date.now() - started;
      expect(error).toMatchObject({ code: 'E_LOCKED', message: 'the thing is busy (locked by another orange process); try again' });
      // Not before the deadline; after it by no more than one pause and a busy machine's slack.
      expect(waited, `waited ${waited} ms for ${waitMs}`).toBeGreaterThanOrEqual(waitMs - 5);
      expect(waited, `waited ${waited} ms for ${waitMs}`).toBeLessThan(waitMs + 400);
    }
    letGo();
    await held;
    expect(await withLock(path, 'the thing', async () => 'taken', { waitMs: 0 })).toBe('taken');
  });

  it('takes the lock as soon as its holder lets go, within the wait', async () => {
    const { path, held, letGo } = await holdLock();
    const waiting = withLock(path, 'the thing', async () => Date.now(), { waitMs: 5000 });
    // Measured from the moment the lock is really gone, not from when a timer was meant to fire:
    // a busy machine fires timers late.
    let freed = Number.NaN;
    setTimeout(() => {
      letGo();
      void held.then(() => (freed = Date.now()));
    }, 200);
    const took = await waiting;
    await held;
    // One retry pause (at most 100 ms) and a busy machine's slack; a backed-off retry count waited seconds.
    expect(took - freed, `took the lock ${took - freed} ms after it was freed`).toBeLessThan(400);
  });

  it('holds the lock as a directory <path>.lock beside the path, gone once fn returns', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-lock-'));
    const path = join(dir, 'nested', 'thing');
    const during = await withLock(path, 'the thing', async () => (await stat(`${path}.lock`)).isDirectory());
    expect(during).toBe(true);
    await expect(stat(`${path}.lock`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('rethrows at once a failure to lock that is not another holder, without running fn', async () => {
    dir = await mkdtemp(join(tmpdir(), 'orange-lock-'));
    // `<name>.lock` is one character over the 255 a file name may have: its mkdir fails, not for a holder.
    const path = join(dir, 'x'.repeat(251));
    let ran = false;
    const started = Date.now();
    const error = await withLock(path, 'the thing', async () => (ran = true), { waitMs: 10_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENAMETOOLONG' });
    expect(ran).toBe(false);
    // Not retried until the wait was over, as a busy lock is.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
