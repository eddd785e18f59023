import type { WorkspaceInfo } from '@orange/core';
import { table } from './render.js';

/** Worktrees as `workspace init` and `workspace list` both print them: NAME, TASK (`free` when none holds it), PATH. */
export function workspaceTable(workspaces: readonly WorkspaceInfo[]): string {
  return table(['NAME', 'TASK', 'PATH'], workspaces.map((w) => [w.name, w.task ?? 'free', w.path]));
}
