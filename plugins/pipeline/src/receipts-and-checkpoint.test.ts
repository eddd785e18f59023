import { readFile } from 'node:fs/promises';
import { definePlugin, parseSections, type TaskRef } from '@orange/core';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineBox, type PipelineBox } from '../test/pipeline-box.js';
import { checkpointPath } from './checkpoint.js';
import { runPipeline } from './driver.js';
import { clarifyTask } from './operator.js';
import { writeReceipt } from './run-receipts.js';

let box: PipelineBox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const runsOf = async (b: PipelineBox, ref: TaskRef) => (await b.orange.store.history(ref.project, ref.id)).filter((e) => e.type === 'pipeline.run');

describe('every cent counted: run receipts', () => {
  it("folds a receipt a killed driver left into the ledger and the cost when the cancel's stop_pipeline runs, once", async () => {
    box = await pipelineBox();
    const ref = await box.executing();
    const before = (await box.meta(ref)).cost_total_usd as number;
    // The run ended and wrote its receipt; its driver was killed waiting for the lock the cancel held.
    await writeReceipt(box.orange, ref, { run: 'r1', phase: 'fix', tier: 'small', ok: true, cost_usd: 0.25, log: 'runs/r1.log' });
    await box.to(ref, 'stopped', 'cancelled', 'person');
    expect((await box.meta(ref)).cost_total_usd).toBeCloseTo(before + 0.25);
    expect(await runsOf(box, ref)).toMatchObject([{ run: 'r1', phase: 'fix', cost_usd: 0.25, ok: true }]);
    // Folded once: the receipt is gone, and a receipt of a run already in the ledger adds nothing.
    await writeReceipt(box.orange, ref, { run: 'r1', phase: 'fix', tier: 'small', ok: true, cost_usd: 0.25, log: 'runs/r1.log' });
    await box.to(ref, 'executing', 'resume', 'person');
    await box.to(ref, 'stopped', 'cancelled', 'person');
    expect((await box.meta(ref)).cost_total_usd).toBeCloseTo(before + 0.25);
    expect(await runsOf(box, ref)).toHaveLength(1);
  });

  it('folds a left receipt when a driver starts again, before it decides anything (the budget sees it)', async () => {
    box = await pipelineBox({ budgetUsd: 1 });
    const ref = await box.executing();
    await box.set(ref, { budget_usd: 1 });
    await writeReceipt(box.orange, ref, { run: 'r2', phase: 'fix', tier: 'small', ok: false, cost_usd: 2, log: 'runs/r2.log' });
    await runPipeline(box.orange, ref);
    const meta = await box.meta(ref);
    expect(meta.status).toBe('stopped');
    expect(meta.cost_total_usd).toBeCloseTo(2);
    expect(String(meta.stop_reason)).toMatch(/^budget exceeded/);
  });
});

describe('the checkpoint in the move itself', () => {
  it("says the new status while the move's actions still run", async () => {
    let seen = '';
    const spy = definePlugin({
      name: 'checkpoint-spy',
      apply(orange) {
        orange.hooks.actions.for('spawn_agent').tapPromise('checkpoint-spy', async (ctx) => {
          seen = (JSON.parse(await readFile(checkpointPath(orange.paths, ctx.task.meta), 'utf8')) as { state: string }).state;
        });
      },
    });
    box = await pipelineBox({}, {}, [spy]);
    const ref = await box.task();
    await box.to(ref, 'classifying');
    expect(seen).toBe('classifying');
  });
});

describe('clarification questions', () => {
  it('writes the classifier questions to ## Questions, says them in the notification, and takes the answer under them', async () => {
    box = await pipelineBox({ intents: { bugfix: { phases: ['fix'] } } }, { classify: [{ data: { intent: 'bugfix', confidence: 0.3, questions: ['Which page?', 'Which browser?'] } }] });
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await runPipeline(box.orange, ref);
    await box.orange.notifications.settle();
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(task.meta.status).toBe('awaiting_clarification');
    expect(parseSections(task.body).get('Questions')?.trim()).toBe('Asked (round 1):\n1. Which page?\n2. Which browser?');
    const notice = box.notified.find((n) => n.to === 'awaiting_clarification');
    expect(notice?.reason).toBe(`confidence 0.30 < 0.60; answer with orange task clarify ${ref.id} "…": 1. Which page? 2. Which browser?`);
    await clarifyTask(box.orange, ref, 'the login page, in Firefox');
    const clarified = await box.orange.store.read(ref.project, ref.id);
    expect(clarified.meta.status).toBe('classifying');
    expect(parseSections(clarified.body).get('Questions')?.trim()).toBe('Asked (round 1):\n1. Which page?\n2. Which browser?\nAnswered: the login page, in Firefox');
    expect(parseSections(clarified.body).get('Context')).toContain('Clarification: the login page, in Firefox');
  });

  it('asks what it was unsure of when the classifier gave no question', async () => {
    box = await pipelineBox({ intents: { bugfix: { phases: ['fix'] } } }, { classify: [{ data: { intent: 'bugfix', confidence: 0.2 } }] });
    const ref = await box.task();
    await box.to(ref, 'classifying');
    await runPipeline(box.orange, ref);
    const task = await box.orange.store.read(ref.project, ref.id);
    expect(parseSections(task.body).get('Questions')?.trim()).toBe('Asked (round 1):\n1. What should this task do, and what would tell whether it is a bugfix? (The classifier asked nothing specific.)');
  });
});
