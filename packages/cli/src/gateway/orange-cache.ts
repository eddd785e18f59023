import { stat } from 'node:fs/promises';
import { configSearchStart, type Orange } from '@orange/core';

interface Entry {
  readonly orange: Promise<Orange>;
  /** The loaded config file's modification time when it was loaded (null: the built-in config). */
  readonly mtimeMs: number | null;
}

async function mtimeOf(file: string | null): Promise<number | null> {
  return file === null ? null : stat(file).then((s) => s.mtimeMs, () => null);
}

/**
 * Orange instances for a long-running process's served calls, one per place a config search
 * starts (a project's directory; a worktree maps to its project's). A config edited since it was
 * loaded is loaded again on the next call, as a new CLI process would.
 */
export function orangeCache(own: Orange, ownDir: string, build: (cwd: string) => Promise<Orange>): (cwd: string) => Promise<Orange> {
  const entries = new Map<string, Entry>();
  const seeded = configSearchStart(ownDir, own.paths).then(async (dir) => {
    entries.set(dir, { orange: Promise.resolve(own), mtimeMs: await mtimeOf(own.configFile) });
  });
  return async (cwd) => {
    await seeded;
    const dir = await configSearchStart(cwd, own.paths);
    const entry = entries.get(dir);
    if (entry) {
      const orange = await entry.orange.catch(() => null);
      if (orange && (await mtimeOf(orange.configFile)) === entry.mtimeMs) return orange;
    }
    const orange = build(dir);
    // A config that fails to load is not kept: the next call tries again (and reports the error).
    entries.set(dir, { orange, mtimeMs: null });
    const built = await orange.catch((error: unknown) => {
      entries.delete(dir);
      throw error;
    });
    entries.set(dir, { orange, mtimeMs: await mtimeOf(built.configFile) });
    return built;
  };
}
