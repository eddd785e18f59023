import { homedir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, parsePluginOptions, type Harness, type HarnessRequest, type Logger, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';
import { GEMINI_TIERS, geminiHeadlessArgv, geminiHeadlessResult } from './headless.js';
import { REVIEWER_POLICY_PATH, writeReviewerPolicy } from './reviewer-policy.js';

const GeminiOptionsSchema = z
  .object({
    /** The Gemini CLI executable (a name on PATH or a path). */
    bin: z.string().min(1).default('gemini'),
    /** Passed as `--model`. */
    model: z.string().min(1).optional(),
    /** Appended before the prompt, as given. */
    extraArgs: z.array(z.string()).default([]),
    /** Models for the pipeline's escalation, cheapest first. */
    tiers: z.array(z.string().min(1)).min(1).default([...GEMINI_TIERS]),
  })
  .strict();

export type GeminiOptions = z.input<typeof GeminiOptionsSchema>;
type ResolvedGeminiOptions = z.output<typeof GeminiOptionsSchema>;

/** The Gemini CLI's directory: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini` (as the CLI resolves it). */
export function geminiDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(env.GEMINI_CLI_HOME || home, '.gemini');
}

/**
 * The Gemini CLI argv for one agent: interactive, the prompt as its first query. A worker runs
 * in yolo mode; a respawned one in `auto_edit` (edits approved, shell commands asked). The
 * worktree is trusted for the session, or the CLI would fall back to asking for everything.
 */
export function geminiArgv(options: Pick<ResolvedGeminiOptions, 'bin' | 'model' | 'extraArgs'>, request: HarnessRequest, userPolicies: string = join(geminiDir(), 'policies')): string[] {
  const argv = [options.bin, '--skip-trust', '--approval-mode', request.respawn ? 'auto_edit' : 'yolo'];
  if (options.model) argv.push('--model', options.model);
  if (request.role === 'reviewer') {
    // Any --policy replaces the user's policy directory, so it is named again to keep it.
    argv.push('--policy', join(request.workspace, REVIEWER_POLICY_PATH), '--policy', userPolicies);
  }
  // The Gemini CLI has no effort flag (its thinking budget is a settings.json entry): ignored.
  argv.push(...options.extraArgs);
  // Not `-- <prompt>`: the CLI's parser leaves what follows `--` out of its query, so the agent
  // would start with no prompt. Joined with `=`, a prompt starting with "-" is still the value.
  argv.push(`--prompt-interactive=${request.prompt}`);
  return argv;
}

/** The Gemini CLI harness: `gemini({ model: 'gemini-2.5-pro' })`. */
export function gemini(options: GeminiOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('gemini', GeminiOptionsSchema, options);
  return definePlugin({
    name: 'gemini',
    apply(orange) {
      orange.registerHarness(geminiHarness(parsed, orange.log.child('gemini')));
    },
  });
}

function geminiHarness(options: ResolvedGeminiOptions, log: Logger): Harness {
  let installed: boolean | undefined;
  return {
    name: 'gemini',
    excludes: ['.gemini/'],
    get skillsDir() {
      return join(geminiDir(), 'skills');
    },
    async installed() {
      installed ??= findExecutable(options.bin) !== null;
      return installed;
    },
    command(request) {
      // Said in the log rather than refused: the task's effort may be meant for its other agent.
      if (request.effort) log.warn('effort ignored: the Gemini CLI has no effort setting', { task: request.task.id, role: request.role, effort: request.effort });
      return { argv: geminiArgv(options, request) };
    },
    async prepare(workspace, request) {
      if (request.role === 'reviewer') await writeReviewerPolicy(workspace);
    },
    headless: {
      tiers: options.tiers,
      command: (request) => ({ argv: geminiHeadlessArgv(options, { ...request, model: request.model ?? options.model ?? null }) }),
      result: geminiHeadlessResult,
    },
  };
}
