import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';
import { GithubScm } from './github-scm.js';
import { deleteRemoteBranch } from './remote-branch.js';

const GithubOptionsSchema = z
  .object({
    /** The git remote that holds the default branch and task branches. */
    remote: z.string().min(1).regex(/^[^-\s]/, 'must not start with "-"').default('origin'),
    /** The GitHub CLI executable. */
    ghBin: z.string().min(1).default('gh'),
    /** The git executable. */
    gitBin: z.string().min(1).default('git'),
  })
  .strict();

export type GithubOptions = z.input<typeof GithubOptionsSchema>;

/**
 * GitHub: fills the `scm` slot (merge, pull requests through `gh`) and provides the
 * `delete_remote_branch` action.
 */
export function github(options: GithubOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('github', GithubOptionsSchema, options);
  return definePlugin({
    name: 'github',
    apply(orange) {
      const scm = new GithubScm(orange, parsed);
      orange.provide('scm', scm);
      orange.hooks.actions.for('delete_remote_branch').tapPromise('github', async (ctx) => {
        const project = await ctx.orange.projects.get(ctx.task.meta.project);
        await deleteRemoteBranch(scm.git, scm.repoDir(ctx.task, project), parsed.remote, ctx.task.meta.branch, ctx.log.child('github'));
      });
    },
  });
}
