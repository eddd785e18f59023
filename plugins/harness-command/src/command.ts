import { OrangeError, definePlugin, headlessData, headlessRunEnv, parsePluginOptions, type Harness, type HarnessRequest, type HeadlessRequest, type HeadlessResult, type HeadlessRun, type OrangePlugin, findExecutable } from '@orange/core';
import { z } from 'zod';

const argvSchema = z.array(z.string().min(1, 'must not contain empty strings')).min(1, 'must name a program');

const CommandOptionsSchema = z
  .object({
    /** Harness name, as used by `--harness` and `harness:` in config. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-"')
      .default('command'),
    /** Argv for workers; `{prompt}` and the other placeholders are substituted per element. */
    worker: argvSchema.optional(),
    /** Argv for reviewers; defaults to `worker`. */
    reviewer: argvSchema.optional(),
    /** Extra environment for the agent process (on top of the runtime's ORANGE_* variables). */
    env: z.record(z.string(), z.string()).default({}),
    /**
     * Argv for headless runs (the pipeline workflow's classifier and phases); adds the placeholders
     * `{model}`, `{phase}` and `{result_file}`. Without it the harness cannot run pipeline tasks.
     */
    headless: argvSchema.optional(),
    /** Model tiers for the pipeline's escalation, cheapest first (given to the run as `{model}`). */
    tiers: z.array(z.string().min(1)).default([]),
  })
  .strict();

export type CommandOptions = z.input<typeof CommandOptionsSchema>;

/** Placeholders a command argv may use; each is replaced inside any argv element. */
export const COMMAND_PLACEHOLDERS = ['prompt', 'task_id', 'project', 'branch', 'role', 'status', 'review_round', 'workspace'] as const;

const PLACEHOLDER = /\{([a-z_]+)\}/g;

/**
 * Substitutes placeholders in one pass, so text inside a substituted value (a prompt that
 * mentions `{branch}`) is never substituted again. Unknown placeholders are left as written.
 */
export function substitutePlaceholders(argv: readonly string[], request: HarnessRequest): string[] {
  const values: Record<string, string> = {
    prompt: request.prompt,
    task_id: request.task.id,
    project: request.task.project,
    branch: request.task.branch,
    role: request.role,
    status: request.task.status,
    review_round: String(request.task.review_round),
    workspace: request.workspace,
  } satisfies Record<(typeof COMMAND_PLACEHOLDERS)[number], string>;
  return substitute(argv, values);
}

/** Placeholders a headless argv may use besides the others (`role` is `worker`). */
export const HEADLESS_PLACEHOLDERS = ['model', 'phase', 'result_file'] as const;

/**
 * Substitutes a headless argv: the placeholders of `substitutePlaceholders` plus `{model}`, `{phase}`,
 * `{result_file}`. Each has the value of the run's variable of the same name (`headlessRunEnv`:
 * `{prompt}` is `$ORANGE_PROMPT`, `{model}` is `$ORANGE_MODEL`, empty for the default model, …).
 */
export function substituteHeadlessPlaceholders(argv: readonly string[], request: HeadlessRequest): string[] {
  const run = headlessRunEnv(request);
  return substitute(argv, {
    prompt: run.ORANGE_PROMPT,
    task_id: request.task.id,
    project: request.task.project,
    branch: run.ORANGE_BRANCH,
    role: run.ORANGE_ROLE,
    status: run.ORANGE_STATUS,
    review_round: run.ORANGE_REVIEW_ROUND,
    workspace: request.workspace,
    model: run.ORANGE_MODEL,
    phase: run.ORANGE_PHASE,
    result_file: run.ORANGE_RESULT_FILE,
  });
}

function substitute(argv: readonly string[], values: Readonly<Record<string, string>>): string[] {
  return argv.map((element) => element.replace(PLACEHOLDER, (whole, key: string) => (Object.hasOwn(values, key) ? (values[key] as string) : whole)));
}

/**
 * A command's headless outcome: the result file (`ORANGE_RESULT_FILE`) when it wrote one
 * (`{ "ok": true, "cost_usd": 0.02, "output": "…", … }`, any other field is data), else the
 * exit code and stdout. `ok` defaults to "exited 0".
 */
export function commandHeadlessResult(run: HeadlessRun): HeadlessResult {
  const written = run.resultFile === null ? null : headlessData(run.resultFile);
  const reported = written ?? headlessData(run.stdout);
  const { ok, cost_usd: cost, output, ...data } = reported;
  const text = typeof output === 'string' ? output : run.exitCode === 0 ? run.stdout.trim() : run.stderr.trim() || run.stdout.trim();
  return {
    ok: run.exitCode === 0 && ok !== false,
    output: (text || `exited with code ${run.exitCode}`).slice(0, 4000),
    costUsd: typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : 0,
    data,
  };
}

/**
 * A harness for any CLI agent or script: runs the configured argv as given (no shell).
 * `command({ name: 'aider', worker: ['aider', '--message', '{prompt}'] })`.
 */
export function command(options: CommandOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('command', CommandOptionsSchema, options);
  const pluginName = parsed.name === 'command' ? 'command' : `command:${parsed.name}`;
  return definePlugin({
    name: pluginName,
    apply(orange) {
      orange.registerHarness(commandHarness(parsed));
    },
  });
}

function commandHarness(options: z.output<typeof CommandOptionsSchema>): Harness {
  const { name, worker, env, headless, tiers } = options;
  const reviewer = options.reviewer ?? worker;
  let installed: boolean | undefined;
  return {
    name,
    excludes: [],
    async installed() {
      // Cached: a harness does not appear or vanish during one CLI call.
      installed ??= worker !== undefined && [worker, reviewer].every((argv) => argv && findExecutable(argv[0] as string) !== null);
      return installed;
    },
    command(request) {
      const argv = request.role === 'reviewer' ? reviewer : worker;
      if (!argv) {
        throw new OrangeError(
          'E_HARNESS',
          `the ${name} harness has no command configured; set command({ worker: ['my-agent', '{prompt}'] }) in orange.config.ts`,
        );
      }
      return { argv: substitutePlaceholders(argv, request), env: { ...env } };
    },
    ...(headless
      ? {
          headless: {
            tiers,
            command: (request: HeadlessRequest) => ({ argv: substituteHeadlessPlaceholders(headless, request), env: { ...env } }),
            result: commandHeadlessResult,
          },
        }
      : {}),
  };
}
