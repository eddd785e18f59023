/**
 * The move itself (move.ts), beyond the transition matrix (engine.transitions.test.ts): what a
 * refusal says, who hears of it, what the checks and the actions are given, what is logged and
 * recorded, and how a task is verified before a move reads it.
 */
import { access, readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorOf, failingAction, filesOf, logRecords, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import { OrangeError } from '../errors/index.js';
import type { OrangePlugin, TransitionRefusedEvent } from '../plugin/index.js';
import { newTaskId } from '../store/index.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** The log records with message `msg`, without their time. */
const logged = async (b: Sandbox, msg: string) => (await logRecords(b, msg)).map(({ time: _, ...r }) => r);

/** A plugin whose tap of `hook` throws, to show a lifecycle observer cannot change a move. */
function throwingTap(hook: 'transitionRefused' | 'statusWritten' | 'hookFailed'): OrangePlugin {
  return {
    name: `throwing-${hook}`,
    apply: (orange) =>
      orange.hooks[hook].tapPromise(`throwing-${hook}`, async () => {
        throw new Error(`${hook} observer crashed`);
      }),
  };
}

/** A workflow with a dead end the built-in ones lack: `limbo`, not terminal, with no way out. */
const deadEnd = {
  name: 'dead-end',
  initial: 'pending',
  start: 'working',
  states: { pending: {}, working: { agent: 'worker' as const }, limbo: {}, done: { terminal: true } },
  transitions: [
    { from: 'pending', to: 'working', by: ['person', 'orange'] },
    { from: 'working', to: 'done', by: ['person'] },
    { from: 'working', to: 'limbo', by: ['orange'] },
  ],
  exit: { pending: { otherwise: 'mark' as const }, working: { otherwise: 'mark' as const }, limbo: { otherwise: 'mark' as const } },
  create: { pending: { hooks: [] } },
  prompts: {},
};

describe('a move that no longer applies', () => {
  it('does nothing and says so when the task left the status the caller expected', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    const result = await box.orange.engine.transition(ref, 'stuck', { expectFrom: 'planning' });
    expect(result).toEqual({ task: await box.orange.store.read(ref.project, ref.id), from: 'working', to: 'working', changed: false, failedHooks: [], failures: [] });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
  });
});

describe('what the checks are given', () => {
  it("gives beforeTransition the move's reason, and notify: false when the caller raises its own notice", async () => {
    const seen: Array<{ reason: unknown; notify: unknown }> = [];
    const watcher: OrangePlugin = {
      name: 'watcher',
      apply: (orange) => orange.hooks.beforeTransition.tap('watcher', (event) => void seen.push({ reason: event.reason, notify: event.notify })),
    };
    box = await sandbox({}, [watcher]);
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck', { reason: 'went in circles' });
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck', { notify: false });
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck', { notification: { event: 'pipeline.breaker', priority: 'warning', title: 'breaker tripped' } });
    await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck');
    expect(seen).toStrictEqual([
      { reason: 'went in circles', notify: undefined },
      { reason: undefined, notify: false },
      { reason: undefined, notify: false },
      { reason: undefined, notify: undefined },
    ]);
  });

  it('takes an empty string from a beforeTransition tap as no veto', async () => {
    const silent: OrangePlugin = { name: 'silent', apply: (orange) => orange.hooks.beforeTransition.tap('silent', () => '') };
    box = await sandbox({}, [silent]);
    const result = await box.orange.engine.transition(await taskIn(box, 'working'), 'stuck');
    expect(result).toMatchObject({ from: 'working', to: 'stuck', changed: true });
  });
});

describe('what a refusal says', () => {
  it('names the statuses of the workflow when asked for one it does not have', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    expect((await errorOf(box.orange.engine.transition(ref, 'nowhere'))).message).toBe(
      'working → nowhere refused: "nowhere" is not a status of workflow default (statuses: pending, planning, clarification, working, agent-review, reviewing, stuck, done, cancelled)',
    );
  });

  it('says a finished task is terminal', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'done');
    expect(await errorOf(box.orange.engine.transition(ref, 'working'))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: 'done → working refused: done is terminal' });
  });

  it('names the legal targets of a move not in the map, and says when a person can force it', async () => {
    box = await sandbox();
    const pending = await taskIn(box, 'pending');
    expect((await errorOf(box.orange.engine.transition(pending, 'done'))).message).toBe('pending → done refused: not a transition of workflow default (from pending: planning, cancelled)');
    // A force where the workflow has no forced transition is refused like any move not in the map.
    expect((await errorOf(box.orange.engine.transition(pending, 'done', { force: true, actor: 'person' }))).message).toBe(
      'pending → done refused: not a transition of workflow default (from pending: planning, cancelled)',
    );
    const planning = await taskIn(box, 'planning');
    expect(await errorOf(box.orange.engine.transition(planning, 'done', { actor: 'person' }))).toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
      message: 'planning → done refused: not a transition of workflow default (from planning: working, clarification, cancelled); a person can force it (a forced merge)',
    });
  });

  it("refuses a force to anyone but whom it is for, naming a person's command", async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning');
    const before = await filesOf(box, ref);
    expect(await errorOf(box.orange.engine.transition(ref, 'done', { force: true, actor: 'agent' }))).toMatchObject({
      code: 'E_FORBIDDEN',
      message: `planning → done refused: done is a person's move, not the task's agent's (orange task merge ${ref.id})`,
    });
    expect((await errorOf(box.orange.engine.transition(ref, 'done', { force: true }))).message).toBe(
      `planning → done refused: done is a person's move, not Orange's (orange task merge ${ref.id})`,
    );
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('names no targets from a status with no way out', async () => {
    box = await sandbox({ workflow: deadEnd });
    const ref = await taskIn(box, 'limbo', { meta: { workflow: 'dead-end' } });
    expect((await errorOf(box.orange.engine.transition(ref, 'working'))).message).toBe('limbo → working refused: not a transition of workflow dead-end');
  });

  it("shows a failed guard with the field's value", async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'agent-review', { body: '## Review\n\nVerdict: FAIL\nbroken\n', meta: { review_round: 2 } });
    expect(await errorOf(box.orange.engine.transition(ref, 'working', { actor: 'agent' }))).toMatchObject({
      code: 'E_GUARD_FAILED',
      message: 'agent-review → working refused: guard "review_round < 2" does not hold (review_round is 2)',
    });
  });

  it('refuses a move whose gate is no longer registered', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { body: '## Plan\n\nAPPROACH: split it\nTOUCHING: parser.ts\n' });
    // The workflow was validated with the gate there; a plugin's gate can still go missing after.
    box.orange.gates.delete('plan');
    expect(await errorOf(box.orange.engine.transition(ref, 'working'))).toMatchObject({
      code: 'E_GATE_FAILED',
      message: 'planning → working refused: gate "plan" is not registered',
    });
  });
});

describe('who hears of a refusal', () => {
  it('tells transitionRefused observers whether an exit rule or a request was refused', async () => {
    const heard: Array<Omit<TransitionRefusedEvent, 'orange' | 'task'>> = [];
    const listener: OrangePlugin = {
      name: 'listener',
      apply: (orange) => orange.hooks.transitionRefused.tap('listener', ({ orange: _, task: __, ...event }) => void heard.push(event)),
    };
    box = await sandbox({}, [listener]);
    const ref = await taskIn(box, 'pending');
    for (const cause of ['request', 'auto', 'crash'] as const) await errorOf(box.orange.engine.transition(ref, 'done', { cause }));
    const reason = 'not a transition of workflow default (from pending: planning, cancelled)';
    const refusal = { from: 'pending', to: 'done', check: 'map', code: 'E_ILLEGAL_TRANSITION', reason };
    expect(heard).toEqual([
      { ...refusal, cause: 'request', source: 'request' },
      { ...refusal, cause: 'auto', source: 'exit-rule' },
      { ...refusal, cause: 'crash', source: 'exit-rule' },
    ]);
  });

  it('logs an observer that throws, naming its hook, and refuses as before', async () => {
    box = await sandbox({}, [throwingTap('transitionRefused')]);
    const ref = await taskIn(box, 'pending');
    expect(await errorOf(box.orange.engine.transition(ref, 'done'))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION' });
    expect(await logged(box, 'lifecycle hook failed')).toEqual([
      { level: 'error', component: 'core', msg: 'lifecycle hook failed', hook: 'transitionRefused', error: 'transitionRefused observer crashed' },
    ]);
  });
});

describe('the write and what follows it', () => {
  it('logs the status change', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    await box.orange.engine.transition(ref, 'stuck', { cause: 'auto', reason: 'gave up' });
    expect(await logged(box, 'status changed')).toEqual([
      { level: 'info', component: 'core', msg: 'status changed', task: ref.id, project: 'demo', from: 'working', to: 'stuck', cause: 'auto' },
    ]);
  });

  it('tells statusWritten taps of the written status before any action runs; a tap that throws is logged', async () => {
    const seen: Array<{ status: string; calls: string[] }> = [];
    const watcher: OrangePlugin = {
      name: 'watcher',
      apply: (orange) => orange.hooks.statusWritten.tap('watcher', (event) => void seen.push({ status: event.task.meta.status, calls: [...(box as Sandbox).calls] })),
    };
    box = await sandbox({}, [watcher, throwingTap('statusWritten')]);
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.transition(ref, 'stuck');
    expect(seen).toEqual([{ status: 'stuck', calls: [] }]);
    expect(box.calls).toEqual(['notify_worker']);
    expect(result.task.meta.status).toBe('stuck');
    expect((await logged(box, 'lifecycle hook failed')).map((r) => r.hook)).toEqual(['statusWritten']);
  });

  it('gives afterTransition taps the task as it is after the actions', async () => {
    const seen: Array<{ status: string; workerSpawn: string | null }> = [];
    const watcher: OrangePlugin = {
      name: 'watcher',
      apply: (orange) => orange.hooks.afterTransition.tap('watcher', (event) => void seen.push({ status: event.task.meta.status, workerSpawn: event.task.meta.worker_spawn })),
    };
    box = await sandbox({}, [watcher]);
    await box.orange.engine.transition(await taskIn(box, 'pending'), 'planning');
    expect(seen).toEqual([{ status: 'planning', workerSpawn: 'w1' }]);
  });
});

describe('actions that fail', () => {
  it('reports each failure with its code when it has one, records, logs and tells hookFailed, and flags the task', async () => {
    const told: Array<{ action: string; error: string; status: string }> = [];
    const listener: OrangePlugin = {
      name: 'listener',
      apply: (orange) => orange.hooks.hookFailed.tap('listener', (event) => void told.push({ action: event.action, error: event.error.message, status: event.task.meta.status })),
    };
    box = await sandbox({}, [
      failingAction('kill_session', new OrangeError('E_RUNTIME', 'tmux is not running')),
      failingAction('release_workspace', new Error('worktree is dirty')),
      listener,
      throwingTap('hookFailed'),
    ]);
    const ref = await taskIn(box, 'working');
    const result = await box.orange.engine.transition(ref, 'cancelled', { actor: 'person' });
    expect(result).toMatchObject({ changed: true, failedHooks: ['kill_session', 'release_workspace'] });
    expect(result.failures).toStrictEqual([
      { action: 'kill_session', message: 'tmux is not running', code: 'E_RUNTIME' },
      { action: 'release_workspace', message: 'worktree is dirty' },
    ]);
    expect(result.task.meta).toMatchObject({ status: 'cancelled', attention: 'hooks failed: kill_session, release_workspace' });
    expect((await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'hook.failed').map(({ timestamp: _, ...e }) => e)).toEqual([
      { type: 'hook.failed', hook: 'kill_session', from: 'working', to: 'cancelled', error: 'tmux is not running' },
      { type: 'hook.failed', hook: 'release_workspace', from: 'working', to: 'cancelled', error: 'worktree is dirty' },
    ]);
    expect(told).toEqual([
      { action: 'kill_session', error: 'tmux is not running', status: 'cancelled' },
      { action: 'release_workspace', error: 'worktree is dirty', status: 'cancelled' },
    ]);
    expect(await logged(box, 'hook failed')).toEqual([
      { level: 'error', component: 'core', msg: 'hook failed', task: ref.id, hook: 'kill_session', from: 'working', to: 'cancelled', error: 'tmux is not running' },
      { level: 'error', component: 'core', msg: 'hook failed', task: ref.id, hook: 'release_workspace', from: 'working', to: 'cancelled', error: 'worktree is dirty' },
    ]);
    expect((await logged(box, 'lifecycle hook failed')).map((r) => r.hook)).toEqual(['hookFailed', 'hookFailed']);
  });
});

describe("an action's context", () => {
  it('records into the ledger, renders the prompt of a first spawn by default, and defers work until the lock is free', async () => {
    const prompts: string[] = [];
    const order: string[] = [];
    const actor: OrangePlugin = {
      name: 'actor',
      apply: (orange) =>
        orange.hooks.actions.for('spawn_agent').tapPromise('actor', async (ctx) => {
          await ctx.record({ type: 'agent.started', role: 'worker' });
          prompts.push(await ctx.prompt('worker'), await ctx.prompt('worker', true));
          const { project, id } = ctx.task.meta;
          ctx.defer(async () => {
            // Tried once, never waited for: the move's lock must be released by now.
            order.push(await orange.store.withoutLockWaits(() => orange.store.withTaskLock(project, id, async () => 'deferred, lock free')));
          });
          ctx.defer(async () => {
            throw new Error('the next task could not start');
          });
          ctx.defer(async () => void order.push('after a failed one'));
        }),
    };
    box = await sandbox({}, [actor]);
    const ref = await taskIn(box, 'pending');
    const result = await box.orange.engine.transition(ref, 'planning');
    expect(result.changed).toBe(true);
    expect(order).toEqual(['deferred, lock free', 'after a failed one']);
    expect((await box.orange.store.history(ref.project, ref.id)).map((e) => e.type)).toEqual(['task.created', 'status.changed', 'agent.started']);
    expect(prompts[0]).toMatch(/^# Task: a task in pending/);
    expect(prompts[1]).toMatch(/^# Resuming: a task in pending/);
    expect(await logged(box, 'deferred action failed')).toEqual([
      { level: 'error', component: 'core', msg: 'deferred action failed', error: 'Error: the next task could not start' },
    ]);
  });
});

describe('writing a section', () => {
  it('records the bytes of the trimmed content and logs it', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    await box.orange.engine.writeSection(ref, 'Notes', '\n  naïve  \n\n');
    const written = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'section.written');
    expect(written).toEqual([expect.objectContaining({ section: 'Notes', bytes: 6 })]);
    expect(await logged(box, 'section written')).toEqual([{ level: 'info', component: 'core', msg: 'section written', task: ref.id, section: 'Notes' }]);
  });
});

describe('a task verified before it is read', () => {
  /** Replaces `from` by `to` in the task's TASK.md, as a person editing it would. */
  async function handEdit(b: Sandbox, id: string, from: string, to: string): Promise<void> {
    const file = b.orange.paths.taskFile('demo', id);
    const text = await readFile(file, 'utf8');
    expect(text).toContain(from);
    await writeFile(file, text.replace(from, to));
  }

  it('names a hand-edited status with its value of record, in the message and the details', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    await handEdit(box, ref.id, 'status: working', 'status: reviewing');
    const error = await errorOf(box.orange.engine.readVerified(ref));
    expect(error).toMatchObject({
      code: 'E_TAMPERED',
      message: `task ${ref.id}: TASK.md was edited by hand: status "reviewing" (of record: "working"); run: orange task repair ${ref.id}`,
    });
    expect(error.details).toEqual({ fields: ['status'], file: 'reviewing', ledger: 'working' });
  });

  it('names every hand-edited field, and gives status values in the details only when the status is the first', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { branch: 'feature/a' } });
    await handEdit(box, ref.id, 'branch: feature/a', 'branch: feature/b');
    const one = await errorOf(box.orange.engine.readVerified(ref));
    expect(one.message).toBe(`task ${ref.id}: TASK.md was edited by hand: branch "feature/b" (of record: "feature/a"); run: orange task repair ${ref.id}`);
    expect(one.details).toEqual({ fields: ['branch'] });
    await handEdit(box, ref.id, 'status: working', 'status: done');
    const two = await errorOf(box.orange.engine.readVerified(ref));
    expect(two.message).toMatch(/: TASK\.md was edited by hand: \w+ "[^"]+" \(of record: "[^"]+"\), \w+ "[^"]+" \(of record: "[^"]+"\); run:/);
    expect((two.details as { fields: string[] }).fields.sort()).toEqual(['branch', 'status']);
  });

  it('cuts a forged value longer than 60 characters short in the message', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working', { meta: { branch: 'feature/a' } });
    // 58 characters, 60 with its quotes: shown whole.
    const fits = `feature/${'x'.repeat(50)}`;
    await handEdit(box, ref.id, 'branch: feature/a', `branch: ${fits}`);
    expect((await errorOf(box.orange.engine.readVerified(ref))).message).toContain(`branch "${fits}" (of record`);
    const long = `feature/${'y'.repeat(51)}`;
    await handEdit(box, ref.id, `branch: ${fits}`, `branch: ${long}`);
    expect((await errorOf(box.orange.engine.readVerified(ref))).message).toContain(`branch "feature/${'y'.repeat(48)}…" (of record`);
  });

  it('refuses a status the ledger does not agree with', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    // A status written with no ledger entry (the state agrees with TASK.md; the ledger does not).
    await box.orange.store.withTaskLock(ref.project, ref.id, () => box!.orange.store.update(ref.project, ref.id, { status: 'stuck' }));
    const error = await errorOf(box.orange.engine.transition(ref, 'reviewing'));
    expect(error).toMatchObject({
      code: 'E_TAMPERED',
      message: `task ${ref.id}: TASK.md says status "stuck" but the ledger says "working" (edited by hand?); run: orange task repair ${ref.id}`,
    });
    expect(error.details).toEqual({ fields: ['status'], file: 'stuck', ledger: 'working' });
  });

  it('reads again under the lock what looked tampered without it: a writer between its status and its ledger entry', async () => {
    box = await sandbox();
    const store = box.orange.store;
    const ref = await taskIn(box, 'working');
    // Signals the first ledger read (the one without the lock) once it has returned.
    let firstRead!: () => void;
    const read = new Promise<void>((resolve) => (firstRead = resolve));
    const ledgerStatus = store.ledgerStatus.bind(store);
    vi.spyOn(store, 'ledgerStatus').mockImplementationOnce(async (project, id) => {
      const status = await ledgerStatus(project, id);
      firstRead();
      return status;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const writer = store.withTaskLock(ref.project, ref.id, async () => {
      await store.update(ref.project, ref.id, { status: 'stuck' });
      entered();
      await finishing;
      await store.appendHistory(ref.project, ref.id, { type: 'status.changed', from: 'working', to: 'stuck', cause: 'request' });
    });
    await inside;
    const verified = box.orange.engine.readVerified(ref);
    await read;
    finish();
    await writer;
    expect((await verified).meta.status).toBe('stuck');
  });

  it('refuses a task that does not exist without leaving a folder for it', async () => {
    box = await sandbox();
    const id = newTaskId();
    expect(await errorOf(box.orange.engine.readVerified({ project: 'demo', id }))).toMatchObject({ code: 'E_TASK_NOT_FOUND' });
    await expect(access(box.orange.paths.taskDir('demo', id))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
