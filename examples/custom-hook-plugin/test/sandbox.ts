import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, pluginActions, setSection, type OrangeConfigInput, type OrangePlugin, type TaskRef } from '@orange/core';

/** The actions the built-in workflows name (besides the core's increment_review_round). */
const ACTIONS = pluginActions();

/**
 * Stand-ins for the tmux and worktree-pool plugins: each action records its call, acquire gives
 * the task `workspace`, spawns set the spawn ids exit reports are matched against.
 */
export function stubActions(calls: string[], workspace: string, failing: readonly string[] = []): OrangePlugin {
  return {
    name: 'stub-actions',
    apply(orange) {
      for (const action of ACTIONS) {
        orange.hooks.actions.for(action).tapPromise('stub-actions', async (ctx) => {
          calls.push(action);
          if (failing.includes(action)) throw new Error(`${action} broke on purpose`);
          if (action === 'acquire_workspace') await ctx.update({ workspace });
          if (action === 'spawn_agent') await ctx.update({ worker_spawn: 'w1' });
          if (action === 'spawn_reviewer') await ctx.update({ reviewer_spawn: `r${ctx.task.meta.review_round}` });
        });
      }
    },
  };
}

export interface Sandbox {
  readonly home: string;
  readonly workspace: string;
  readonly orange: Orange;
  readonly calls: string[];
  /** Rewrites one `## Section` of a task's TASK.md, as an agent would. */
  edit(ref: TaskRef, section: string, content: string): Promise<void>;
  cleanup(): Promise<void>;
}

/** An in-process Orange on a temp ORANGE_HOME with one registered project, `demo`. */
export async function sandbox(
  config: OrangeConfigInput = {},
  options: { failing?: readonly string[] } = {},
): Promise<Sandbox> {
  const home = await mkdtemp(join(tmpdir(), 'orange-example-'));
  const workspace = join(home, 'workspace');
  const calls: string[] = [];
  // A config the test expects to be refused must not leave its temp home behind.
  const orange = await Orange.create(
    { ...config, plugins: [stubActions(calls, workspace, options.failing), ...(config.plugins ?? [])] },
    { paths: new OrangePaths(home) },
  ).catch(async (error: unknown) => {
    await rm(home, { recursive: true, force: true });
    throw error;
  });
  await orange.projects.add({ name: 'demo', path: join(home, 'repo'), default_branch: 'main' });
  return {
    home,
    workspace,
    orange,
    calls,
    async edit(ref, section, content) {
      const file = orange.paths.taskFile(ref.project, ref.id);
      await writeFile(file, setSection(await readFile(file, 'utf8'), section, content));
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}
