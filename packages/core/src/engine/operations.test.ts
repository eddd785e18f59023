import { afterEach, describe, expect, it } from 'vitest';
import { errorOf, filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin } from '../plugin/index.js';
import { parseSections } from '../task/sections.js';
import { cancelMove, requestChanges } from './operations.js';
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
    const { engine } = box.orange;
    const read = engine.readVerified.bind(engine);
    // Another process (the monitor's CI reaction) moves the task right after this call read it.
    let moved: Awaited<ReturnType<typeof filesOf>> | undefined;
    engine.readVerified = async (r) => {
      const task = await read(r);
      engine.readVerified = read;
      await engine.transition(ref, 'working', { cause: 'auto', reason: 'ci failed' });
      moved = await filesOf(box!, ref);
      return task;
    };
    const refusal = await errorOf(requestChanges(box.orange, ref, 'rename the flag to --dry-run'));
    expect(refusal).toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: `working → working refused: task ${ref.id} moved to working meanwhile; changes are requested on a task in reviewing` });
    expect(await filesOf(box, ref)).toEqual(moved);
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
