import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parseSections, type HistoryEvent, type TaskMeta } from '@orange/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-sandbox.js';

let box: CliSandbox;
beforeAll(async () => {
  box = await CliSandbox.create();
});
afterAll(() => box?.cleanup());

const ids = (tasks: TaskMeta[]) => tasks.map((t) => t.id);

describe('orange task create', () => {
  it('creates a pending task with --no-spawn in the project of the repository it runs in', async () => {
    await mkdir(join(box.repo, 'deep', 'er'), { recursive: true });
    const out = await box.json<{ task: TaskMeta; spawned: boolean }>(['task', 'create', 'feature/login', 'Add a login form', '--no-spawn'], {
      cwd: join(box.repo, 'deep', 'er'),
    });
    expect(out.spawned).toBe(false);
    expect(out.task).toMatchObject({ project: 'demo', branch: 'feature/login', summary: 'Add a login form', status: 'pending', workspace: null });
    expect(out.task.id).toMatch(/^[0-9A-Za-z]{21}$/);
    const onDisk = await box.task(out.task.id);
    expect(onDisk.meta.status).toBe('pending');
    expect((await box.history(out.task.id)).map((e) => e.type)).toEqual(['task.created']);
  });

  it('says in one line how to start a task it did not spawn', async () => {
    const created = await box.orange(['task', 'create', 'feature/human', 'human output', '--no-spawn']);
    expect(created.code).toBe(0);
    const [first, second, ...rest] = created.stdout.split('\n');
    expect(first).toMatch(/^created task [0-9A-Za-z]{21} on feature\/human \(pending\)$/);
    expect(second).toMatch(/^start it with: orange task spawn [0-9A-Za-z]{21}$/);
    expect(rest).toEqual([]);
  });

  it('takes a single argument with spaces as the summary, on an orange-tasks/<id> branch', async () => {
    const task = await box.createTask(['Fix the flaky date test']);
    expect(task.summary).toBe('Fix the flaky date test');
    expect(task.branch).toBe(`orange-tasks/${task.id}`);
  });

  it('refuses a branch that already has a task, naming that task', async () => {
    const first = await box.createTask(['feature/taken', 'first']);
    const refused = await box.jsonError(['task', 'create', 'feature/taken', 'second', '--no-spawn']);
    expect(refused).toMatchObject({ code: 'E_TASK_EXISTS', exit: 1, error: `branch feature/taken already has task ${first.id} (pending)` });
    const { tasks } = await box.json<{ tasks: TaskMeta[] }>(['task', 'list']);
    expect(tasks.filter((t) => t.branch === 'feature/taken')).toHaveLength(1);
  });

  it('starts a task with an empty summary in clarification', async () => {
    const none = await box.createTask([]);
    expect(none).toMatchObject({ status: 'clarification', summary: '' });
    const blank = await box.createTask(['feature/blank', '   ']);
    expect(blank.status).toBe('clarification');
  });

  it.each(['pending', 'clarification', 'agent-review', 'reviewing'])('creates a task in %s when asked with --status', async (status) => {
    const task = await box.createTask([`feature/in-${status}`, `created in ${status}`, '--status', status]);
    expect(task.status).toBe(status);
    expect((await box.history(task.id))[0]).toMatchObject({ type: 'task.created' });
    expect((await box.task(task.id)).meta.status).toBe(status);
  });

  it('creates a task in reviewing without starting an agent even when spawning is on', async () => {
    const out = await box.json<{ task: TaskMeta; spawned: boolean }>(['task', 'create', 'feature/review-me', 'review my branch', '--status', 'reviewing']);
    expect(out).toMatchObject({ spawned: false, task: { status: 'reviewing', workspace: null, worker_spawn: null } });
    expect(await box.windows()).toEqual([]);
  });

  it('refuses a creation status the workflow does not allow, listing the allowed ones', async () => {
    const refused = await box.jsonError(['task', 'create', 'feature/working', 'x', '--status', 'working', '--no-spawn']);
    expect(refused).toMatchObject({ code: 'E_INVALID_INPUT', exit: 1 });
    expect(refused.error).toBe('a task cannot be created in status "working" (allowed: pending, clarification, agent-review, reviewing)');
  });

  it('reads --context - from standard input into ## Context of TASK.md', async () => {
    const context = 'Use the existing date helpers.\n\n- keep the API\n- add tests\n';
    const task = await box.createTask(['feature/context', 'with context'], { context });
    const text = await box.taskText(task.id);
    expect(text).toContain('## Context');
    expect(parseSections((await box.task(task.id)).body).get('Context')?.trim()).toBe(context.trim());
  });

  it('refuses a bad branch name with exit 1 and one sentence', async () => {
    const refused = await box.orange(['task', 'create', 'bad..branch', 'x', '--no-spawn']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^orange: .*bad\.\.branch/);
  });

  it('outside any registered project says so in one sentence', async () => {
    const outside = join(box.dir, 'outside');
    await mkdir(outside, { recursive: true });
    const human = await box.orange(['task', 'create', 'feature/nowhere', 'x', '--no-spawn'], { cwd: outside });
    expect(human.code).toBe(1);
    expect(human.stderr).toBe('orange: not inside a registered project; run this in a repository added with orange project add, or pass --project NAME');
    const json = await box.jsonError(['task', 'create', 'feature/nowhere', 'x', '--no-spawn'], { cwd: outside });
    expect(json).toMatchObject({ code: 'E_PROJECT_NOT_FOUND', exit: 1 });
    const named = await box.createTask(['feature/somewhere', 'x', '--project', 'demo'], { cwd: outside });
    expect(named.project).toBe('demo');
  });
});

describe('orange task list', () => {
  let other: string;
  let olderActive: TaskMeta;
  let cancelled: TaskMeta;
  let newerActive: TaskMeta;
  beforeAll(async () => {
    other = await box.addProject('listing');
    olderActive = await box.createTask(['feature/older', 'older active'], { cwd: other });
    cancelled = await box.createTask(['feature/cancelled', 'cancelled later'], { cwd: other });
    newerActive = await box.createTask(['feature/newer', 'newer active'], { cwd: other });
    await box.json(['task', 'cancel', cancelled.id, '--yes']);
    // Touching the older task makes it the most recently updated active one.
    await box.json(['task', 'update', olderActive.id, '--summary', 'older active, touched']);
  });

  it('lists active tasks first, most recently updated first, then finished ones', async () => {
    const { tasks } = await box.json<{ tasks: TaskMeta[] }>(['task', 'list'], { cwd: other });
    expect(ids(tasks)).toEqual([olderActive.id, newerActive.id, cancelled.id]);
    expect(tasks.map((t) => t.status)).toEqual(['pending', 'pending', 'cancelled']);
  });

  it('prints a table with the same order for people', async () => {
    const table = await box.orange(['task', 'list'], { cwd: other });
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+BRANCH\s+AGENTS\s+UPDATED\s+SUMMARY$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([olderActive.id, newerActive.id, cancelled.id]);
  });

  it('filters by --status, repeated or comma-separated', async () => {
    const one = await box.json<{ tasks: TaskMeta[] }>(['task', 'list', '--status', 'cancelled'], { cwd: other });
    expect(ids(one.tasks)).toEqual([cancelled.id]);
    const both = await box.json<{ tasks: TaskMeta[] }>(['task', 'list', '--status', 'cancelled,pending'], { cwd: other });
    expect(both.tasks).toHaveLength(3);
    const none = await box.json<{ tasks: TaskMeta[] }>(['task', 'list', '--status', 'done'], { cwd: other });
    expect(none.tasks).toEqual([]);
  });

  it('lists only the current project inside a repository, every project with --all', async () => {
    const here = await box.json<{ tasks: TaskMeta[] }>(['task', 'list']);
    expect(new Set(here.tasks.map((t) => t.project))).toEqual(new Set(['demo']));
    const all = await box.json<{ tasks: TaskMeta[] }>(['task', 'list', '--all']);
    expect(new Set(all.tasks.map((t) => t.project))).toEqual(new Set(['demo', 'listing']));
    expect(all.tasks.length).toBe(here.tasks.length + 3);
    const table = await box.orange(['task', 'list', '--all']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+PROJECT\s+STATUS/);
  });
});

describe('orange task show and update', () => {
  it('show returns frontmatter, body and history as one JSON object', async () => {
    const task = await box.createTask(['feature/show', 'show me'], { context: 'the context\n' });
    const out = await box.json<{ task: TaskMeta; body: string; history: HistoryEvent[]; tampered: unknown }>(['task', 'show', task.id]);
    expect(Object.keys(out).sort()).toEqual(['agents', 'body', 'history', 'tampered', 'task', 'transcripts']);
    expect(out).toMatchObject({ agents: [], transcripts: [] });
    expect(out.task).toMatchObject({ id: task.id, summary: 'show me', status: 'pending' });
    expect(out.body).toContain('## Context');
    expect(out.history.map((e) => e.type)).toEqual(['task.created']);
    expect(out.tampered).toBeNull();
    const human = await box.orange(['task', 'show', task.id]);
    expect(human.stdout).toContain(`id: ${task.id}`);
    expect(human.stdout).toMatch(/History:\n {2}\S+ {2}task\.created/);
  });

  it('update --summary changes the summary and records it', async () => {
    const task = await box.createTask(['feature/rename-summary', 'old summary']);
    const out = await box.json<{ task: TaskMeta; edited: string[] }>(['task', 'update', task.id, '--summary', 'new summary']);
    expect(out).toMatchObject({ edited: ['summary'], task: { summary: 'new summary', status: 'pending' } });
    expect((await box.history(task.id)).at(-1)).toMatchObject({ type: 'task.updated', summary: { from: 'old summary', to: 'new summary' } });
  });

  it('update --status refuses an illegal transition, naming from, to and why, and changes nothing', async () => {
    const task = await box.createTask(['feature/illegal', 'illegal move']);
    const human = await box.orange(['task', 'update', task.id, '--status', 'done']);
    expect(human.code).toBe(1);
    expect(human.stderr).toBe('orange: pending → done refused: not a transition of workflow default (from pending: planning, cancelled)');
    const json = await box.jsonError(['task', 'update', task.id, '--status', 'done']);
    expect(json).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1 });
    const unknown = await box.jsonError(['task', 'update', task.id, '--status', 'finished']);
    expect(unknown.error).toMatch(/^pending → finished refused: "finished" is not a status of workflow default/);
    expect((await box.task(task.id)).meta.status).toBe('pending');
    expect((await box.history(task.id)).map((e) => e.type)).toEqual(['task.created']);
  });

  it('update --summary with a refused --status changes neither', async () => {
    const task = await box.createTask(['feature/combined', 'combined request']);
    const refused = await box.jsonError(['task', 'update', task.id, '--summary', 'a new summary', '--status', 'done']);
    expect(refused).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', exit: 1 });
    const after = await box.task(task.id);
    expect(after.meta).toMatchObject({ status: 'pending', summary: 'combined request' });
    expect((await box.history(task.id)).map((e) => e.type)).toEqual(['task.created']);
  });

  it('update with nothing to change is bad usage (exit 2)', async () => {
    const task = await box.createTask(['feature/nothing', 'nothing']);
    const refused = await box.jsonError(['task', 'update', task.id]);
    expect(refused).toMatchObject({ code: 'E_USAGE', exit: 2, error: 'nothing to update; pass --status, --summary or --branch' });
  });

  it('refuses an unknown task id with exit 1', async () => {
    const human = await box.orange(['task', 'show', 'AAAAAAAAAAAAAAAAAAAAA']);
    expect(human).toMatchObject({ code: 1, stdout: '', stderr: 'orange: no task with id AAAAAAAAAAAAAAAAAAAAA' });
    for (const command of [['task', 'show'], ['task', 'update'], ['task', 'cancel'], ['task', 'merge']]) {
      const refused = await box.jsonError([...command, 'AAAAAAAAAAAAAAAAAAAAA', ...(command[1] === 'update' ? ['--status', 'planning'] : [])]);
      expect(refused).toMatchObject({ code: 'E_TASK_NOT_FOUND', exit: 1 });
    }
  });

  it('asks for an id outside a worktree instead of guessing (exit 2)', async () => {
    const refused = await box.jsonError(['task', 'show']);
    expect(refused).toMatchObject({ code: 'E_USAGE', exit: 2, error: "no task id given, and this directory is not a task's worktree; pass the task id" });
  });
});

describe('orange task create on a project it cannot start in', () => {
  // A sandbox of its own: its project's tasks would show in the other tests' listings.
  let own: CliSandbox;
  beforeAll(async () => {
    own = await CliSandbox.create();
  });
  afterAll(() => own?.cleanup());

  it("creates no task to start on a project whose default branch is gone (one line, exit 1); a pending one it does", async () => {
    const repo = await own.addProject('vanishing');
    // The project's default branch, then deleted everywhere after it was set.
    await own.git(repo, 'push', '-q', 'origin', 'main:release');
    await own.json(['project', 'update', 'vanishing', '--default-branch', 'release']);
    await own.git(repo, 'push', '-q', 'origin', '--delete', 'release');
    await own.git(repo, 'fetch', '-q', '--prune');
    const refused = await own.jsonError(['task', 'create', 'feature/ghost', 'never made'], { cwd: repo });
    expect(refused).toMatchObject({ code: 'E_WORKSPACE', exit: 1, error: `project vanishing: neither origin/release nor a local branch release exists in ${repo}` });
    const plain = await own.orange(['task', 'create', 'feature/ghost', 'never made'], { cwd: repo });
    expect(plain).toMatchObject({ code: 1, stdout: '' });
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    const listed = async () => (await own.json<{ tasks: TaskMeta[] }>(['task', 'list', '--project', 'vanishing'])).tasks;
    expect(await listed()).toEqual([]);
    // Put aside, it waits for someone to start it: made.
    const pending = await own.createTask(['feature/later', 'started later'], { cwd: repo });
    expect(pending.status).toBe('pending');
    expect(ids(await listed())).toEqual([pending.id]);
  });
});
