import { homedir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, parsePluginOptions, type Harness, type HarnessRequest, type OrangePaths, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';
import { writeClaudeSettings } from './settings.js';
import { CLAUDE_TIERS, claudeHeadlessArgv, claudeHeadlessResult } from './headless.js';

const ClaudeOptionsSchema = z
  .object({
    /** The Claude Code executable (a name on PATH or a path). */
    bin: z.string().min(1).default('claude'),
    /** Passed as `--model` (an alias such as `sonnet`, or a full model name). */
    model: z.string().min(1).optional(),
    /** Appended before the prompt, as given. */
    extraArgs: z.array(z.string()).default([]),
  })
  .strict();

export type ClaudeOptions = z.input<typeof ClaudeOptionsSchema>;
type ResolvedClaudeOptions = z.output<typeof ClaudeOptionsSchema>;

/** Tools a reviewer may not use: feedback goes into TASK.md, never onto GitHub (seed 003). */
export const REVIEWER_DISALLOWED_TOOLS = ['Bash(gh pr review:*)', 'Bash(gh pr comment:*)'] as const;

/**
 * The Claude Code argv for one agent. A respawned agent runs with reduced permissions
 * (`--permission-mode acceptEdits`) instead of skipping every permission check.
 */
export function claudeArgv(options: ResolvedClaudeOptions, request: HarnessRequest): string[] {
  const argv = [options.bin];
  argv.push(...(request.respawn ? ['--permission-mode', 'acceptEdits'] : ['--dangerously-skip-permissions']));
  if (options.model) argv.push('--model', options.model);
  if (request.effort) argv.push('--effort', request.effort);
  argv.push(...options.extraArgs);
  if (request.role === 'reviewer') argv.push('--disallowedTools', ...REVIEWER_DISALLOWED_TOOLS);
  // `--disallowedTools` takes a variadic list: without `--` the prompt would be read as one more
  // tool. `--` also keeps a prompt that starts with "-" from being read as an option.
  argv.push('--', request.prompt);
  return argv;
}

/** The Claude Code harness: `claude({ model: 'sonnet' })`. */
export function claude(options: ClaudeOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('claude', ClaudeOptionsSchema, options);
  return definePlugin({
    name: 'claude',
    apply(orange) {
      orange.registerHarness(claudeHarness(parsed, orange.paths));
    },
  });
}

function claudeHarness(options: ResolvedClaudeOptions, paths: OrangePaths): Harness {
  let installed: boolean | undefined;
  return {
    name: 'claude',
    excludes: ['.claude/'],
    get skillsDir() {
      return join(homedir(), '.claude', 'skills');
    },
    async installed() {
      installed ??= findExecutable(options.bin) !== null;
      return installed;
    },
    command(request) {
      return { argv: claudeArgv(options, request) };
    },
    async prepare(workspace, request) {
      await writeClaudeSettings(workspace, { agentDir: paths.agentDir(request.task.project, request.task.id) });
    },
    headless: {
      tiers: CLAUDE_TIERS,
      command: (request) => ({ argv: claudeHeadlessArgv(options.bin, options.extraArgs, { ...request, model: request.model ?? options.model ?? null }) }),
      result: claudeHeadlessResult,
    },
  };
}
