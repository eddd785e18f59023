import { OrangeError, definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { execa } from 'execa';
import { z } from 'zod';

const RunCommandOptionsSchema = z
  .object({
    /** The action name workflows list in `hooks:`. */
    action: z.string().regex(/^[a-z][a-z0-9_]*$/, 'must be lower-case letters, digits and "_"'),
    /** The command as an argument array, run in the task's worktree. */
    command: z.array(z.string().min(1)).min(1, 'must name a program'),
    timeoutMs: z.number().int().positive().default(60_000),
  })
  .strict();

export type RunCommandOptions = z.input<typeof RunCommandOptionsSchema>;

/**
 * A transition action that runs a command in the task's worktree:
 * `runCommand({ action: 'format', command: ['npm', 'run', 'format'] })`, then `hooks: ['format']`.
 */
export function runCommand(options: RunCommandOptions): OrangePlugin {
  const { action, command, timeoutMs } = parsePluginOptions('run-command', RunCommandOptionsSchema, options);
  const [program, ...args] = command as [string, ...string[]];
  return definePlugin({
    name: `run-command:${action}`,
    apply(orange) {
      orange.hooks.actions.for(action).tapPromise(`run-command:${action}`, async (ctx) => {
        const cwd = ctx.task.meta.workspace;
        // Actions are idempotent and succeed silently when there is nothing to do.
        if (cwd === null) return;
        const env = { ORANGE_TASK_ID: ctx.task.meta.id, ORANGE_PROJECT: ctx.task.meta.project, ORANGE_STATUS: ctx.to };
        const result = await execa(program, args, { cwd, env, reject: false, timeout: timeoutMs, stdin: 'ignore' });
        if (result.exitCode !== 0) {
          // Thrown after the status was written: the engine records hook.failed and flags the task.
          throw new OrangeError('E_RUNTIME', `${command.join(' ')} exited with ${result.exitCode ?? result.signal}`);
        }
        await ctx.record({ type: 'command.ran', action, command: [...command] });
      });
    },
  });
}
