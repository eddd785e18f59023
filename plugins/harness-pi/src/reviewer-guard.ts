import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '@orange/core';

/**
 * Where the guard lives, relative to the worktree: under `.pi/` (hidden from git) but outside
 * `.pi/extensions/`, so pi loads it only when a reviewer is started with `--extension`.
 */
export const REVIEWER_GUARD_PATH = join('.pi', 'orange', 'reviewer-guard.js');

/** Shell commands a reviewer may not run: feedback goes into TASK.md, never onto GitHub (seed 003). */
export const REVIEWER_BLOCKED_COMMAND = /(^|[\s;&|(])gh\s+pr\s+(review|comment)(\s|$)/;

/** A pi extension that blocks `gh pr review` and `gh pr comment` in the bash tool. */
export const REVIEWER_GUARD_SOURCE = `// Written by Orange for pi reviewers; rewritten on every reviewer start.
const blocked = ${REVIEWER_BLOCKED_COMMAND.toString()};

export default function orangeReviewerGuard(pi) {
  pi.on('tool_call', async (event) => {
    const command = event.toolName === 'bash' && event.input ? String(event.input.command ?? '') : '';
    if (blocked.test(command)) {
      return { block: true, reason: 'Orange reviewers write their feedback into ## Review in TASK.md, not onto GitHub.' };
    }
    return undefined;
  });
}
`;

/** Writes the reviewer guard extension into a worktree; returns its path. */
export async function writeReviewerGuard(workspace: string): Promise<string> {
  const file = join(workspace, REVIEWER_GUARD_PATH);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, REVIEWER_GUARD_SOURCE);
  return file;
}
