import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeFileAtomic } from '@orange/core';

/**
 * Where the policy lives, relative to the worktree: under `.gemini/` (hidden from git) but
 * outside `.gemini/policies/`, which the Gemini CLI loads for every agent in the workspace.
 */
export const REVIEWER_POLICY_PATH = join('.gemini', 'orange-reviewer-policy.toml');

/** Shell command prefixes a reviewer may not run: feedback goes into TASK.md, never onto GitHub (seed 003). */
export const REVIEWER_DENIED_COMMANDS = ['gh pr review', 'gh pr comment'] as const;

/**
 * A Gemini CLI policy file denying the commands. Passed with `--policy` it is a user-tier
 * policy, which outranks the built-in rule that allows every tool in yolo mode.
 */
export const REVIEWER_POLICY_TOML = `# Written by Orange for Gemini CLI reviewers; rewritten on every reviewer start.
[[rule]]
toolName = "run_shell_command"
commandPrefix = [${REVIEWER_DENIED_COMMANDS.map((c) => JSON.stringify(c)).join(', ')}]
decision = "deny"
priority = 999
denyMessage = "Orange reviewers write their feedback into ## Review in TASK.md, not onto GitHub."
`;

/** Writes the reviewer policy into a worktree; returns its path. */
export async function writeReviewerPolicy(workspace: string): Promise<string> {
  const file = join(workspace, REVIEWER_POLICY_PATH);
  await mkdir(dirname(file), { recursive: true });
  await writeFileAtomic(file, REVIEWER_POLICY_TOML);
  return file;
}
