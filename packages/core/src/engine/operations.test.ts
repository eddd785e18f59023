import { access, readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin, Runtime, Scm, TaskRef, TransitionOptions, TransitionRefusedEvent } from '../plugin/index.js';
import { parseSections } from '../task/sections.js';
import {
  cancelMove,
  cancelQuestion,
  cancelStatus,
  cancelTask,
  checkCancel,
  checkDelete,
  checkMerge,
  deleteTask,
  mergeTask,
  openPullRequest,
  requestChanges,
} from './operations.js';
import { classicWorkflow } from '../workflow/classic.js';
import { defaultWorkflow } from '../workflow/default.js';
import type { WorkflowInput } from '../workflow/definition.js';
import { pipelineWorkflow } from '../workflow/pipeline.js';
import { Workflow } from '../workflow/workflow.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** A plugin that vetoes every move into `working` while `frozen.on` is true. */
function freezer(frozen: { on: boolean }): OrangePlugin {
  return {
    name: 'freeze',
    apply: (orange) => orange.hooks.beforeTransition.tap('freeze', (event) => (frozen.on && event.to === 'working' ? 'work is frozen this week' : undefined)),
  };
}

const REVIEWED = '## Review\n\nVerdict: FAIL\nthe flag is misnamed\n\n## Notes\n\nan earlier note\n';

/**
 * Moves the task to working right after the next read of it (another process acting between an
 * operation's read and its lock); `files` is what the task's files were once it had moved.
 */
function movedAfterRead(b: Sandbox, ref: TaskRef, options: TransitionOptions): { files?: Awaited<ReturnType<typeof filesOf>> } {
  const { engine } = b.orange;
  const read = engine.readVerified.bind(engine);
  const moved: { files?: Awaited<ReturnType<typeof filesOf>> } = {};
  engine.readVerified = async (r) => {
    const task = await read(r);
    engine.readVerified = read;
    await engine.transition(ref, 'working', options);
    moved.files = await filesOf(b, ref);
    return task;
  };
  return moved;
}

describe('requestChanges', () => {
  it('refused by a plugin veto, it changes nothing: TASK.md, its state and the history stay byte for byte', async () => {
    const frozen = { on: true };
    box = await sandbox({}, [freezer(frozen)]);
    const ref = await taskIn(box, 'reviewing', { body: REVIEWED });
    const before = await filesOf(box, ref);
    const refusal = await errorOf(requestChanges(box.orange, ref, 'rename the flag to --dry-run'));
    expect(refusal).toMatchObject({ code: 'E_VETOED', message: 'reviewing → working refused: work is frozen this week' });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
  });

  it('allowed, the notes and the move land together: ## Notes gains the instructions, the ledger the move', async () => {
    const frozen = { on: true };
    box = await sandbox({}, [freezer(frozen)]);
    const ref = await taskIn(box, 'reviewing', { body: REVIEWED });
    await errorOf(requestChanges(box.orange, ref, 'first try, refused'));
    frozen.on = false;
    const result = await requestChanges(box.orange, ref, '  rename the flag to --dry-run\n');
    expect(result).toMatchObject({ from: 'reviewing', to: 'working', changed: true });
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(task.meta.status).toBe('working');
    expect(parseSections(task.body).get('Notes')?.trim()).toMatch(/^an earlier note\n\nChanges requested \(\d{4}-\d\d-\d\dT[\d:.]+Z\):\nrename the flag to --dry-run$/);
    expect(task.body).not.toContain('first try');
    expect(parseSections(task.body).get('Review')?.trim()).toBe('Verdict: FAIL\nthe flag is misnamed');
    const moves = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed');
    expect(moves).toEqual([expect.objectContaining({ from: 'reviewing', to: 'working', cause: 'request', reason: 'changes requested' })]);
    expect(box.calls).toEqual(['notify_worker']);
  });

  it('refuses a task that left reviewing between its read and the lock, and changes nothing there', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'reviewing', { body: REVIEWED });
    // Another process (the monitor's CI reaction) moves the task right after this call read it.
    const moved = movedAfterRead(box, ref, { cause: 'auto', reason: 'ci failed' });
    const refusal = await errorOf(requestChanges(box.orange, ref, 'rename the flag to --dry-run'));
    expect(refusal).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: `working → working refused: task ${ref.id} moved to working meanwhile; changes are requested on a task in reviewing` });
    expect(await filesOf(box, ref)).toEqual(moved.files);
  });

  it('without instructions only moves the task: the body stays as it was', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'reviewing', { body: REVIEWED });
    await requestChanges(box.orange, ref, '  \n');
    const task = await box.orange.store.read(ref.project, ref.id);
    expect({ status: task.meta.status, body: task.body }).toEqual({ status: 'working', body: REVIEWED });
  });
});

/** A built-in workflow, the gates and actions its plugins provide taken as given. */
function load(input: WorkflowInput): Workflow {
  const transitions = input.transitions as ReadonlyArray<{ gate?: string; hooks?: readonly string[] }>;
  return Workflow.load(input, {
    gates: new Set(transitions.flatMap((t) => (t.gate ? [t.gate] : []))),
    actions: new Set(transitions.flatMap((t) => t.hooks ?? [])),
  });
}

describe('cancelMove', () => {
  it('is read from the workflow: every status with a transition a cancel takes, and what that move does', () => {
    const moves = (input: WorkflowInput) => {
      const workflow = load(input);
      return Object.fromEntries(workflow.states.map((s) => [s, cancelMove(workflow, s)?.kind ?? null]));
    };
    expect(moves(defaultWorkflow)).toEqual({
      pending: 'cancel',
      planning: 'cancel',
      clarification: 'cancel',
      working: 'cancel',
      'agent-review': 'cancel',
      reviewing: 'cancel',
      stuck: 'cancel',
      done: null,
      cancelled: null,
    });
    expect(moves(classicWorkflow)).toMatchObject({ pending: 'cancel', working: 'cancel', done: null, cancelled: null });
    expect(moves(pipelineWorkflow)).toEqual({
      created: 'stop',
      classifying: 'stop',
      awaiting_clarification: 'stop',
      routing: 'stop',
      executing: 'stop',
      retrying: 'stop',
      escalating: 'stop',
      verifying: 'stop',
      stopped: 'abandon',
      // Verified but not merged: a person abandons it (its branch is kept), or merges it.
      completed: 'abandon',
      done: null,
      failed: null,
    });
    expect(cancelMove(load(pipelineWorkflow), 'stopped')).toEqual({ to: 'failed', kind: 'abandon' });
    // Read from the states, not the name: a team's copy of the pipeline stops and abandons the same way.
    expect(moves({ ...pipelineWorkflow, name: 'triage' } as WorkflowInput)).toEqual(moves(pipelineWorkflow));
  });

  it('is null where a custom workflow has no transition a cancel takes (here: reviewing, and a workflow without cancelled)', () => {
    const custom = (withCancel: boolean) =>
      load({
        name: 'custom',
        initial: 'pending',
        start: 'working',
        states: { pending: {}, working: { agent: 'worker' }, reviewing: {}, done: { terminal: true }, ...(withCancel ? { cancelled: { terminal: true } } : {}) },
        transitions: [
          { from: 'pending', to: 'working', by: ['agent', 'person', 'orange'] },
          { from: 'working', to: 'reviewing', by: ['agent', 'person', 'orange'] },
          { from: 'reviewing', to: 'done', by: ['agent', 'person', 'orange'] },
          ...(withCancel ? [{ from: 'pending', to: 'cancelled', by: ['agent', 'person', 'orange'] }, { from: 'working', to: 'cancelled', by: ['agent', 'person', 'orange'] }] : []),
        ],
        exit: { pending: { otherwise: 'mark' }, working: { otherwise: 'mark' }, reviewing: { otherwise: 'mark' } },
        create: { pending: { hooks: [] } },
        prompts: {},
      } as WorkflowInput);
    const cancellable = custom(true);
    expect(cancellable.states.map((s) => [s, cancelMove(cancellable, s)?.kind ?? null])).toEqual([
      ['pending', 'cancel'],
      ['working', 'cancel'],
      ['reviewing', null],
      ['done', null],
      ['cancelled', null],
    ]);
    const never = custom(false);
    expect(never.states.map((s) => cancelMove(never, s))).toEqual([null, null, null, null]);
  });
});

/**
 * A pipeline-shaped workflow (`stopped`, `failed`, no `cancelled`) small enough to move by hand:
 * a person stops a running task, resumes or abandons a stopped one, merges or abandons a completed one.
 */
const RELAY = {
  name: 'relay',
  initial: 'created',
  start: 'running',
  states: { created: {}, running: {}, completed: {}, stopped: {}, done: { terminal: true }, failed: { terminal: true } },
  transitions: [
    { from: 'created', to: 'running', by: ['person', 'orange'] },
    { from: 'running', to: 'completed', by: ['orange'] },
    { from: 'running', to: 'stopped', by: ['person'] },
    { from: 'stopped', to: 'running', by: ['person'] },
    { from: 'stopped', to: 'failed', by: ['person'] },
    { from: 'completed', to: 'done', by: ['person'] },
    { from: 'completed', to: 'failed', by: ['person'] },
  ],
  exit: { created: { otherwise: 'mark' }, running: { otherwise: 'mark' }, completed: { otherwise: 'mark' }, stopped: { otherwise: 'mark' } },
  create: { created: { hooks: [] } },
  prompts: {},
} as WorkflowInput;

/** A workflow whose review ends only in a merge or a cancel: it has `reviewing` but no way back to `working`. */
const SIGN_OFF = {
  name: 'sign-off',
  initial: 'pending',
  start: 'working',
  states: { pending: {}, working: {}, reviewing: {}, done: { terminal: true }, cancelled: { terminal: true } },
  transitions: [
    { from: 'pending', to: 'working', by: ['person', 'orange'] },
    { from: 'working', to: 'reviewing', by: ['agent', 'orange'] },
    { from: 'reviewing', to: 'done', by: ['person'] },
    { from: 'reviewing', to: 'cancelled', by: ['person'] },
  ],
  exit: { pending: { otherwise: 'mark' }, working: { otherwise: 'mark' }, reviewing: { otherwise: 'mark' } },
  create: { pending: { hooks: [] } },
  prompts: {},
} as WorkflowInput;

/** The `status.changed` entries of a task's ledger. */
async function moves(ref: TaskRef) {
  return (await box!.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed');
}

describe('cancelQuestion', () => {
  const meta = (status: string) => ({ id: 'T1', status, branch: 'fix-login' });

  it('asks a person to confirm what the cancel will do: cancel, stop keeping the checkpoint, or abandon', () => {
    expect(cancelQuestion(meta('working'), 'cancel')).toBe('Cancel task T1 (working, fix-login)?');
    expect(cancelQuestion(meta('executing'), 'stop')).toBe('Stop task T1 (executing, fix-login), keeping its checkpoint for orange task resume?');
    expect(cancelQuestion(meta('stopped'), 'abandon')).toBe(
      'Abandon stopped task T1 (fix-login): give up the progress in its checkpoint (the file is kept for inspection) and end it failed?',
    );
    // A completed task has no checkpoint progress to lose, but work that will never be merged.
    expect(cancelQuestion(meta('completed'), 'abandon')).toBe('Abandon completed task T1 (fix-login): never merge its work (the branch is kept) and end it failed?');
  });
});

describe('cancelStatus', () => {
  it("goes to cancelled wherever the workflow has it, even one that also has stopped, and where it has neither", () => {
    const both = load({
      ...RELAY,
      name: 'relay-with-cancel',
      states: { ...RELAY.states, cancelled: { terminal: true } },
      transitions: [...RELAY.transitions, { from: 'running', to: 'cancelled', by: ['person'] }],
    } as WorkflowInput);
    expect(cancelStatus(both, 'running')).toBe('cancelled');
    expect(cancelMove(both, 'running')).toEqual({ to: 'cancelled', kind: 'cancel' });
    const neither = load({ ...SIGN_OFF, name: 'no-cancel', states: { pending: {}, working: {}, reviewing: {}, done: { terminal: true } }, transitions: SIGN_OFF.transitions.filter((t) => t.to !== 'cancelled') } as WorkflowInput);
    expect(cancelStatus(neither, 'working')).toBe('cancelled');
  });

  it('ends a stopped task failed even where the workflow has no abandon move (the engine then refuses that)', () => {
    const noAbandon = load({ ...RELAY, name: 'no-abandon', transitions: RELAY.transitions.filter((t) => !(t.from === 'stopped' && t.to === 'failed')) } as WorkflowInput);
    expect(cancelStatus(noAbandon, 'stopped')).toBe('failed');
    expect(cancelMove(noAbandon, 'stopped')).toBeNull();
  });

  it('sends a status with neither a stop nor an abandon move to stopped', () => {
    expect(cancelStatus(load(RELAY), 'done')).toBe('stopped');
    expect(cancelStatus(load(RELAY), 'completed')).toBe('failed');
    expect(cancelStatus(load(RELAY), 'running')).toBe('stopped');
  });
});

describe('checkCancel', () => {
  it('says what a cancel will do and asks for it, without moving the task', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(await checkCancel(box.orange, task)).toEqual({ to: 'cancelled', kind: 'cancel', question: `Cancel task ${ref.id} (working, orange-tasks/${ref.id})?` });
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('refuses a finished task with the engine\'s own refusal, announced as a request, changing nothing', async () => {
    const refused: TransitionRefusedEvent[] = [];
    const observer: OrangePlugin = { name: 'observer', apply: (orange) => orange.hooks.transitionRefused.tap('observer', (event) => void refused.push(event)) };
    box = await sandbox({}, [observer]);
    const ref = await taskIn(box, 'done');
    const before = await filesOf(box, ref);
    const refusal = await errorOf(checkCancel(box.orange, await box.orange.store.read(ref.project, ref.id)));
    expect(refusal).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: 'done → cancelled refused: done is terminal' });
    expect(refused.map((e) => ({ to: e.to, cause: e.cause, source: e.source }))).toEqual([{ to: 'cancelled', cause: 'request', source: 'request' }]);
    expect(await filesOf(box, ref)).toEqual(before);
  });
});

describe('checkCancel on a task read before it moved', () => {
  it('never cancels it unasked: a task read in working (no cancel) that moved to reviewing (a cancel) is refused, and stays there', async () => {
    box = await sandbox({ workflows: [SIGN_OFF] });
    const ref = await taskIn(box, 'working', { meta: { workflow: 'sign-off' } });
    const stale = await box.orange.store.read(ref.project, ref.id);
    await box.orange.engine.transition(ref, 'reviewing', { cause: 'request', actor: 'agent' });
    const refusal = await errorOf(checkCancel(box.orange, stale));
    expect(refusal).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${ref.id} cannot be cancelled from working` });
    expect((await box.orange.store.read(ref.project, ref.id)).meta.status).toBe('reviewing');
  });
});

describe('cancelTask', () => {
  it("cancels a task as a person's request (pending → cancelled is a person's move only), with no reason", async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'pending');
    expect(await cancelTask(box.orange, ref)).toMatchObject({ from: 'pending', to: 'cancelled', changed: true });
    const [move] = await moves(ref);
    expect(move).toMatchObject({ from: 'pending', to: 'cancelled', cause: 'request' });
    expect(move).not.toHaveProperty('reason');
  });

  it('in a pipeline-shaped workflow stops a running task (reason cancelled), then abandons it into failed (reason abandoned)', async () => {
    box = await sandbox({ workflows: [RELAY] });
    const ref = await taskIn(box, 'running', { meta: { workflow: 'relay' } });
    expect(await cancelTask(box.orange, ref)).toMatchObject({ from: 'running', to: 'stopped', changed: true });
    expect(await cancelTask(box.orange, ref)).toMatchObject({ from: 'stopped', to: 'failed', changed: true });
    expect((await moves(ref)).map((e) => ({ from: e.from, to: e.to, cause: e.cause, reason: e.reason }))).toEqual([
      { from: 'running', to: 'stopped', cause: 'request', reason: 'cancelled' },
      { from: 'stopped', to: 'failed', cause: 'request', reason: 'abandoned' },
    ]);
  });

  it('refuses a finished task with the engine\'s usual message naming where a cancel would go', async () => {
    box = await sandbox({ workflows: [RELAY] });
    const done = await taskIn(box, 'done');
    expect(await errorOf(cancelTask(box.orange, done))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: 'done → cancelled refused: done is terminal' });
    const finished = await taskIn(box, 'done', { meta: { workflow: 'relay' } });
    expect(await errorOf(cancelTask(box.orange, finished))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: 'done → stopped refused: done is terminal' });
  });
});

/** A runtime that records the sessions it is asked to kill, and fails to kill them while `stuck.on`. */
function recordingRuntime(killed: string[], stuck = { on: false }): OrangePlugin {
  const runtime: Runtime = {
    name: 'recording-runtime',
    snapshot: async () => ({ isAlive: () => false, sessions: [], processes: 0 }),
    attach: async () => undefined,
    sessionName: (task) => `orange-${task.project}-${task.id}`,
    killSession: async (name) => {
      if (stuck.on) throw new Error(`session ${name} is still running after kill`);
      killed.push(name);
      return true;
    },
  };
  return { name: 'recording-runtime', apply: (orange) => orange.provide('runtime', runtime) };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('checkDelete and deleteTask', () => {
  it('refuses to delete an unfinished task, leaving it and its session alone', async () => {
    const killed: string[] = [];
    box = await sandbox({}, [recordingRuntime(killed)]);
    const ref = await taskIn(box, 'working');
    const before = await filesOf(box, ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    const message = `task ${ref.id} is working; only a finished task (done or cancelled) can be deleted — cancel it first`;
    expect(await errorOf(checkDelete(box.orange, task))).toMatchObject({ code: 'E_NOT_ALLOWED', message });
    expect(await errorOf(deleteTask(box.orange, task))).toMatchObject({ code: 'E_NOT_ALLOWED', message });
    expect(killed).toEqual([]);
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it("deletes a finished task: its session killed first, its folder gone, the deletion logged", async () => {
    const killed: string[] = [];
    box = await sandbox({}, [recordingRuntime(killed)]);
    const ref = await taskIn(box, 'done');
    const task = await box.orange.store.read(ref.project, ref.id);
    await expect(checkDelete(box.orange, task)).resolves.toBeUndefined();
    await deleteTask(box.orange, task);
    expect(killed).toEqual([`orange-demo-${ref.id}`]);
    expect(await exists(box.orange.paths.taskDir(ref.project, ref.id))).toBe(false);
    const records = (await readFile(box.orange.paths.logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((r) => r.msg === 'task deleted')).toEqual([expect.objectContaining({ task: ref.id, project: 'demo', status: 'done' })]);
  });

  it('deletes a finished task when no runtime is configured', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'cancelled');
    await deleteTask(box.orange, await box.orange.store.read(ref.project, ref.id));
    expect(await exists(box.orange.paths.taskDir(ref.project, ref.id))).toBe(false);
  });

  it('keeps the task when its session cannot be killed, so no agent outlives it', async () => {
    const killed: string[] = [];
    box = await sandbox({}, [recordingRuntime(killed, { on: true })]);
    const ref = await taskIn(box, 'done');
    const before = await filesOf(box, ref);
    await expect(deleteTask(box.orange, await box.orange.store.read(ref.project, ref.id))).rejects.toThrow(`session orange-demo-${ref.id} is still running after kill`);
    expect(await filesOf(box, ref)).toEqual(before);
  });
});

/** An SCM that records its merges and pull requests; `refuse` makes the next merges fail with that message. */
function testScm(seen: { merges: string[]; pulls: string[]; refuse?: string }): OrangePlugin {
  return {
    name: 'test-scm',
    apply(orange) {
      const scm: Scm = {
        name: 'test-scm',
        merge: async (task) => {
          if (seen.refuse !== undefined) return { merged: false, message: seen.refuse };
          seen.merges.push(`${task.meta.id}@${task.meta.status}`);
          return { merged: true, message: `merged ${task.meta.branch}` };
        },
        // As the GitHub SCM does: the pull request's address is stored on the task.
        createPullRequest: async (task) => {
          seen.pulls.push(task.meta.id);
          const url = `https://example.invalid/pr/${task.meta.id}`;
          await orange.store.update(task.meta.project, task.meta.id, { pr_url: url });
          return { url };
        },
        pullRequestState: async () => null,
      };
      orange.provide('scm', scm);
    },
  };
}

describe('checkMerge', () => {
  it('takes the ordinary move for a reviewed task, even when force is asked', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'reviewing');
    const check = await checkMerge(box.orange, ref, { force: true });
    expect({ forced: check.forced, id: check.task.meta.id, status: check.task.meta.status }).toEqual({ forced: false, id: ref.id, status: 'reviewing' });
  });

  it('refuses a task the review has not passed, pointing to --force where the workflow has a forced move', async () => {
    box = await sandbox();
    const working = await taskIn(box, 'working');
    const hinted = `working → done refused: task ${working.id} cannot be merged from working (merge a task once its review passed, or force it: orange task merge ${working.id} --force)`;
    expect(await errorOf(checkMerge(box.orange, working))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: hinted, details: { from: 'working', to: 'done' } });
    expect(await errorOf(checkMerge(box.orange, working, { force: false }))).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: hinted });
    const forced = await checkMerge(box.orange, working, { force: true });
    expect({ forced: forced.forced, status: forced.task.meta.status }).toEqual({ forced: true, status: 'working' });
    // pending has no forced move into done: --force is neither offered nor taken.
    const pending = await taskIn(box, 'pending');
    expect(await errorOf(checkMerge(box.orange, pending, { force: true }))).toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
      message: `pending → done refused: task ${pending.id} cannot be merged from pending (merge a task once its review passed)`,
    });
  });

  it('refuses a finished task, saying whether it was merged', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const merged = await taskIn(box, 'reviewing');
    await mergeTask(box.orange, merged, { strategy: 'ff', local: true });
    const again = await errorOf(mergeTask(box.orange, merged, { strategy: 'ff', local: true }));
    expect(again).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${merged.id} is already done (merged); there is nothing left to merge` });
    expect(seen.merges).toEqual([`${merged.id}@reviewing`]);
    const cancelled = await taskIn(box, 'cancelled');
    expect(await errorOf(checkMerge(box.orange, cancelled))).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${cancelled.id} is already cancelled; there is nothing left to merge` });
  });
});

describe('mergeTask', () => {
  it('records the merge (via, strategy, message) and the move as a person\'s request, reason merged', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'reviewing');
    const outcome = await mergeTask(box.orange, ref, { strategy: 'merge', local: false });
    expect(outcome.merge).toEqual({ merged: true, message: `merged orange-tasks/${ref.id}` });
    expect(outcome.result).toMatchObject({ from: 'reviewing', to: 'done', changed: true });
    const history = await box.orange.store.history(ref.project, ref.id);
    const entry = history.find((e) => e.type === 'task.merged');
    expect(entry).toEqual({ type: 'task.merged', via: 'test-scm', strategy: 'merge', message: `merged orange-tasks/${ref.id}`, timestamp: expect.any(String) });
    const [move] = await moves(ref);
    expect(move).toMatchObject({ from: 'reviewing', to: 'done', cause: 'request', reason: 'merged' });
    expect(move).not.toHaveProperty('forced');
  });

  it('with force merges a task still in working and marks both the merge and the move as forced', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'working');
    const outcome = await mergeTask(box.orange, ref, { strategy: 'ff', local: true }, { force: true });
    expect(outcome.result).toMatchObject({ from: 'working', to: 'done', changed: true });
    expect(seen.merges).toEqual([`${ref.id}@working`]);
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.find((e) => e.type === 'task.merged')).toMatchObject({ type: 'task.merged', forced: true, from: 'working' });
    expect(await moves(ref)).toEqual([expect.objectContaining({ from: 'working', to: 'done', cause: 'request', reason: 'force-merged from working', forced: true })]);
  });

  it('leaves the task as it was when the SCM could not merge, with the SCM\'s message', async () => {
    const seen = { merges: [], pulls: [], refuse: 'merge conflict in src/login.ts' };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'reviewing');
    const before = await filesOf(box, ref);
    expect(await errorOf(mergeTask(box.orange, ref, { strategy: 'ff', local: true }))).toMatchObject({ code: 'E_SCM', message: 'merge conflict in src/login.ts' });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(box.calls).toEqual([]);
  });

  it('merges nothing when the task left its status between the check and the lock', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'reviewing');
    // A person in another terminal asks for changes right after this merge read the task.
    const moved = movedAfterRead(box, ref, { actor: 'person' });
    const refusal = await errorOf(mergeTask(box.orange, ref, { strategy: 'ff', local: true }));
    expect(refusal).toMatchObject({ code: 'E_NOT_ALLOWED', message: `task ${ref.id} moved to working meanwhile; nothing was merged` });
    expect(seen.merges).toEqual([]);
    expect(await filesOf(box, ref)).toEqual(moved.files);
  });
});

describe('openPullRequest', () => {
  it('opens the pull request of an unfinished task and returns the task as the SCM left it', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'reviewing');
    const { url, task } = await openPullRequest(box.orange, ref);
    expect(url).toBe(`https://example.invalid/pr/${ref.id}`);
    expect(task.meta).toMatchObject({ id: ref.id, status: 'reviewing', pr_url: url });
    expect(seen.pulls).toEqual([ref.id]);
  });

  it('refuses a finished task before the SCM is asked', async () => {
    const seen = { merges: [], pulls: [] };
    box = await sandbox({}, [testScm(seen)]);
    const ref = await taskIn(box, 'done');
    expect(await errorOf(openPullRequest(box.orange, ref))).toMatchObject({
      code: 'E_NOT_ALLOWED',
      message: `task ${ref.id} is done; a pull request is only opened for an unfinished task`,
    });
    expect(seen.pulls).toEqual([]);
  });
});

describe('requestChanges outside reviewing', () => {
  it('refuses a task not in reviewing, even one with its own move into working, and changes nothing', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'planning', { body: REVIEWED });
    const before = await filesOf(box, ref);
    expect(await errorOf(requestChanges(box.orange, ref, 'rename the flag'))).toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
      message: `planning → working refused: task ${ref.id} is planning; changes are requested on a task in reviewing`,
      details: { from: 'planning', to: 'working' },
    });
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('refuses a task in reviewing when its workflow has no way back to working', async () => {
    box = await sandbox({ workflows: [SIGN_OFF] });
    const ref = await taskIn(box, 'reviewing', { meta: { workflow: 'sign-off' } });
    expect(await errorOf(requestChanges(box.orange, ref, 'rename the flag'))).toMatchObject({
      code: 'E_ILLEGAL_TRANSITION',
      message: `reviewing → working refused: task ${ref.id} is reviewing; changes are requested on a task in reviewing`,
    });
  });

  it('starts ## Notes with the instructions when the task has none yet', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'reviewing', { body: '## Review\n\nVerdict: FAIL\n' });
    await requestChanges(box.orange, ref, 'rename the flag');
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(parseSections(task.body).get('Notes')).toMatch(/^Changes requested \(\d{4}-\d\d-\d\dT[\d:.]+Z\):\nrename the flag$/);
  });
});
