import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readlink, rename, rm, rmdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { listProcesses, processesInside, TransitionRefused, type Orange, type Task, type WorkflowInput } from '@orange/core';
import { git, useTestGitIdentity, waitFor } from '@orange/test-support';
import { execa } from 'execa';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commitFile, gitMaybe, poolSandbox, type PoolSandbox } from '../test/git-sandbox.js';
import { worktreePool } from './index.js';

beforeAll(useTestGitIdentity);

let sandboxes: PoolSandbox[] = [];
afterEach(async () => {
  await Promise.all(sandboxes.map((s) => s.cleanup()));
  sandboxes = [];
});

async function sandbox(options: Parameters<typeof poolSandbox>[0] = {}): Promise<PoolSandbox> {
  const s = await poolSandbox(options);
  sandboxes.push(s);
  return s;
}

async function start(orange: Orange, options: { branch?: string; summary?: string } = {}): Promise<Task> {
  const { task } = await orange.engine.createTask({ project: 'demo', summary: options.summary ?? 'do a thing', ...(options.branch ? { branch: options.branch } : {}) });
  return task;
}

async function poolFile(s: PoolSandbox): Promise<{ workspaces: { name: string; task: string | null; path: string }[] }> {
  return JSON.parse(await readFile(s.orange.paths.poolFile, 'utf8'));
}

/** Walks a started task to reviewing the shortest legal way (the gates are the core's business). */
async function toReviewing(s: PoolSandbox, task: Task): Promise<{ project: string; id: string }> {
  const ref = { project: 'demo', id: task.meta.id };
  await s.writeSection(task, 'Plan', 'APPROACH: do it');
  await s.orange.engine.transition(ref, 'working');
  await s.writeSection(task, 'Handoff', 'DONE: it');
  await s.orange.engine.transition(ref, 'agent-review');
  await s.writeSection(task, 'Review', 'Verdict: PASS');
  await s.orange.engine.transition(ref, 'reviewing');
  return ref;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function running(pid: number): Promise<boolean> {
  return (await listProcesses()).some((p) => p.pid === pid && !p.zombie);
}

/**
 * What an agent's `setsid sleep 1000 &` leaves behind: a process in its own session, working in
 * `dir`, with the agent's task id in its environment (null: somebody else's, e.g. a person's shell).
 */
async function leaveProcess(dir: string, taskId: string | null): Promise<number> {
  const before = new Set(((await processesInside([dir]))?.get(dir) ?? []).map((p) => p.pid));
  const { ORANGE_TASK_ID: _, ...env } = process.env;
  await execa('sh', ['-c', 'setsid sleep 1000 > /dev/null 2>&1 &'], { cwd: dir, env: taskId === null ? env : { ...env, ORANGE_TASK_ID: taskId }, extendEnv: false });
  let pid = 0;
  await waitFor(`a new process in ${dir}`, async () => {
    pid = ((await processesInside([dir]))?.get(dir) ?? []).find((p) => !before.has(p.pid))?.pid ?? 0;
    return pid > 0;
  });
  leftovers.push(pid);
  return pid;
}

const leftovers: number[] = [];
afterEach(() => {
  for (const pid of leftovers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already stopped
    }
  }
});

describe('worktree-pool options', () => {
  it('refuses a remote that git would read as an option, naming the plugin and field', () => {
    expect(() => worktreePool({ remote: '--upload-pack=x' })).toThrow(/plugin worktree-pool: option "remote"/);
    expect(() => worktreePool({ poolSize: 3 } as never)).toThrow(/plugin worktree-pool/);
  });
});

describe('acquire_workspace', () => {
  it('creates worktrees lazily, one per started task, never beyond pool_size', async () => {
    const s = await sandbox({ poolSize: 2 });
    expect(await s.orange.slot('workspaces').list('demo')).toEqual([]);
    const a = await start(s.orange);
    expect(a.meta.status).toBe('planning');
    expect(a.meta.workspace).toBe(s.orange.paths.workspaceDir('demo', 1));
    expect(existsSync(s.orange.paths.workspaceDir('demo', 2))).toBe(false);
    const b = await start(s.orange);
    expect(b.meta.workspace).toBe(s.orange.paths.workspaceDir('demo', 2));
    await start(s.orange);
    expect(existsSync(s.orange.paths.workspaceDir('demo', 3))).toBe(false);
    const listed = await s.orange.slot('workspaces').list('demo');
    expect(listed.map((w) => [w.name, w.task])).toEqual([
      ['demo--1', a.meta.id],
      ['demo--2', b.meta.id],
    ]);
  });

  it('puts the worktree on the task branch with TASK.md linked and hidden from git', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe(task.meta.branch);
    expect(await git(wt, 'rev-parse', 'HEAD')).toBe(await git(s.repo, 'rev-parse', 'origin/main'));
    // A new branch must not track the default branch: a bare `git push` could land on main.
    expect(await gitMaybe(wt, 'rev-parse', '--abbrev-ref', '@{upstream}')).toBeNull();
    const link = join(wt, 'TASK.md');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(s.orange.paths.taskFile('demo', task.meta.id));
    expect(await readFile(link, 'utf8')).toContain(task.meta.id);
    const exclude = await readFile(join(s.repo, '.git', 'info', 'exclude'), 'utf8');
    expect(exclude.split('\n')).toEqual(expect.arrayContaining(['TASK.md', '.fake-harness/']));
    await mkdir(join(wt, '.fake-harness'));
    await writeFile(join(wt, '.fake-harness', 'settings.json'), '{}\n');
    expect(await git(wt, 'status', '--porcelain')).toBe('');
    expect((await s.orange.store.history('demo', task.meta.id)).map((e) => e.type)).toContain('workspace.acquired');
  });

  it("points an upgraded task's TASK.md link (to the file's old place) at its new place before the agent starts", async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    const { paths } = s.orange;
    // As an older version left it: TASK.md beside state.json, the worktree's link naming it there.
    await rename(paths.taskFile('demo', task.meta.id), paths.legacyTaskFile('demo', task.meta.id));
    await rmdir(paths.agentDir('demo', task.meta.id));
    await rm(join(wt, 'TASK.md'));
    await symlink(paths.legacyTaskFile('demo', task.meta.id), join(wt, 'TASK.md'));
    const current = await s.orange.store.read('demo', task.meta.id);
    const command = { argv: ['agent'], env: {}, cwd: wt };
    const run = { kind: 'headless', phase: 'plan' } as const;
    expect(await s.orange.hooks.agentCommand.promise(command, { orange: s.orange, task: current, run })).toEqual(command);
    expect(await readlink(join(wt, 'TASK.md'))).toBe(paths.taskFile('demo', task.meta.id));
    expect(await readFile(join(wt, 'TASK.md'), 'utf8')).toContain(task.meta.id);
  });

  it('appends each exclude line once, however many tasks acquire', async () => {
    const s = await sandbox({ poolSize: 3 });
    await start(s.orange);
    await start(s.orange);
    await start(s.orange);
    const lines = (await readFile(join(s.repo, '.git', 'info', 'exclude'), 'utf8')).split('\n');
    expect(lines.filter((l) => l === 'TASK.md')).toHaveLength(1);
    expect(lines.filter((l) => l === '.fake-harness/')).toHaveLength(1);
  });

  it('refuses to start a task when the pool is exhausted, and the task stays pending', async () => {
    const s = await sandbox({ poolSize: 2 });
    await start(s.orange);
    await start(s.orange);
    const third = await s.orange.engine.createTask({ project: 'demo', summary: 'third' });
    expect(third.spawned).toBe(false);
    expect(third.queuedReason).toBe('workspace pool for project demo is exhausted (2 of 2 in use); the task stays pending');
    const stored = await s.orange.store.read('demo', third.task.meta.id);
    expect(stored.meta.status).toBe('pending');
    expect(stored.meta.workspace).toBeNull();
    const again = s.orange.engine.spawn({ project: 'demo', id: third.task.meta.id });
    await expect(again).rejects.toBeInstanceOf(TransitionRefused);
    await expect(s.orange.engine.spawn({ project: 'demo', id: third.task.meta.id })).rejects.toThrow(/pending → planning refused: workspace pool for project demo is exhausted \(2 of 2 in use\)/);
    expect((await poolFile(s)).workspaces.map((w) => w.task)).not.toContain(third.task.meta.id);
    expect(s.calls.filter((c) => c.endsWith(third.task.meta.id))).toEqual([]);
  });

  it('refuses to resume a stopped task when the pool is exhausted, saying the task stays stopped (its own status, not the initial one)', async () => {
    // A pipeline-like workflow: a stopped task gives its worktree back, and resuming takes one again.
    const resumable: WorkflowInput = {
      name: 'resumable',
      initial: 'created',
      start: 'working',
      states: { created: {}, working: { agent: 'worker' }, stopped: {}, done: { terminal: true } },
      transitions: [
        { from: 'created', to: 'working', by: ['agent', 'person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
        { from: 'working', to: 'stopped', by: ['agent', 'person', 'orange'], hooks: ['kill_session', 'release_workspace'] },
        { from: 'stopped', to: 'working', by: ['agent', 'person', 'orange'], hooks: ['acquire_workspace', 'spawn_agent'] },
        { from: 'working', to: 'done', by: ['agent', 'person', 'orange'], hooks: ['release_workspace'] },
      ],
      exit: { created: { otherwise: 'mark' }, working: { otherwise: 'mark' }, stopped: { otherwise: 'mark' } },
      create: { created: { hooks: [] } },
      prompts: {},
    };
    const s = await sandbox({ poolSize: 1, workflow: resumable });
    const first = await start(s.orange);
    const ref = { project: 'demo', id: first.meta.id };
    await s.orange.engine.transition(ref, 'stopped');
    await start(s.orange);
    const refused = s.orange.engine.transition(ref, 'working');
    await expect(refused).rejects.toBeInstanceOf(TransitionRefused);
    await expect(refused).rejects.toThrow('stopped → working refused: workspace pool for project demo is exhausted (1 of 1 in use); the task stays stopped');
    expect((await s.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'stopped', workspace: null });
    // A new task waiting in the initial status is still told it stays there.
    const queued = await s.orange.engine.createTask({ project: 'demo', summary: 'queued' });
    expect(queued.queuedReason).toBe('workspace pool for project demo is exhausted (1 of 1 in use); the task stays created');
  });

  it('never hands out a free worktree a process still runs in; the next task waits until it is gone', async () => {
    const s = await sandbox({ poolSize: 1 });
    const first = await start(s.orange);
    const wt = first.meta.workspace as string;
    await s.orange.engine.transition({ project: 'demo', id: first.meta.id }, 'cancelled');
    // Started after the release (e.g. by the agent shell that cancelled its own task).
    const left = await leaveProcess(wt, first.meta.id);
    const next = await s.orange.engine.createTask({ project: 'demo', summary: 'next' });
    expect(next.spawned).toBe(false);
    expect(next.queuedReason).toBe('workspace pool for project demo is exhausted (0 of 1 in use, 1 more with processes still running in them); the task stays pending');
    expect(existsSync(s.orange.paths.workspaceDir('demo', 2))).toBe(false);
    process.kill(left, 'SIGKILL');
    await waitFor(`process ${left} to end`, async () => !(await running(left)));
    const started = await s.orange.engine.spawn({ project: 'demo', id: next.task.meta.id });
    expect(started.task.meta.workspace).toBe(wt);
  });

  it('reuses an existing local branch with its commits', async () => {
    const s = await sandbox();
    await git(s.repo, 'switch', '-q', '-c', 'feature/local');
    await commitFile(s.repo, 'local.txt', 'local work\n');
    const tip = await git(s.repo, 'rev-parse', 'HEAD');
    await git(s.repo, 'switch', '-q', 'main');
    const task = await start(s.orange, { branch: 'feature/local' });
    const wt = task.meta.workspace as string;
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe('feature/local');
    expect(await git(wt, 'rev-parse', 'HEAD')).toBe(tip);
    expect(existsSync(join(wt, 'local.txt'))).toBe(true);
  });

  it('checks out a branch that exists only on the remote, tracking it', async () => {
    const s = await sandbox();
    const other = join(s.root, 'other');
    await git(s.root, 'clone', '-q', s.origin, other);
    await git(other, 'switch', '-q', '-c', 'feature/remote');
    await commitFile(other, 'remote.txt', 'remote work\n');
    await git(other, 'push', '-q', 'origin', 'feature/remote');
    const tip = await git(other, 'rev-parse', 'HEAD');
    // The project clone has never fetched it: acquire must fetch first.
    expect(await gitMaybe(s.repo, 'rev-parse', '--verify', '--quiet', 'refs/remotes/origin/feature/remote')).toBeNull();
    const task = await start(s.orange, { branch: 'feature/remote' });
    const wt = task.meta.workspace as string;
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe('feature/remote');
    expect(await git(wt, 'rev-parse', 'HEAD')).toBe(tip);
    expect(await git(wt, 'rev-parse', '--abbrev-ref', '@{upstream}')).toBe('origin/feature/remote');
  });

  it('names the checkout holding the branch, and a respawn reuses the reservation once it is freed', async () => {
    const s = await sandbox({ poolSize: 1 });
    await git(s.repo, 'switch', '-q', '-c', 'feature/busy');
    const task = await start(s.orange, { branch: 'feature/busy' });
    expect(task.meta.status).toBe('planning');
    expect(task.meta.workspace).toBeNull();
    const failed = (await s.orange.store.history('demo', task.meta.id)).find((e) => e.type === 'hook.failed');
    expect(failed?.error).toBe(`branch feature/busy is checked out in ${s.repo}; switch that checkout to another branch and retry`);
    // The reservation survives the failed hook, so no other task can take the worktree meanwhile.
    expect((await poolFile(s)).workspaces.map((w) => w.task)).toEqual([task.meta.id]);
    expect((await s.orange.engine.createTask({ project: 'demo', summary: 'waits' })).spawned).toBe(false);

    await git(s.repo, 'switch', '-q', 'main');
    const respawned = await s.orange.engine.respawn({ project: 'demo', id: task.meta.id });
    expect(respawned.meta.workspace).toBe(s.orange.paths.workspaceDir('demo', 1));
    expect(await git(respawned.meta.workspace as string, 'symbolic-ref', '--short', 'HEAD')).toBe('feature/busy');
    expect(respawned.meta.attention).toBeNull();
  });

  it('works from the local default branch when the project has no remote', async () => {
    const s = await sandbox({ remote: false });
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe(task.meta.branch);
    expect(await git(wt, 'rev-parse', 'HEAD')).toBe(await git(s.repo, 'rev-parse', 'main'));
    expect(await readFile(s.orange.paths.logFile, 'utf8')).toContain('using the local default branch');
  });

  it('reserves in the action itself for a task created straight into agent-review', async () => {
    const s = await sandbox({ poolSize: 1 });
    const { task } = await s.orange.engine.createTask({ project: 'demo', summary: 'review it', status: 'agent-review' });
    expect(task.meta.workspace).toBe(s.orange.paths.workspaceDir('demo', 1));
    const second = await s.orange.engine.createTask({ project: 'demo', summary: 'review that', status: 'agent-review' });
    expect(second.task.meta.workspace).toBeNull();
    expect(second.task.meta.attention).toMatch(/acquire_workspace/);
    const failed = (await s.orange.store.history('demo', second.task.meta.id)).find((e) => e.type === 'hook.failed');
    expect(failed?.error).toMatch(/workspace pool for project demo is exhausted \(1 of 1 in use\)/);
  });
});

describe('release_workspace', () => {
  it('refuses a worktree with uncommitted changes, naming the worktree and the files', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    await writeFile(join(wt, 'half-done.ts'), 'export {};\n');
    const result = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    expect(result.failedHooks).toEqual(['release_workspace']);
    const failed = (await s.orange.store.history('demo', task.meta.id)).find((e) => e.type === 'hook.failed');
    expect(failed?.error).toBe(`worktree demo--1 (${wt}) has uncommitted changes (half-done.ts); commit or discard them, then free it with: orange workspace gc`);
    expect(result.task.meta.workspace).toBe(wt);
    expect(existsSync(join(wt, 'half-done.ts'))).toBe(true);
    expect((await poolFile(s)).workspaces[0]?.task).toBe(task.meta.id);
  });

  it('frees a clean worktree: detached at origin/main, TASK.md gone, branch and commits kept', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    await commitFile(wt, 'feature.txt', 'done\n');
    const tip = await git(wt, 'rev-parse', 'HEAD');
    const result = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    expect(result.failedHooks).toEqual([]);
    expect(result.task.meta.workspace).toBeNull();
    expect(await gitMaybe(wt, 'symbolic-ref', '-q', 'HEAD')).toBeNull();
    expect(await git(wt, 'rev-parse', 'HEAD')).toBe(await git(s.repo, 'rev-parse', 'origin/main'));
    expect(existsSync(join(wt, 'TASK.md'))).toBe(false);
    expect(existsSync(join(wt, 'feature.txt'))).toBe(false);
    expect(await git(s.repo, 'rev-parse', task.meta.branch)).toBe(tip);
    expect((await poolFile(s)).workspaces).toEqual([{ name: 'demo--1', project: 'demo', path: wt, task: null }]);
    // The freed worktree is the one the next task gets.
    const next = await start(s.orange);
    expect(next.meta.workspace).toBe(wt);
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe(next.meta.branch);
  });

  it('hands the next task a worktree without what the last one left: untracked and ignored files go, node_modules stays', async () => {
    const s = await sandbox({ poolSize: 1 });
    const first = await start(s.orange);
    const wt = first.meta.workspace as string;
    // Left behind, ignored (so the worktree counts as clean and is freed): an approval file, build
    // output, and a cache worth keeping.
    const exclude = join(s.repo, '.git', 'info', 'exclude');
    await writeFile(exclude, `${await readFile(exclude, 'utf8')}APPROVED\nbuild/\nnode_modules/\n`);
    await writeFile(join(wt, 'APPROVED'), 'yes\n');
    await mkdir(join(wt, 'build'), { recursive: true });
    await writeFile(join(wt, 'build', 'out.js'), 'built\n');
    await mkdir(join(wt, 'node_modules', 'left-pad'), { recursive: true });
    await writeFile(join(wt, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
    await s.orange.engine.transition({ project: 'demo', id: first.meta.id }, 'cancelled', { actor: 'person' });
    const next = await start(s.orange);
    expect(next.meta.workspace).toBe(wt);
    expect(existsSync(join(wt, 'APPROVED'))).toBe(false);
    expect(existsSync(join(wt, 'build'))).toBe(false);
    expect(existsSync(join(wt, 'node_modules', 'left-pad', 'index.js'))).toBe(true);
    expect(await git(wt, 'status', '--porcelain')).toBe('');
  });

  it('stops a process an agent left running in the worktree, then frees it', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    const left = await leaveProcess(wt, task.meta.id);
    const result = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    expect(result.failedHooks).toEqual([]);
    expect(await running(left)).toBe(false);
    expect((await processesInside([wt]))?.get(wt)).toEqual([]);
    expect((await poolFile(s)).workspaces[0]?.task).toBeNull();
  });

  it("stops only the task's own processes: a person's shell and another task's agent in the worktree live on", async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    const own = await leaveProcess(wt, task.meta.id);
    const person = await leaveProcess(wt, null);
    const other = await leaveProcess(wt, 'AnotherTask0000000000');
    const result = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    expect(result.failedHooks).toEqual([]);
    expect(await running(own)).toBe(false);
    expect(await running(person)).toBe(true);
    expect(await running(other)).toBe(true);
    expect((await poolFile(s)).workspaces[0]?.task).toBeNull();
  });

  it('does nothing for a task that never had a workspace', async () => {
    const s = await sandbox();
    const { task } = await s.orange.engine.createTask({ project: 'demo', summary: 'later', spawn: false });
    const result = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled', { actor: 'person' });
    expect(result.failedHooks).toEqual([]);
  });
});

describe('spawn_next', () => {
  it('starts the oldest pending task of the project when a task reaches done', async () => {
    const s = await sandbox({ poolSize: 1 });
    const first = await start(s.orange);
    const older = await s.orange.engine.createTask({ project: 'demo', summary: 'older' });
    await sleep(5);
    const newer = await s.orange.engine.createTask({ project: 'demo', summary: 'newer' });
    expect([older.task.meta.status, newer.task.meta.status]).toEqual(['pending', 'pending']);

    const ref = await toReviewing(s, first);
    const done = await s.orange.engine.transition(ref, 'done');

    expect(done.failedHooks).toEqual([]);
    expect(done.task.meta.workspace).toBeNull();
    const started = await s.orange.store.read('demo', older.task.meta.id);
    expect(started.meta.status).toBe('planning');
    expect(started.meta.workspace).toBe(first.meta.workspace);
    expect(await git(started.meta.workspace as string, 'symbolic-ref', '--short', 'HEAD')).toBe(started.meta.branch);
    expect((await s.orange.store.read('demo', newer.task.meta.id)).meta.status).toBe('pending');
  });

  it('a gc that read the pool before a merge handed the worktree on leaves the next task alone: its agent, branch and TASK.md', async () => {
    const s = await sandbox({ poolSize: 1 });
    const first = await start(s.orange);
    const wt = first.meta.workspace as string;
    const queued = await s.orange.engine.createTask({ project: 'demo', summary: 'queued' });
    expect(queued.task.meta.status).toBe('pending');
    const ref = await toReviewing(s, first);

    // The pass reads the pool (the worktree is bound to `first`) and stops before it lists the tasks…
    const store = s.orange.store;
    const list = store.list.bind(store);
    let reached!: () => void;
    let resume!: () => void;
    const atList = new Promise<void>((resolve) => (reached = resolve));
    const gate = new Promise<void>((resolve) => (resume = resolve));
    store.list = async (project) => {
      store.list = list;
      reached();
      await gate;
      return list(project);
    };
    const gc = s.orange.slot('workspaces').gc();
    await atList;
    // …while the merge frees the worktree and spawn_next hands it to the queued task, whose agent starts.
    expect((await s.orange.engine.transition(ref, 'done')).failedHooks).toEqual([]);
    const next = await s.orange.store.read('demo', queued.task.meta.id);
    expect(next.meta).toMatchObject({ status: 'planning', workspace: wt });
    const agent = await leaveProcess(wt, next.meta.id);
    resume();

    expect((await gc).freed).toEqual([]);
    expect(await running(agent)).toBe(true);
    expect((await poolFile(s)).workspaces[0]?.task).toBe(next.meta.id);
    expect(await git(wt, 'symbolic-ref', '--short', 'HEAD')).toBe(next.meta.branch);
    expect(await readlink(join(wt, 'TASK.md'))).toBe(s.orange.paths.taskFile('demo', next.meta.id));
  });

  it('passes over a task put aside (created with spawn: false) until someone spawns it; a spawn refused for a full pool queues it', async () => {
    const s = await sandbox({ poolSize: 1 });
    const first = await start(s.orange);
    const aside = await s.orange.engine.createTask({ project: 'demo', summary: 'aside', spawn: false });
    const ref = { project: 'demo', id: aside.task.meta.id };
    // A cancel frees the worktree and starts the queue: the task put aside is not in it.
    await s.orange.engine.transition({ project: 'demo', id: first.meta.id }, 'cancelled');
    expect((await s.orange.store.read('demo', ref.id)).meta.status).toBe('pending');
    expect((await s.orange.slot('workspaces').gc()).started).toEqual([]);
    const second = await start(s.orange);
    await expect(s.orange.engine.spawn(ref)).rejects.toThrow('workspace pool for project demo is exhausted (1 of 1 in use); the task stays pending');
    // Asked to start, it now waits in the queue: the next freed worktree is its.
    await s.orange.engine.transition({ project: 'demo', id: second.meta.id }, 'cancelled');
    expect((await s.orange.store.read('demo', ref.id)).meta).toMatchObject({ status: 'planning', workspace: second.meta.workspace });
  });

  it('does nothing when no task is pending', async () => {
    const s = await sandbox({ poolSize: 1 });
    const { task } = await s.orange.engine.createTask({ project: 'demo', summary: 'approve me', status: 'reviewing' });
    const done = await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'done');
    expect(done.failedHooks).toEqual([]);
    expect(await readFile(s.orange.paths.logFile, 'utf8')).toContain('no pending task to spawn');
  });
});

describe('workspaces slot', () => {
  it('init creates every worktree of the pool, detached at origin/main and free', async () => {
    const s = await sandbox({ poolSize: 3 });
    const listed = await s.orange.slot('workspaces').init(await s.orange.projects.get('demo'));
    expect(listed.map((w) => [w.name, w.task])).toEqual([
      ['demo--1', null],
      ['demo--2', null],
      ['demo--3', null],
    ]);
    for (const w of listed) {
      expect(await gitMaybe(w.path, 'symbolic-ref', '-q', 'HEAD')).toBeNull();
      expect(await git(w.path, 'rev-parse', 'HEAD')).toBe(await git(s.repo, 'rev-parse', 'origin/main'));
    }
    // Idempotent: a second init adds nothing.
    expect(await s.orange.slot('workspaces').init(await s.orange.projects.get('demo'))).toHaveLength(3);
  });

  it('recreates a worktree directory deleted by hand', async () => {
    const s = await sandbox({ poolSize: 1 });
    const [w] = await s.orange.slot('workspaces').init(await s.orange.projects.get('demo'));
    await rm(w!.path, { recursive: true, force: true });
    const task = await start(s.orange);
    expect(task.meta.workspace).toBe(w!.path);
    expect(await git(w!.path, 'symbolic-ref', '--short', 'HEAD')).toBe(task.meta.branch);
  });

  it('gc frees worktrees of a deleted task and of a cancelled one (discarding its changes), and leaves live ones', async () => {
    const s = await sandbox({ poolSize: 3 });
    const deleted = await start(s.orange);
    const cancelled = await start(s.orange);
    const live = await start(s.orange);
    await writeFile(join(cancelled.meta.workspace as string, 'scratch.txt'), 'wip\n');
    const cancel = await s.orange.engine.transition({ project: 'demo', id: cancelled.meta.id }, 'cancelled');
    expect(cancel.failedHooks).toEqual(['release_workspace']);
    await s.orange.store.remove('demo', deleted.meta.id);

    const { freed } = await s.orange.slot('workspaces').gc();
    expect(freed.map((w) => [w.name, w.task]).sort()).toEqual([
      ['demo--1', deleted.meta.id],
      ['demo--2', cancelled.meta.id],
    ]);
    const pool = await poolFile(s);
    expect(pool.workspaces.map((w) => w.task)).toEqual([null, null, live.meta.id]);
    const wt2 = cancelled.meta.workspace as string;
    expect(existsSync(join(wt2, 'scratch.txt'))).toBe(false);
    expect(existsSync(join(wt2, 'TASK.md'))).toBe(false);
    expect(await gitMaybe(wt2, 'symbolic-ref', '-q', 'HEAD')).toBeNull();
    expect((await s.orange.store.read('demo', cancelled.meta.id)).meta.workspace).toBeNull();
    expect(existsSync(s.orange.paths.taskDir('demo', deleted.meta.id))).toBe(false);
    expect(await readFile(s.orange.paths.logFile, 'utf8')).toContain('gc discarding uncommitted changes');
    expect((await s.orange.slot('workspaces').gc()).freed).toEqual([]);
  });

  it('gc keeps a done task\'s worktree that still has uncommitted changes', async () => {
    const s = await sandbox({ poolSize: 1 });
    const { task } = await s.orange.engine.createTask({ project: 'demo', summary: 'review it', status: 'agent-review' });
    const wt = task.meta.workspace as string;
    const ref = { project: 'demo', id: task.meta.id };
    await s.writeSection(task, 'Review', 'Verdict: PASS');
    await s.orange.engine.transition(ref, 'reviewing');
    await writeFile(join(wt, 'forgotten.txt'), 'oops\n');
    expect((await s.orange.engine.transition(ref, 'done')).failedHooks).toEqual(['release_workspace']);
    expect((await s.orange.slot('workspaces').gc()).freed).toEqual([]);
    await rm(join(wt, 'forgotten.txt'));
    expect((await s.orange.slot('workspaces').gc()).freed.map((w) => w.name)).toEqual(['demo--1']);
  });
});

describe('diffStat (the dashboard)', () => {
  it('counts the commits ahead of the default branch and the lines changed, uncommitted ones included', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    const pool = s.orange.slot('workspaces');
    expect(await pool.diffStat?.(task.meta)).toEqual({ ahead: 0, added: 0, removed: 0, files: [] });
    await commitFile(wt, 'a.txt', 'one\ntwo\nthree\n');
    await commitFile(wt, 'b.txt', 'x\n');
    await writeFile(join(wt, 'a.txt'), 'one\nthree\n');
    expect(await pool.diffStat?.(task.meta)).toEqual({
      ahead: 2,
      added: 3,
      removed: 0,
      files: [
        { path: 'a.txt', added: 2, removed: 0 },
        { path: 'b.txt', added: 1, removed: 0 },
      ],
    });
  });

  it('has nothing to say about a task without a worktree', async () => {
    const s = await sandbox();
    const { task } = await s.orange.engine.createTask({ project: 'demo', summary: 'later', spawn: false });
    expect(await s.orange.slot('workspaces').diffStat?.(task.meta)).toBeNull();
    expect(await s.orange.slot('workspaces').diff?.(task.meta)).toBeNull();
  });
});

describe('diff (the dashboard diff view)', () => {
  it('is the whole unified diff of the branch against its base, uncommitted changes included, cut at the limit', async () => {
    const s = await sandbox();
    const task = await start(s.orange);
    const wt = task.meta.workspace as string;
    const pool = s.orange.slot('workspaces');
    expect(await pool.diff?.(task.meta)).toBe('');
    await commitFile(wt, 'a.txt', 'one\ntwo\n');
    await writeFile(join(wt, 'b.txt'), 'new\n');
    await commitFile(wt, 'b.txt', 'new\n');
    await writeFile(join(wt, 'a.txt'), 'one\nTWO\n');
    const diff = (await pool.diff?.(task.meta)) ?? '';
    expect(diff).toContain('diff --git a/a.txt b/a.txt');
    expect(diff).toContain('+TWO');
    expect(diff).toContain('diff --git a/b.txt b/b.txt');
    expect(diff).toContain('+new');
    expect(diff).not.toContain('\u001b[');
    expect(await pool.diff?.(task.meta, 40)).toMatch(/\[cut at 40 bytes\]\n$/);
  });
});

describe('remove (project remove)', () => {
  it('refuses while a worktree is held or dirty, removing nothing; then removes every worktree of the project', async () => {
    const s = await sandbox({ poolSize: 2 });
    const project = await s.orange.projects.get('demo');
    const [w1, w2] = await s.orange.slot('workspaces').init(project);
    const task = await start(s.orange);
    const pool = s.orange.slot('workspaces');
    await expect(pool.remove!(project)).rejects.toMatchObject({ code: 'E_WORKSPACE', message: expect.stringContaining(`held by task ${task.meta.id}`) });

    await s.orange.engine.transition({ project: 'demo', id: task.meta.id }, 'cancelled');
    await writeFile(join(w2!.path, 'notes.txt'), 'keep me\n');
    await expect(pool.remove!(project)).rejects.toMatchObject({ code: 'E_WORKSPACE', message: expect.stringContaining('notes.txt') });
    expect(existsSync(w1!.path)).toBe(true);
    expect((await pool.list('demo')).map((w) => w.name)).toEqual(['demo--1', 'demo--2']);

    await rm(join(w2!.path, 'notes.txt'));
    const removed = await pool.remove!(project);
    expect(removed.map((w) => w.name)).toEqual(['demo--1', 'demo--2']);
    expect(existsSync(w1!.path) || existsSync(w2!.path)).toBe(false);
    expect(await pool.list('demo')).toEqual([]);
    expect(await git(s.repo, 'worktree', 'list', '--porcelain')).not.toContain('demo--');
  });
});

describe('the base a task is compared against ({base} in prompts)', () => {
  /** The reviewer's prompt for `task` as it would be rendered in agent-review. */
  async function reviewerPrompt(s: PoolSandbox, task: Task): Promise<string> {
    const fresh = await s.orange.store.read('demo', task.meta.id);
    const workflow = await s.orange.workflowFor(fresh.meta);
    return s.orange.engine.prompt(workflow, { ...fresh, meta: { ...fresh.meta, status: 'agent-review' } }, 'reviewer', false);
  }

  it("is origin/main for a remote that has no origin/HEAD (added by hand, or cloned empty), and the reviewer's diff command runs", async () => {
    const s = await sandbox();
    expect(await gitMaybe(s.repo, 'symbolic-ref', 'refs/remotes/origin/HEAD')).toBeNull();
    const task = await start(s.orange, { branch: 'feat/base' });
    const workspace = (await s.orange.store.read('demo', task.meta.id)).meta.workspace!;
    await commitFile(workspace, 'change.txt', 'a change\n', 'the change');
    const prompt = await reviewerPrompt(s, task);
    expect(prompt).toContain('git diff origin/main...HEAD');
    const command = /git diff (\S+)\.\.\.HEAD/.exec(prompt)!;
    expect(await git(workspace, 'diff', '--name-only', `${command[1]}...HEAD`)).toBe('change.txt');
    // What the prompt said before: no such ref here.
    expect(await gitMaybe(workspace, 'diff', 'origin/HEAD...HEAD')).toBeNull();
  });

  it('is the local default branch in a repository without a remote', async () => {
    const s = await sandbox({ remote: false });
    const task = await start(s.orange, { branch: 'feat/local-base' });
    expect(await reviewerPrompt(s, task)).toContain('git diff main...HEAD');
  });
});
