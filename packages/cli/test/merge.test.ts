import type { TaskMeta } from '@orange/core';
import { pullRequestUrl, standInGh } from '@orange/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BARE_CONFIG, CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create({ poolSize: 4 });
});
afterAll(() => box?.cleanup());

interface MergeJson {
  task: TaskMeta;
  from: string;
  to: string;
  merge: { merged: boolean; message: string };
}

const originLog = () => box.git(box.origin, 'log', '--format=%s', 'main');

/** A branch with one commit, pushed to origin and unknown locally, as a colleague would leave it. */
async function pushedBranch(branch: string): Promise<string> {
  await box.git(box.repo, 'checkout', '-q', '-b', branch);
  const subject = await box.commit(box.repo, `${branch.replace(/\W/g, '-')}.md`, `work on ${branch}`);
  await box.git(box.repo, 'push', '-q', 'origin', branch);
  await box.git(box.repo, 'checkout', '-q', 'main');
  await box.git(box.repo, 'branch', '-q', '-D', branch);
  await box.git(box.repo, 'update-ref', '-d', `refs/remotes/origin/${branch}`);
  return subject;
}

describe('orange task merge', () => {
  it('merges a task created in reviewing on a pushed branch into origin main and finishes it', async () => {
    const subject = await pushedBranch('feature/existing');
    const task = await box.createTask(['feature/existing', 'review the existing branch', '--status', 'reviewing']);
    const out = await box.json<MergeJson>(['task', 'merge', task.id, '--yes']);
    expect(out).toMatchObject({ from: 'reviewing', to: 'done', task: { status: 'done' }, merge: { merged: true } });
    expect(out.merge.message).toMatch(/^merged feature\/existing into origin\/main \(fast-forward, [0-9a-f]{7}\)$/);
    expect(await originLog()).toContain(subject);
    // done deletes the remote branch; the user's checkout is untouched.
    expect(await box.git(box.origin, 'branch', '--list', 'feature/existing')).toBe('');
    expect(await box.git(box.repo, 'branch', '--show-current')).toBe('main');
    const history = await box.history(task.id);
    expect(history.find((e) => e.type === 'task.merged')).toMatchObject({ via: 'github', strategy: 'ff' });
    expect(history.at(-1)).toMatchObject({ type: 'status.changed', from: 'reviewing', to: 'done' });
  });

  it('merges a task driven to reviewing by hand from its worktree, then frees worktree and session', async () => {
    const task = await box.startTask('feature/by-hand', 'add notes');
    const workspace = task.workspace as string;
    await box.toWorking(task);
    const subject = await box.commit(workspace, 'notes.md', 'add notes for the task');
    await box.writeSection(task.id, 'Handoff', 'DONE: notes added');
    await box.json(['task', 'complete'], { cwd: workspace });
    await box.writeSection(task.id, 'Review', 'Verdict: PASS\n\nLooks right.');
    const reviewed = await box.json<{ to: string }>(['task', 'update', '--status', 'reviewing'], { cwd: workspace });
    expect(reviewed.to).toBe('reviewing');

    const merged = await box.orange(['task', 'merge', task.id, '--yes', '--strategy', 'merge']);
    expect(merged).toMatchObject({ code: 0, stderr: '' });
    expect(merged.stdout).toMatch(/^merged feature\/by-hand into origin\/main \(merge commit, [0-9a-f]{7}\)$/m);
    expect(merged.stdout).toContain(`task ${task.id}: reviewing → done`);
    const log = await originLog();
    expect(log).toContain(subject);
    expect(log.split('\n')[0]).toBe('Merge feature/by-hand: add notes');
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'done', workspace: null });
    expect((await box.windows()).filter((w) => w.startsWith('demo/feature/by-hand:'))).toEqual([]);
    expect(await box.git(workspace, 'status', '--porcelain')).toBe('');
    expect((await box.history(task.id)).map((e) => e.type)).toContain('task.merged');
  });

  it('refuses a task that is not in reviewing before touching git', async () => {
    const subject = await pushedBranch('feature/too-early');
    const task = await box.createTask(['feature/too-early', 'not reviewed yet']);
    const before = await box.git(box.origin, 'rev-parse', 'main');
    const refused = await box.jsonError(['task', 'merge', task.id, '--yes']);
    expect(refused).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1 });
    expect(refused.error).toBe(`pending → done refused: task ${task.id} cannot be merged from pending (merge a task once its review passed)`);
    expect(await box.git(box.origin, 'rev-parse', 'main')).toBe(before);
    expect(await originLog()).not.toContain(subject);
    // No fetch either: the remote branch was never copied into the repository.
    expect(await box.git(box.repo, 'branch', '-r', '--list', 'origin/feature/too-early')).toBe('');
    expect((await box.task(task.id)).meta.status).toBe('pending');
    expect((await box.history(task.id)).map((e) => e.type)).toEqual(['task.created']);
    // --force does not reach a task that never started: the workflow has no forced move from pending.
    const forced = await box.jsonError(['task', 'merge', task.id, '--yes', '--force']);
    expect(forced).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1 });
    expect(await box.git(box.origin, 'rev-parse', 'main')).toBe(before);
  });

  it('merges a task still at work only with --force, stopping its agent, and records the merge as forced', async () => {
    const task = await box.startTask('feature/in-a-hurry', 'ship it now');
    const workspace = task.workspace as string;
    await box.toWorking(task);
    const subject = await box.commit(workspace, 'hurry.md', 'the urgent fix');
    const before = await box.git(box.origin, 'rev-parse', 'main');
    const refused = await box.jsonError(['task', 'merge', task.id, '--yes']);
    expect(refused.error).toBe(
      `working → done refused: task ${task.id} cannot be merged from working (merge a task once its review passed, or force it: orange task merge ${task.id} --force)`,
    );
    expect(await box.git(box.origin, 'rev-parse', 'main')).toBe(before);

    const merged = await box.orange(['task', 'merge', task.id, '--yes', '--force', '--strategy', 'merge']);
    expect(merged).toMatchObject({ code: 0, stderr: '' });
    expect(merged.stdout).toContain(`task ${task.id}: working → done`);
    expect(await originLog()).toContain(subject);
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'done', workspace: null });
    expect((await box.windows()).filter((w) => w.startsWith('demo/feature/in-a-hurry:'))).toEqual([]);
    const history = await box.history(task.id);
    expect(history.find((e) => e.type === 'task.merged')).toMatchObject({ forced: true, from: 'working' });
    expect(history.filter((e) => e.type === 'status.changed').at(-1)).toMatchObject({ from: 'working', to: 'done', forced: true, reason: 'force-merged from working' });
  });
});

describe('orange task merge on a finished task', () => {
  it('says plainly that a done task was already merged, and that a cancelled one has nothing to merge', async () => {
    await pushedBranch('feature/merged-twice');
    const task = await box.createTask(['feature/merged-twice', 'merge me twice', '--status', 'reviewing']);
    // A merge commit: earlier tests moved origin/main on, past the local main this branch grew from.
    await box.json(['task', 'merge', task.id, '--yes', '--strategy', 'merge']);
    const again = await box.jsonError(['task', 'merge', task.id, '--yes']);
    expect(again).toMatchObject({ code: 'E_NOT_ALLOWED', exit: 1, error: `task ${task.id} is already done (merged); there is nothing left to merge` });
    const cancelled = await box.createTask(['feature/given-up', 'given up']);
    await box.json(['task', 'cancel', cancelled.id, '--yes']);
    const refused = await box.jsonError(['task', 'merge', cancelled.id, '--yes']);
    expect(refused.error).toBe(`task ${cancelled.id} is already cancelled; there is nothing left to merge`);
  });
});

describe('orange task create-pr', () => {
  it('without gh on PATH fails with one sentence and pushes nothing', async () => {
    await box.git(box.repo, 'checkout', '-q', '-b', 'feature/pr');
    await box.commit(box.repo, 'pr.md', 'work for a pull request');
    await box.git(box.repo, 'checkout', '-q', 'main');
    const task = await box.createTask(['feature/pr', 'open a pull request', '--status', 'reviewing']);
    const human = await box.orange(['task', 'create-pr', task.id]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe('');
    expect(human.stderr).toBe('orange: gh (GitHub CLI) is not installed; install it or merge locally with orange task merge --local (m in the dashboard)');
    const json = await box.jsonError(['task', 'create-pr', task.id]);
    expect(json).toMatchObject({ code: 'E_SCM', exit: 1 });
    expect(await box.git(box.origin, 'branch', '--list', 'feature/pr')).toBe('');
    expect((await box.task(task.id)).meta).toMatchObject({ status: 'reviewing', pr_url: null });
    expect((await box.history(task.id)).map((e) => e.type)).toEqual(['task.created']);
  });
});

describe('orange task create-pr with a stand-in gh', () => {
  it('pushes the branch, opens the pull request and stores its URL', async () => {
    // A stand-in for the GitHub CLI: logged in, and `pr create` answers with a URL.
    const gh = await standInGh(box.dir, box.env.PATH);
    await gh.nextPullRequest(7);
    await box.git(box.repo, 'checkout', '-q', '-b', 'feature/pr-ok');
    const subject = await box.commit(box.repo, 'pr-ok.md', 'work for a real pull request');
    await box.git(box.repo, 'checkout', '-q', 'main');
    const task = await box.createTask(['feature/pr-ok', 'Open a pull request', '--status', 'reviewing']);
    const out = await box.json<{ task: TaskMeta; url: string }>(['task', 'create-pr', task.id], { env: gh.env });
    expect(out).toMatchObject({ url: pullRequestUrl(7), task: { pr_url: pullRequestUrl(7), status: 'reviewing' } });
    expect(await box.git(box.origin, 'log', '--format=%s', 'feature/pr-ok')).toContain(subject);
    expect((await box.history(task.id)).at(-1)).toMatchObject({ type: 'pr.created', url: out.url });
    const calls = (await gh.calls()).map((argv) => argv.join(' ')).join('\n');
    expect(calls).toMatch(/^pr create --title Open a pull request --body [\s\S]* --head feature\/pr-ok --base main$/m);
    const again = await box.jsonError(['task', 'create-pr', task.id], { env: gh.env });
    expect(again).toMatchObject({ code: 'E_SCM', error: `task ${task.id} already has a pull request: ${out.url}` });
  });
});

describe('a config without an scm plugin', () => {
  let bare: CliSandbox;
  beforeAll(async () => {
    // defaults: false drops every built-in plugin; a workflow with no actions still validates.
    bare = await CliSandbox.create({
      config: BARE_CONFIG,
    });
  });
  afterAll(() => bare?.cleanup());

  it('merge fails naming the missing scm slot', async () => {
    const task = await bare.createTask(['feature/bare', 'nothing to merge with', '--status', 'reviewing']);
    const human = await bare.orange(['task', 'merge', task.id, '--yes']);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe('orange: no plugin provides the scm slot (check the plugins in your orange config)');
    const json = await bare.jsonError(['task', 'merge', task.id, '--yes']);
    expect(json).toMatchObject({ code: 'E_NO_PROVIDER', exit: 1 });
    expect((await bare.task(task.id)).meta.status).toBe('reviewing');
  });
});
