import { afterEach, describe, expect, it } from 'vitest';
import { filesOf, sandbox, taskIn, type Sandbox } from '../../test/fixtures.js';
import type { OrangePlugin, Scm, TransitionRefusedEvent } from '../plugin/index.js';
import { defaultWorkflow } from '../workflow/default.js';
import { pipelineWorkflow } from '../workflow/pipeline.js';
import { Workflow } from '../workflow/workflow.js';
import { notYourMove, personCommand } from './authority.js';
import { mergeTask } from './operations.js';

let box: Sandbox | undefined;
afterEach(async () => box?.cleanup());

/** A team's veto on reviewing → done: refused unless ## Notes says APPROVED; records every refusal. */
function approvalVeto(seen: TransitionRefusedEvent[]): OrangePlugin {
  return {
    name: 'approval',
    apply(orange) {
      orange.hooks.beforeTransition.tapPromise('approval', async (event) => (event.to === 'done' && !event.task.body.includes('APPROVED') ? 'no APPROVED in ## Notes' : undefined));
      orange.hooks.transitionRefused.tapPromise('approval', async (event) => {
        seen.push(event);
      });
    },
  };
}

/** An SCM that records its merges (the world outside Orange's files). */
function recordingScm(merges: string[]): OrangePlugin {
  const scm: Scm = {
    name: 'recording-scm',
    merge: async (task) => {
      merges.push(task.meta.id);
      return { merged: true, message: `merged ${task.meta.branch}` };
    },
    createPullRequest: async () => ({ url: 'https://example.invalid/pr/1' }),
    pullRequestState: async () => null,
  };
  return { name: 'recording-scm', apply: (orange) => orange.provide('scm', scm) };
}

describe('who may take each move', () => {
  it("refuses an agent's own done and cancelled, naming who takes them and with which command, changing nothing", async () => {
    const refused: TransitionRefusedEvent[] = [];
    box = await sandbox({}, [approvalVeto(refused)]);
    const ref = await taskIn(box, 'reviewing', { body: '## Notes\n\nAPPROVED\n' });
    const before = await filesOf(box, ref);
    await expect(box.orange.engine.transition(ref, 'done', { actor: 'agent' })).rejects.toMatchObject({
      code: 'E_FORBIDDEN',
      message: `reviewing → done refused: done is a person's move, not the task's agent's (orange task merge ${ref.id})`,
    });
    await expect(box.orange.engine.transition(ref, 'cancelled', { actor: 'agent' })).rejects.toMatchObject({
      code: 'E_FORBIDDEN',
      message: `reviewing → cancelled refused: cancelled is a person's move, not the task's agent's (orange task cancel ${ref.id})`,
    });
    expect(await filesOf(box, ref)).toEqual(before);
    expect(refused.map((e) => e.check)).toEqual(['authority', 'authority']);
  });

  it("refuses a person the agent's own requests, and Orange a person's", async () => {
    box = await sandbox();
    const planning = await taskIn(box, 'planning');
    await expect(box.orange.engine.transition(planning, 'clarification', { actor: 'person' })).rejects.toMatchObject({
      code: 'E_FORBIDDEN',
      message: expect.stringContaining("clarification is the task's agent's move, not a person's (the task's own agent asks for it: orange task update --status clarification)"),
    });
    const stuck = await taskIn(box, 'stuck');
    await expect(box.orange.engine.transition(stuck, 'reviewing', { actor: 'orange' })).rejects.toMatchObject({ code: 'E_FORBIDDEN' });
    await expect(box.orange.engine.transition(stuck, 'reviewing', { actor: 'agent' })).resolves.toMatchObject({ changed: true, to: 'reviewing' });
  });
});

describe('every check before anything changes the world', () => {
  it("runs a move's effect (a merge) only after the map, who may move, the guard, the gate and every veto passed, and writes nothing when one refuses", async () => {
    const merges: string[] = [];
    box = await sandbox({}, [approvalVeto([]), recordingScm(merges)]);
    const ref = await taskIn(box, 'reviewing');
    const before = await filesOf(box, ref);
    await expect(mergeTask(box.orange, ref, { strategy: 'ff', local: true })).rejects.toMatchObject({ code: 'E_VETOED', message: 'reviewing → done refused: no APPROVED in ## Notes' });
    expect(merges).toEqual([]);
    expect(await filesOf(box, ref)).toEqual(before);
  });

  it('merges with the task still in its status of record, then moves it to done and records the merge', async () => {
    const merges: string[] = [];
    box = await sandbox({}, [approvalVeto([]), recordingScm(merges)]);
    const ref = await taskIn(box, 'reviewing', { body: '## Notes\n\nAPPROVED\n' });
    const outcome = await mergeTask(box.orange, ref, { strategy: 'ff', local: true });
    expect(merges).toEqual([ref.id]);
    expect(outcome.result).toMatchObject({ from: 'reviewing', to: 'done', changed: true });
    const types = (await box.orange.store.history(ref.project, ref.id)).map((e) => e.type);
    expect(types.indexOf('task.merged')).toBeLessThan(types.indexOf('status.changed'));
  });

  it('writes nothing when the effect itself fails', async () => {
    box = await sandbox();
    const ref = await taskIn(box, 'reviewing');
    const before = await filesOf(box, ref);
    await expect(
      box.orange.engine.transition(ref, 'done', {
        actor: 'person',
        effect: async () => {
          throw new Error('the push was refused');
        },
      }),
    ).rejects.toThrow('the push was refused');
    expect(await filesOf(box, ref)).toEqual(before);
  });
});

describe('the workflow is the task\'s', () => {
  it('keeps the workflow a task was created with when its project changes workflow; new tasks take the new one', async () => {
    box = await sandbox();
    const { task: old } = await box.orange.engine.createTask({ project: 'demo', summary: 'an old one', spawn: false });
    expect(old.meta.workflow).toBe('default');
    await box.orange.projects.update('demo', { workflow: 'classic' });
    const { task: fresh } = await box.orange.engine.createTask({ project: 'demo', summary: 'a new one', spawn: false });
    expect(fresh.meta.workflow).toBe('classic');
    // default starts in planning, classic in working: each moves by its own map.
    expect((await box.orange.engine.spawn({ project: 'demo', id: old.meta.id })).to).toBe('planning');
    expect((await box.orange.engine.spawn({ project: 'demo', id: fresh.meta.id })).to).toBe('working');
    const { task: chosen } = await box.orange.engine.createTask({ project: 'demo', summary: 'picked', spawn: false, workflow: 'default' });
    expect(chosen.meta.workflow).toBe('default');
  });
});

// The workflows' own structure only: which gates and actions exist does not matter to who may move.
const standard = Workflow.load(defaultWorkflow);
const pipeline = Workflow.load(pipelineWorkflow);

describe('personCommand', () => {
  it('names the command a person takes each move of the default workflow with', () => {
    const command = (from: string, to: string) => personCommand(standard, from, to, 'T1');
    expect(command('reviewing', 'done')).toBe('orange task merge T1');
    expect(command('working', 'cancelled')).toBe('orange task cancel T1');
    expect(command('pending', 'cancelled')).toBe('orange task cancel T1');
    expect(command('reviewing', 'working')).toBe('orange task request-changes T1');
    expect(command('pending', 'planning')).toBe('orange task spawn T1');
    // Only the pair (initial → start) is a spawn, and only reviewing → working a request for changes.
    expect(command('clarification', 'planning')).toBe('orange task move T1 planning');
    expect(command('pending', 'working')).toBe('orange task move T1 working');
    expect(command('planning', 'working')).toBe('orange task move T1 working');
    expect(command('reviewing', 'stuck')).toBe('orange task move T1 stuck');
    expect(command('stuck', 'reviewing')).toBe('orange task move T1 reviewing');
  });

  it('names the command a person takes each move of the pipeline with: stop and abandon are a cancel', () => {
    const command = (from: string, to: string) => personCommand(pipeline, from, to, 'T1');
    expect(command('created', 'classifying')).toBe('orange task spawn T1');
    expect(command('executing', 'stopped')).toBe('orange task cancel T1');
    expect(command('awaiting_clarification', 'stopped')).toBe('orange task cancel T1');
    expect(command('stopped', 'failed')).toBe('orange task cancel T1');
    expect(command('completed', 'failed')).toBe('orange task cancel T1');
    // The circuit breaker's failed is no person's cancel.
    expect(command('retrying', 'failed')).toBe('orange task move T1 failed');
    expect(command('awaiting_clarification', 'classifying')).toBe('orange task clarify T1');
    expect(command('stopped', 'executing')).toBe('orange task resume T1');
    expect(command('stopped', 'classifying')).toBe('orange task resume T1');
    expect(command('completed', 'done')).toBe('orange task merge T1');
    expect(command('executing', 'verifying')).toBe('orange task move T1 verifying');
  });
});

describe('notYourMove', () => {
  it("names the person's command for the pair the move is from, not only its target", () => {
    expect(notYourMove(standard, standard.between('reviewing', 'working'), 'agent', 'T1')).toBe(
      "working is a person's move, not the task's agent's (orange task request-changes T1)",
    );
  });

  it('names every actor but Orange that may take the move, and Orange by its own name', () => {
    expect(notYourMove(standard, standard.between('stuck', 'reviewing'), 'orange', 'T1')).toBe(
      "reviewing is the task's agent's or a person's move, not Orange's (orange task move T1 reviewing)",
    );
  });

  it("calls a move only Orange takes Orange's own, taken by exit rules, hooks or the pipeline driver", () => {
    expect(notYourMove(pipeline, pipeline.between('classifying', 'routing'), 'person', 'T1')).toBe(
      "routing is Orange's own move, not a person's (exit rules, hooks or the pipeline driver take it)",
    );
  });

  it("with no transition to go by, still answers (as Orange's own move) rather than failing", () => {
    expect(notYourMove(standard, [], 'agent', 'T1')).toBe(" is Orange's own move, not the task's agent's (exit rules, hooks or the pipeline driver take it)");
  });
});
