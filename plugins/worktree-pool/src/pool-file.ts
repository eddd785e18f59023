import { readFile } from 'node:fs/promises';
import { OrangeError, withLock, writeFileAtomic } from '@orange/core';
import { z } from 'zod';

/** One worktree of the pool, as `.pool.json` records it. */
export const PoolEntrySchema = z
  .object({
    /** `<project>--<n>`, also the worktree's directory name. */
    name: z.string().min(1),
    project: z.string().min(1),
    path: z.string().min(1),
    /** The task holding the worktree, or null when free. */
    task: z.string().nullable(),
  })
  .strict();

export type PoolEntry = z.output<typeof PoolEntrySchema>;

/** `$ORANGE_HOME/workspaces/.pool.json`. */
export const PoolStateSchema = z
  .object({
    version: z.literal(1),
    workspaces: z.array(PoolEntrySchema),
  })
  .strict();

export type PoolState = z.output<typeof PoolStateSchema>;

/** The number in `<project>--<n>`. */
export function slotNumber(entry: PoolEntry): number {
  const n = Number(entry.name.slice(entry.project.length + 2));
  return Number.isInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}

/**
 * The pool state file. Every change goes through `mutate`, which holds the pool lock for the
 * whole read → change → atomic write, so two processes can never hand out one worktree twice.
 */
export class PoolFile {
  constructor(readonly path: string) {}

  /** The current state (an absent file is an empty pool). Safe without the lock: writes are atomic. */
  async read(): Promise<PoolState> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, workspaces: [] };
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OrangeError('E_WORKSPACE', `${this.path} is not valid JSON; fix or remove it (worktrees are re-adopted on the next acquire)`);
    }
    const parsed = PoolStateSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue && issue.path.length ? issue.path.join('.') : '(root)';
      throw new OrangeError('E_WORKSPACE', `${this.path}: ${field} ${issue?.message ?? 'is invalid'}`);
    }
    return parsed.data;
  }

  /**
   * Runs `fn` on the state under the pool lock and writes back what it returns (when it returns
   * a state). Keep `fn` short: every acquire and release of every project waits on this lock.
   */
  async mutate<T>(fn: (state: PoolState) => Promise<{ state?: PoolState; result: T }>): Promise<T> {
    return withLock(this.path, 'workspace pool', async () => {
      const before = await this.read();
      const { state, result } = await fn(before);
      if (state) await writeFileAtomic(this.path, `${JSON.stringify(PoolStateSchema.parse(state), null, 2)}\n`);
      return result;
    });
  }
}
