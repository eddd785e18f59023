import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { execa } from 'execa';
import { z } from 'zod';

const TestsPassOptionsSchema = z
  .object({
    /** The gate's name, as workflows write it in `gate:`. */
    name: z.string().min(1).default('tests-pass'),
    /** The test command as an argument array, run in the task's worktree. */
    command: z.array(z.string().min(1)).min(1, 'must name a program').default(['npm', 'test']),
    /** Give up (and refuse the transition) after this long. */
    timeoutMs: z.number().int().positive().default(120_000),
  })
  .strict();

export type TestsPassOptions = z.input<typeof TestsPassOptionsSchema>;

/**
 * A gate that refuses a transition unless the project's tests pass in the task's worktree:
 * `testsPass({ command: ['npm', 'test'] })`, then `gate: 'tests-pass'` in a workflow.
 */
export function testsPass(options: TestsPassOptions = {}): OrangePlugin {
  const { name, command, timeoutMs } = parsePluginOptions('tests-pass', TestsPassOptionsSchema, options);
  const [program, ...args] = command as [string, ...string[]];
  const shown = command.join(' ');
  return definePlugin({
    name: `gate:${name}`,
    apply(orange) {
      orange.registerGate(name, async ({ task }) => {
        const cwd = task.meta.workspace;
        if (cwd === null) return { ok: false, reason: 'the task has no workspace to run the tests in' };
        // An argument array and no shell: nothing in the task can become part of a command line.
        const result = await execa(program, args, { cwd, reject: false, timeout: timeoutMs, all: true, stdin: 'ignore' });
        if (result.exitCode === 0) return { ok: true };
        const last = (result.all ?? '').trim().split('\n').pop() ?? '';
        const why = result.timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${result.exitCode ?? result.signal}`;
        return { ok: false, reason: `\`${shown}\` ${why}${last ? `: ${last}` : ''}` };
      });
    },
  });
}
