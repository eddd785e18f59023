import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';

const TransitionLogOptionsSchema = z
  .object({
    /** JSON-lines file to append to; a relative path is resolved against `$ORANGE_HOME`. */
    file: z.string().min(1).default('transitions.jsonl'),
  })
  .strict();

export type TransitionLogOptions = z.input<typeof TransitionLogOptionsSchema>;

/** One line of the log. `event` says which hook wrote it; the other fields depend on it. */
export interface TransitionLogLine {
  readonly time: string;
  readonly event: 'transition' | 'auto.advanced' | 'hook.failed';
  readonly task: string;
  readonly project: string;
  readonly from?: string;
  readonly to?: string;
  readonly cause?: string;
  readonly reason?: string;
  readonly status?: string;
  readonly action?: string;
  readonly error?: string;
}

/**
 * Appends every transition, auto-advance and failed action to a JSON-lines file:
 * `transitionLog({ file: 'transitions.jsonl' })`.
 */
export function transitionLog(options: TransitionLogOptions = {}): OrangePlugin {
  const { file } = parsePluginOptions('transition-log', TransitionLogOptionsSchema, options);
  return definePlugin({
    name: 'transition-log',
    apply(orange) {
      // Agents run the CLI from their worktrees, so a path relative to the cwd would scatter logs.
      const target = isAbsolute(file) ? file : join(orange.paths.home, file);
      const append = async (line: Omit<TransitionLogLine, 'time'>) => {
        await mkdir(dirname(target), { recursive: true });
        // One write per line: O_APPEND keeps lines from concurrent orange processes whole.
        await appendFile(target, `${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`, 'utf8');
      };

      orange.hooks.afterTransition.tapPromise('transition-log', async ({ task, from, to, cause }) => {
        await append({ event: 'transition', task: task.meta.id, project: task.meta.project, from, to, cause });
      });
      orange.hooks.autoAdvanced.tapPromise('transition-log', async ({ task, from, to, reason }) => {
        await append({ event: 'auto.advanced', task: task.meta.id, project: task.meta.project, from, to, reason });
      });
      orange.hooks.hookFailed.tapPromise('transition-log', async ({ task, action, error }) => {
        await append({
          event: 'hook.failed',
          task: task.meta.id,
          project: task.meta.project,
          status: task.meta.status,
          action,
          error: error.message,
        });
      });
    },
  });
}
