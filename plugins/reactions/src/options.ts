import { parsePluginOptions } from '@orange/core';
import { z } from 'zod';

const duration = z.number().int().positive();

/** Options of the reactions plugin: one object per reaction (docs/reactions.md). */
export const ReactionsOptionsSchema = z
  .object({
    'ci-failed': z
      .object({
        /** Send the failing checks and their log tail to the worker (false: only notify a human). */
        auto: z.boolean().default(true),
        /** How many times the worker is sent a CI failure before the reaction gives up (warning + stuck). Only sends count (`auto: true`). */
        retries: z.number().int().min(0).max(20).default(2),
        /** Give up when the same failure is still there this long (ms) after it was sent. */
        escalateAfter: duration.optional(),
        /** Lines of each failed job's log sent. */
        logLines: z.number().int().positive().max(2000).default(60),
      })
      .strict()
      .prefault({}),
    'changes-requested': z
      .object({
        /** Send the review comments to the worker and move the task back to working (false: only notify). */
        auto: z.boolean().default(true),
        retries: z.number().int().min(0).max(20).default(3),
        /** Give up when the pull request has no new commit this long (ms) after the review was sent. */
        escalateAfter: duration.optional(),
      })
      .strict()
      .prefault({}),
    'approved-and-green': z
      .object({
        /** Merge the pull request (true) or notify a human that it can be merged (false). */
        auto: z.boolean().default(false),
        /** With `auto`: merges that failed are tried again on later passes this many times, then the reaction gives up (warning). */
        retries: z.number().int().min(0).max(20).default(2),
        /** Warn once when the pull request is still not merged this long (ms) after it was found approved and green. */
        escalateAfter: duration.optional(),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type ReactionsOptionsInput = z.input<typeof ReactionsOptionsSchema>;
export type ReactionsOptions = z.output<typeof ReactionsOptionsSchema>;

export function parseReactionsOptions(options: unknown): ReactionsOptions {
  return parsePluginOptions('reactions', ReactionsOptionsSchema, options);
}
