import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, filesOf, logRecords, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin, TaskRef, WorkspaceProvider } from '../plugin/index.js';
import type { TaskMeta } from '../task/index.js';

let box: Sandbox;
afterEach(async () => box?.cleanup());

/** A workspaces provider that only answers what a test gives it. */
function workspaces(extra: Partial<WorkspaceProvider>): OrangePlugin {
  const provider: WorkspaceProvider = { name: 'fake-workspaces', init: async () => [], list: async () => [], gc: async () => ({ freed: [] }), ...extra };
  return { name: 'fake-workspaces', apply: (orange) => orange.provide('workspaces', provider) };
}

const logged = (msg: string) => logRecords(box, msg);

/** History events after the first `skip` (those of the task's creation). */
async function historySince(ref: TaskRef, skip: number): Promise<Array<Record<string, unknown>>> {
  return (await box.orange.store.history(ref.project, ref.id)).slice(skip).map(({ timestamp: _t, ...event }) => event);
}

/** Hand-edits one front-matter line of TASK.md, as a person in an editor would. */
async function forgeLine(ref: TaskRef, field: string, value: string): Promise<void> {
  const file = box.orange.paths.taskFile(ref.project, ref.id);
  const text = await readFile(file, 'utf8');
  const edited = text.replace(new RegExp(`^${field}: .*$`, 'm'), `${field}: ${value}`);
  expect(edited).not.toBe(text);
  await writeFile(file, edited);
}

async function metaOf(ref: TaskRef): Promise<TaskMeta> {
  return (await box.orange.store.read(ref.project, ref.id)).meta;
}

describe('engine.edit: the summary', () => {
  it('writes the new summary as one line, records task.updated with from and to, and logs it', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.edit(ref, { summary: '  split\n the   parser ' });
    expect(result.changed).toEqual(['summary']);
    expect(result.task.meta.summary).toBe('split the parser');
    expect(await box.orange.store.read(ref.project, ref.id)).toEqual(result.task);
    expect(await historySince(ref, 1)).toEqual([{ type: 'task.updated', summary: { from: 'a task in working', to: 'split the parser' } }]);
    expect(await logged('task updated')).toEqual([expect.objectContaining({ level: 'info', task: ref.id, summary: { from: 'a task in working', to: 'split the parser' } })]);
  });

  it('changes nothing, and records nothing, for a summary or a branch the task has already', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    // Another open task in the project, on another branch, is no holder of this one's.
    await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    for (const changes of [{}, { summary: 'a task in working' }, { summary: ' a task\tin working\n' }, { branch: task.meta.branch }]) {
      expect(await box.orange.engine.edit(ref, changes)).toEqual({ task, changed: [] });
    }
    expect(await filesOf(box, ref)).toEqual(before);
    expect(await logged('task updated')).toEqual([]);
  });
});

describe('engine.edit: the branch', () => {
  it('gives a task without a worktree the branch it names, which a finished task may have had', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    await taskIn(box, 'working', { meta: { branch: 'feature/other' } });
    await taskIn(box, 'done', { meta: { branch: 'feature/parser' } });
    const { branch } = await metaOf(ref);
    const result = await box.orange.engine.edit(ref, { branch: 'feature/parser' });
    expect(result.changed).toEqual(['branch']);
    expect(result.task.meta.branch).toBe('feature/parser');
    expect((await metaOf(ref)).branch).toBe('feature/parser');
    expect(await historySince(ref, 1)).toEqual([{ type: 'task.updated', branch: { from: branch, to: 'feature/parser' } }]);
  });

  it('edits the summary and the branch together, listing both', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const before = await metaOf(ref);
    const result = await box.orange.engine.edit(ref, { summary: 'both', branch: 'feature/both' });
    expect(result.changed).toEqual(['summary', 'branch']);
    expect(result.task.meta).toMatchObject({ summary: 'both', branch: 'feature/both' });
    expect(await historySince(ref, 1)).toEqual([
      { type: 'task.updated', summary: { from: before.summary, to: 'both' }, branch: { from: before.branch, to: 'feature/both' } },
    ]);
  });

  it('refuses a branch another open task holds, naming it, and changes nothing', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const holder = await taskIn(box, 'agent-review', { meta: { branch: 'feature/taken' } });
    const before = await filesOf(box, ref);
    const refused = await errorOf(box.orange.engine.edit(ref, { summary: 'renamed too', branch: 'feature/taken' }));
    expect(refused).toMatchObject({ code: 'E_TASK_EXISTS', message: `branch feature/taken already has task ${holder.id} (agent-review)` });
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('refuses a name that is no branch name', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    expect(await errorOf(box.orange.engine.edit(ref, { branch: 'two words' }))).toMatchObject({ code: 'E_INVALID_NAME' });
  });

  it('refuses a branch the workspaces provider says exists already, and asks it for each name', async () => {
    const asked: string[] = [];
    const renamed: Array<string | null> = [];
    const provider = workspaces({
      branchTaken: async (project, name) => {
        asked.push(`${project} ${name}`);
        return name === 'feature/remote' ? 'origin/feature/remote' : null;
      },
      renameBranch: async (_task, to) => {
        renamed.push(to);
        return `renamed/${to}`;
      },
    });
    box = await sandbox({}, [provider]);
    const ref = await taskIn(box, 'planning');
    const before = await filesOf(box, ref);
    const refused = await errorOf(box.orange.engine.edit(ref, { branch: 'feature/remote' }));
    expect(refused).toMatchObject({ code: 'E_WORKSPACE', message: 'a branch named feature/remote already exists (origin/feature/remote); pick another name' });
    expect(await filesOf(box, ref)).toEqual(before);
    // With no worktree there is nothing to rename in: the name is taken as given.
    expect((await box.orange.engine.edit(ref, { branch: 'feature/free' })).task.meta.branch).toBe('feature/free');
    expect(asked).toEqual(['demo feature/remote', 'demo feature/free']);
    expect(renamed).toEqual([]);
  });

  it('takes the name as given from a provider that cannot say whether a branch exists', async () => {
    box = await sandbox({}, [workspaces({ renameBranch: async () => 'never/used' })]);
    const ref = await taskIn(box, 'planning');
    expect((await box.orange.engine.edit(ref, { branch: 'feature/plain' })).task.meta.branch).toBe('feature/plain');
  });

  it("renames the branch in the task's worktree through the provider, and adopts the one the worktree is on for null", async () => {
    const renamed: Array<[string, string | null]> = [];
    let checkedOut = 'agent/picked-by-the-agent';
    const provider = workspaces({
      renameBranch: async (task, to) => {
        renamed.push([task.id, to]);
        if (to !== null) checkedOut = to;
        return checkedOut;
      },
      branchTaken: async () => {
        throw new Error('the provider checks the name itself when it renames');
      },
    });
    box = await sandbox({}, [provider]);
    const ref = await taskIn(box, 'working', { meta: { workspace: '/tmp/orange-wt-1' } });
    const { branch } = await metaOf(ref);
    const adopted = await box.orange.engine.edit(ref, { branch: null });
    expect(adopted).toMatchObject({ changed: ['branch'], task: { meta: { branch: 'agent/picked-by-the-agent' } } });
    const named = await box.orange.engine.edit(ref, { branch: 'feature/named' });
    expect(named.task.meta.branch).toBe('feature/named');
    // The worktree is still on the task's branch: nothing to change.
    expect((await box.orange.engine.edit(ref, { branch: null })).changed).toEqual([]);
    expect(renamed).toEqual([
      [ref.id, null],
      [ref.id, 'feature/named'],
      [ref.id, null],
    ]);
    expect(await historySince(ref, 1)).toEqual([
      { type: 'task.updated', branch: { from: branch, to: 'agent/picked-by-the-agent' } },
      { type: 'task.updated', branch: { from: 'agent/picked-by-the-agent', to: 'feature/named' } },
    ]);
  });

  it("refuses to adopt the worktree's branch when another open task holds that name (a queued task has no git branch yet)", async () => {
    box = await sandbox({}, [workspaces({ renameBranch: async () => 'feature/queued', branchTaken: async () => null })]);
    const ref = await taskIn(box, 'working', { meta: { workspace: '/tmp/orange-wt-3' } });
    const holder = await taskIn(box, 'pending', { meta: { branch: 'feature/queued' } });
    const before = await filesOf(box, ref);
    expect(await errorOf(box.orange.engine.edit(ref, { branch: null }))).toMatchObject({
      code: 'E_TASK_EXISTS',
      message: `branch feature/queued already has task ${holder.id} (pending)`,
    });
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('takes a named branch as given for a task with a worktree when no provider renames branches', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { workspace: '/tmp/orange-wt-2' } });
    expect((await box.orange.engine.edit(ref, { branch: 'feature/direct' })).task.meta.branch).toBe('feature/direct');
  });

  it('refuses null (adopt the worktree\'s branch) for a task with no worktree to read it from', async () => {
    box = await sandbox({}, [workspaces({ renameBranch: async () => 'never/used', branchTaken: async () => null })]);
    const ref = await taskIn(box, 'planning');
    const before = await filesOf(box, ref);
    expect(await errorOf(box.orange.engine.edit(ref, { branch: null }))).toMatchObject({
      code: 'E_INVALID_INPUT',
      message: `task ${ref.id} has no worktree to read the branch from; name it: --branch NAME`,
    });
    expect(await filesOf(box, ref)).toEqual(before);
  });
});

describe('engine.request', () => {
  it('applies an edit and a status change in one go: the move carries the edited task', async () => {
    const seen: string[] = [];
    const watcher: OrangePlugin = {
      name: 'watcher',
      apply: (orange) => orange.hooks.afterTransition.tapPromise('watcher', async (event) => void seen.push(`${event.from}→${event.to} ${event.task.meta.summary}`)),
    };
    box = await sandbox({}, [watcher]);
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.request(ref, { status: 'stuck', summary: 'gave up on the lexer' });
    expect(result.edited).toEqual(['summary']);
    expect(result.task.meta).toMatchObject({ status: 'stuck', summary: 'gave up on the lexer' });
    expect(result.transition).toMatchObject({ from: 'working', to: 'stuck', changed: true, task: result.task });
    expect(seen).toEqual(['working→stuck gave up on the lexer']);
    expect(box.calls).toEqual(['notify_worker']);
    // The edit is written first; the move is the request's own (cause request, no reason).
    expect(await historySince(ref, 1)).toEqual([
      { type: 'task.updated', summary: { from: 'a task in working', to: 'gave up on the lexer' } },
      { type: 'status.changed', from: 'working', to: 'stuck', cause: 'request' },
    ]);
  });

  it('applies an edit alone with no transition, and a status alone with no edit', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const summary = await box.orange.engine.request(ref, { summary: 'only the summary' });
    expect(summary).toEqual({ task: await box.orange.store.read(ref.project, ref.id), edited: ['summary'], transition: null });
    const branch = await box.orange.engine.request(ref, { branch: 'feature/only' });
    expect(branch).toMatchObject({ edited: ['branch'], transition: null, task: { meta: { branch: 'feature/only', status: 'working' } } });
    const status = await box.orange.engine.request(ref, { status: 'stuck' });
    expect(status.edited).toEqual([]);
    expect(status.task.meta).toMatchObject({ status: 'stuck', summary: 'only the summary', branch: 'feature/only' });
    expect(status.transition).toMatchObject({ from: 'working', to: 'stuck', task: status.task });
  });

  it('checks the status change before writing anything: refused, the edit is not written either', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    // working → agent-review needs a ## Handoff the task does not have.
    const refused = await errorOf(box.orange.engine.request(ref, { status: 'agent-review', summary: 'renamed', branch: 'feature/renamed' }));
    expect(refused.code).toBe('E_GATE_FAILED');
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it("moves as Orange unless it names who asks, and records the request's cause and reason", async () => {
    box = await sandbox();
    // working → cancelled is a person's or Orange's move, never the agent's.
    const byAgent = await taskIn(box, 'working');
    const before = await filesOf(box, byAgent);
    expect(await errorOf(box.orange.engine.request(byAgent, { status: 'cancelled', actor: 'agent' }))).toMatchObject({ code: 'E_FORBIDDEN' });
    expect(await filesOf(box, byAgent)).toEqual(before);
    const byOrange = await taskIn(box, 'working');
    expect((await box.orange.engine.request(byOrange, { status: 'cancelled' })).task.meta.status).toBe('cancelled');
    const auto = await taskIn(box, 'working');
    await box.orange.engine.request(auto, { status: 'stuck', cause: 'auto', reason: 'went in circles' });
    expect(await historySince(auto, 1)).toEqual([
      { type: 'status.changed', from: 'working', to: 'stuck', cause: 'auto', reason: 'went in circles' },
      { type: 'auto.advanced', from: 'working', to: 'stuck', reason: 'went in circles' },
    ]);
  });
});

describe('engine.repair', () => {
  it('restores a forged branch and status, reporting the status TASK.md showed as from, and records and logs it', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { body: '## Notes\n\nkeep me\n' });
    const record = await box.orange.store.read(ref.project, ref.id);
    await forgeLine(ref, 'branch', 'forged/branch');
    await forgeLine(ref, 'status', 'reviewing');
    const result = await box.orange.engine.repair(ref);
    expect(result).toEqual({ task: expect.objectContaining({ body: '## Notes\n\nkeep me\n' }), from: 'reviewing', to: 'working', repaired: true, fields: ['branch', 'status'] });
    expect(result.task.meta).toMatchObject({ branch: record.meta.branch, status: 'working' });
    const text = await readFile(box.orange.paths.taskFile(ref.project, ref.id), 'utf8');
    expect(text).toContain(`branch: ${record.meta.branch}\n`);
    expect(text).toContain('status: working\n');
    await expect(box.orange.engine.readVerified(ref)).resolves.toEqual(result.task);
    expect(await historySince(ref, 1)).toEqual([{ type: 'status.repaired', from: 'reviewing', to: 'working', fields: ['branch', 'status'] }]);
    expect(await logged('tampered task repaired')).toEqual([
      expect.objectContaining({ level: 'warn', task: ref.id, from: 'reviewing', to: 'working', fields: ['branch', 'status'] }),
    ]);
  });

  it('reports the status of record as both from and to when only another field was forged', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning');
    await forgeLine(ref, 'branch', 'forged/branch');
    expect(await box.orange.engine.repair(ref)).toMatchObject({ from: 'planning', to: 'planning', repaired: true, fields: ['branch'] });
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'planning' } });
  });

  it('repairs a TASK.md that names another task', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning');
    const other = await taskIn(box, 'planning');
    await forgeLine(ref, 'id', other.id);
    expect(await box.orange.engine.repair(ref)).toMatchObject({ from: 'planning', to: 'planning', repaired: true, fields: ['id'] });
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { id: ref.id } });
  });

  it('sets an unreadable state.json aside and gives TASK.md the status the ledger has, logging both', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const stateFile = box.orange.paths.taskStateFile(ref.project, ref.id);
    await writeFile(stateFile, '{broken');
    await forgeLine(ref, 'status', 'reviewing');
    const result = await box.orange.engine.repair(ref);
    expect(result).toMatchObject({ from: 'reviewing', to: 'working', repaired: true, fields: ['status'] });
    expect(result.task.meta.status).toBe('working');
    await expect(box.orange.engine.readVerified(ref)).resolves.toMatchObject({ meta: { status: 'working' } });
    const aside = await logged('unreadable state.json set aside');
    expect(aside).toEqual([expect.objectContaining({ level: 'warn', task: ref.id, file: expect.stringMatching(/state\.json\.unreadable-/) })]);
    expect(await readFile(String(aside[0]?.file), 'utf8')).toBe('{broken');
    expect(await logged('tampered task repaired')).toEqual([expect.objectContaining({ from: 'reviewing', to: 'working', fields: ['status'] })]);
  });

  it('changes, records and logs nothing for an untouched task', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { body: '## Notes\n\nmine\n' });
    const before = await filesOf(box, ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(await box.orange.engine.repair(ref)).toEqual({ task, from: 'working', to: 'working', repaired: false, fields: [] });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(await logged('tampered task repaired')).toEqual([]);
    expect(await logged('unreadable state.json set aside')).toEqual([]);
  });
});
