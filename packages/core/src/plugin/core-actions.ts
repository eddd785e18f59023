import { OrangeError } from '../errors/index.js';
import type { OrangePlugin } from './define.js';

/** The actions `coreActions` provides. */
export const CORE_ACTIONS: readonly string[] = ['increment_review_round', 'merge'];

/**
 * Actions that need no plugin of their own ship with the core, as a plugin like any other:
 * `increment_review_round` touches only the task; `merge` goes through whatever plugin fills the
 * scm slot, so a fully autonomous workflow can merge without `orange task merge`.
 */
export function coreActions(): OrangePlugin {
  return {
    name: 'core',
    apply(orange) {
      orange.hooks.actions.for('increment_review_round').tapPromise('core', async (ctx) => {
        await ctx.update({ review_round: ctx.task.meta.review_round + 1 });
      });
      orange.hooks.actions.for('merge').tapPromise('core', async (ctx) => {
        const scm = ctx.orange.slot('scm');
        const project = await ctx.orange.projects.get(ctx.task.meta.project);
        // A workflow may choose per task with a `merge_strategy` field; fast-forward otherwise.
        const strategy = ctx.task.meta.merge_strategy === 'merge' ? 'merge' : 'ff';
        const merged = await scm.merge(ctx.task, project, { strategy, local: false });
        if (!merged.merged) throw new OrangeError('E_SCM', merged.message);
        await ctx.record({ type: 'task.merged', via: scm.name, strategy, message: merged.message });
      });
    },
  };
}
