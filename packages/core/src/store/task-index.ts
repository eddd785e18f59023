import { lstatSync } from 'node:fs';
import type { TaskMeta } from '../task/index.js';
import { writeFileAtomic } from './atomic.js';
import type { OrangePaths } from './paths.js';
import { openRegularFile } from './regular-file.js';

/** One task as the index keeps it: its fields and forged field names, an error, or gone. */
export type IndexEntry =
  | { readonly meta: TaskMeta; readonly tampered: readonly string[]; readonly error?: undefined; readonly gone?: undefined }
  | { readonly error: string; readonly meta?: undefined; readonly gone?: undefined }
  | { readonly gone: true; readonly meta?: undefined; readonly error?: undefined };

interface StoredEntry {
  /** The identity of the task's files when the entry was computed; null when it must not be trusted. */
  readonly k: string | null;
  readonly meta?: TaskMeta;
  readonly tampered?: readonly string[];
  readonly error?: string;
}

interface IndexFile {
  readonly v: 1;
  readonly entries: Record<string, StoredEntry>;
}

const INDEX_MAX_BYTES = 256 * 1024 * 1024;
/**
 * A file changed within this long before its entry was computed may change again within the same
 * mtime tick, keeping size and inode: such an entry is not trusted next time (git's "racy" rule).
 */
const RACY_MS = 2000;

/**
 * A file's identity: inode, size, mtime and ctime. The ctime catches what the others miss: an edit
 * in place that keeps the size, followed by `touch -r` putting the old mtime back (no program can
 * set a ctime).
 */
function identity(path: string): { key: string; mtimeMs: number } {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat ? { key: `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`, mtimeMs: stat.mtimeMs } : { key: '-', mtimeMs: 0 };
}

/**
 * The per-project listing index, `tasks/<project>/.index.json`: each task's fields, keyed by the
 * identity (inode, size, mtime, ctime) of its state, TASK.md and — for tasks without a state file — its
 * history. It is a cache and never trusted blindly: every entry is checked against the files on
 * every read (two `lstat`s a task), and a missing, stale or corrupt index is rebuilt.
 */
export class TaskIndex {
  constructor(private readonly paths: OrangePaths) {}

  /** Every listed task's entry, computing (with `compute`) only those whose files changed. */
  async entries(project: string, ids: readonly string[], compute: (id: string) => Promise<IndexEntry>): Promise<Map<string, IndexEntry>> {
    const file = this.paths.taskIndexFile(project);
    const stored = await this.load(file, project);
    const next: Record<string, StoredEntry> = {};
    const result = new Map<string, IndexEntry>();
    let dirty = Object.keys(stored).length !== ids.length;
    for (const id of ids) {
      const { key, newest } = this.keyOf(project, id);
      const cached = stored[id];
      let entry: IndexEntry;
      if (cached && cached.k !== null && cached.k === key && (cached.meta === undefined || cached.meta.id === id)) {
        entry = cached.meta ? { meta: cached.meta, tampered: cached.tampered ?? [] } : { error: cached.error ?? 'unreadable' };
        next[id] = cached;
      } else {
        entry = await compute(id);
        dirty = true;
        if (entry.gone) continue;
        // The key is taken again after computing: a write in between must not be cached as seen.
        const after = this.keyOf(project, id);
        const trusted = after.key === key && Date.now() - Math.max(newest, after.newest) > RACY_MS;
        next[id] = { k: trusted ? key : null, ...(entry.meta ? { meta: entry.meta, tampered: entry.tampered } : { error: entry.error }) };
      }
      result.set(id, entry);
    }
    if (dirty) await writeFileAtomic(file, JSON.stringify({ v: 1, entries: next } satisfies IndexFile)).catch(() => undefined);
    return result;
  }

  private keyOf(project: string, id: string): { key: string; newest: number } {
    const files = this.paths.taskFiles(project, id);
    const state = identity(files.state);
    const task = identity(files.task);
    // Without a state file the status is checked against the ledger, so the history is part of the key.
    const history = state.key === '-' ? identity(files.history) : { key: '', mtimeMs: 0 };
    return { key: `${state.key}|${task.key}|${history.key}`, newest: Math.max(state.mtimeMs, task.mtimeMs, history.mtimeMs) };
  }

  private async load(file: string, project: string): Promise<Record<string, StoredEntry>> {
    try {
      const opened = await openRegularFile(file, { maxBytes: INDEX_MAX_BYTES, within: this.paths.projectTasksDir(project), what: file });
      if (!opened) return {};
      await opened.handle.close();
      const parsed = JSON.parse(opened.text) as Partial<IndexFile>;
      if (parsed.v !== 1 || typeof parsed.entries !== 'object' || parsed.entries === null) return {};
      return parsed.entries;
    } catch {
      // A corrupt or odd index is only a lost cache: rebuilt from the task files.
      return {};
    }
  }
}
