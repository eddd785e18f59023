import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OrangeError, writeFileAtomic } from '@orange/core';

/** What Orange needs from Claude Code's permissions in a worktree. */
export interface ClaudeSettingsInput {
  /** The task's directory under $ORANGE_HOME: TASK.md in the worktree is a link into it. */
  readonly taskDir: string;
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
  const existing = await readJsonObject(file);
  const permissions = isObject(existing.permissions) ? existing.permissions : {};
  const next: Json = {
    ...existing,
    permissions: {
      ...permissions,
      allow: union(permissions.allow, ALLOWED_TOOLS),
      additionalDirectories: union(permissions.additionalDirectories, [input.taskDir]),
    },
  };
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify(next, null, 2)}\n`);
  return file;
}

async function readJsonObject(file: string): Promise<Json> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Refusing keeps the user's file intact; overwriting would lose their settings.
    throw new OrangeError('E_HARNESS', `${file} is not valid JSON; fix or delete it so Orange can add its permissions`);
  }
  if (!isObject(value)) throw new OrangeError('E_HARNESS', `${file} must hold a JSON object; fix or delete it so Orange can add its permissions`);
  return value;
}

function union(existing: unknown, added: readonly string[]): unknown[] {
  const list: unknown[] = Array.isArray(existing) ? existing : [];
  return [...new Set([...list, ...added])];
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
