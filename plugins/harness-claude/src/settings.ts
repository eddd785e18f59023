import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isJsonObject, readHarnessSettings, writeFileAtomic } from '@orange/core';

/** What Orange needs from Claude Code's permissions in a worktree. */
export interface ClaudeSettingsInput {
  /** The task's directory under $ORANGE_HOME: TASK.md in the worktree is a link into it. */
  readonly agentDir: string;
}

/** Bash commands every agent may run without asking, even with reduced permissions after a respawn. */
export const ALLOWED_TOOLS = ['Bash(orange:*)'] as const;

type Json = Record<string, unknown>;

/**
 * Writes `.claude/settings.local.json` in a worktree, merged into what is there: Orange's
 * entries are added to `permissions.allow` and `permissions.additionalDirectories`, every other
 * key and entry is kept. Returns the file's path.
 */
export async function writeClaudeSettings(workspace: string, input: ClaudeSettingsInput): Promise<string> {
  const dir = join(workspace, '.claude');
  const file = join(dir, 'settings.local.json');
  const existing = await readHarnessSettings(file);
  const permissions = isJsonObject(existing.permissions) ? existing.permissions : {};
  const next: Json = {
    ...existing,
    permissions: {
      ...permissions,
      allow: union(permissions.allow, ALLOWED_TOOLS),
      additionalDirectories: union(permissions.additionalDirectories, [input.agentDir]),
    },
  };
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return file;
}


function union(existing: unknown, added: readonly string[]): unknown[] {
  const list: unknown[] = Array.isArray(existing) ? existing : [];
  return [...new Set([...list, ...added])];
}

