import { readFile } from 'node:fs/promises';
import { definePlugin, isOrangeError, parseSections, type TaskRef } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineBox, type PipelineBox } from '../test/pipeline-box.js';
import { DRIVER_HARNESS } from './pipeline.js';
import { clarifyTask, respawnTask, resumeTask } from './operator.js';

let box: PipelineBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

/** The refusal of `promise` as `CODE: message`. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isOrangeError(error) ? `${error.code}: ${error.message}` : `not refused: ${String(error)}`;
}

async function unsure(b: PipelineBox): Promise<TaskRef> {
  const ref = await b.task();
  await b.to(ref, 'classifying');
  await b.set(ref, { confidence: 0.3, intent: 'feature' });
  await b.to(ref, 'awaiting_clarification');
  return ref;
}

async function otherWorkflowTask(b: PipelineBox): Promise<TaskRef> {
  const { task } = await b.orange.engine.createTask({ project: 'other', summary: 'plan it', spawn: false });
  return { project: 'other', id: task.meta.id };
}

describe('orange task clarify', () => {
  it('adds the answer to ## Context, forgets the classification and classifies again', async () => {
    box = await pipelineBox();
    const ref = await unsure(box);
    const result = await clarifyTask(box.orange, ref, '  the login form crashes on submit \n');
    expect(result).toMatchObject({ from: 'awaiting_clarification', to: 'classifying' });
    expect(result.task.meta).toMatchObject({ confidence: null, intent: '' });
    expect(parseSections(result.task.body).get('Context')).toBe('Clarification: the login form crashes on submit');
    expect(box.spawned).toEqual([DRIVER_HARNESS, DRIVER_HARNESS]);
  });

  it('refuses an empty answer, a task not awaiting clarification and a task of another workflow, changing nothing', async () => {
    box = await pipelineBox();
    const ref = await unsure(box);
    const before = await box.orange.store.history(ref.project, ref.id);
    expect(await refusal(clarifyTask(box.orange, ref, ' \n '))).toBe('E_INVALID_INPUT: the clarification is empty; say what the task is about');
    expect(await box.orange.store.history(ref.project, ref.id)).toEqual(before);
    const running = await box.task();
    await box.to(running, 'classifying');
    expect(await refusal(clarifyTask(box.orange, running, 'more'))).toBe(`E_NOT_ALLOWED: task ${running.id} is classifying; only a task awaiting clarification can be clarified`);
    const other = await otherWorkflowTask(box);
    expect(await refusal(clarifyTask(box.orange, other, 'more'))).toBe(`E_NOT_ALLOWED: task ${other.id} runs the default workflow; only pipeline tasks can be clarified or resumed`);
  });

  it('refused by a veto, it changes nothing: the answer, the classification and the history stay as they were', async () => {
    const veto = definePlugin({
      name: 'no-reclassify',
      apply: (orange) => orange.hooks.beforeTransition.tap('no-reclassify', (event) => (event.to === 'classifying' && event.from === 'awaiting_clarification' ? 'the team answers in the issue first' : undefined)),
    });
    box = await pipelineBox({}, {}, [veto]);
    const ref = await unsure(box);
    const files = () => Promise.all([box!.orange.paths.taskFile(ref.project, ref.id), box!.orange.paths.taskStateFile(ref.project, ref.id), box!.orange.paths.historyFile(ref.project, ref.id)].map((f) => readFile(f, 'utf8')));
    const before = await files();
    expect(await refusal(clarifyTask(box.orange, ref, 'the login form crashes on submit'))).toBe('E_VETOED: awaiting_clarification → classifying refused: the team answers in the issue first');
    expect(await files()).toEqual(before);
    expect(await box.meta(ref)).toMatchObject({ status: 'awaiting_clarification', confidence: 0.3, intent: 'feature' });
  });
});

describe('orange task resume', () => {
  it('refuses a task that is neither stopped nor running, a task of another workflow, and a budget that is not positive', async () => {
    box = await pipelineBox();
    const created = await box.task();
    expect(await refusal(resumeTask(box.orange, created))).toBe(`E_NOT_ALLOWED: task ${created.id} is created; only a stopped pipeline task (or one whose run died) can be resumed`);
    const waiting = await unsure(box);
    expect(await refusal(resumeTask(box.orange, waiting))).toMatch(/is awaiting_clarification; only a stopped pipeline task/);
    const other = await otherWorkflowTask(box);
    expect(await refusal(resumeTask(box.orange, other))).toMatch(/runs the default workflow; only pipeline tasks/);
    await box.to(created, 'stopped', undefined, 'person');
    expect(await refusal(resumeTask(box.orange, created, { budgetUsd: 0 }))).toBe('E_INVALID_INPUT: the budget must be a positive number of USD, not 0');
    expect((await box.meta(created)).status).toBe('stopped');
  });

  it('resumes a task cancelled before it started at classifying, acquiring its worktree first', async () => {
    box = await pipelineBox();
    const ref = await box.task();
    await box.to(ref, 'stopped', 'cancelled', 'person');
    const result = await resumeTask(box.orange, ref, { budgetUsd: 2 });
    expect(result).toMatchObject({ from: 'stopped', to: 'classifying' });
    expect(result.task.meta).toMatchObject({ budget_usd: 2, stop_reason: '' });
    expect(box.actions).toEqual(['acquire_workspace', 'spawn_agent']);
  });
});

describe('orange task respawn on a pipeline task', () => {
  it('restarts a dead driver the way resume does (stopped, then resumed from the checkpoint), never the harness interactively', async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    box.spawned.splice(0);
    const after = await box.orange.engine.respawn(ref);
    expect(after.meta.status).toBe('executing');
    expect(box.spawned).toEqual([DRIVER_HARNESS]);
    const moves = (await box.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'status.changed').slice(-2);
    expect(moves).toMatchObject([
      { from: 'executing', to: 'stopped', reason: 'resume: the pipeline driver is not running' },
      { from: 'stopped', to: 'executing', reason: 'resume' },
    ]);
  });

  it('resumes a stopped task, refuses one awaiting clarification with the clarify command, and leaves created and finished ones to the engine', async () => {
    box = await pipelineBox();
    const stopped = await box.task();
    await box.to(stopped, 'stopped', 'cancelled', 'person');
    expect((await box.orange.engine.respawn(stopped)).meta.status).toBe('classifying');
    const waiting = await unsure(box);
    expect(await refusal(box.orange.engine.respawn(waiting))).toBe(
      `E_NOT_ALLOWED: task ${waiting.id} is awaiting_clarification: nothing runs until it is clarified (orange task clarify ${waiting.id} "more detail")`,
    );
    const created = await box.task();
    expect(await respawnTask(box.orange, created)).toBeUndefined();
    expect(await refusal(box.orange.engine.respawn(created))).toBe(`E_NOT_ALLOWED: task ${created.id} is created; only an active task can be respawned`);
  });
});
