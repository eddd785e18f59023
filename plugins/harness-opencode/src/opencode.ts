import { homedir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, parsePluginOptions, type Harness, type HarnessRequest, type OrangePaths, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';
import { OPENCODE_TIERS, opencodeHeadlessArgv, opencodeHeadlessResult } from './headless.js';
import { reviewerConfigContent, writeOpencodeConfig } from './opencode-config.js';

const OpencodeOptionsSchema = z
  .object({
    /** The opencode executable (a name on PATH or a path). */
    bin: z.string().min(1).default('opencode'),
    /** Passed as `--model`, in opencode's `provider/model` form. */
    model: z.string().min(1).optional(),
    /** Passed as `--agent` (opencode's primary agent, e.g. `build`). */
    agent: z.string().min(1).optional(),
    /** Appended before the prompt, as given. */
    extraArgs: z.array(z.string()).default([]),
    /** Models (`provider/model`) for the pipeline's escalation, cheapest first. */
    tiers: z.array(z.string().min(1)).min(1).default([...OPENCODE_TIERS]),
  })
  .strict();

export type OpencodeOptions = z.input<typeof OpencodeOptionsSchema>;
type ResolvedOpencodeOptions = z.output<typeof OpencodeOptionsSchema>;

/** opencode's config directory: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. */
export function opencodeConfigDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'opencode');
}

/**
 * The opencode argv for one agent (`opencode run`: one message, then exit). A respawned agent
 * runs without `--auto`, so only what `opencode.json` allows runs without approval.
 */
export function opencodeArgv(options: Pick<ResolvedOpencodeOptions, 'bin' | 'model' | 'agent' | 'extraArgs'>, request: HarnessRequest): string[] {
  const argv = [options.bin, 'run'];
  if (!request.respawn) argv.push('--auto');
  if (options.model) argv.push('--model', options.model);
  if (options.agent) argv.push('--agent', options.agent);
  // opencode's model variant is its reasoning effort (provider-specific: high, max, minimal, …).
  if (request.effort) argv.push('--variant', request.effort);
  argv.push(...options.extraArgs);
  // `--` keeps a prompt that starts with "-" from being read as an option.
  argv.push('--', request.prompt);
  return argv;
}

/** The opencode harness: `opencode({ model: 'anthropic/claude-sonnet-4-5' })`. */
export function opencode(options: OpencodeOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('opencode', OpencodeOptionsSchema, options);
  return definePlugin({
    name: 'opencode',
    apply(orange) {
      orange.registerHarness(opencodeHarness(parsed, orange.paths));
    },
  });
}

function opencodeHarness(options: ResolvedOpencodeOptions, paths: OrangePaths): Harness {
  let installed: boolean | undefined;
  return {
    name: 'opencode',
    excludes: ['.opencode/', 'opencode.json'],
    get skillsDir() {
      return join(opencodeConfigDir(), 'skills');
    },
    async installed() {
      installed ??= findExecutable(options.bin) !== null;
      return installed;
    },
    command(request) {
      const argv = opencodeArgv(options, request);
      // Inline config rather than opencode.json: the worker, sharing the worktree, keeps its rules.
      if (request.role === 'reviewer') return { argv, env: { OPENCODE_CONFIG_CONTENT: reviewerConfigContent(process.env.OPENCODE_CONFIG_CONTENT) } };
      return { argv };
    },
    async prepare(workspace, request) {
      await writeOpencodeConfig(workspace, { agentDir: paths.agentDir(request.task.project, request.task.id) });
    },
    headless: {
      tiers: options.tiers,
      command: (request) => ({ argv: opencodeHeadlessArgv(options, { ...request, model: request.model ?? options.model ?? null }) }),
      result: opencodeHeadlessResult,
    },
  };
}
