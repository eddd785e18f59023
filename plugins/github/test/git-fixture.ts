import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Orange, OrangePaths, newTaskMeta, noopActions, type Project, type Task } from '@orange/core';
import { execa } from 'execa';
import { github } from '../src/index.js';
import { standInGh, type GhAnswers } from './stand-in-gh.js';

// CI has no global git config; the plugin's git children inherit this identity.
Object.assign(process.env, {
  GIT_AUTHOR_NAME: 'Orange Test',
  GIT_AUTHOR_EMAIL: 'test@orange.invalid',
  GIT_COMMITTER_NAME: 'Orange Test',
  GIT_COMMITTER_EMAIL: 'test@orange.invalid',
});


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
  const root = await mkdtemp(join(tmpdir(), 'orange-github-'));
  const origin = join(root, 'origin.git');
  const repo = join(root, 'repo');
  const git = async (dir: string, ...args: string[]) => (await execa('git', ['-C', dir, ...args])).stdout.trim();
  await execa('git', ['init', '--quiet', '--bare', '-b', 'main', origin]);
  await execa('git', ['init', '--quiet', '-b', 'main', repo]);
  await writeFile(join(repo, 'README.md'), '# demo\n');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '--quiet', '-m', 'initial');
  await git(repo, 'remote', 'add', 'origin', origin);
  await git(repo, 'push', '--quiet', '-u', 'origin', 'main');

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
      await execa('git', ['clone', '--quiet', origin, other]);
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
