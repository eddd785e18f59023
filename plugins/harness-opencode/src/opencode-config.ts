import { join } from 'node:path';
import { GIT_SAFETY_ARGS, isJsonObject, OrangeError, readHarnessSettings, writeFileAtomic } from '@orange/core';
import { execa } from 'execa';

/** What Orange needs from opencode's permissions in a worktree. */
export interface OpencodeConfigInput {
  /** The task's directory under $ORANGE_HOME: TASK.md in the worktree is a link into it. */
  readonly agentDir: string;
}

/** Bash commands every agent may run without asking, even without `--auto` after a respawn. */
export const ALLOWED_BASH = ['orange *'] as const;

/** Bash commands a reviewer may not run: feedback goes into TASK.md, never onto GitHub (seed 003). */
export const REVIEWER_DENIED_BASH = ['gh pr review*', 'gh pr comment*'] as const;

type Json = Record<string, unknown>;
type Action = 'allow' | 'ask' | 'deny';

/**
 * Merges Orange's grants into the worktree's `opencode.json`: `orange *` in `permission.bash`
 * and the task directory in `permission.external_directory`, each added last (opencode applies
 * the last matching rule). Every other key and rule is kept. A tracked `opencode.json` is left
 * alone (the agent would commit Orange's entries); returns the file written, or null.
 */
export async function writeOpencodeConfig(workspace: string, input: OpencodeConfigInput): Promise<string | null> {
  const file = join(workspace, 'opencode.json');
  if (await isTracked(workspace, 'opencode.json')) return null;
  const existing = await readHarnessSettings(file);
  const permission = ruleObject(existing.permission, '*');
  permission.bash = withRules(permission.bash, Object.fromEntries(ALLOWED_BASH.map((p) => [p, 'allow' as const])));
  permission.external_directory = withRules(permission.external_directory, { [`${input.agentDir}/**`]: 'allow' });
  await writeFileAtomic(file, `${JSON.stringify({ ...existing, permission }, null, 2)}\n`);
  return file;
}

/**
 * The inline config (`OPENCODE_CONFIG_CONTENT`, merged by opencode over every config file)
 * that denies reviewers `gh pr review` and `gh pr comment`, merged into one already set.
 */
export function reviewerConfigContent(inherited: string | undefined): string {
  let base: Json = {};
  if (inherited) {
    try {
      const parsed: unknown = JSON.parse(inherited);
      if (isJsonObject(parsed)) base = parsed;
    } catch {
      // Not JSON: opencode could not use it either, so Orange's replaces it.
    }
  }
  const permission = ruleObject(base.permission, '*');
  permission.bash = withRules(permission.bash, Object.fromEntries(REVIEWER_DENIED_BASH.map((p) => [p, 'deny' as const])));
  return JSON.stringify({ ...base, permission });
}

/** A permission value as an object of rules: a bare action means that action for every pattern. */
function ruleObject(value: unknown, wildcard: string): Json {
  if (typeof value === 'string') return { [wildcard]: value };
  return isJsonObject(value) ? { ...value } : {};
}

/** The rules with `added` moved to the end, so they win over earlier matches. */
function withRules(value: unknown, added: Record<string, Action>): Json {
  const rules = ruleObject(value, '*');
  for (const pattern of Object.keys(added)) delete rules[pattern];
  return { ...rules, ...added };
}

async function isTracked(workspace: string, path: string): Promise<boolean> {
  const result = await execa('git', [...GIT_SAFETY_ARGS, '-C', workspace, 'ls-files', '--error-unmatch', '--', path], { reject: false, stdin: 'ignore' });
  return result.exitCode === 0;
}


