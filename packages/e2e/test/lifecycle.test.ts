import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.js';

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const statuses = async (b: Sandbox, id: string) =>
  (await b.history(id)).filter((e) => e.type === 'status.changed').map((e) => e.to as string);

describe('task lifecycles with real tmux, worktrees and scripted agents', () => {
  it('runs the happy path from create to done and starts the next pending task', async () => {
    box = await Sandbox.create({ poolSize: 1 });
    const id = await box.createTask(['add a greeting'], 'agent.reviews: PASS\n');
    // Queued: the pool's one worktree is taken.
    const next = await box.createTask(['second task']);
    expect((await box.task(next)).meta.status).toBe('pending');
    const first = await box.task(id);
    const session = `demo/${first.meta.id}`;
    // The scripted agent may already have moved on; the ledger says where the task started.
    expect((await statuses(box, id))[0]).toBe('planning');

    // The reviewer runs in its own window while the persistent worker stays alive.
    await box.waitFor('reviewer window beside the worker', async () => {
      const windows = await box!.windows();
      return windows.some((w) => w.startsWith(`${session}:review-1-`)) && windows.includes(`${session}:worker`);
    });
    const reviewing = await box.waitForStatus(id, 'reviewing');
    expect(reviewing.meta.review_round).toBe(1);
    await box.waitFor('worker notified of the verdict', async () => (await box!.agentLog(id)).includes('notified:'));
    // The reviewer's window is killed once its own `orange task update` call has exited.
    await box.waitFor('the reviewer window to go', async () => !(await box!.windows()).some((w) => w.startsWith(`${session}:review-`)), 10_000);

    // A human pushed the branch for others to see; done must delete it again.
    const workspace = reviewing.meta.workspace as string;
    await box.git(workspace, 'push', '-q', 'origin', first.meta.branch);
    const merged = await box.orange(['task', 'merge', id, '--yes']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);

    const done = await box.task(id);
    expect(done.meta.status).toBe('done');
    expect(await box.git(box.origin, 'log', '--format=%s', 'main')).toContain(`implement the task for task ${id}`);
    expect(await box.git(box.origin, 'branch', '--list', first.meta.branch)).toBe('');
    expect(await box.git(workspace, 'status', '--porcelain')).toBe('');
    const pool = JSON.parse(await readFile(box.paths.poolFile, 'utf8')) as { workspaces: Array<{ path: string; task: string | null }> };
    expect(pool.workspaces.find((w) => w.path === workspace)?.task ?? null).not.toBe(id);
    expect((await box.windows()).some((w) => w.startsWith(`${session}:`))).toBe(false);
    await box.waitForStatus(next, ['planning', 'working', 'agent-review', 'reviewing']);
    expect(await statuses(box, id)).toEqual(['planning', 'working', 'agent-review', 'reviewing', 'done']);
  });

  it('sends a round-1 FAIL back to the live worker, which fixes it and passes round 2', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['fix the thing'], 'agent.reviews: FAIL,PASS\n');
    const task = await box.waitForStatus(id, 'reviewing', 60_000);
    expect(task.meta.review_round).toBe(2);
    expect(await statuses(box, id)).toEqual(['planning', 'working', 'agent-review', 'working', 'agent-review', 'reviewing']);
    const log = await box.agentLog(id);
    expect(log).toMatch(/worker: notified: .*## Review/);
    expect(log).toContain('committed: address review feedback');
    // One persistent worker: spawned once.
    const spawns = (await box.history(id)).filter((e) => e.type === 'agent.spawned' && e.role === 'worker');
    expect(spawns).toHaveLength(1);
  });

  it('moves a round-2 FAIL to stuck', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['never good enough'], 'agent.reviews: FAIL,FAIL\n');
    const task = await box.waitForStatus(id, 'stuck', 60_000);
    expect(task.meta.review_round).toBe(2);
  });

  it('cancels a working task: session killed, worktree released', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['slow work'], 'agent.pace: 4000\n');
    const working = await box.waitForStatus(id, 'working', 30_000);
    const refused = await box.orange(['task', 'cancel', id]);
    expect(refused.code).not.toBe(0);
    const cancelled = await box.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.stderr).toBe('');
    expect((await box.task(id)).meta.status).toBe('cancelled');
    expect((await box.windows()).some((w) => w.startsWith(`demo/${working.meta.id}:`))).toBe(false);
    expect((await box.task(id)).meta.workspace).toBeNull();
  });

  it('keeps a second task pending on a pool of one and starts it when the first is done', async () => {
    box = await Sandbox.create({ poolSize: 1 });
    const first = await box.createTask(['first task']);
    const second = await box.createTask(['second task']);
    expect((await box.task(second)).meta.status).toBe('pending');
    await box.waitForStatus(first, 'reviewing', 60_000);
    expect((await box.task(second)).meta.status).toBe('pending');
    const merged = await box.orange(['task', 'merge', first, '--yes']);
    expect(merged.stderr).toBe('');
    await box.waitForStatus(second, ['planning', 'working', 'agent-review', 'reviewing'], 30_000);
  });

  it('reviews an existing branch with only a reviewer, then spawns a worker on demand after FAIL', async () => {
    box = await Sandbox.create();
    await box.git(box.repo, 'checkout', '-q', '-b', 'feature/existing');
    await box.git(box.repo, 'commit', '-q', '--allow-empty', '-m', 'existing work');
    await box.git(box.repo, 'push', '-q', 'origin', 'feature/existing');
    await box.git(box.repo, 'checkout', '-q', 'main');
    const id = await box.createTask(['feature/existing', 'review the existing branch', '--status', 'agent-review'], 'agent.reviews: FAIL,PASS\n');
    const session = `demo/${id}`;
    await box.waitFor('the reviewer window', async () => (await box!.windows()).some((w) => w.startsWith(`${session}:review-1-`)));
    expect(await box.windows()).not.toContain(`${session}:worker`);
    const task = await box.waitForStatus(id, 'reviewing', 60_000);
    expect(task.meta.review_round).toBe(2);
    const workers = (await box.history(id)).filter((e) => e.type === 'agent.spawned' && e.role === 'worker');
    expect(workers).toHaveLength(1);
  });

  it('shows the agent a gate refusal; the agent fixes TASK.md and retries', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['forgetful agent'], 'agent.worker: skip-handoff-first\n');
    await box.waitForStatus(id, 'reviewing', 60_000);
    expect(await box.agentLog(id)).toMatch(/refused: .*## Handoff/);
  });

  it('renames the branch from inside the worktree', async () => {
    box = await Sandbox.create();
    const id = await box.createTask(['rename me'], 'agent.rename: feature/renamed\n');
    const task = await box.waitForStatus(id, 'reviewing', 60_000);
    expect(task.meta.branch).toBe('feature/renamed');
    expect(await box.git(task.meta.workspace as string, 'branch', '--show-current')).toBe('feature/renamed');
  });
});
