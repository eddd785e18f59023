import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Logger, type Task } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { gitFixture, type Fixture } from '../test/git-fixture.js';
import { GH_MISSING, GH_UNAUTHENTICATED, GithubScm, deleteRemoteBranch, github } from './index.js';
import { Git } from './git.js';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.cleanup();
  fx = undefined;
});

const scmOf = (f: Fixture) => f.orange.slot('scm') as GithubScm;
const remoteHas = async (f: Fixture, branch: string) => (await f.git(f.origin, 'branch', '--list', branch)) !== '';
const originMain = (f: Fixture) => f.git(f.origin, 'rev-parse', 'main');
const PR = 'https://github.com/acme/demo/pull/7';

describe('delete_remote_branch', () => {
  const options = (f: Fixture, merged = false) => ({ defaultBranch: f.project.default_branch, pullRequestMerged: async () => merged });
  const attentionOf = async (f: Fixture, id: string) => (await f.orange.store.read('demo', id)).meta.attention;

  it('deletes the branch on origin once merge --local put it into origin/main, and a second delete is a no-op', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/gone');
    await fx.git(task.meta.workspace!, 'push', '--quiet', 'origin', 'feat/gone');
    await scmOf(fx).merge(task, fx.project, { strategy: 'merge', local: true });
    const done = await fx.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'done');
    expect(done.task.meta.attention).toBeNull();
    expect(await remoteHas(fx, 'feat/gone')).toBe(false);
    const log = new Logger(join(fx.root, 'log'));
    expect(await deleteRemoteBranch(new Git('git'), fx.repo, 'origin', 'feat/gone', log, options(fx))).toBe('already-gone');
  });

  it('keeps a branch whose merge never happened: the hook fails with one sentence, the task is flagged, nothing is deleted', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/unmerged');
    await fx.git(task.meta.workspace!, 'push', '--quiet', 'origin', 'feat/unmerged');
    const tip = await fx.git(fx.origin, 'rev-parse', 'feat/unmerged');
    // As after an autonomous workflow's failed merge: origin/main moved on without the branch.
    await fx.advanceOrigin();
    await fx.ghResponds({ 'pr view': { stderr: 'no pull requests found for branch "feat/unmerged"', code: 1 } });
    const done = await fx.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'done');
    expect(done.task.meta.status).toBe('done');
    expect(await attentionOf(fx, task.meta.id)).toMatch(/delete_remote_branch/);
    expect(await fx.git(fx.origin, 'rev-parse', 'feat/unmerged')).toBe(tip);
    const failed = (await fx.orange.store.history('demo', task.meta.id)).find((e) => e.type === 'hook.failed');
    expect(failed).toMatchObject({
      hook: 'delete_remote_branch',
      error: `not deleting origin/feat/unmerged: its commits (${tip.slice(0, 7)}) are in neither origin/main nor main and no merged pull request is known, so they would be lost; merge the branch, or delete it yourself: git push origin --delete feat/unmerged`,
    });
  });

  it('deletes a branch whose pull request is merged although its commits are not in main (a squash merge)', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/squashed', { pr_url: PR });
    await fx.git(task.meta.workspace!, 'push', '--quiet', 'origin', 'feat/squashed');
    await fx.advanceOrigin();
    await fx.ghResponds({ 'pr view': { stdout: JSON.stringify({ state: 'MERGED', url: PR }) } });
    const done = await fx.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'done');
    expect(done.task.meta.attention).toBeNull();
    expect(await remoteHas(fx, 'feat/squashed')).toBe(false);
    expect(await fx.ghCalls()).toEqual([['pr', 'view', PR, '--json', 'state,url']]);
  });

  it('deletes a branch contained in the local default branch, and asks gh nothing when the tip is contained', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/local-main');
    await fx.git(task.meta.workspace!, 'push', '--quiet', 'origin', 'feat/local-main');
    await fx.git(fx.repo, 'merge', '--quiet', '--ff-only', 'feat/local-main');
    const log = new Logger(join(fx.root, 'log'));
    const asked: string[] = [];
    const result = await deleteRemoteBranch(new Git('git'), fx.repo, 'origin', 'feat/local-main', log, {
      defaultBranch: 'main',
      pullRequestMerged: async () => {
        asked.push('pr');
        return false;
      },
    });
    expect(result).toBe('deleted');
    expect(asked).toEqual([]);
    expect(await remoteHas(fx, 'feat/local-main')).toBe(false);
  });

  it('fetches only the branch and the default branch; on a remote without the default branch, checks against the local one', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/only-two');
    await fx.git(task.meta.workspace!, 'push', '--quiet', 'origin', 'feat/only-two');
    await fx.git(fx.origin, 'branch', 'unrelated', 'main');
    await fx.git(fx.repo, 'merge', '--quiet', '--ff-only', 'feat/only-two');
    const log = new Logger(join(fx.root, 'log'));
    expect(await deleteRemoteBranch(new Git('git'), fx.repo, 'origin', 'feat/only-two', log, options(fx))).toBe('deleted');
    expect(await fx.git(fx.repo, 'for-each-ref', '--format=%(refname)', 'refs/remotes/origin/unrelated'), 'another branch of the remote is not fetched').toBe('');
    // The remote's default branch gone (renamed): the local main holds the tip, so the branch goes.
    const other = await fx.task('feat/no-remote-main');
    await fx.git(other.meta.workspace!, 'push', '--quiet', 'origin', 'feat/no-remote-main');
    await fx.git(fx.repo, 'merge', '--quiet', '--no-edit', 'feat/no-remote-main');
    await fx.git(fx.origin, 'branch', '-m', 'main', 'trunk');
    expect(await deleteRemoteBranch(new Git('git'), fx.repo, 'origin', 'feat/no-remote-main', log, options(fx))).toBe('deleted');
    expect(await remoteHas(fx, 'feat/no-remote-main')).toBe(false);
  });

  it('skips a repository that has no such remote', async () => {
    fx = await gitFixture();
    await fx.git(fx.repo, 'remote', 'rename', 'origin', 'upstream');
    const log = new Logger(join(fx.root, 'log'));
    expect(await deleteRemoteBranch(new Git('git'), fx.repo, 'origin', 'feat/x', log, options(fx))).toBe('no-remote');
  });
});

describe('merge', () => {
  it('fast-forwards origin/main to the branch without touching the user checkout, leaving the worktree detached and clean', async () => {
    fx = await gitFixture();
    const userHead = await fx.git(fx.repo, 'rev-parse', 'HEAD');
    const task = await fx.task('feat/ff');
    const tip = await fx.git(task.meta.workspace!, 'rev-parse', 'feat/ff');
    const result = await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false });
    expect(result).toMatchObject({ merged: true, message: expect.stringContaining('fast-forward') });
    expect(await originMain(fx)).toBe(tip);
    expect(await fx.git(fx.repo, 'rev-parse', 'HEAD')).toBe(userHead);
    expect(await fx.git(fx.repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(await fx.git(task.meta.workspace!, 'rev-parse', 'HEAD')).toBe(tip);
    expect((await fx.git(task.meta.workspace!, 'rev-parse', '--abbrev-ref', 'HEAD'))).toBe('HEAD');
    expect(await fx.git(task.meta.workspace!, 'status', '--porcelain')).toBe('');
  });

  it('refuses to fast-forward a diverged branch, suggests --strategy merge, and puts the worktree back on its branch', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/div');
    const other = await fx.advanceOrigin();
    await expect(scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false })).rejects.toMatchObject({
      code: 'E_SCM',
      message: expect.stringContaining('--strategy merge'),
    });
    expect(await originMain(fx)).toBe(other);
    expect(await fx.git(task.meta.workspace!, 'symbolic-ref', '--short', 'HEAD')).toBe('feat/div');
  });

  it('merges a diverged branch with a merge commit named after the branch and summary', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/mc', { summary: 'add the thing' });
    const other = await fx.advanceOrigin();
    const tip = await fx.git(task.meta.workspace!, 'rev-parse', 'feat/mc');
    const result = await scmOf(fx).merge(task, fx.project, { strategy: 'merge', local: false });
    expect(result.merged).toBe(true);
    const head = await originMain(fx);
    expect(await fx.git(fx.origin, 'log', '-1', '--format=%s', 'main')).toBe('Merge feat/mc: add the thing');
    expect((await fx.git(fx.origin, 'log', '-1', '--format=%P', 'main')).split(' ')).toEqual([other, tip]);
    expect(await fx.git(task.meta.workspace!, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('refuses a conflicting merge with a clear sentence and leaves origin alone', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/conflict');
    const other = await fx.advanceOrigin('feature-1.txt');
    await expect(scmOf(fx).merge(task, fx.project, { strategy: 'merge', local: false })).rejects.toMatchObject({
      code: 'E_SCM',
      message: expect.stringContaining('conflicts with origin/main'),
    });
    expect(await originMain(fx)).toBe(other);
    expect(await fx.git(task.meta.workspace!, 'status', '--porcelain')).toBe('');
    expect(await fx.git(task.meta.workspace!, 'symbolic-ref', '--short', 'HEAD')).toBe('feat/conflict');
  });

  it('merges a task without a worktree in a temporary worktree that it removes afterwards', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/tmp', { worktree: false });
    const tip = await fx.git(fx.repo, 'rev-parse', 'feat/tmp');
    const before = await fx.git(fx.repo, 'worktree', 'list', '--porcelain');
    await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false });
    expect(await originMain(fx)).toBe(tip);
    expect(await fx.git(fx.repo, 'worktree', 'list', '--porcelain')).toBe(before);
    expect(await fx.git(fx.repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses to merge a worktree with uncommitted changes', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/dirty');
    await writeFile(join(task.meta.workspace!, 'feature-1.txt'), 'changed\n');
    const before = await originMain(fx);
    await expect(scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false })).rejects.toThrow(/uncommitted changes/);
    expect(await originMain(fx)).toBe(before);
  });

  it('skips the local merge when the pull request is already merged', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/prm', { pr_url: PR });
    await fx.ghResponds({ 'pr view': { stdout: JSON.stringify({ state: 'MERGED', url: PR }) } });
    const before = await originMain(fx);
    const result = await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false });
    expect(result).toEqual({ merged: true, message: `pull request ${PR} is already merged; skipped the local merge` });
    expect(await originMain(fx)).toBe(before);
    expect(await fx.ghCalls()).toEqual([['pr', 'view', PR, '--json', 'state,url']]);
  });

  it('refuses while the pull request is open unless told to merge locally', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pro');
    await fx.ghResponds({ 'pr view': { stdout: JSON.stringify({ state: 'OPEN', url: PR }) } });
    const before = await originMain(fx);
    await expect(scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false })).rejects.toMatchObject({
      code: 'E_SCM',
      message: expect.stringContaining('has an open pull request'),
    });
    expect(await originMain(fx)).toBe(before);
    expect((await fx.ghCalls())[0]).toEqual(['pr', 'view', 'feat/pro', '--json', 'state,url']);
    await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: true });
    expect(await originMain(fx)).toBe(await fx.git(fx.repo, 'rev-parse', 'feat/pro'));
  });

  it('refuses when the pull request was closed without merging', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/prc', { pr_url: PR });
    await fx.ghResponds({ 'pr view': { stdout: JSON.stringify({ state: 'CLOSED', url: PR }) } });
    const before = await originMain(fx);
    await expect(scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: true })).rejects.toThrow(/closed without merging/);
    expect(await originMain(fx)).toBe(before);
  });

  it('merges locally when gh finds no pull request for the branch', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/nopr');
    await fx.ghResponds({ 'pr view': { stderr: 'no pull requests found for branch "feat/nopr"', code: 1 } });
    expect(await scmOf(fx).pullRequestState(task, fx.project)).toBeNull();
    await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false });
    expect(await originMain(fx)).toBe(await fx.git(fx.repo, 'rev-parse', 'feat/nopr'));
  });
});

describe('without a working gh', () => {
  it('merges locally when gh is missing and the task has no pull request', async () => {
    fx = await gitFixture({ ghBin: 'no-such-gh-xyz' });
    const task = await fx.task('feat/nogh');
    await scmOf(fx).merge(task, fx.project, { strategy: 'ff', local: false });
    expect(await originMain(fx)).toBe(await fx.git(fx.repo, 'rev-parse', 'feat/nogh'));
  });

  it('refuses PR features with one clear sentence when gh is missing, pushing nothing', async () => {
    fx = await gitFixture({ ghBin: 'no-such-gh-xyz' });
    const task = await fx.task('feat/nogh-pr');
    await expect(scmOf(fx).createPullRequest(task, fx.project)).rejects.toMatchObject({ code: 'E_SCM', message: GH_MISSING });
    expect(await remoteHas(fx, 'feat/nogh-pr')).toBe(false);
    const withPr = await fx.task('feat/nogh-pr2', { pr_url: PR });
    await expect(scmOf(fx).merge(withPr, fx.project, { strategy: 'ff', local: false })).rejects.toMatchObject({ message: GH_MISSING });
    await expect(scmOf(fx).pullRequestState(withPr, fx.project)).rejects.toMatchObject({ message: GH_MISSING });
  });

  it('says to log in when gh is not authenticated', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/noauth');
    await fx.ghResponds({ 'auth status': { stderr: 'You are not logged into any GitHub hosts. To log in, run: gh auth login', code: 1 } });
    await expect(scmOf(fx).createPullRequest(task, fx.project)).rejects.toMatchObject({ code: 'E_SCM', message: GH_UNAUTHENTICATED });
    expect(await remoteHas(fx, 'feat/noauth')).toBe(false);
  });
});

describe('createPullRequest', () => {
  async function withTemplate(f: Fixture, task: Task, dir: string, name: string) {
    const ws = task.meta.workspace!;
    await mkdir(join(ws, dir), { recursive: true });
    await writeFile(join(ws, dir, name), '## Checklist\n- [ ] tests\n');
    await f.git(ws, 'add', '.');
    await f.git(ws, 'commit', '--quiet', '-m', 'template');
  }

  it('pushes the branch, passes title, body (summary, Context, template), head and base to gh, and stores pr_url', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pr', { summary: 'Add dark mode', body: '## Context\n\nUsers asked for it.\n\n## Plan\n\nAPPROACH: css\n' });
    await withTemplate(fx, task, '.github', 'PULL_REQUEST_TEMPLATE.md');
    await fx.ghResponds({ 'auth status': {}, 'pr create': { stdout: `Creating pull request\n${PR}` } });
    expect(await scmOf(fx).createPullRequest(task, fx.project)).toEqual({ url: PR });
    expect(await remoteHas(fx, 'feat/pr')).toBe(true);
    const body = 'Add dark mode\n\n## Context\n\nUsers asked for it.\n\n## Checklist\n- [ ] tests\n';
    expect(await fx.ghCalls()).toEqual([
      ['auth', 'status'],
      ['pr', 'create', '--title', 'Add dark mode', '--body', body, '--head', 'feat/pr', '--base', 'main'],
    ]);
    const stored = await fx.orange.store.read('demo', task.meta.id);
    expect(stored.meta.pr_url).toBe(PR);
    const history = await fx.orange.store.history('demo', task.meta.id);
    expect(history.at(-1)).toMatchObject({ type: 'pr.created', url: PR });
  });

  it('finds a lower-case template under docs/ and works without a Context section', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pr2', { summary: 'Fix it' });
    await withTemplate(fx, task, 'docs', 'pull_request_template.md');
    await fx.ghResponds({ 'auth status': {}, 'pr create': { stdout: PR } });
    await scmOf(fx).createPullRequest(task, fx.project);
    const create = (await fx.ghCalls()).find((c) => c[1] === 'create')!;
    expect(create[create.indexOf('--body') + 1]).toBe('Fix it\n\n## Checklist\n- [ ] tests\n');
  });

  it('adopts the pull request gh says already exists', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pr3');
    await fx.ghResponds({ 'auth status': {}, 'pr create': { stderr: `a pull request for branch "feat/pr3" into branch "main" already exists:\n${PR}`, code: 1 } });
    expect(await scmOf(fx).createPullRequest(task, fx.project)).toEqual({ url: PR });
    expect((await fx.orange.store.read('demo', task.meta.id)).meta.pr_url).toBe(PR);
  });

  it('refuses a task that already has a pull request', async () => {
    fx = await gitFixture();
    const task = await fx.task('feat/pr4', { pr_url: PR });
    await expect(scmOf(fx).createPullRequest(task, fx.project)).rejects.toThrow(`already has a pull request: ${PR}`);
    expect(await fx.ghCalls()).toEqual([]);
  });
});

describe('github options', () => {
  it('refuses bad options naming the plugin and the field', () => {
    expect(() => github({ remote: '--upload-pack=x' })).toThrow(/plugin github: option "remote"/);
    expect(() => github({ token: 'x' } as never)).toThrow(/plugin github/);
  });
});
