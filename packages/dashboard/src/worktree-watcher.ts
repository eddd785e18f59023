import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';

/** Called with the task whose worktree changed (a file written, `git add`, a commit). */
export type WorktreeChanged = (id: string) => void;

interface Watched {
  readonly path: string;
  readonly watcher: FSWatcher;
  timer: NodeJS.Timeout | undefined;
}

/** The files git changes in a worktree's own git directory on `git add` and on a commit. */
function gitFiles(worktree: string): string[] {
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(worktree, '.git'), 'utf8'))?.[1]?.trim();
    if (!pointer) return [];
    const dir = isAbsolute(pointer) ? pointer : resolve(worktree, pointer);
    return [join(dir, 'HEAD'), join(dir, 'index')];
  } catch {
    return [];
  }
}

/**
 * Follows the worktrees of the tasks the dashboard shows (chokidar: the worktree's files, but not
 * its node_modules, and the two files of its git directory a commit or an add rewrites), and says
 * which task changed, at most once per `debounceMs` per task — the diff stat is read then, not on
 * a timer.
 */
export class WorktreeWatcher {
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly onChange: WorktreeChanged,
    private readonly debounceMs = 500,
  ) {}

  /** Watches exactly these worktrees (task id → path): new ones are added, gone or moved ones closed. */
  sync(worktrees: ReadonlyMap<string, string>): void {
    for (const [id, entry] of this.watched) {
      if (worktrees.get(id) !== entry.path) this.unwatch(id);
    }
    for (const [id, path] of worktrees) {
      if (this.watched.has(id)) continue;
      const ignored = (file: string) => file === join(path, '.git') || /[\\/]node_modules([\\/]|$)/.test(file.slice(path.length));
      const watcher = watch([path, ...gitFiles(path)], { ignoreInitial: true, persistent: false, ignored });
      const entry: Watched = { path, watcher, timer: undefined };
      watcher.on('all', () => {
        if (entry.timer) return;
        entry.timer = setTimeout(() => {
          entry.timer = undefined;
          this.onChange(id);
        }, this.debounceMs);
      });
      // A worktree removed under us, or the system's watch limit: the feed's slow backstop covers it.
      watcher.on('error', () => undefined);
      this.watched.set(id, entry);
    }
  }

  close(): void {
    for (const id of [...this.watched.keys()]) this.unwatch(id);
  }

  private unwatch(id: string): void {
    const entry = this.watched.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    void entry.watcher.close();
    this.watched.delete(id);
  }
}
