import { parsePluginOptions } from '@orange/core';
import { z } from 'zod';

// A remote or executable name starting with "-" would be read by git as an option.
const notAnOption = (v: string) => !v.startsWith('-');

/** Options of the worktree-pool plugin. */
export const WorktreePoolOptionsSchema = z
  .object({
    /** The remote worktrees are based on and task branches are looked up in. */
    remote: z.string().min(1).regex(/^[A-Za-z0-9._/-]+$/, 'must be letters, digits, ".", "_", "/" or "-"').refine(notAnOption, 'must not start with "-"').default('origin'),
    /** The git executable. */
    gitBin: z.string().min(1).refine(notAnOption, 'must not start with "-"').default('git'),
    /**
     * Ignored files and folders (git's exclude patterns) a worktree keeps when it is handed to the
     * next task, so caches need not be rebuilt: everything else untracked or ignored is removed.
     */
    keep: z.array(z.string().min(1).refine(notAnOption, 'must not start with "-"')).default(['node_modules']),
  })
  .strict();

export type WorktreePoolOptionsInput = z.input<typeof WorktreePoolOptionsSchema>;
export type WorktreePoolOptions = z.output<typeof WorktreePoolOptionsSchema>;

/** Validates the plugin's options; an error names the plugin and the field. */
export function parseWorktreePoolOptions(options: unknown): WorktreePoolOptions {
  return parsePluginOptions('worktree-pool', WorktreePoolOptionsSchema, options);
}
