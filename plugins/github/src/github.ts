import { definePlugin, parsePluginOptions, type OrangePlugin } from '@orange/core';
import { z } from 'zod';
import { GhCli, ISSUE_WITHOUT_GH } from './gh.js';
import { GithubIssues } from './github-issues.js';
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
    /** How the approved-and-green reaction merges a pull request (`gh pr merge --<method>`). */
    mergeMethod: z.enum(['merge', 'squash', 'rebase']).default('merge'),
  })
  .strict();

export type GithubOptions = z.input<typeof GithubOptionsSchema>;

/**
 * GitHub: fills the `scm` slot (merge, pull requests through `gh`) and the `tracker` slot (tasks
 * from issues), and provides the
 * `delete_remote_branch` action.
 */
export function github(options: GithubOptions = {}): OrangePlugin {
  const parsed = parsePluginOptions('github', GithubOptionsSchema, options);
  return definePlugin({
    name: 'github',
    apply(orange) {
      const scm = new GithubScm(orange, parsed);
      orange.provide('scm', scm);
      // Its own runner: without gh, reading an issue has another way out than a merge has.
      orange.provide('tracker', new GithubIssues(new GhCli(parsed.ghBin, ISSUE_WITHOUT_GH)));
      orange.hooks.actions.for('delete_remote_branch').tapPromise('github', async (ctx) => {
        const project = await ctx.orange.projects.get(ctx.task.meta.project);
        // From the repository itself: a remote given as a relative path (`../origin.git`) means the same there.
        await deleteRemoteBranch(scm.git, project.path, parsed.remote, ctx.task.meta.branch, ctx.log.child('github'), {
          defaultBranch: project.default_branch,
          pullRequestMerged: async () => (await scm.pullRequestState(ctx.task, project)) === 'merged',
        });
      });
    },
  });
}
