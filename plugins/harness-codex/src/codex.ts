import { homedir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, parsePluginOptions, type Harness, type HarnessRequest, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';
import { gitCommonDir } from './git-common-dir.js';
import { CODEX_TIERS, codexHeadlessArgv, codexHeadlessResult } from './headless.js';

const CodexOptionsSchema = z
  .object({
    /** The Codex CLI executable (a name on PATH or a path). */
    bin: z.string().min(1).default('codex'),
    /** Passed as `--model`. */
    model: z.string().min(1).optional(),
    /** Appended before the prompt, as given. */
    extraArgs: z.array(z.string()).default([]),
    /** Model tiers for the pipeline's escalation, cheapest first. */
    tiers: z.array(z.string().min(1)).min(1).default([...CODEX_TIERS]),
    /** USD per million tokens per model, to turn the token usage Codex reports into a cost. */
    prices: z
      .record(z.string(), z.object({ input: z.number().nonnegative(), cachedInput: z.number().nonnegative().optional(), output: z.number().nonnegative() }).strict())
      .default({}),
  })
  .strict();

export type CodexOptions = z.input<typeof CodexOptionsSchema>;
type ResolvedCodexOptions = z.output<typeof CodexOptionsSchema>;

/** Directories a sandboxed (respawned) agent must be able to write besides its worktree. */
export interface CodexSandboxDirs {
  /** `$ORANGE_HOME`: TASK.md is a link into it and `orange task update` writes there. */
  readonly orangeHome: string;
  /** The repository's common git dir, where a worktree's commits land; null when inside the worktree. */
  readonly gitCommonDir: string | null;
}

/**
 * The Codex argv for one agent. A respawned agent runs sandboxed to its worktree
 * (`--sandbox workspace-write`, the CLI's replacement for the removed `--full-auto`) instead of
 * bypassing approvals and the sandbox.
 */
export function codexArgv(options: Pick<ResolvedCodexOptions, 'bin' | 'model' | 'extraArgs'>, request: HarnessRequest, sandbox: CodexSandboxDirs): string[] {
  const argv = [options.bin, 'exec'];
  if (request.respawn) {
    argv.push('--sandbox', 'workspace-write', '--add-dir', sandbox.orangeHome);
    if (sandbox.gitCommonDir) argv.push('--add-dir', sandbox.gitCommonDir);
  } else {
    argv.push('--dangerously-bypass-approvals-and-sandbox');
  }
  if (options.model) argv.push('--model', options.model);
  // Codex has no effort flag; its config key is overridable per run (the value is TOML).
  if (request.effort) argv.push('--config', `model_reasoning_effort=${JSON.stringify(request.effort)}`);
  argv.push(...options.extraArgs);
  // `--` keeps a prompt that starts with "-" from being read as an option.
  argv.push('--', request.prompt);
  return argv;
}

/** The Codex CLI harness: `codex({ model: 'gpt-5-codex' })`. */
export function codex(options: CodexOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('codex', CodexOptionsSchema, options);
  return definePlugin({
    name: 'codex',
    apply(orange) {
      orange.registerHarness(codexHarness(parsed, orange.paths.home));
    },
  });
}

function codexHarness(options: ResolvedCodexOptions, orangeHome: string): Harness {
  let installed: boolean | undefined;
  /** The model a headless run uses: its tier's, else the configured one (null: Codex's own default). */
  const modelOf = (tier: string | null): string | null => tier ?? options.model ?? null;
  return {
    name: 'codex',
    excludes: ['.codex/'],
    get skillsDir() {
      return join(homedir(), '.codex', 'skills');
    },
    async installed() {
      installed ??= findExecutable(options.bin) !== null;
      return installed;
    },
    command(request) {
      const sandbox = { orangeHome, gitCommonDir: request.respawn ? gitCommonDir(request.workspace) : null };
      return { argv: codexArgv(options, request, sandbox) };
    },
    headless: {
      tiers: options.tiers,
      command: (request) => ({ argv: codexHeadlessArgv(options.bin, options.extraArgs, { ...request, model: modelOf(request.model) }) }),
      // A run without a tier ran on the configured model: priced as that one.
      result: (run) => codexHeadlessResult({ ...run, model: modelOf(run.model) }, options.prices),
      // Codex reports tokens, not money: a model without a price counts $0 against a budget.
      canPrice: (model) => {
        const used = modelOf(model);
        return used !== null && Object.hasOwn(options.prices, used);
      },
    },
  };
}
