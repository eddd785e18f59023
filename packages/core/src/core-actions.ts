import type { OrangePlugin } from './plugin.js';

/** The actions `coreActions` provides. */
export const CORE_ACTIONS: readonly string[] = ['increment_review_round'];

/** Actions that touch nothing but the task itself ship with the core, as a plugin like any other. */
export function coreActions(): OrangePlugin {
  return {
    name: 'core',
    apply(orange) {
      orange.hooks.actions.for('increment_review_round').tapPromise('core', async (ctx) => {
        await ctx.update({ review_round: ctx.task.meta.review_round + 1 });
      });
    },
  };
}
