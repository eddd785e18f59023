import { parsePluginOptions } from '@orange/core';
import { z } from 'zod';

const argv = z.array(z.string().min(1, 'must not contain empty strings')).min(1, 'must name a program');

const IntentSchema = z
  .object({
    /** The phases run one after another, each by one headless agent run. */
    phases: z.array(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" or "_"')).min(1, 'must name at least one phase'),
    /** The model tier to start at (a name from the harness's tier list); default: the cheapest. */
    tier: z.string().min(1).optional(),
  })
  .strict();

export const PipelineOptionsSchema = z
  .object({
    /** Classification confidence at or above which a task is routed; below, it waits for `orange task clarify`. */
    threshold: z.number().min(0).max(1).default(0.6),
    /** Intent → phases (and starting tier). An unknown intent from the classifier takes `defaultIntent`. */
    intents: z
      .record(z.string().regex(/^[a-z][a-z0-9_-]*$/, 'must be lower-case letters, digits, "-" or "_"'), IntentSchema)
      .default({
        feature: { phases: ['plan', 'implement', 'test'] },
        bugfix: { phases: ['reproduce', 'fix'] },
        refactor: { phases: ['plan', 'refactor'] },
        docs: { phases: ['write'] },
      }),
    /** The intent used when the classifier names one that is not configured. */
    defaultIntent: z.string().min(1).optional(),
    /** Model tiers per harness, cheapest first; default: the harness's own list (claude: haiku, sonnet, opus). */
    tiers: z.record(z.string(), z.array(z.string().min(1)).min(1, 'must name at least one tier')).default({}),
    /** Runs at one tier (the first plus retries) before escalating to the next (seed: 1–2). */
    attempts: z.number().int().min(1).max(10).default(2),
    /** Consecutive failed runs that trip the circuit breaker (the task ends `failed`). */
    breaker: z.number().int().min(1).max(100).default(3),
    /** Budget per task in USD when the task names none (`--budget`). */
    budgetUsd: z.number().positive().default(5),
    /** Checks run in the worktree after the last phase, each an argv (never a shell string). */
    verify: z.array(argv).default([]),
    /** The longest one headless run or check may take, in milliseconds. */
    runTimeoutMs: z.number().int().positive().default(30 * 60_000),
    /**
     * The project's memory (`.orange/memory/` in the repository): each completed task records what
     * it taught there, and prompts and the starting tier use it. False: nothing is recorded or read.
     */
    memory: z.boolean().default(true),
  })
  .strict()
  .superRefine((options, ctx) => {
    if (options.defaultIntent !== undefined && !(options.defaultIntent in options.intents)) {
      ctx.addIssue({ code: 'custom', path: ['defaultIntent'], message: `must be one of the configured intents (${Object.keys(options.intents).join(', ')})` });
    }
    if (Object.keys(options.intents).length === 0) ctx.addIssue({ code: 'custom', path: ['intents'], message: 'must configure at least one intent' });
  });

export type PipelineOptions = z.input<typeof PipelineOptionsSchema>;
export type PipelineSettings = z.output<typeof PipelineOptionsSchema>;

/** Validates the plugin's options; an error names the field (`plugin pipeline: option "attempts" …`). */
export function parsePipelineOptions(options: unknown): PipelineSettings {
  return parsePluginOptions('pipeline', PipelineOptionsSchema, options);
}
