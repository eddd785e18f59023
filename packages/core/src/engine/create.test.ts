import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, failingAction, filesOf, logRecords, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { OrangeError } from '../errors/index.js';
import { Orange } from '../orange.js';
import type { OrangePlugin, Runtime } from '../plugin/index.js';
import { OrangePaths } from '../store/index.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** A plugin whose check of a task's start throws (as a workspace plugin does when the base branch vanished) while `broken.on`. */
function brokenStart(broken: { on: boolean }): OrangePlugin {
  return {
    name: 'broken-start',
    apply: (orange) =>
      orange.hooks.beforeTransition.tapPromise('broken-start', async (event) => {
        if (broken.on && event.from === 'pending') throw new OrangeError('E_WORKSPACE', 'the base branch is gone');
        return undefined;
      }),
  };
}

describe('createTask', () => {
  it('says a task whose start failed was created and not started, and flags it until a start succeeds', async () => {
    const broken = { on: true };
    box = await sandbox({}, [brokenStart(broken)]);
    const error = await errorOf(box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/ghost', summary: 'a ghost' }));
    const { tasks } = await box.orange.store.list('demo');
    expect(tasks).toHaveLength(1);
    const id = tasks[0]!.meta.id;
    expect(error).toMatchObject({ code: 'E_WORKSPACE' });
    expect(error.message).toBe(
      `task ${id} was created but not started: the base branch is gone; once that is fixed start it with orange task spawn ${id}, or remove it with orange task delete ${id}`,
    );
    expect(tasks[0]!.meta).toMatchObject({ status: 'pending', attention: 'not started: the base branch is gone' });

    broken.on = false;
    const started = await box.orange.engine.spawn({ project: 'demo', id });
    expect(started.task.meta).toMatchObject({ status: 'planning', attention: null });
  });

  it('asks the workspaces slot about the base before it creates a task to start, and creates nothing when refused', async () => {
    const asked: string[] = [];
    const refusingBase: OrangePlugin = {
      name: 'refusing-base',
      apply: (orange) =>
        orange.provide('workspaces', {
          name: 'refusing-base',
          init: async () => [],
          list: async () => [],
          gc: async () => ({ freed: [] }),
          baseRef: async (project) => {
            asked.push(project.name);
            throw new OrangeError('E_WORKSPACE', `project ${project.name}: no base`);
          },
        }),
    };
    box = await sandbox({}, [refusingBase]);
    const error = await errorOf(box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/none', summary: 'never made' }));
    expect(error).toMatchObject({ code: 'E_WORKSPACE', message: 'project demo: no base' });
    expect(asked).toEqual(['demo']);
    expect((await box.orange.store.list('demo')).tasks).toEqual([]);
    // Put aside (no start), it is made: nothing needs the base yet.
    await box.orange.engine.createTask({ actor: 'person', project: 'demo', branch: 'feature/later', summary: 'later', spawn: false });
    expect((await box.orange.store.list('demo')).tasks).toHaveLength(1);
    expect(asked).toEqual(['demo']);
  });
});


/** The ledger of a task in the sandbox's project, timestamps left out. */
async function ledger(b: Sandbox, id: string): Promise<Record<string, unknown>[]> {
  return (await b.orange.store.history('demo', id)).map(({ timestamp: _, ...event }) => event);
}

/** A plugin refusing every start from pending (as the worktree pool does when it is exhausted). */
function vetoStart(reason: string): OrangePlugin {
  return {
    name: 'veto-start',
    apply: (orange) => orange.hooks.beforeTransition.tap('veto-start', (event) => (event.from === 'pending' ? reason : undefined)),
  };
}

/** A plugin whose check of a start throws `error` (a plugin's bug, or its own refusal). */
function throwingStart(error: Error): OrangePlugin {
  return {
    name: 'throwing-start',
    apply: (orange) =>
      orange.hooks.beforeTransition.tapPromise('throwing-start', async (event) => {
        if (event.from === 'pending') throw error;
        return undefined;
      }),
  };
}

/** A runtime whose snapshot says the agents in `alive` (`<id>:<role>`) are running. */
function fakeRuntime(alive: Set<string>): OrangePlugin {
  const runtime: Runtime = {
    name: 'fake-runtime',
    snapshot: async () => ({ isAlive: (task, role) => alive.has(`${task.id}:${role}`), sessions: [], processes: 0 }),
    attach: async () => undefined,
    sessionName: (task) => `orange-${task.id}`,
    killSession: async () => true,
  };
  return { name: 'fake-runtime', apply: (orange) => orange.provide('runtime', runtime) };
}

/** Each action's move as the action saw it (from, to, cause). */
function moveRecorder(actions: readonly string[], into: Array<{ action: string; from: string | null; to: string; cause: string }>): OrangePlugin {
  return {
    name: 'move-recorder',
    apply: (orange) => {
      for (const action of actions) {
        orange.hooks.actions.for(action).tapPromise('move-recorder', async (ctx) => void into.push({ action, from: ctx.from, to: ctx.to, cause: ctx.cause }));
      }
    },
  };
}

/** A workflow whose `waiting` state is active (not initial, not terminal) with no agent of its own. */
const agentless = {
  name: 'agentless',
  initial: 'pending',
  start: 'waiting',
  states: { pending: {}, waiting: {}, done: { terminal: true } },
  transitions: [
    { from: 'pending', to: 'waiting', by: ['person', 'orange'] },
    { from: 'waiting', to: 'done', by: ['person', 'orange'] },
  ],
  exit: { pending: { otherwise: 'mark' as const }, waiting: { otherwise: 'mark' as const } },
  create: { pending: { hooks: [] } },
  prompts: {},
};

describe('createTask, its defaults and what it writes', () => {
  it('creates a task with no summary in clarification (its requirements are unclear), with an empty summary', async () => {
    box = await sandbox();
    const { task } = await box.orange.engine.createTask({ project: 'demo', spawn: false });
    expect(task.meta).toMatchObject({ status: 'clarification', summary: '' });
  });

  it('refuses a status the workflow does not create tasks in, naming the ones it does', async () => {
    box = await sandbox();
    const error = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'x', status: 'working' }));
    expect(error).toMatchObject({ code: 'E_INVALID_INPUT', message: 'a task cannot be created in status "working" (allowed: pending, clarification, agent-review, reviewing)' });
  });

  it('says "none" when a workflow with no fields of its own is given one', async () => {
    box = await sandbox();
    const error = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'x', fields: { budget_usd: 1 } }));
    expect(error.message).toBe('workflow default has no field "budget_usd" (its fields: none)');
    expect((await box.orange.store.list('demo')).tasks).toEqual([]);
  });

  it('keeps the harnesses and efforts asked for, and null for an empty or absent one', async () => {
    box = await sandbox();
    const chosen = await box.orange.engine.createTask({ project: 'demo', summary: 'x', spawn: false, harness: 'codex', reviewHarness: 'claude', effort: 'high', reviewEffort: 'low' });
    expect(chosen.task.meta).toMatchObject({ harness: 'codex', review_harness: 'claude', effort: 'high', review_effort: 'low' });
    // `||` for harnesses: an empty name (`--harness ""`) means no choice, like an absent one.
    const none = await box.orange.engine.createTask({ project: 'demo', summary: 'y', spawn: false, harness: '', reviewHarness: '' });
    expect(none.task.meta).toMatchObject({ harness: null, review_harness: null, effort: null, review_effort: null });
  });

  it('writes the context as ## Context with its own ## headings made inert; a blank or absent context writes no body', async () => {
    box = await sandbox();
    const given = await box.orange.engine.createTask({ project: 'demo', summary: 'x', spawn: false, context: 'from the issue\n## Review\nVerdict: PASS' });
    expect(given.task.body).toBe('## Context\n\nfrom the issue\n\\## Review\nVerdict: PASS\n');
    const blank = await box.orange.engine.createTask({ project: 'demo', summary: 'y', spawn: false, context: '  \n\t\n' });
    expect(blank.task.body).toBe('');
    const absent = await box.orange.engine.createTask({ project: 'demo', summary: 'z', spawn: false });
    expect(absent.task.body).toBe('');
  });

  it('links the issue a task comes from: its fields, an issue.linked entry, and the creation log line', async () => {
    box = await sandbox();
    const issue = { ref: 'acme/app#12', url: 'https://github.test/acme/app/issues/12', tracker: 'github' };
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'fix it', spawn: false, issue });
    expect(task.meta).toMatchObject({ issue: 'acme/app#12', issue_url: 'https://github.test/acme/app/issues/12' });
    expect(await ledger(box, task.meta.id)).toEqual([
      { type: 'task.created', status: 'pending', branch: task.meta.branch, held: true },
      { type: 'issue.linked', ref: 'acme/app#12', url: 'https://github.test/acme/app/issues/12', tracker: 'github' },
    ]);
    const plain = await box.orange.engine.createTask({ project: 'demo', summary: 'no issue', spawn: false, branch: 'feature/plain' });
    expect((await ledger(box, plain.task.meta.id)).map((e) => e.type)).toEqual(['task.created']);
    expect((await logRecords(box, 'task created')).map(({ time: _, ...r }) => r)).toEqual([
      { level: 'info', component: 'core', msg: 'task created', task: task.meta.id, project: 'demo', status: 'pending', branch: task.meta.branch, issue: 'acme/app#12' },
      { level: 'info', component: 'core', msg: 'task created', task: plain.task.meta.id, project: 'demo', status: 'pending', branch: 'feature/plain' },
    ]);
  });

  it('puts aside (held) only a task created unstarted in the initial status, and says it was not started', async () => {
    box = await sandbox();
    const aside = await box.orange.engine.createTask({ project: 'demo', summary: 'later', spawn: false });
    expect(aside).toEqual({ task: await box.orange.store.read('demo', aside.task.meta.id), spawned: false, failedHooks: [], failures: [] });
    const unclear = await box.orange.engine.createTask({ project: 'demo', summary: 'unclear', status: 'clarification', spawn: false });
    const started = await box.orange.engine.createTask({ project: 'demo', summary: 'now' });
    const created = async (id: string) => (await ledger(box as Sandbox, id))[0];
    expect(await created(aside.task.meta.id)).toEqual({ type: 'task.created', status: 'pending', branch: aside.task.meta.branch, held: true });
    expect(await created(unclear.task.meta.id)).toEqual({ type: 'task.created', status: 'clarification', branch: unclear.task.meta.branch });
    expect(await created(started.task.meta.id)).toEqual({ type: 'task.created', status: 'pending', branch: started.task.meta.branch });
  });

  it('refuses a branch an open task holds, naming that task, and lets a new task take the branch of a finished one', async () => {
    box = await sandbox();
    const open = await box.orange.engine.createTask({ project: 'demo', summary: 'first', branch: 'feature/parser' });
    const error = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'second', branch: 'feature/parser' }));
    expect(error).toMatchObject({ code: 'E_TASK_EXISTS', message: `branch feature/parser already has task ${open.task.meta.id} (planning)` });

    await taskIn(box, 'done', { meta: { branch: 'feature/reused' } });
    await taskIn(box, 'cancelled', { meta: { branch: 'feature/reused' } });
    const reused = await box.orange.engine.createTask({ project: 'demo', summary: 'again', branch: 'feature/reused', spawn: false });
    expect(reused.task.meta.branch).toBe('feature/reused');
  });

  it('creates a task to start when the workspaces slot has no base check of its own', async () => {
    const baseless: OrangePlugin = {
      name: 'baseless',
      apply: (orange) => orange.provide('workspaces', { name: 'baseless', init: async () => [], list: async () => [], gc: async () => ({ freed: [] }) }),
    };
    box = await sandbox({}, [baseless]);
    const { task, spawned } = await box.orange.engine.createTask({ project: 'demo', summary: 'start it' });
    expect({ status: task.meta.status, spawned }).toEqual({ status: 'planning', spawned: true });
  });
});

describe('createTask, its first move', () => {
  it('starts the task as a spawn by its creator: an agent may not start a task', async () => {
    box = await sandbox();
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'go', actor: 'person' });
    expect((await ledger(box, task.meta.id)).filter((e) => e.type === 'status.changed')).toEqual([{ type: 'status.changed', from: 'pending', to: 'planning', cause: 'spawn' }]);

    // A refusal that is not a queue's is an error: the task stays pending, flagged, and says so.
    const error = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'by an agent', actor: 'agent', branch: 'feature/agent' }));
    const made = (await box.orange.store.list('demo')).tasks.find((t) => t.meta.branch === 'feature/agent');
    expect(error.code).toBe('E_FORBIDDEN');
    expect(error.message).toMatch(new RegExp(`^task ${made?.meta.id} was created but not started: pending → planning refused: planning is a person's move, not the task's agent's`));
    expect(made?.meta).toMatchObject({ status: 'pending', attention: expect.stringMatching(/^not started: pending → planning refused/) });
  });

  it('leaves a task whose start a plugin vetoes in the queue, with the veto as the reason and no flag', async () => {
    box = await sandbox({}, [vetoStart('no free worktree')]);
    const result = await box.orange.engine.createTask({ project: 'demo', summary: 'wait for a worktree' });
    const task = await box.orange.store.read('demo', result.task.meta.id);
    expect(result).toEqual({ task, spawned: false, queuedReason: 'no free worktree', failedHooks: [], failures: [] });
    expect(task.meta).toMatchObject({ status: 'pending', attention: null });
    expect(box.calls).toEqual([]);
  });

  it('gives back an error that is not an OrangeError as it is (a bug), still flagging the task', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'path')");
    box = await sandbox({}, [throwingStart(bug)]);
    const error = await box.orange.engine.createTask({ project: 'demo', summary: 'x' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBe(bug);
    const [task] = (await box.orange.store.list('demo')).tasks;
    expect(task?.meta).toMatchObject({ status: 'pending', attention: "not started: Cannot read properties of undefined (reading 'path')" });
  });

  it("keeps the failed start's details in its error, with the task's id", async () => {
    box = await sandbox({}, [throwingStart(new OrangeError('E_WORKSPACE', 'base branch main is gone', { base: 'main' }))]);
    const error = await errorOf(box.orange.engine.createTask({ project: 'demo', summary: 'x' }));
    const [task] = (await box.orange.store.list('demo')).tasks;
    expect(error.details).toEqual({ base: 'main', task: task?.meta.id });
  });

  it('creates a task in a status with no create actions as not started, running nothing', async () => {
    box = await sandbox();
    const result = await box.orange.engine.createTask({ project: 'demo', summary: 'under review', status: 'reviewing' });
    expect(result).toEqual({ task: await box.orange.store.read('demo', result.task.meta.id), spawned: false, failedHooks: [], failures: [] });
    expect(box.calls).toEqual([]);
  });

  it("runs a status's create actions as a create move, from no status", async () => {
    const moves: Array<{ action: string; from: string | null; to: string; cause: string }> = [];
    box = await sandbox({}, [moveRecorder(['acquire_workspace', 'spawn_reviewer'], moves)]);
    const result = await box.orange.engine.createTask({ project: 'demo', summary: 'review a branch', status: 'agent-review' });
    expect(result).toMatchObject({ spawned: true, failedHooks: [], failures: [] });
    expect(result.task.meta).toMatchObject({ status: 'agent-review', review_round: 1, reviewer_spawn: 'r1', attention: null });
    expect(moves).toEqual([
      { action: 'acquire_workspace', from: null, to: 'agent-review', cause: 'create' },
      { action: 'spawn_reviewer', from: null, to: 'agent-review', cause: 'create' },
    ]);
  });
});

describe('spawn', () => {
  it('refuses a task that is not waiting in the initial status, pointing at respawn', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const error = await errorOf(box.orange.engine.spawn(ref));
    expect(error).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${ref.id} is working; only a pending task can be spawned (use respawn for a dead agent)` });
  });

  it('puts a task that was put aside back in the queue before its start, so a vetoed start still waits there', async () => {
    const veto = { on: true };
    const pool: OrangePlugin = {
      name: 'pool',
      apply: (orange) => orange.hooks.beforeTransition.tap('pool', (event) => (veto.on && event.from === 'pending' ? 'no free worktree' : undefined)),
    };
    box = await sandbox({}, [pool]);
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'later', spawn: false });
    const ref = { project: 'demo', id: task.meta.id };
    expect(await errorOf(box.orange.engine.spawn(ref))).toMatchObject({ code: 'E_VETOED' });
    expect((await ledger(box, ref.id)).map((e) => e.type)).toEqual(['task.created', 'task.queued']);
    veto.on = false;
    await box.orange.engine.spawn(ref);
    // Queued once: a task already in the queue joins it no second time.
    expect((await ledger(box, ref.id)).map((e) => [e.type, e.cause])).toEqual([
      ['task.created', undefined],
      ['task.queued', undefined],
      ['status.changed', 'spawn'],
    ]);
  });

  it('starts a queued task as a spawn by Orange, or by the actor given; an agent may not', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'pending');
    expect(await errorOf(box.orange.engine.spawn(ref, { actor: 'agent' }))).toMatchObject({ code: 'E_FORBIDDEN' });
    const result = await box.orange.engine.spawn(ref);
    expect(result).toMatchObject({ from: 'pending', to: 'planning', changed: true });
    expect((await ledger(box, ref.id)).map((e) => [e.type, e.cause])).toEqual([
      ['task.created', undefined],
      ['status.changed', 'spawn'],
    ]);
  });
});

describe('respawn', () => {
  it('refuses a task that is not active', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'pending');
    expect(await errorOf(box.orange.engine.respawn(ref))).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${ref.id} is pending; only an active task can be respawned` });
    expect(box.calls).toEqual([]);
  });

  it('refuses while the responsible agent is still running, and respawns it once it is gone', async () => {
    const alive = new Set<string>();
    box = await sandbox({}, [fakeRuntime(alive)]);
    const ref = await taskIn(box, 'agent-review', { meta: { workspace: 'demo-1', review_round: 1 } });
    alive.add(`${ref.id}:reviewer`);
    expect(await errorOf(box.orange.engine.respawn(ref))).toMatchObject({
      code: 'E_NOT_ALLOWED',
      message: `the reviewer of task ${ref.id} is still running; attach with: orange task attach ${ref.id}`,
    });
    expect(box.calls).toEqual([]);
    alive.clear();
    // Only the worker alive: the reviewer is the one this status needs.
    alive.add(`${ref.id}:worker`);
    await box.orange.engine.respawn(ref);
    expect(box.calls).toEqual(['spawn_reviewer']);
  });

  it("starts the status's own agent, as a respawn move in place, acquiring a workspace only when it has none", async () => {
    const moves: Array<{ action: string; from: string | null; to: string; cause: string }> = [];
    box = await sandbox({}, [moveRecorder(['acquire_workspace', 'spawn_agent', 'spawn_reviewer'], moves)]);
    const reviewing = await taskIn(box, 'agent-review', { meta: { workspace: 'demo-1', review_round: 1 } });
    const task = await box.orange.engine.respawn(reviewing);
    expect(task.meta).toMatchObject({ status: 'agent-review', reviewer_spawn: 'r1' });
    expect(moves).toEqual([{ action: 'spawn_reviewer', from: 'agent-review', to: 'agent-review', cause: 'respawn' }]);

    moves.length = 0;
    box.calls.length = 0;
    const planning = await taskIn(box, 'planning');
    await box.orange.engine.respawn(planning);
    expect(box.calls).toEqual(['acquire_workspace', 'spawn_agent']);
    expect(moves.map((m) => m.cause)).toEqual(['respawn', 'respawn']);
  });

  it('starts a worker for an active status that names no agent', async () => {
    box = await sandbox({ workflow: agentless });
    const ref = await taskIn(box, 'waiting', { meta: { workflow: 'agentless', workspace: 'demo-1' } });
    await box.orange.engine.respawn(ref);
    expect(box.calls).toEqual(['spawn_agent']);
  });

  it("fails with the action's own code and error, flagging the task", async () => {
    box = await sandbox({}, [failingAction('spawn_agent', new OrangeError('E_HARNESS', 'no harness named "claud" (known: claude)'))]);
    const ref = await taskIn(box, 'working', { meta: { workspace: 'demo-1' } });
    const error = await errorOf(box.orange.engine.respawn(ref));
    expect(error.code).toBe('E_HARNESS');
    expect(error.message).toBe(`respawn of task ${ref.id} failed: spawn_agent: no harness named "claud" (known: claude)`);
    expect(error.details).toEqual({
      failedHooks: ['spawn_agent'],
      failures: [{ action: 'spawn_agent', message: 'no harness named "claud" (known: claude)', code: 'E_HARNESS' }],
    });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBe('hook failed: spawn_agent');
  });

  it('fails as E_RUNTIME when no failed action has a code, naming every failure', async () => {
    box = await sandbox({}, [failingAction('acquire_workspace', new Error('git worktree add failed')), failingAction('spawn_agent', new Error('tmux is not running'))]);
    const ref = await taskIn(box, 'working');
    const error = await errorOf(box.orange.engine.respawn(ref));
    expect(error).toMatchObject({
      code: 'E_RUNTIME',
      message: `respawn of task ${ref.id} failed: acquire_workspace: git worktree add failed; spawn_agent: tmux is not running`,
    });
    expect((error.details as { failures: unknown }).failures).toEqual([
      { action: 'acquire_workspace', message: 'git worktree add failed' },
      { action: 'spawn_agent', message: 'tmux is not running' },
    ]);
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBe('hooks failed: acquire_workspace, spawn_agent');
  });

  it('fails as E_NO_PROVIDER when no plugin provides the actions it needs', async () => {
    // Built without the sandbox's recording plugin: nothing provides acquire_workspace or spawn_agent.
    const home = await mkdtemp(join(tmpdir(), 'orange-core-'));
    box = { home, orange: await Orange.create({ workflow: agentless }, { paths: new OrangePaths(home) }), calls: [], cleanup: () => rm(home, { recursive: true, force: true }) };
    await box.orange.projects.add({ name: 'demo', path: join(home, 'repo'), default_branch: 'main' });
    const ref = await taskIn(box, 'waiting', { meta: { workflow: 'agentless' } });
    const error = await errorOf(box.orange.engine.respawn(ref));
    expect(error).toMatchObject({
      code: 'E_NO_PROVIDER',
      message: `respawn of task ${ref.id} failed: acquire_workspace: no plugin provides hook "acquire_workspace"; spawn_agent: no plugin provides hook "spawn_agent"`,
    });
  });

  it('clears the flag of an earlier failure once the agent is started again', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { workspace: 'demo-1', attention: 'hook failed: spawn_agent' } });
    const task = await box.orange.engine.respawn(ref);
    expect(task.meta.attention).toBeNull();
    expect((await box.orange.store.read(ref.project, ref.id)).meta.attention).toBeNull();
  });

  it('writes nothing when starting the agent changes no field', async () => {
    box = await sandbox();
    // The recording spawn_agent writes worker_spawn w1, which the task already has.
    const ref = await taskIn(box, 'working', { meta: { workspace: 'demo-1', worker_spawn: 'w1', updated_at: '2024-01-01T00:00:00.000Z' } });
    const before = await filesOf(box, ref);
    await box.orange.engine.respawn(ref);
    expect(box.calls).toEqual(['spawn_agent']);
    expect(await filesOf(box, ref)).toEqual(before);
  });
});
