import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Project, type Task } from '@orange/core';
import { git, makeOrigin, standInGh, tempDir, useTestGitIdentity, type GhAnswers } from '@orange/test-support';
import { github } from '../src/index.js';

// CI has no global git config; the plugin's git children inherit this identity.
useTestGitIdentity();

export interface Fixture {
  root: string;
  origin: string;
  repo: string;
  orange: Orange;
  project: Project;
  /** The stand-in gh (`standInGh`): records its argv and answers from `ghResponds`. */
  ghBin: string;
  git(dir: string, ...args: string[]): Promise<string>;
  /** A task on `branch` with one commit in its own worktree (or none, with `worktree: false`). */
  task(branch: string, options?: { summary?: string; body?: string; worktree?: boolean; pr_url?: string; issue?: string }): Promise<Task>;
  /** Pushes one more commit to origin/main from another clone, so task branches diverge. */
  advanceOrigin(file?: string): Promise<string>;
  ghResponds(responses: GhAnswers): Promise<void>;
  ghCalls(): Promise<string[][]>;
  cleanup(): Promise<void>;
}

/** A bare `origin`, a clone as the project's repository, a temp ORANGE_HOME and a stand-in gh. */
export async function gitFixture(options: { ghBin?: string } = {}): Promise<Fixture> {
  const root = await tempDir('github');
  const origin = join(root, 'origin.git');
  const repo = join(root, 'repo');
  // origin/HEAD unset, as in a repository whose remote was added by hand.
  await makeOrigin(origin, repo, { files: { 'README.md': '# demo\n' }, message: 'initial', originHead: false });

  const gh = await standInGh(root);
  const ghBin = gh.bin;

  const home = join(root, 'home');
  const orange = await Orange.create(
    { defaults: false, plugins: [noopActions({ except: ['delete_remote_branch'] }), github({ ghBin: options.ghBin ?? ghBin })] },
    { paths: new OrangePaths(home) },
  );
  const project = await orange.projects.add({ name: 'demo', path: repo, default_branch: 'main' });
  let n = 0;
  return {
    root,
    origin,
    repo,
    orange,
    project,
    ghBin,
    git,
    async task(branch, opts = {}) {
      n += 1;
      const workspace = join(root, `ws-${n}`);
      await git(repo, 'worktree', 'add', '--quiet', '-b', branch, workspace, 'origin/main');
      await writeFile(join(workspace, `feature-${n}.txt`), `feature ${n}\n`);
      await git(workspace, 'add', '.');
      await git(workspace, 'commit', '--quiet', '-m', `feature ${n}`);
      if (opts.worktree === false) {
        await git(workspace, 'checkout', '--quiet', '--detach');
        await git(repo, 'worktree', 'remove', '--force', workspace);
      }
      const id = `${'t'.repeat(20)}${n}`;
      const meta = newTaskMeta({
        id,
        project: 'demo',
        branch,
        status: 'reviewing',
        summary: opts.summary ?? `feature ${n}`,
        workspace: opts.worktree === false ? null : workspace,
        pr_url: opts.pr_url ?? null,
        ...(opts.issue ? { issue: opts.issue } : {}),
      });
      return orange.store.create({ meta, body: opts.body ?? '' });
    },
    async advanceOrigin(file = 'other.txt') {
      const other = join(root, `other-${Math.random().toString(36).slice(2)}`);
      await git(root, 'clone', '--quiet', origin, other);
      await writeFile(join(other, file), 'elsewhere\n');
      await git(other, 'add', '.');
      await git(other, 'commit', '--quiet', '-m', `someone else: ${file}`);
      await git(other, 'push', '--quiet', 'origin', 'HEAD:main');
      return git(other, 'rev-parse', 'HEAD');
    },
    ghResponds: (responses) => gh.answer(responses),
    ghCalls: () => gh.calls(),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
