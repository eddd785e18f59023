import { stat } from 'node:fs/promises';
import type { Orange } from '@orange/core';
import { outsideCalls } from './served-call.js';

interface Entry {
  /** The Orange and its config file's modification time when it was loaded (null: the built-in config, or no such file). */
  readonly loaded: Promise<{ readonly orange: Orange; readonly mtimeMs: number | null }>;
}

async function mtimeOf(file: string | null): Promise<number | null> {
  return file === null ? null : stat(file).then((s) => s.mtimeMs, () => null);
}

/** How many configs a server keeps loaded at once (the least recently used goes first). */
const KEPT = 16;

/**
 * Orange instances for a long-running process's served calls, one per directory a config search
 * starts from (the server decides which: a project's). A config edited since it was loaded is
 * loaded again on the next call, as a new CLI process would. Instances are built outside any
 * served call: they are shared, and no one call's environment is theirs.
 */
export interface OrangeCache {
  /** The Orange for a config searched from `dir`. */
  readonly get: (dir: string) => Promise<Orange>;
  /** Waits for the notifications every cached Orange is still delivering (before the process stops). */
  readonly settle: () => Promise<void>;
}

export function orangeCache(own: Orange, ownDir: string, build: (dir: string) => Promise<Orange>): OrangeCache {
  const entries = new Map<string, Entry>();
  const load = (dir: string): Entry => {
    const loaded = outsideCalls(() => build(dir)).then(async (orange) => ({ orange, mtimeMs: await mtimeOf(orange.configFile) }));
    const entry = { loaded };
    // A config that fails to load is not kept: the next call tries again (and reports the error).
    loaded.catch(() => entries.get(dir) === entry && entries.delete(dir));
    return entry;
  };
  entries.set(ownDir, { loaded: mtimeOf(own.configFile).then((mtimeMs) => ({ orange: own, mtimeMs })) });
  const get = async (dir: string): Promise<Orange> => {
    let entry = entries.get(dir);
    if (entry) {
      const { orange, mtimeMs } = await entry.loaded.catch(() => ({ orange: null, mtimeMs: null }));
      if (orange === null || (await mtimeOf(orange.configFile)) !== mtimeMs) {
        // Edited (or failed): whoever sees it first loads it again; the others wait for that load.
        if (entries.get(dir) === entry) entries.set(dir, load(dir));
        entry = entries.get(dir);
      }
    }
    if (!entry) {
      entry = load(dir);
      entries.set(dir, entry);
    }
    // Most recently used last; the oldest beyond KEPT is let go (the server's own stays).
    entries.delete(dir);
    entries.set(dir, entry);
    for (const key of entries.keys()) {
      if (entries.size <= KEPT) break;
      if (key !== ownDir) entries.delete(key);
    }
    return (await entry.loaded).orange;
  };
  const settle = async () => {
    const loaded = await Promise.allSettled([...entries.values()].map((e) => e.loaded));
    await Promise.allSettled(loaded.flatMap((r) => (r.status === 'fulfilled' ? [r.value.orange.notifications.settle()] : [])));
  };
  return { get, settle };
}
