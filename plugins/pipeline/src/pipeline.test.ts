import { readFile } from 'node:fs/promises';
import { cancelTask, checkCancel, checkDelete, type TaskRef } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineBox, type PipelineBox } from '../test/pipeline-box.js';
import { checkpointPath } from './checkpoint.js';

let box: PipelineBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

async function checkpoint(b: PipelineBox, ref: TaskRef): Promise<Record<string, unknown>> {
  return JSON.parse(await readFile(checkpointPath(b.orange.paths, ref), 'utf8')) as Record<string, unknown>;
}

describe('pipeline gates on the engine', () => {
  it('routes a confident task and refuses an unsure one, by the configured threshold', async () => {
    box = await pipelineBox({ threshold: 0.7 });
    const ref = await box.task();
    await box.to(ref, 'classifying');
    expect(await box.refusal(ref, 'routing')).toMatch(/E_GATE_FAILED.*not been classified/);
    await box.set(ref, { confidence: 0.65 });
    expect(await box.refusal(ref, 'routing')).toMatch(/confidence 0.65 is below the threshold 0.7/);
    await box.to(ref, 'awaiting_clarification');
    expect(await box.refusal(ref, 'executing')).toMatch(/E_ILLEGAL_TRANSITION/);
  });

  it('re-classifies a clarified task: awaiting_clarification → classifying starts the driver again', async () => {
    box = await pipelineBox();
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await box.set(ref, { confidence: 0.2 });
    await box.to(ref, 'awaiting_clarification');
    expect(await box.ran(() => box!.to(ref, 'classifying', undefined, 'person'))).toEqual(['spawn_agent']);
    expect((await box.meta(ref)).status).toBe('classifying');
  });

  it('retries at the same tier while attempts are left, escalates after, fails at the breaker', async () => {
    box = await pipelineBox({ attempts: 2, breaker: 3 });
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await box.set(ref, { confidence: 0.9 });
    await box.to(ref, 'routing');
    expect(await box.refusal(ref, 'executing')).toMatch(/no pipeline of phases/);
    await box.set(ref, { pipeline_phases: 'fix', phase: 'fix', tier: 'small', attempt: 1 });
    await box.to(ref, 'executing');
    expect(await box.refusal(ref, 'retrying')).toMatch(/E_GUARD_FAILED/);
    expect(await box.refusal(ref, 'verifying')).toMatch(/phases not done: fix/);
    await box.set(ref, { phase_result: 'failed', consecutive_failures: 1 });
    await box.to(ref, 'retrying');
    expect(await box.refusal(ref, 'escalating')).toMatch(/attempts are left/);
    expect(await box.refusal(ref, 'failed')).toMatch(/fewer than 3 consecutive runs failed/);
    const retried = await box.to(ref, 'executing');
    expect(retried.task.meta).toMatchObject({ attempt: 2, phase_result: '' });
    await box.set(ref, { phase_result: 'failed', consecutive_failures: 2 });
    await box.to(ref, 'retrying');
    await box.to(ref, 'escalating');
    expect(await box.refusal(ref, 'failed')).toMatch(/a higher model tier is left/);
    const escalated = await box.to(ref, 'executing');
    expect(escalated.task.meta).toMatchObject({ tier: 'big', attempt: 1 });
    await box.set(ref, { phase_result: 'failed', consecutive_failures: 3 });
    await box.to(ref, 'retrying');
    expect(await box.refusal(ref, 'executing')).toMatch(/circuit breaker/);
    // stop_pipeline kills the session; the worktree is freed (the commits stay on the branch).
    expect(await box.ran(() => box!.to(ref, 'failed'))).toEqual(['kill_session', 'release_workspace']);
    expect(await box.refusal(ref, 'executing')).toMatch(/E_ILLEGAL_TRANSITION/);
  });

  it('refuses escalating → executing at the top tier and ends the task failed there, freeing the worktree', async () => {
    box = await pipelineBox({ attempts: 1, breaker: 10 });
    const ref = await box.executing();
    await box.set(ref, { tier: 'big', phase_result: 'failed', consecutive_failures: 1 });
    await box.to(ref, 'retrying');
    await box.to(ref, 'escalating');
    expect(await box.refusal(ref, 'executing')).toBe('E_GATE_FAILED: escalating → executing refused: the task is at the top model tier');
    expect(await box.ran(() => box!.to(ref, 'failed'))).toEqual(['kill_session', 'release_workspace']);
  });

  it('moves verifying → completed only on passed checks and verifying → retrying only on failed ones', async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    await box.set(ref, { phases_done: 'fix' });
    await box.to(ref, 'verifying');
    expect(await box.refusal(ref, 'completed')).toBe('E_GUARD_FAILED: verifying → completed refused: guard "verification == "passed"" does not hold (verification is "")');
    expect(await box.refusal(ref, 'retrying')).toBe('E_GUARD_FAILED: verifying → retrying refused: guard "verification == "failed"" does not hold (verification is "")');
    await box.set(ref, { verification: 'failed' });
    expect(await box.refusal(ref, 'completed')).toMatch(/E_GUARD_FAILED/);
    await box.to(ref, 'retrying');
    const other = await box.executing();
    await box.set(other, { phases_done: 'fix' });
    await box.to(other, 'verifying');
    await box.set(other, { verification: 'passed' });
    expect(await box.refusal(other, 'retrying')).toMatch(/E_GUARD_FAILED/);
    expect(await box.ran(() => box!.to(other, 'completed'))).toEqual(['kill_session', 'release_workspace']);
  });

  it('stops an executing task (the driver is killed) with the stop reason, and clears the reason when it is resumed', async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    expect(await box.ran(() => box!.to(ref, 'stopped', 'budget exceeded: cost $5.00 of a $5.00 budget'))).toEqual(['kill_session']);
    expect((await box.meta(ref)).stop_reason).toBe('budget exceeded: cost $5.00 of a $5.00 budget');
    expect(await checkpoint(box, ref)).toMatchObject({ state: 'stopped', stop_reason: 'budget exceeded: cost $5.00 of a $5.00 budget' });
    await box.set(ref, { budget_usd: 10 });
    expect(await box.ran(() => box!.to(ref, 'executing', undefined, 'person'))).toEqual(['acquire_workspace', 'spawn_agent']);
    expect((await box.meta(ref)).stop_reason).toBe('');
    expect(await checkpoint(box, ref)).toMatchObject({ state: 'executing', stop_reason: null });
  });

  it('records "cancelled" as the stop reason of a cancel, and abandons a stopped task into failed so that it can be deleted', async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    const cancelled = await cancelTask(box.orange, ref);
    expect(cancelled).toMatchObject({ from: 'executing', to: 'stopped' });
    expect(cancelled.task.meta.stop_reason).toBe('cancelled');
    await expect(checkDelete(box.orange, await box.orange.store.read(ref.project, ref.id))).rejects.toThrow(/only a finished task .* cancel it first/);
    expect(await box.ran(() => cancelTask(box!.orange, ref))).toEqual(['release_workspace']);
    expect(await box.meta(ref)).toMatchObject({ status: 'failed', stop_reason: '' });
    const history = await box.orange.store.history(ref.project, ref.id);
    expect(history.filter((e) => e.type === 'status.changed').at(-1)).toMatchObject({ from: 'stopped', to: 'failed', reason: 'abandoned' });
    await checkDelete(box.orange, await box.orange.store.read(ref.project, ref.id));
    // The checkpoint stays for inspection.
    expect(await checkpoint(box, ref)).toMatchObject({ state: 'failed', current_phase: 'fix' });
  });

  it('says before a cancel what it will do: stop a running task (checkpoint kept), abandon a stopped one; refuses a failed one', async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    const read = () => box!.orange.store.read(ref.project, ref.id);
    const { meta } = await read();
    expect(await checkCancel(box.orange, await read())).toEqual({
      to: 'stopped',
      kind: 'stop',
      question: `Stop task ${ref.id} (executing, ${meta.branch}), keeping its checkpoint for orange task resume?`,
    });
    await cancelTask(box.orange, ref);
    expect(await checkCancel(box.orange, await read())).toEqual({
      to: 'failed',
      kind: 'abandon',
      question: `Abandon stopped task ${ref.id} (${meta.branch}): give up the progress in its checkpoint (the file is kept for inspection) and end it failed?`,
    });
    await cancelTask(box.orange, ref);
    await expect(checkCancel(box.orange, await read())).rejects.toMatchObject({ code: 'E_ILLEGAL_TRANSITION', message: 'failed → stopped refused: failed is terminal' });
  });

  it("has a new task's budget from its creation, not its start: the config's, or its own", async () => {
    box = await pipelineBox({ budgetUsd: 3 });
    const { task } = await box.orange.engine.createTask({ project: 'demo', summary: 'fix it', spawn: false });
    expect(task.meta).toMatchObject({ status: 'created', budget_usd: 3, cost_total_usd: 0 });
    expect(await checkpoint(box, { project: 'demo', id: task.meta.id })).toMatchObject({ state: 'created', budget_usd: 3 });
    const own = await box.orange.engine.createTask({ project: 'demo', summary: 'fix it cheaply', spawn: false, fields: { budget_usd: 1.5 } });
    expect((await box.meta({ project: 'demo', id: own.task.meta.id })).budget_usd).toBe(1.5);
    const other = await box.orange.engine.createTask({ project: 'other', summary: 'not a pipeline task', spawn: false });
    expect(other.task.meta).not.toHaveProperty('budget_usd');
  });

  it('refuses to resume a task over its budget, and writes the checkpoint at every transition', async () => {
    box = await pipelineBox({ budgetUsd: 1 });
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await box.set(ref, { cost_total_usd: 1.5 });
    await box.to(ref, 'stopped');
    expect(await box.refusal(ref, 'classifying', 'person')).toMatch(/has reached its budget \$1.00; resume with a higher --budget/);
    expect(await checkpoint(box, ref)).toMatchObject({ state: 'stopped', cost_total_usd: 1.5, budget_usd: 1 });
    await box.set(ref, { budget_usd: 3 });
    await box.to(ref, 'classifying', undefined, 'person');
  });
});

