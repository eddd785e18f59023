import { homedir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, parsePluginOptions, type Harness, type HarnessRequest, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';
import { PI_TIERS, piHeadlessArgv, piHeadlessResult } from './headless.js';
import { promptArgument } from './prompt-argument.js';
import { REVIEWER_GUARD_PATH, writeReviewerGuard } from './reviewer-guard.js';

const PiOptionsSchema = z
  .object({
    /** The pi executable (a name on PATH or a path). */
    bin: z.string().min(1).default('pi'),
    /** Passed as `--model` (a pattern or id, `provider/id` allowed). */
    model: z.string().min(1).optional(),
    /** Passed as `--provider`. */
    provider: z.string().min(1).optional(),
    /** Appended before the prompt, as given. */
    extraArgs: z.array(z.string()).default([]),
    /** Model patterns for the pipeline's escalation, cheapest first. */
    tiers: z.array(z.string().min(1)).min(1).default([...PI_TIERS]),
  })
  .strict();

export type PiOptions = z.input<typeof PiOptionsSchema>;
type ResolvedPiOptions = z.output<typeof PiOptionsSchema>;

/** pi's config directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent` (as pi itself resolves it). */
export function piAgentDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const dir = env.PI_CODING_AGENT_DIR;
  if (!dir) return join(home, '.pi', 'agent');
  if (dir === '~') return home;
  return dir.startsWith('~/') ? join(home, dir.slice(2)) : dir;
}

/**
 * The pi argv for one agent: interactive, with the prompt as its first message. pi has no
 * permission prompts, so a respawned agent runs the same command.
 */
export function piArgv(options: Pick<ResolvedPiOptions, 'bin' | 'provider' | 'model' | 'extraArgs'>, request: HarnessRequest): string[] {
  const argv = [options.bin];
  if (options.provider) argv.push('--provider', options.provider);
  if (options.model) argv.push('--model', options.model);
  // pi's thinking level is its effort setting (off, minimal, low, medium, high, xhigh).
  if (request.effort) argv.push('--thinking', request.effort);
  // pi has no per-command deny list; an extension that blocks the commands is its way.
  if (request.role === 'reviewer') argv.push('--extension', join(request.workspace, REVIEWER_GUARD_PATH));
  argv.push(...options.extraArgs);
  argv.push(promptArgument(request.prompt));
  return argv;
}

/** The pi harness: `pi({ model: 'anthropic/claude-sonnet-4-5' })`. */
export function pi(options: PiOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('pi', PiOptionsSchema, options);
  return definePlugin({
    name: 'pi',
    apply(orange) {
      orange.registerHarness(piHarness(parsed));
    },
  });
}

function piHarness(options: ResolvedPiOptions): Harness {
  let installed: boolean | undefined;
  return {
    name: 'pi',
    excludes: ['.pi/'],
    get skillsDir() {
      return join(piAgentDir(), 'skills');
    },
    async installed() {
      installed ??= findExecutable(options.bin) !== null;
      return installed;
    },
    command(request) {
      return { argv: piArgv(options, request) };
    },
    async prepare(workspace, request) {
      if (request.role === 'reviewer') await writeReviewerGuard(workspace);
    },
    headless: {
      tiers: options.tiers,
      command: (request) => ({ argv: piHeadlessArgv(options, { ...request, model: request.model ?? options.model ?? null }) }),
      result: piHeadlessResult,
    },
  };
}
