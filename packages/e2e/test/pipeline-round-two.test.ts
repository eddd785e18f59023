import { readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { pipelineCalls, pipelineSandbox } from './pipeline-sandbox.js';
import type { Sandbox } from './sandbox.js';

// The pipeline's second round end to end (real tmux, worktrees, CLI and the scripted headless
// agent): a task the classifier is unsure of asks its questions and goes on once they are
// answered; a run that ends while a cancel holds the task is still paid for.

const here = dirname(fileURLToPath(import.meta.url));

let box: Sandbox | undefined;
afterEach(async () => {
  await box?.cleanup();
  box = undefined;
});

const calls = pipelineCalls;

describe('pipeline, round two', () => {
  it('asks the classifier questions of a person (TASK.md, task show, the move), and classifies again with the answer', async () => {
    box = await pipelineSandbox({
      classify: [
        { intent: 'bugfix', confidence: 0.3, questions: ['Which page drops the password?', 'Which browser?'] },
        { intent: 'bugfix', confidence: 0.9 },
      ],
    });
    const id = await box.createTask(['login/fix', 'fix the login']);
    await box.waitForStatus(id, 'awaiting_clarification', 60_000);
    const shown = await box.orange(['task', 'show', id]);
    expect(shown.stdout).toContain('## Questions\n\nAsked (round 1):\n1. Which page drops the password?\n2. Which browser?');
    const moved = (await box.history(id)).find((e) => e.type === 'status.changed' && e.to === 'awaiting_clarification');
    expect(moved?.reason).toBe(`confidence 0.30 < 0.60; answer with orange task clarify ${id} "…": 1. Which page drops the password? 2. Which browser?`);

    const clarified = await box.orange(['task', 'clarify', id, 'the sign-in page, in Firefox']);
    expect(clarified.code, clarified.stderr).toBe(0);
    await box.waitForStatus(id, 'completed', 60_000);
    // The second classification saw the questions and the answer.
    const classifications = (await calls(box)).filter((c) => c.phase === 'classify');
    expect(classifications).toHaveLength(2);
    expect(classifications[1]?.prompt).toContain('Asked (round 1):\n1. Which page drops the password?\n2. Which browser?\nAnswered: the sign-in page, in Firefox');
  }, 180_000);

  it('counts the cost of a run that ends while a cancel holds the task: in the ledger, the total and the report', async () => {
    // A plugin that, as a person's cancel takes the task, lets the phase finish and waits until
    // the run's output is written: the driver then has the cost in hand and the lock held against it.
    const release = join('/tmp', `orange-cancel-race-${process.pid}-${Date.now()}`);
    onTestFinished(() => rm(release, { force: true }));
    const plugin = join(here, 'cancel-race-plugin.mjs');
    box = await pipelineSandbox(
      { classify: [{ intent: 'bugfix', confidence: 0.9, cost: 0.01 }], fix: [{ cost: 0.5, waitFor: release }] },
      { imports: [`import { cancelRace } from ${JSON.stringify(plugin)};`], plugins: [`cancelRace(${JSON.stringify({ release })})`] },
    );
    const id = await box.createTask(['race/cancel', 'fix the race']);
    const b = box;
    await b.waitFor('the fix phase to be running', async () => (await calls(b)).some((c) => c.phase === 'fix'), 60_000);
    const cancelled = await b.orange(['task', 'cancel', id, '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain('Cost so far: $0.5100 of a $5.00 budget');
    const task = await b.task(id);
    expect(task.meta.status).toBe('stopped');
    expect(task.meta.cost_total_usd).toBeCloseTo(0.51);
    const runs = (await b.history(id)).filter((e) => e.type === 'pipeline.run').map((e) => `${e.phase} ${e.cost_usd}`);
    expect(runs).toEqual(['classify 0.01', 'fix 0.5']);
    expect((await readdir(join(b.paths.taskDir('demo', id), 'runs'))).filter((f) => f.endsWith('.receipt.json'))).toEqual([]);
  }, 180_000);
});
